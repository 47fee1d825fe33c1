"""Real files of each main kind, made by real writers (reportlab, python-docx, openpyxl,
python-pptx, odfpy, the email package), in English and German, plus the hostile ones."""

from __future__ import annotations

import os
import zipfile
from email.message import EmailMessage
from pathlib import Path

DEJAVU = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
LONG_PDF_PAGES = 30
LONG_PDF_NEEDLE = "Zebrafinkenschwarm"


def pdf(
    path: Path,
    pages: list[str],
    *,
    title: str,
    author: str,
    font: str = "Helvetica",
    encrypt: str | None = None,
    leading: int = 16,
) -> Path:
    """A PDF of ``pages``, a line drawn for each line of their text, ``leading`` points apart
    (13 for 11-point type: PDFBox reads the lines as one paragraph; 16: each its own)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    kwargs = {"encrypt": encrypt} if encrypt else {}
    c = canvas.Canvas(str(path), pagesize=A4, **kwargs)  # type: ignore[arg-type]
    c.setTitle(title)
    c.setAuthor(author)
    for text in pages:
        c.setFont(font, 11)
        y = 780
        for line in text.split("\n"):
            c.drawString(60, y, line)
            y -= leading
        c.showPage()
    c.save()
    return path


def long_pdf(path: Path) -> Path:
    pages = [
        f"Seite {n}: Allgemeine Bestimmungen zur Lagerhaltung und Inventur.\n"
        "Die Regale werden jeden Montag geprüft und die Bestände gezählt."
        for n in range(1, LONG_PDF_PAGES)
    ]
    pages.append(f"Schlussbemerkung: ein {LONG_PDF_NEEDLE} wurde im Lager gesichtet.")
    return pdf(path, pages, title="Lagerhandbuch", author="Greta Lager")


def ligature_pdf(path: Path) -> Path | None:
    """A PDF whose text is written with the U+FB01/U+FB03 ligature glyphs (DejaVu has them)."""
    if not DEJAVU.is_file():
        return None
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont("DejaVuSans", str(DEJAVU)))
    return pdf(
        path,
        ["The \ufb01nance team reviewed the e\ufb03ciency of the o\ufb03ce budget."],
        title="Finance review",
        author="Fiona Fisher",
        font="DejaVuSans",
    )


def docx(path: Path) -> Path:
    import docx as python_docx

    document = python_docx.Document()
    document.core_properties.title = "Kündigungsschreiben"
    document.core_properties.author = "Jürgen Weiß"
    document.core_properties.keywords = "Kündigung, Mietvertrag"
    document.add_heading("Kündigung des Mietvertrags", level=1)
    document.add_paragraph(
        "Sehr geehrte Damen und Herren, hiermit kündige ich den Mietvertrag für die Wohnung in "
        "der Gartenstraße 7 fristgerecht zum nächstmöglichen Termin."
    )
    document.save(str(path))
    return path


def xlsx(path: Path) -> Path:
    import openpyxl

    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "Budget"
    sheet.append(["Item", "Amount"])
    sheet.append(["Consulting invoice", 4200])
    sheet.append(["Hosting invoice", 1300])
    workbook.properties.creator = "Chen Wei"
    workbook.properties.title = "Budget 2024"
    workbook.save(str(path))
    return path


def pptx(path: Path) -> Path:
    from pptx import Presentation

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[1])
    slide.shapes.title.text = "Quarterly roadmap"
    slide.placeholders[1].text = "Milestones: search prototype, crawler, passages for agents"
    deck.core_properties.author = "Anna Schmidt"
    deck.save(str(path))
    return path


def odt(path: Path) -> Path:
    from odf.opendocument import OpenDocumentText
    from odf.text import P

    document = OpenDocumentText()
    document.text.addElement(
        P(text="Protokoll der Sitzung: Der Haushaltsplan wurde einstimmig angenommen.")
    )
    document.save(str(path))
    return path


def eml(path: Path) -> Path:
    message = EmailMessage()
    message["From"] = "Bob Jones <bob@example.com>"
    message["To"] = "anna@example.com"
    message["Subject"] = "Signed contract attached"
    message["Date"] = "Tue, 05 Mar 2024 10:00:00 +0000"
    message.set_content("Hi Anna, the signed contract with Globex is attached. Regards, Bob")
    message.add_attachment(
        b"Attachment text: termination notice period of ninety days.",
        maintype="text",
        subtype="plain",
        filename="notice.txt",
    )
    path.write_bytes(bytes(message))
    return path


def rtf(path: Path) -> Path:
    path.write_text(
        r"{\rtf1\ansi{\fonttbl\f0\fswiss Helvetica;}\f0\pard "
        r"Rich text memo about the warehouse inventory and the annual audit.\par}",
        encoding="ascii",
    )
    return path


def epub(path: Path) -> Path:
    with zipfile.ZipFile(path, "w") as book:
        book.writestr(zipfile.ZipInfo("mimetype"), "application/epub+zip")
        book.writestr(
            "META-INF/container.xml",
            '<?xml version="1.0"?><container version="1.0" '
            'xmlns="urn:oasis:names:tc:opendocument:xmlns:container"><rootfiles>'
            '<rootfile full-path="content.opf" media-type="application/oebps-package+xml"/>'
            "</rootfiles></container>",
        )
        book.writestr(
            "content.opf",
            '<?xml version="1.0"?><package xmlns="http://www.idpf.org/2007/opf" version="2.0" '
            'unique-identifier="id"><metadata xmlns:dc="http://purl.org/dc/elements/1.1/">'
            "<dc:title>The Lighthouse Keeper</dc:title><dc:creator>Ada Byron</dc:creator>"
            '<dc:identifier id="id">x</dc:identifier></metadata><manifest>'
            '<item id="c1" href="c1.xhtml" media-type="application/xhtml+xml"/></manifest>'
            '<spine><itemref idref="c1"/></spine></package>',
        )
        book.writestr(
            "c1.xhtml",
            '<html xmlns="http://www.w3.org/1999/xhtml"><body><p>The lighthouse keeper '
            "polished the great lens every evening.</p></body></html>",
        )
    return path


def make_corpus(folder: Path) -> dict[str, Path | None]:
    """Every regular kind of file, in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    sub = folder / "sub" / "deeper"
    sub.mkdir(parents=True)
    files: dict[str, Path | None] = {
        "pdf": pdf(
            folder / "vertrag.pdf",
            ["Arbeitsvertrag zwischen Herrn Müller und der Firma.", "Zweite Seite: Vergütung."],
            title="Arbeitsvertrag Müller",
            author="Anna Schmidt",
        ),
        "long_pdf": long_pdf(folder / "lagerhandbuch.pdf"),
        "ligature_pdf": ligature_pdf(folder / "finance-review.pdf"),
        "docx": docx(folder / "kuendigung.docx"),
        "xlsx": xlsx(folder / "budget.xlsx"),
        "pptx": pptx(folder / "roadmap.pptx"),
        "odt": odt(sub / "protokoll.odt"),
        "eml": eml(folder / "contract-mail.eml"),
        "rtf": rtf(folder / "memo.rtf"),
        "epub": epub(folder / "lighthouse.epub"),
    }
    (folder / "notes.md").write_text("# Notes\n\nThe quokka enclosure needs a new fence.\n")
    (folder / "page.html").write_text(
        "<html><head><title>Opening hours</title></head><body><p>The library opens at nine."
        "</p><script>var ignored = 1;</script></body></html>"
    )
    (folder / "data.xml").write_text("<catalog><book>Gödel, Escher, Bach</book></catalog>")
    (folder / "readme.txt").write_text("Plain text about the Straße and the Käse shop.")
    (folder / "ignored.bin").write_bytes(os.urandom(64))  # not an included extension
    (folder / ".hidden").mkdir()
    (folder / ".hidden" / "secret.txt").write_text("hidden folders are skipped")
    (folder / "node_modules").mkdir()
    (folder / "node_modules" / "lib.txt").write_text("skipped too")
    files.update(
        notes=folder / "notes.md",
        html=folder / "page.html",
        xml=folder / "data.xml",
        txt=folder / "readme.txt",
    )
    return files


