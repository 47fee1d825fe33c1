"""OCR of scans and photos: real Tesseract through real Tika, on scans made here of text we know
(the oracle is the text drawn, never what the code read)."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from pylucene_mcp import Index
from pylucene_mcp.basics import schema
from pylucene_mcp.crawler import ocr, tesseract
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import OcrSettings, TikaProcess, TikaSettings
from pylucene_mcp.crawler.walk import FileEntry
from tests.crawler.files import pdf
from tests.crawler.scans import has_umlauts, mixed_pdf, scan_pdf, scan_png

LETTER = [
    "Rental contract between Anna Schmidt and the city of Leipzig.",
    "The tenant pays the monthly rent of 850 euros before the third working day.",
    "Either party may terminate this agreement with three months notice.",
]
BRIEF = [
    "Sehr geehrte Frau Schmidt, wir bestätigen den Eingang Ihrer Steuererklärung.",
    "Die Prüfung der Unterlagen für das Jahr 2025 ist abgeschlossen.",
    "Bitte überweisen Sie den Betrag bis zum fünfzehnten Oktober.",
]
TYPED = "Page one has a text layer about invoices and payments."


def _tesseract() -> str:
    program = tesseract.find_tesseract()
    if program is None:
        if os.environ.get("PYLUCENE_MCP_REQUIRE_TESSERACT"):
            pytest.fail("Tesseract is required here (scripts/ensure-tesseract installs it)")
        pytest.skip("Tesseract is not installed (scripts/ensure-tesseract)")
    return program


@pytest.fixture(scope="module")
def ocr_tika(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TikaProcess]:
    program = _tesseract()
    settings = TikaSettings(ocr=OcrSettings("eng+deu", 60, 300, Path(program).parent))
    server = TikaProcess(settings, log_dir=tmp_path_factory.mktemp("ocr-logs"))
    yield server
    server.close()


def _words(text: str) -> str:
    return " ".join(text.split())


def test_the_text_pass_counts_the_pages_only_ocr_can_read_and_reads_none(
    tika: TikaProcess, tmp_path: Path
) -> None:
    extractor = Extractor(tika)
    mixed = extractor.extract(mixed_pdf(tmp_path / "contract.pdf", TYPED, LETTER))
    assert mixed.ocr_pages == 1
    assert len(mixed.page_offsets) == 2
    assert TYPED in mixed.content and "Rental" not in mixed.content
    photo = extractor.extract(scan_png(tmp_path / "letter.png", LETTER))
    assert (photo.ocr_pages, photo.content, photo.file_type) == (1, "", "image/png")
    typed = extractor.extract(
        pdf(tmp_path / "typed.pdf", ["A typed page.", "Another one."], title="T", author="A")
    )
    assert typed.ocr_pages == 0 and typed.content


def test_ocr_writes_each_page_s_text_at_its_page_and_keeps_a_text_layer(
    ocr_tika: TikaProcess, tmp_path: Path
) -> None:
    extracted = Extractor(ocr_tika).extract(mixed_pdf(tmp_path / "contract.pdf", TYPED, LETTER))
    first, second = extracted.page_offsets
    assert extracted.ocr_pages == 1
    assert TYPED in extracted.content[first:second]
    recognised = _words(extracted.content[second:])
    for line in LETTER:
        assert line in recognised
    photo = Extractor(ocr_tika).extract(scan_png(tmp_path / "letter.png", LETTER, angle=0.7))
    assert photo.ocr_pages == 1
    assert "monthly rent of 850 euros" in _words(photo.content)


@pytest.mark.skipif(not has_umlauts(), reason="no font with German letters to draw the scan")
def test_a_german_scan_is_read_with_its_umlauts(ocr_tika: TikaProcess, tmp_path: Path) -> None:
    extracted = Extractor(ocr_tika).extract(scan_pdf(tmp_path / "bescheid.pdf", [BRIEF]))
    recognised = _words(extracted.content)
    for line in BRIEF:
        assert line in recognised


class Held:
    """A crawl that holds OCR back until released: what a person sees in between."""

    def __init__(self) -> None:
        self.released = threading.Event()

    def __call__(self) -> bool:
        return not self.released.is_set()


def _crawler(
    index: Index, tika: TikaProcess, ocr_tika: TikaProcess, queue: Path, busy: Held
) -> Crawler:
    crawler = Crawler(index, Extractor(tika), CrawlSettings(batch_size=5))
    crawler.ocr = ocr.OcrWorker(
        index, Extractor(tika), Extractor(ocr_tika), ocr.OcrQueue(queue), max_pages=20, busy=busy
    )
    return crawler


def test_a_scanned_letter_is_found_by_a_phrase_from_its_body_with_its_page(
    fresh_index: Index, tika: TikaProcess, ocr_tika: TikaProcess, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "notes.txt").write_text("Notes about the garden and the monthly water bill.\n")
    mixed_pdf(folder / "contract.pdf", TYPED, LETTER, angle=0.5, noise=0.002)
    scan_png(folder / "receipt.png", ["Receipt number 4711 for one espresso machine."])
    held = Held()
    crawler = _crawler(fresh_index, tika, ocr_tika, tmp_path / "queue.json", held)
    report = crawler.crawl([str(folder)])
    assert (report.added, report.failed) == (3, 0)

    # before OCR: the text documents are searchable; the scans by their name and own text,
    # and they say that their recognised text is still to come
    assert fresh_index.search("garden").total_hits == 1
    assert fresh_index.search('"monthly rent of 850 euros"').total_hits == 0
    pending = fresh_index.search("file_name:contract").documents[0]
    assert pending.ocr == schema.OCR_PENDING
    assert fresh_index.search("invoices").documents[0].ocr == schema.OCR_PENDING
    assert crawler.ocr is not None
    assert (crawler.ocr.queue.documents, crawler.ocr.queue.pages) == (2, 2)
    assert json.loads((tmp_path / "queue.json").read_text())["waiting"]
    contract = str(folder / "contract.pdf")
    why = fresh_index.explain_miss('"monthly rent of 850 euros"', contract)
    assert why.reasons[0].kind == "ocr" and "waiting for OCR" in why.reasons[0].detail

    # who may read it changes meanwhile (a chmod the watcher saw): OCR must not undo that
    with fresh_index.writer() as writer:
        writer.set_readers(contract, ("user:anna",))

    held.released.set()
    assert crawler.ocr.wait_idle(600), "OCR did not finish"
    assert fresh_index.file_states_of([contract])[contract].readers == ("user:anna",)
    found = fresh_index.search('"monthly rent of 850 euros"')
    assert found.total_hits == 1
    hit = found.documents[0]
    assert hit.file_path.endswith("contract.pdf")
    assert hit.ocr is True
    assert [p.page for p in hit.passages] == [2]
    typed = fresh_index.search("invoices").documents[0]  # the text layer's page kept
    assert typed.ocr is True and [p.page for p in typed.passages] == [1]
    assert fresh_index.search('"espresso machine"').documents[0].ocr is True
    assert fresh_index.search("garden").documents[0].ocr is None
    counts = {f.value: f.count for f in fresh_index.search("*").facets["ocr"]}
    assert counts == {"true": 2}
    why = fresh_index.explain_miss('"monthly rent of 580 euros"', contract)
    assert why.reasons[0].kind == "ocr" and "recognition errors" in why.reasons[0].detail
    assert fresh_index.explain_miss('"monthly rent"', contract).matches_query
    assert crawler.ocr.progress.documents_done == 2
    assert crawler.ocr.queue.documents == 0


def test_without_tesseract_a_scan_is_indexed_as_needing_ocr_and_the_reason_says_what_to_do(
    fresh_index: Index, tika: TikaProcess, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    scan_png(folder / "receipt.png", ["Receipt number 4711 for one espresso machine."])
    crawler = Crawler(fresh_index, Extractor(tika), CrawlSettings())
    missing = tesseract.availability("auto", "eng+deu", str(tmp_path / "no-tesseract-here"))
    assert not missing.on and "apt-get install tesseract-ocr tesseract-ocr-eng" in str(
        missing.reason
    )
    crawler.ocr_off = str(missing.reason)
    assert crawler.crawl([str(folder)]).added == 1
    hit = fresh_index.search("file_name:receipt").documents[0]
    assert hit.ocr == schema.OCR_NEEDED
    counts = {f.value: f.count for f in fresh_index.search("*").facets["ocr"]}
    assert counts == {"needed": 1}


def test_scans_indexed_without_tesseract_are_recognised_once_it_is_there(
    fresh_index: Index, tika: TikaProcess, ocr_tika: TikaProcess, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    scan_png(folder / "receipt.png", ["Receipt number 4711 for one espresso machine."])
    crawler = Crawler(fresh_index, Extractor(tika), CrawlSettings())
    assert crawler.crawl([str(folder)]).added == 1  # no OCR then
    assert fresh_index.search("file_name:receipt").documents[0].ocr == schema.OCR_NEEDED
    worker = ocr.OcrWorker(
        fresh_index, Extractor(tika), Extractor(ocr_tika), ocr.OcrQueue(), max_pages=5
    )
    assert worker.adopt([str(tmp_path / "elsewhere")]) == 0
    assert worker.adopt([str(folder)]) == 1
    assert worker.wait_idle(300)
    hit = fresh_index.search('"espresso machine"').documents[0]
    assert (hit.file_name, hit.ocr) == ("receipt.png", True)


def test_ocr_off_by_setting_says_so() -> None:
    assert tesseract.availability("off", "eng").reason == "OCR is off (the setting ocr: off)"


def _entry(key: str, size: int) -> FileEntry:
    return FileEntry(key, key, "/docs", size, 1_700_000_000_000, (1, size), ("*",), False)


def test_the_queue_gives_the_smallest_first_survives_a_restart_and_forgets_a_folder(
    tmp_path: Path,
) -> None:
    path = tmp_path / "state" / "ocr-queue.json"
    queue = ocr.OcrQueue(path)
    queue.add(_entry("/docs/big.pdf", 9_000_000), 40)
    queue.add(_entry("/docs/a/photo.png", 3_000_000), 1)
    queue.add(_entry("/docs/a/small.png", 200_000), 1)
    queue.add(_entry("/docs/b/two.pdf", 100), 2)
    assert (queue.documents, queue.pages) == (4, 44)
    first = queue.next()
    assert first is not None and first.entry.key == "/docs/a/small.png"
    queue.done("/docs/a/small.png", (200_000, 1, "parsing took longer than 1800 s"))

    again = ocr.OcrQueue(path)  # a restart
    order = []
    while (waiting := again.next()) is not None:
        order.append(waiting.entry.key)
        again.done(waiting.entry.key)
    assert order == ["/docs/a/photo.png", "/docs/b/two.pdf", "/docs/big.pdf"]
    assert again.failed == {"/docs/a/small.png": (200_000, 1, "parsing took longer than 1800 s")}
    restored = ocr.OcrQueue(path).failed
    assert restored == again.failed

    queue = ocr.OcrQueue(path)
    queue.add(_entry("/docs/a/x.png", 1), 1)
    queue.add(_entry("/docs/ab.png", 1), 1)
    queue.forget(["/docs/a"])
    assert queue.next() is not None and queue.documents == 1 and not queue.failed
    assert ocr.OcrQueue(path).next().entry.key == "/docs/ab.png"  # type: ignore[union-attr]


def test_an_unreadable_queue_is_set_aside_not_fatal(tmp_path: Path) -> None:
    path = tmp_path / "ocr-queue.json"
    path.write_text("{not json")
    assert ocr.OcrQueue(path).documents == 0


@pytest.mark.parametrize(
    ("system", "environ", "present", "expected"),
    [
        (
            "win32",
            {"ProgramFiles": r"C:\Program Files", "PATH": ""},
            r"C:\Program Files\Tesseract-OCR\tesseract.exe",
            r"C:\Program Files\Tesseract-OCR\tesseract.exe",
        ),
        (
            "win32",
            {"LOCALAPPDATA": r"C:\Users\anna\AppData\Local", "PATH": ""},
            r"C:\Users\anna\AppData\Local\Programs\Tesseract-OCR\tesseract.exe",
            r"C:\Users\anna\AppData\Local\Programs\Tesseract-OCR\tesseract.exe",
        ),
        ("darwin", {"PATH": "/usr/bin"}, "/opt/homebrew/bin/tesseract",
         "/opt/homebrew/bin/tesseract"),
        ("darwin", {"PATH": "/usr/bin"}, "/elsewhere/tesseract", None),
        ("linux", {"PATH": ""}, "/usr/bin/tesseract", "/usr/bin/tesseract"),
    ],
)  # fmt: skip
def test_tesseract_is_found_where_each_system_s_installer_puts_it(
    system: str, environ: dict[str, str], present: str, expected: str | None
) -> None:
    found = tesseract.find_tesseract(
        system=system,
        environ=environ,
        is_file=lambda path: path == present,
        which=lambda name, path=None: None,
    )
    assert found == expected


def test_a_configured_tesseract_is_the_program_or_its_folder() -> None:
    present = r"D:\Tools\OCR\tesseract.exe"
    kwargs = {"system": "win32", "environ": {}, "is_file": lambda p: p == present}
    assert tesseract.find_tesseract(r"D:\Tools\OCR", **kwargs) == present  # type: ignore[arg-type]
    assert tesseract.find_tesseract(present, **kwargs) == present  # type: ignore[arg-type]
    assert tesseract.find_tesseract(r"D:\Nothing", **kwargs) is None  # type: ignore[arg-type]


def test_the_install_hint_names_each_system_s_way() -> None:
    assert "brew install tesseract tesseract-lang" in tesseract.install_hint(
        ["eng", "deu"], "darwin"
    )
    assert "brew install tesseract" in tesseract.install_hint(["eng"], "darwin")
    windows = tesseract.install_hint(["eng", "deu"], "win32")
    assert "UB-Mannheim" in windows and r"C:\Program Files\Tesseract-OCR" in windows
    linux = tesseract.install_hint(["eng", "deu"], "linux")
    assert "tesseract-ocr-deu" in linux and "tesseract-langpack-deu" in linux
    assert tesseract.languages_of("eng+deu, fra") == ["eng", "deu", "fra"]


def test_a_scan_changed_before_its_ocr_is_read_as_it_is_now(
    fresh_index: Index, tika: TikaProcess, ocr_tika: TikaProcess, tmp_path: Path
) -> None:
    """The worker never writes what a file held before it changed: the queued version is
    dropped, and the watcher's pass over the new one queues that."""
    folder = tmp_path / "docs"
    folder.mkdir()
    receipt = scan_png(folder / "receipt.png", ["Receipt number 4711 for one espresso machine."])
    held = Held()
    crawler = _crawler(fresh_index, tika, ocr_tika, tmp_path / "queue.json", held)
    assert crawler.crawl([str(folder)]).added == 1
    scan_png(receipt, ["Invoice number 815 for two garden chairs."])  # replaced meanwhile
    os.utime(receipt, ns=(1_800_000_000_000_000_000, 1_800_000_000_000_000_000))
    held.released.set()
    assert crawler.ocr is not None and crawler.ocr.wait_idle(300)
    assert crawler.ocr.progress.documents_done == 0  # the old version was not recognised
    assert fresh_index.search('"espresso machine"').total_hits == 0
    assert fresh_index.search("file_name:receipt").documents[0].ocr == schema.OCR_PENDING
    # the same text (none) as before: "skipped" by the text's hash, queued again all the same
    outcome = crawler.process_paths([str(receipt)], [str(folder)], crawler.settings.patterns)
    assert list(outcome) == [str(receipt)]
    assert crawler.ocr.wait_idle(300)
    hit = fresh_index.search('"garden chairs"').documents[0]
    assert (hit.file_name, hit.ocr) == ("receipt.png", True)
    assert fresh_index.search('"espresso machine"').total_hits == 0


