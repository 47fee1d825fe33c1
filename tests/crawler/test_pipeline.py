"""Crawling real files through a real Tika server into a real index."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import Index
from pylucene_mcp.crawler.pipeline import Crawler
from pylucene_mcp.crawler.report import CrawlReport
from tests.crawler.files import LONG_PDF_NEEDLE, LONG_PDF_PAGES, expected_keys


@pytest.fixture
def docs(tmp_path: Path, corpus_files: dict[str, Path | None]) -> Path:
    """A private copy of the corpus (tests change it)."""
    source = next(p for p in corpus_files.values() if p is not None).parent
    target = tmp_path / "docs"
    shutil.copytree(source, target, symlinks=True)
    return target


def keys(index: Index) -> set[str]:
    return {h.file_path for h in index.search("*", page_size=100).documents}


def counts(report: CrawlReport) -> dict[str, int]:
    return {k: getattr(report, k) for k in ("added", "updated", "skipped", "deleted", "failed")}


def hit(index: Index, query: str) -> dict[str, object]:
    (document,) = index.search(query).documents
    return {
        "name": Path(document.file_path).name,
        "title": document.title,
        "author": document.author,
        "language": document.language,
        "type": document.file_type,
        "pages": [p.page for p in document.passages],
        "text": " ".join(p.text for p in document.passages),
    }


def test_every_main_format_is_indexed_with_its_metadata(
    crawler: Crawler, docs: Path, corpus_files: dict[str, Path | None]
) -> None:
    report = crawler.crawl([str(docs)])
    expected = {
        k.replace(str(next(iter(corpus_files.values())).parent), str(docs))  # type: ignore[union-attr]
        for k in expected_keys(corpus_files)
    }
    assert keys(crawler.index) == expected
    assert report.failed == 0 and report.added == len(expected)

    pdf = hit(crawler.index, "Mueller")
    assert pdf == pdf | {
        "name": "vertrag.pdf",
        "title": "Arbeitsvertrag Müller",
        "author": "Anna Schmidt",
        "language": "de",
        "type": "application/pdf",
    }
    assert "<em>Müller</em>" in str(pdf["text"]) and pdf["pages"] == [1]
    assert hit(crawler.index, "Kündigung")["name"] == "kuendigung.docx"
    assert hit(crawler.index, "Kündigung")["author"] == "Jürgen Weiß"
    assert hit(crawler.index, "invoice")["name"] == "budget.xlsx"
    assert hit(crawler.index, "roadmap")["name"] == "roadmap.pptx"
    assert hit(crawler.index, "Haushaltsplan")["name"] == "protokoll.odt"
    assert hit(crawler.index, "warehouse")["name"] == "memo.rtf"
    assert hit(crawler.index, "lighthouse")["title"] == "The Lighthouse Keeper"
    assert hit(crawler.index, "quokka")["name"] == "notes.md"
    assert hit(crawler.index, "library")["title"] == "Opening hours"
    assert hit(crawler.index, "Gödel")["name"] == "data.xml"
    assert hit(crawler.index, "Kaese")["name"] == "readme.txt"
    mail = hit(crawler.index, "Globex")
    assert mail["title"] == "Signed contract attached" and mail["type"] == "message/rfc822"
    assert hit(crawler.index, "ninety")["name"] == "contract-mail.eml"  # the attachment's text
    assert (
        crawler.index.search("ignored OR hidden OR skipped", default_operator="OR").total_hits == 0
    )


def test_a_match_on_the_last_page_of_a_long_pdf_says_its_page(crawler: Crawler, docs: Path) -> None:
    crawler.crawl([str(docs)])
    found = hit(crawler.index, LONG_PDF_NEEDLE)
    assert found["name"] == "lagerhandbuch.pdf"
    assert found["pages"] == [LONG_PDF_PAGES]
    assert f"<em>{LONG_PDF_NEEDLE}</em>" in str(found["text"])


def test_ligatures_in_a_pdf_are_normalized(crawler: Crawler, docs: Path) -> None:
    if not (docs / "finance-review.pdf").exists():
        pytest.skip("no DejaVu font to write ligature glyphs with")
    crawler.crawl([str(docs)])
    found = hit(crawler.index, "finance AND efficiency AND office")
    assert found["name"] == "finance-review.pdf"
    from pylucene_mcp.engine.core.info import document_details

    content = document_details(crawler.index, str(docs / "finance-review.pdf")).content
    assert "\ufb01" not in content and "\ufb03" not in content and "finance" in content


def test_incremental_crawls_add_update_skip_and_delete(crawler: Crawler, docs: Path) -> None:
    first = crawler.crawl([str(docs)])
    total = first.added
    second = crawler.crawl([str(docs)])
    assert counts(second) == {"added": 0, "updated": 0, "skipped": total, "deleted": 0, "failed": 0}
    assert second.to_extract == 0  # size + mtime decided: nothing re-read

    (docs / "notes.md").write_text("# Notes\n\nThe wombat burrow is finished.\n")
    later = time.time() + 5
    os.utime(docs / "readme.txt", (later, later))  # touched: same text
    (docs / "memo.rtf").unlink()
    shutil.copy(docs / "page.html", docs / "page-copy.html")  # a duplicate
    third = crawler.crawl([str(docs)])
    assert counts(third) == {
        "added": 1,
        "updated": 1,
        "skipped": total - 2,
        "deleted": 1,
        "failed": 0,
    }
    assert third.to_extract == 3  # the changed, the touched and the new file
    assert crawler.index.search("wombat").total_hits == 1
    assert crawler.index.search("quokka").total_hits == 0
    assert crawler.index.search("warehouse").total_hits == 0

    fourth = crawler.crawl([str(docs)])
    assert fourth.to_extract == 0  # the touched file's new mtime was stored

    pages = crawler.index.search("library").documents
    assert len(pages) == 2
    digest = crawler.index.search("file_name:page.html").documents[0]
    from pylucene_mcp.engine.core.info import document_details

    hash_value = document_details(crawler.index, digest.file_path).fields["content_hash"]
    same = crawler.index.search("*", filters=[{"field": "content_hash", "value": hash_value}])
    assert {Path(h.file_path).name for h in same.documents} == {"page.html", "page-copy.html"}


def test_full_reindex_reextracts_everything(crawler: Crawler, docs: Path) -> None:
    first = crawler.crawl([str(docs)])
    full = crawler.crawl([str(docs)], full=True)
    assert full.to_extract == first.added and full.updated == first.added


def test_report_figures(crawler: Crawler, docs: Path, corpus_files: dict[str, Path | None]) -> None:
    """The report's figures against what the disk and the index hold, counted here: every
    file of the corpus found, each one's document added, and the bytes those files have on
    disk."""
    made = [p for p in corpus_files.values() if p is not None]
    on_disk = [docs / p.relative_to(made[0].parent) for p in made]
    report = crawler.crawl([str(docs)]).to_dict()
    indexed = keys(crawler.index)
    assert report["found"] == len(on_disk) == len(indexed) == report["added"]
    assert report["bytes"] == sum(p.stat().st_size for p in on_disk)
    assert report["per_directory"][str(docs)]["added"] == len(indexed)
    assert report["files_per_s"] > 0
    assert crawler.last is not None and crawler.current is None


def test_a_crawl_writes_a_batch_in_one_call_and_a_refused_document_fails_alone(
    crawler: Crawler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The crawl's batches (5 files here) reach Java in one call each, not one per document;
    a document the index refuses (a field the schema lacks, put in by this test) fails its
    file alone, said in the report, and the batch's other files are indexed."""
    from pylucene_mcp.crawler import writes
    from pylucene_mcp.engine.lucene.writer import Writer

    folder = tmp_path / "notes"
    folder.mkdir()
    for n in range(12):
        (folder / f"note{n:02}.txt").write_text(f"Note {n} about sandpipers.", encoding="utf-8")
    calls: list[int] = []
    original_rows = Writer._write_rows

    def counted(self: Writer, rows: list) -> int:  # type: ignore[type-arg]
        calls.append(len(rows))
        return original_rows(self, rows)

    monkeypatch.setattr(Writer, "_write_rows", counted)
    report = crawler.crawl([str(folder)])
    assert report.added == 12 and sum(calls) == 12
    assert len(calls) <= 3  # 12 files in batches of 5 (one call a document before)

    original_documents = writes.to_documents

    def one_refused(entry: Any, extracted: Any) -> list[dict[str, Any]]:
        docs = original_documents(entry, extracted)
        if entry.key.endswith("note07.txt"):
            docs[0]["no_such_field"] = "refused"
        return docs

    monkeypatch.setattr(writes, "to_documents", one_refused)
    for n in range(12):
        (folder / f"note{n:02}.txt").write_text(f"Note {n} about avocets.", encoding="utf-8")
    report = crawler.crawl([str(folder)])
    assert report.updated == 11 and report.failed == 1
    (failure,) = report.failures
    assert failure["path"].endswith("note07.txt") and "cannot index" in failure["reason"]
    assert "no_such_field" in failure["reason"]
    found = {
        Path(h.file_path).name for h in crawler.index.search("avocets", page_size=20).documents
    }
    assert found == {f"note{n:02}.txt" for n in range(12)} - {"note07.txt"}