#: The files make_corpus creates that the crawler must index (not .bin, .hidden, node_modules).
def expected_keys(files: dict[str, Path | None]) -> set[str]:
    return {str(p.absolute()) for p in files.values() if p is not None}


def make_hostile(folder: Path) -> dict[str, str]:
    """The files that must be reported (or indexed where they can be) without stopping a crawl.
    Returns name → what is expected of it."""
    folder.mkdir(parents=True, exist_ok=True)
    pdf(
        folder / "encrypted.pdf",
        ["Secret salary table"],
        title="Secret",
        author="HR",
        encrypt="s3cret-password",
    )
    (folder / "corrupt.pdf").write_bytes(
        b"%PDF-1.7\n1 0 obj << /Type /Catalog >>\nthis is not a pdf"
    )
    (folder / "empty.txt").write_bytes(b"")
    (folder / "lying.pdf").write_text("This is plain text that calls itself a PDF.")
    (folder / "huge.txt").write_text("big file " * 20_000)  # 180 kB, over a 0.1 MB limit
    os.mkfifo(folder / "pipe.txt")
    (folder / "loop").mkdir()
    os.symlink("..", folder / "loop" / "back")
    os.symlink(folder / "missing-target.txt", folder / "dangling.txt")
    outside = folder.parent / "outside-secret.txt"
    outside.write_text("a secret outside the configured folder")
    os.symlink(outside, folder / "escape.txt")
    os.symlink(folder.parent, folder / "escape-dir")
    latin1_name = os.fsencode(folder) + b"/caf\xe9-menu.txt"
    with open(latin1_name, "wb") as handle:
        handle.write(b"Menu of the cafe: espresso and croissant.")
    return {
        "encrypted.pdf": "failed",
        "corrupt.pdf": "failed",
        "empty.txt": "indexed",
        "lying.pdf": "indexed",
        "huge.txt": "failed",
        "pipe.txt": "failed",
        "dangling.txt": "failed",
        "escape.txt": "failed",
        "escape-dir": "failed",
        "caf\\xe9-menu.txt": "indexed",
    }
