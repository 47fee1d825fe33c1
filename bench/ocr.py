"""OCR through the crawler, against the PDFs' own text: word recall and precision per page, the
seconds a page takes, and the crawl rate of text documents with and without scans beside them.

    python bench/ocr.py [--pages 8] [--text-docs 300] [--rounds 2]

The pages come from real PDFs nobody here wrote: the Debian Reference in English and German
(debian-reference-en, -de; ``scripts/ensure-bench-corpora`` installs them and poppler-utils). A
page is chosen when its text layer has at least 1,200 characters, evenly over the book. Each is
rendered to an image by poppler's ``pdftoppm`` (grey) at 150 and 300 dpi, and at 300 dpi as a
phone's photo (turned by 1.2 degrees, 0.5 % of its pixels random specks); the images are crawled
by the crawler with OCR (Tesseract, ``eng+deu``) and the text the index then holds is compared
with the page's text layer as poppler's ``pdftotext`` reads it (the oracle: neither Tika nor
Tesseract): recall is the share of the page's words (lowercased, as a multiset) that the
recognised text has, precision the share of the recognised words that the page has.

The crawl rate: ``--text-docs`` HTML pages of the Python documentation (python3.11-doc) crawled
alone, then with the rendered scans beside them, ``--rounds`` times each, alternately; the rate
is of the text documents, from the crawl's start to its end (OCR runs after it).
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts the checkout first on the path)

from pylucene_mcp import Index
from pylucene_mcp.crawler import ocr, tesseract
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import OcrSettings, TikaProcess, TikaSettings

BOOKS = {
    "en": Path("/usr/share/debian-reference/debian-reference.en.pdf"),
    "de": Path("/usr/share/debian-reference/debian-reference.de.pdf"),
}
PYTHON_DOCS = Path("/usr/share/doc/python3.11/html/library")
MIN_CHARS = 1200
_WORD = re.compile(r"\w+")


def page_texts(pdf: Path) -> list[str]:
    """The text layer of each page of ``pdf``, as poppler reads it (pages end with a form feed)."""
    text = subprocess.run(
        ["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True, text=True
    ).stdout
    return text.split("\f")


def chosen(texts: list[str], count: int) -> list[int]:
    """``count`` page numbers (from 1) of pages with at least :data:`MIN_CHARS` characters,
    evenly over the book."""
    full = [n + 1 for n, t in enumerate(texts) if len(t.strip()) >= MIN_CHARS]
    step = max(1, len(full) // count)
    return full[step // 2 :: step][:count]


def render(pdf: Path, page: int, dpi: int, out: Path, phone: bool, seed: int) -> Path:
    """Page ``page`` of ``pdf`` as a grey PNG at ``dpi``; as a phone's photo: turned, specked."""
    prefix = out.with_suffix("")
    subprocess.run(
        ["pdftoppm", "-f", str(page), "-l", str(page), "-r", str(dpi), "-gray", "-png",
         "-singlefile", str(pdf), str(prefix)],
        check=True,
    )  # fmt: skip
    made = prefix.with_suffix(".png")
    if phone:
        from PIL import Image

        image = Image.open(made).rotate(1.2, fillcolor=255, resample=Image.Resampling.BICUBIC)
        chance = random.Random(seed)
        pixels = image.load()
        width, height = image.size
        for _ in range(int(width * height * 0.005)):
            pixels[chance.randrange(width), chance.randrange(height)] = chance.choice((0, 90, 170))
        image.save(made, dpi=(dpi, dpi))
    return made


def words(text: str) -> collections.Counter[str]:
    return collections.Counter(w.lower() for w in _WORD.findall(text))


def recall_precision(truth: str, found: str) -> tuple[float, float]:
    expected, got = words(truth), words(found)
    shared = sum((expected & got).values())
    return shared / max(1, sum(expected.values())), shared / max(1, sum(got.values()))


def crawler(index: Index, text: TikaProcess, reader: TikaProcess | None) -> Crawler:
    made = Crawler(index, Extractor(text), CrawlSettings(batch_size=100))
    if reader is not None:
        made.ocr = ocr.OcrWorker(
            index,
            Extractor(text),
            Extractor(reader),
            ocr.OcrQueue(),
            max_pages=50,
            busy=lambda: made.current is not None,
        )
    return made