def test_a_touched_file_is_not_rewritten_and_not_read_again(
    crawler: Crawler, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(3):
        (docs / f"note{n}.txt").write_text(f"note {n} about herons")
    crawler.crawl([str(docs)])
    with crawler.index.searcher() as searcher:
        max_doc = int(searcher.getIndexReader().maxDoc())
    later = time.time() + 100
    os.utime(docs / "note1.txt", (later, later))  # a touch: same text, same size

    touched = crawler.crawl([str(docs)])
    assert (touched.to_extract, touched.skipped, touched.updated) == (1, 3, 0)
    with crawler.index.searcher() as searcher:
        reader = searcher.getIndexReader()
        assert int(reader.maxDoc()) == max_doc  # no document was deleted and added again
        assert int(reader.numDeletedDocs()) == 0

    again = crawler.crawl([str(docs)])
    assert again.to_extract == 0  # the new mtime was recorded: nothing is read a third time
    assert crawler.index.search("herons").total_hits == 3


def test_an_author_given_twice_by_the_file_is_one_author(crawler: Crawler, tmp_path: Path) -> None:
    """An ODT file with both creator fields: Tika joins them into "Anna Schmidt, Anna Schmidt",
    which split the author facet; a name written "Schmidt, Anna" stays as it is."""
    from odf import dc, meta
    from odf.opendocument import OpenDocumentText
    from odf.text import P

    folder = tmp_path / "odt"
    folder.mkdir()
    for name, author in (("twice.odt", "Anna Schmidt"), ("reversed.odt", "Schmidt, Anna")):
        document = OpenDocumentText()
        document.meta.addElement(dc.Creator(text=author))
        document.meta.addElement(meta.InitialCreator(text=author))
        document.text.addElement(P(text="Protokoll der Sitzung."))
        document.save(str(folder / name))
    crawler.crawl([str(folder)])
    facets = crawler.index.search("*", max_passages=0).facets["author"]
    assert sorted((f.value, f.count) for f in facets) == [("Anna Schmidt", 1), ("Schmidt, Anna", 1)]


def test_a_person_is_one_author_with_or_without_the_address(
    crawler: Crawler, tmp_path: Path
) -> None:
    """An e-mail's sender comes as "Anna Schmidt <anna@example.com>", her slides as "Anna
    Schmidt": the author facet had listed her twice. A bare address stays an author."""
    from email.message import EmailMessage

    from tests.crawler.files import pptx

    folder = tmp_path / "person"
    folder.mkdir()
    pptx(folder / "roadmap.pptx")  # by "Anna Schmidt"
    for name, sender in (
        ("from-anna.eml", "Anna Schmidt <anna@example.com>"),
        ("quoted.eml", '"Schmidt, Anna" <anna.schmidt@example.com>'),
        ("bare.eml", "bob@example.com"),
    ):
        message = EmailMessage()
        message["From"] = sender
        message["To"] = "team@example.com"
        message["Subject"] = "Roadmap"
        message.set_content("The roadmap is attached.")
        (folder / name).write_bytes(bytes(message))
    report = crawler.crawl([str(folder)])
    assert report.failed == 0, report.failures
    facets = crawler.index.search("*", max_passages=0).facets["author"]
    assert sorted((f.value, f.count) for f in facets) == [
        ("Anna Schmidt", 2),
        ("Schmidt, Anna", 1),
        ("bob@example.com", 1),
    ]


def test_a_passage_is_the_whole_sentence_across_lines_dates_and_abbreviations(
    crawler: Crawler, tmp_path: Path
) -> None:
    """A PDF's lines are its layout's, a text file's may be wrapped at 72 columns, and "am 15."
    is a date: the passage had been the line, or the sentence cut at the ordinal."""
    from tests.crawler.files import pdf

    folder = tmp_path / "lines"
    folder.mkdir()
    pdf(
        folder / "mietvertrag.pdf",
        [
            "Der Mietvertrag wurde am 15. März 2024 von beiden Parteien\n"
            "unterschrieben und gilt ab dem 1. April. Die Kaution beträgt drei\n"
            "Monatsmieten, vgl. Anlage 2, und geht auf ein Treuhand-\n"
            "konto bei der Sparkasse."
        ],
        title="Mietvertrag",
        author="Greta Lager",
        leading=13,
    )
    (folder / "notes.txt").write_text(
        "The quokka enclosure was inspected by Dr. Hill on Monday and\n"
        "needs a new fence before the winter.\nSecond line stands alone.\n"
    )
    report = crawler.crawl([str(folder)])
    assert report.failed == 0, report.failures
    assert hit(crawler.index, "unterschrieben")["text"] == (
        "Der Mietvertrag wurde am 15. März 2024 von beiden Parteien <em>unterschrieben</em> und"
        " gilt ab dem 1. April."
    )
    # the word hyphenated at the line's end is one word again
    assert hit(crawler.index, "Treuhandkonto")["text"] == (
        "Die Kaution beträgt drei Monatsmieten, vgl. Anlage 2, und geht auf ein"
        " <em>Treuhandkonto</em> bei der Sparkasse."
    )
    assert hit(crawler.index, "fence")["text"] == (
        "The quokka enclosure was inspected by Dr. Hill on Monday and needs a new"
        " <em>fence</em> before the winter."
    )


def _mailbox(path: Path, messages: list[tuple[str, str, str]]) -> None:
    """An mbox file written by Python's mailbox module: (sender, subject, body) each."""
    import mailbox
    from email.message import EmailMessage

    box = mailbox.mbox(path)
    box.lock()
    box.clear()
    for day, (sender, subject, body) in enumerate(messages, start=1):
        message = EmailMessage()
        message["From"] = sender
        message["To"] = "me@example.com"
        message["Subject"] = subject
        message["Date"] = f"Mon, {day:02d} Jan 2024 10:00:00 +0000"
        message.set_content(body)
        if subject == "Report":
            message.add_attachment(
                b"The zebra count rose.", maintype="text", subtype="plain", filename="count.txt"
            )
        box.add(message)
    box.flush()
    box.unlock()
    box.close()


def test_each_message_of_a_mailbox_is_a_document_kept_in_step_with_the_file(
    crawler: Crawler, tmp_path: Path
) -> None:
    """An .mbox had been skipped without a word; its messages are documents now, as .eml files
    are, and the file's changes reach them all."""
    folder = tmp_path / "mail"
    folder.mkdir()
    box = folder / "inbox.mbox"
    messages = [
        ("Anna Schmidt <anna@example.com>", "Kaution", "Die Kaution wird am 15. März überwiesen."),
        ("bob@example.com", "Lunch", "From the kitchen: lunch at noon."),
        ("Carl <carl@example.com>", "Report", "The quarterly report is attached."),
    ]
    _mailbox(box, messages)
    report = crawler.crawl([str(folder)])
    assert report.failed == 0, report.failures
    assert keys(crawler.index) == {f"{box}/1", f"{box}/2", f"{box}/3"}
    assert hit(crawler.index, "zebra") == {
        "name": "3",
        "title": "Report",
        "author": "Carl",
        "language": "en",
        "type": "message/rfc822",
        "pages": [None],
        "text": "The <em>zebra</em> count rose.",
    }
    # the line that begins with "From " is as written, not as the mbox quotes it (">From ")
    assert hit(crawler.index, "kitchen")["text"] == "From the <em>kitchen</em>: lunch at noon."
    from pylucene_mcp.engine.core.info import document_details

    details = document_details(crawler.index, f"{box}/1")
    assert (details.fields["title"], details.content) == ("Kaution", messages[0][2])
    found = crawler.index.search("file_extension:mbox", max_passages=0)
    assert found.total_hits == 3
    assert {d.file_name for d in found.documents} == {"inbox.mbox"}

    again = crawler.crawl([str(folder)])
    assert counts(again) == {"added": 0, "updated": 0, "skipped": 1, "deleted": 0, "failed": 0}

    _mailbox(box, [messages[0], ("dora@example.com", "Dach", "Das Dach ist dicht.")])
    os.utime(box, ns=(time.time_ns(), time.time_ns() + 2_000_000_000))
    changed = crawler.crawl([str(folder)])
    assert changed.updated == 1 and changed.failed == 0
    assert keys(crawler.index) == {f"{box}/1", f"{box}/2"}  # the third message is gone
    assert hit(crawler.index, "dicht")["title"] == "Dach"
    assert crawler.index.search("zebra OR kitchen").total_hits == 0

    # the watcher's way: one file's change
    _mailbox(box, [messages[1]])
    outcome = crawler.process_paths([str(box)], [str(folder)], crawler.settings.patterns)
    assert outcome == {str(box): "updated"}
    assert keys(crawler.index) == {f"{box}/1"}
    assert hit(crawler.index, "kitchen")["title"] == "Lunch"

    box.unlink()
    gone = crawler.crawl([str(folder)])
    assert gone.deleted == 1 and keys(crawler.index) == set()


@pytest.mark.slow
def test_a_mailbox_larger_than_tikas_heap_is_read_message_by_message(
    fresh_index: Index, tmp_path: Path
) -> None:
    """4,000 messages ran a 24 MB Tika out of heap when parsed whole (0 indexed); read one
    message at a time, every one is a document, the last one too."""
    from pylucene_mcp.crawler.extract import Extractor
    from pylucene_mcp.crawler.pipeline import CrawlSettings
    from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings

    folder = tmp_path / "mail"
    folder.mkdir()
    box = folder / "archive.mbox"
    count = 4000
    _mailbox(
        box,
        [
            (
                f"sender{n}@example.org",
                f"note {n}",
                f"herring note {n}" + (" puffin" * (n == count)),
            )
            for n in range(1, count + 1)
        ],
    )
    small = TikaProcess(TikaSettings(heap="24m"), log_dir=tmp_path / "tika-logs")
    try:
        crawler = Crawler(fresh_index, Extractor(small), CrawlSettings(batch_size=5))
        report = crawler.crawl([str(folder)])
    finally:
        small.close()
    assert report.failed == 0, report.failures
    assert fresh_index.search("herring", max_passages=0).total_hits == count
    (last,) = fresh_index.search("puffin", max_passages=0).documents
    assert last.file_path == f"{box}/{count}"


def test_quotes_stand_where_tika_put_them_in_pdf_word_and_mail(
    crawler: Crawler, docs: Path
) -> None:
    """locateQuote over real files as Tika extracted them: a PDF's page, its words broken at
    a line's end and written with ligature glyphs, a Word letter's umlauts, an e-mail's body."""
    from tests.crawler.files import pdf

    pdf(
        docs / "board.pdf",
        ["Minutes of the board.", "The board confirmed its commit-\nment to the new warehouse."],
        title="Board minutes",
        author="Bo Board",
    )
    crawler.crawl([str(docs)])
    index = crawler.index

    def best(quote: str) -> tuple[str, str, int | None, str]:
        place = index.locate_quote(quote).matches[0]
        return Path(place.file_path).name, place.match, place.page, place.text

    name, kind, page, text = best("The board confirmed its commitment to the new warehouse")
    assert (name, kind, page) == ("board.pdf", "normalized", 2)
    assert "commit-" in text and text.endswith("warehouse")
    assert best(f"ein {LONG_PDF_NEEDLE} wurde im Lager gesichtet")[:3] == (
        "lagerhandbuch.pdf",
        "exact",
        LONG_PDF_PAGES,
    )
    umlauts = "kundige ich den Mietvertrag fur die Wohnung in der Gartenstrasse 7"
    assert best(umlauts)[:2] == ("kuendigung.docx", "normalized")
    assert best("the signed contract with Globex is attached")[:2] == ("contract-mail.eml", "exact")
    name, kind, _, _ = best("the signed agreement with Globex is attached")
    assert (name, kind) == ("contract-mail.eml", "near")


def test_a_mailbox_the_index_refuses_keeps_the_messages_it_had(
    crawler: Crawler, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A changed mailbox is written again whole: its old messages went first, in the same block
    as its new ones. When the index refused one of the new messages, the block still committed
    the deletion: the mailbox's messages were gone from the index until a later crawl. Now
    nothing of a refused file is written (its old documents stay) and the rest of the block
    is."""
    from pylucene_mcp.crawler import writes

    folder = tmp_path / "mail"
    folder.mkdir()
    box = folder / "inbox.mbox"
    note = folder / "note.txt"
    _mailbox(
        box, [("ann@example.org", "Terns", "terns nest here"), ("bo@example.org", "Gulls", "gulls")]
    )
    note.write_text("a note about eiders", encoding="utf-8")
    crawler.crawl([str(folder)])
    assert crawler.index.search("terns OR gulls", default_operator="OR").total_hits == 2

    original_documents = writes.to_documents

    def one_refused(entry: Any, extracted: Any) -> list[dict[str, Any]]:
        docs = original_documents(entry, extracted)
        if entry.key == str(box):
            docs[-1]["no_such_field"] = "refused"  # the new message
        return docs

    monkeypatch.setattr(writes, "to_documents", one_refused)
    _mailbox(
        box,
        [
            ("ann@example.org", "Terns", "terns nest here"),
            ("bo@example.org", "Gulls", "gulls"),
            ("cy@example.org", "Skuas", "skuas"),
        ],
    )
    note.write_text("a note about eiders and scoters", encoding="utf-8")
    report = crawler.crawl([str(folder)])
    assert report.failed == 1 and report.failures[0]["path"] == str(box)
    kept = crawler.index.search("terns OR gulls", default_operator="OR", max_passages=0)
    assert sorted(h.file_path for h in kept.documents) == [f"{box}/1", f"{box}/2"]
    assert crawler.index.search("skuas").total_hits == 0
    assert crawler.index.search("scoters").total_hits == 1  # the block's other file is in
