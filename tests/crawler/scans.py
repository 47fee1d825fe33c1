"""Scans made here as a scanner or a phone makes them: text drawn on a page image at a given
resolution, turned a little, with specks of noise; saved as an image, as an image-only PDF, or
as a page of a PDF whose other pages have a text layer (reportlab)."""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

#: a font with German letters where the system has one (Pillow's own has no umlauts)
FONTS = (
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf",
)

A4_INCHES = (8.27, 11.69)


def font(size: int) -> Any:
    from PIL import ImageFont

    for candidate in FONTS:
        if Path(candidate).is_file():
            return ImageFont.truetype(candidate, size)
    return ImageFont.load_default(size=size)


def has_umlauts() -> bool:
    """Whether the scans can show German letters (a system font was found)."""
    return any(Path(candidate).is_file() for candidate in FONTS)


def page_image(
    lines: Sequence[str], dpi: int = 300, angle: float = 0.0, noise: float = 0.0, seed: int = 1
) -> Any:
    """An A4 page (grey) with ``lines`` in 11-point type, turned by ``angle`` degrees, with
    ``noise`` of its pixels set to random greys."""
    from PIL import Image, ImageDraw

    width, height = int(A4_INCHES[0] * dpi), int(A4_INCHES[1] * dpi)
    image = Image.new("L", (width, height), 255)
    draw = ImageDraw.Draw(image)
    face = font(int(dpi * 11 / 72))
    y = dpi
    for line in lines:
        draw.text((dpi, y), line, fill=15, font=face)
        y += int(dpi * 16 / 72)
    if angle:
        image = image.rotate(angle, fillcolor=255, resample=Image.Resampling.BICUBIC)
    if noise:
        rnd = random.Random(seed)
        pixels = image.load()
        for _ in range(int(width * height * noise)):
            pixels[rnd.randrange(width), rnd.randrange(height)] = rnd.choice((0, 80, 160, 255))
    return image


def scan_png(path: Path, lines: Sequence[str], **options: Any) -> Path:
    dpi = options.get("dpi", 300)
    page_image(lines, **options).save(path, dpi=(dpi, dpi))
    return path


def scan_pdf(path: Path, pages: Sequence[Sequence[str]], **options: Any) -> Path:
    """An image-only PDF: each page a scan, no text layer."""
    dpi = options.get("dpi", 300)
    images = [page_image(lines, **options).convert("RGB") for lines in pages]
    images[0].save(path, save_all=True, append_images=images[1:], resolution=dpi)
    return path


def mixed_pdf(path: Path, text: str, scanned: Sequence[str], **options: Any) -> Path:
    """A PDF whose first page has a text layer (``text``) and whose second is a scan of
    ``scanned``, as a signed page added to a typed contract."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    picture = scan_png(path.with_suffix(".page.png"), scanned, **options)
    pdf = canvas.Canvas(str(path), pagesize=A4)
    pdf.drawString(72, 750, text)
    pdf.showPage()
    pdf.drawImage(str(picture), 0, 0, width=A4[0], height=A4[1])
    pdf.showPage()
    pdf.save()
    picture.unlink()
    return path