def accuracy(args: argparse.Namespace, work: Path, text: TikaProcess, reader: TikaProcess) -> None:
    print(f"{'book':4} {'scan':12} {'pages':>5} {'recall':>7} {'min':>6} {'precision':>9} "
          f"{'s/page':>7}")  # fmt: skip
    for lang, pdf in BOOKS.items():
        texts = page_texts(pdf)
        pages = chosen(texts, args.pages)
        for dpi, phone in ((150, False), (300, False), (300, True)):
            kind = f"{dpi} dpi" + (" phone" if phone else "")
            folder = work / f"{lang}-{dpi}-{'phone' if phone else 'flat'}"
            folder.mkdir()
            truth = {}
            for page in pages:
                made = render(pdf, page, dpi, folder / f"p{page:04}.png", phone, page)
                truth[str(made)] = texts[page - 1]
            index = Index.open(work / f"index-{folder.name}")
            crawling = crawler(index, text, reader)
            crawling.crawl([str(folder)])
            assert crawling.ocr is not None
            started = time.perf_counter()
            crawling.ocr.wait_idle()
            seconds = time.perf_counter() - started
            scores = [
                recall_precision(expected, index.stored_document(path).content)
                for path, expected in truth.items()
            ]
            index.close()
            recalls = [r for r, _ in scores]
            print(
                f"{lang:4} {kind:12} {len(scores):5} {statistics.mean(recalls):7.3f} "
                f"{min(recalls):6.3f} {statistics.mean(p for _, p in scores):9.3f} "
                f"{seconds / len(scores):7.1f}",
                flush=True,
            )


def crawl_rate(
    args: argparse.Namespace, work: Path, text: TikaProcess, reader: TikaProcess
) -> None:
    docs = work / "rate" / "docs"
    docs.mkdir(parents=True)
    for source in sorted(PYTHON_DOCS.glob("*.html"))[: args.text_docs]:
        (docs / source.name).write_bytes(source.read_bytes())
    scans = work / "rate" / "scans"
    scans.mkdir()
    texts = page_texts(BOOKS["en"])
    for page in chosen(texts, 12):
        render(BOOKS["en"], page, 300, scans / f"scan{page:04}.png", False, page)
    both = work / "rate" / "both"
    for source in (docs, scans):
        (both / source.name).mkdir(parents=True)
        for file in source.iterdir():
            (both / source.name / file.name).write_bytes(file.read_bytes())
    print(f"\ncrawl rate of {args.text_docs} text documents (files/s), OCR after the crawl:")
    rates: dict[str, list[float]] = {"alone": [], "with 12 scans beside them": []}
    for round_ in range(args.rounds):
        for label, folder in (("alone", docs), ("with 12 scans beside them", both)):
            index = Index.open(work / f"rate-index-{round_}-{label[:5]}")
            crawling = crawler(index, text, reader)
            report = crawling.crawl([str(folder)])
            seconds = (report.finished or time.time()) - report.started
            rates[label].append(args.text_docs / seconds)
            if crawling.ocr is not None:
                crawling.ocr.wait_idle()
            index.close()
    for label, values in rates.items():
        shown = ", ".join(f"{v:.1f}" for v in values)
        print(f"  {label:26} {statistics.mean(values):6.1f}  ({shown})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=8)
    parser.add_argument("--text-docs", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    program = tesseract.find_tesseract()
    if program is None:
        raise SystemExit("Tesseract is not installed: scripts/ensure-tesseract")
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        text = TikaProcess(TikaSettings(), log_dir=work / "logs")
        reader = TikaProcess(
            TikaSettings(ocr=OcrSettings("eng+deu", 120, 300, Path(program).parent)),
            log_dir=work / "logs",
        )
        try:
            accuracy(args, work, text, reader)
            crawl_rate(args, work, text, reader)
        finally:
            text.close()
            reader.close()


if __name__ == "__main__":
    main()