def test_a_scan_over_the_page_limit_is_failed_with_its_reason_and_keeps_its_metadata(
    fresh_index: Index, tika: TikaProcess, ocr_tika: TikaProcess, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    scan_pdf(folder / "long.pdf", [["Page one."], ["Page two."], ["Page three."]], dpi=100)
    crawler = Crawler(fresh_index, Extractor(tika), CrawlSettings())
    crawler.ocr = ocr.OcrWorker(
        fresh_index, Extractor(tika), Extractor(ocr_tika), ocr.OcrQueue(), max_pages=2
    )
    assert crawler.crawl([str(folder)]).added == 1
    assert crawler.ocr.wait_idle(300)
    (key, reason), *_ = crawler.ocr.progress.failures
    assert key == str(folder / "long.pdf")
    assert reason == "3 pages without text, over the limit of 2 (ocr_max_pages)"
    assert crawler.ocr.queue.failed[key][2] == reason
    hit = fresh_index.search("file_name:long").documents[0]
    assert hit.ocr == schema.OCR_FAILED
    why = fresh_index.explain_miss('"page two"', key)
    assert (
        why.reasons[0].kind == "ocr" and "OCR of its scanned pages failed" in why.reasons[0].detail
    )


def test_a_typed_pdf_with_a_blank_page_says_nothing_of_ocr_once_read(
    fresh_index: Index, tika: TikaProcess, ocr_tika: TikaProcess, tmp_path: Path
) -> None:
    """A blank page has no text either: it is read by OCR (nothing tells it from a scan before),
    which finds nothing, and the document is not said to hold recognised text."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    folder = tmp_path / "docs"
    folder.mkdir()
    pdf = canvas.Canvas(str(folder / "report.pdf"), pagesize=A4)
    pdf.drawString(72, 750, "A typed report about quarterly figures and their causes.")
    pdf.showPage()
    pdf.showPage()  # left blank
    pdf.save()
    crawler = Crawler(fresh_index, Extractor(tika), CrawlSettings())
    crawler.ocr = ocr.OcrWorker(
        fresh_index, Extractor(tika), Extractor(ocr_tika), ocr.OcrQueue(), max_pages=5
    )
    assert crawler.crawl([str(folder)]).added == 1
    assert fresh_index.search("quarterly").documents[0].ocr == schema.OCR_PENDING
    assert crawler.ocr.wait_idle(300)
    hit = fresh_index.search("quarterly").documents[0]
    assert hit.ocr is None and [p.page for p in hit.passages] == [1]
    assert crawler.ocr.progress.documents_done == 1
