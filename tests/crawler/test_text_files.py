"""A file whose name says text is its own text: read as UTF-8 when its bytes are, never a
parser's guess (issue: "§4.1" in a UTF-8 file was indexed as the Thai "ยง4.1", a "|" table as
CSV, a man page as a PSF sound file with no text, HTML snippets as a web page); other bytes go
to Tika. And ``created_date`` is what docs/crawler.md says."""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from pylucene_mcp import Index
from pylucene_mcp.basics import portable
from pylucene_mcp.crawler.pipeline import Crawler

FILES = {
    "law.txt": "Nach §4.1 der Satzung gilt die Frist.\n",
    "table.txt": "| name | size |\n|------|------|\n| otter | 12 |\n| heron | 7 |\n",
    "psfaddtable.1.txt": "PSFADDTABLE(1)  General Commands Manual\n\nNAME\n"
    "psfaddtable - add a Unicode character table to a console font\n",
    "snippets.txt": "Use <b>bold</b> and <script>alert(1)</script> sparingly.\n",
    "notes.md": "# Notes\n\nThe *kittiwake* nests on cliffs: § 12.\n",
    "bom.txt": "\ufeffA note with a byte-order mark about puffins.\n",
}


def details(index: Index, name: str) -> Any:
    hit = index.search(f'file_name:"{name}"').documents[0]
    return index.document_details(hit.file_path)


def test_text_files_are_their_own_utf8_text(crawler: Crawler, tmp_path: Path) -> None:
    folder = tmp_path / "texts"
    folder.mkdir()
    for name, text in FILES.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "latin1.txt").write_bytes("Ein Caf\xe9 am Fluss.\n".encode("latin-1"))
    # a Windows text: its curly quotes and dashes are C1 controls in ISO-8859-1, Tika's guess
    windows = "Er sagte \u201eja\u201c \u2013 und ging \u2026 f\xfcr 5 \u20ac.\n"
    (folder / "windows.txt").write_bytes(windows.encode("cp1252"))
    (folder / "empty.txt").write_bytes(b"")
    report = crawler.crawl([str(folder)])
    assert (report.added, report.failed) == (len(FILES) + 3, 0)
    # as written (NFKC writes the ellipsis as three dots, as for every text)
    said = details(index := crawler.index, "windows.txt").content
    assert said == windows.strip().replace("\u2026", "...")
    assert details(index, "empty.txt").fields["file_type"] == "text/plain"
    index = crawler.index
    law = details(index, "law.txt")
    assert "§4.1" in law.content and "ยง" not in law.content
    assert law.fields["file_type"] == "text/plain"
    table = details(index, "table.txt")
    assert "| otter | 12 |" in table.content and table.fields["file_type"] == "text/plain"
    assert index.search("psfaddtable").total_hits == 1  # its words find it
    assert details(index, "psfaddtable.1.txt").fields["file_type"] == "text/plain"
    assert "<script>alert(1)</script>" in details(index, "snippets.txt").content
    markdown = details(index, "notes.md")
    assert (
        markdown.content.startswith("# Notes") and markdown.fields["file_type"] == "text/markdown"
    )
    assert details(index, "bom.txt").content.startswith("A note")
    assert "Café" in details(index, "latin1.txt").content  # not UTF-8: Tika reads it


def test_created_date_is_the_birth_time_where_there_is_one(
    crawler: Crawler, tmp_path: Path
) -> None:
    folder = tmp_path / "dated"
    folder.mkdir()
    note = folder / "note.txt"
    note.write_text("a dated note about gannets")
    os.utime(note, ns=(1_600_000_000_000_000_000,) * 2)
    crawler.crawl([str(folder)])
    fields = details(crawler.index, "note.txt").fields
    if portable.birth_time_ms(os.stat(note)) is None:  # Linux: no birth time, the mtime
        assert fields["created_date"] == fields["modified_date"]
    # where each system keeps it
    stat: Any = SimpleNamespace(st_ctime=5.0, st_mtime=9.0)
    assert portable.birth_time_ms(stat, system="linux") is None  # ctime: the inode's change
    assert portable.birth_time_ms(stat, system="win32") == 5000  # creation time there
    stat.st_birthtime = 3.0
    assert portable.birth_time_ms(stat, system="darwin") == 3000


def test_modified_date_is_the_files_and_the_documents_own_dates_stand_beside_it(
    crawler: Crawler, tmp_path: Path
) -> None:
    """ "My contracts from 2024" missed a contract written in 2024 from a 2013 template: the
    index's modified_date was the metadata's. Now it is the file's (what a person means), and
    the document's own dates are document_modified and document_created."""
    import datetime as dt
    import email.message

    import docx as python_docx

    folder = tmp_path / "contracts"
    folder.mkdir()
    document = python_docx.Document()
    document.core_properties.created = dt.datetime(2013, 12, 20, 9, 0)
    document.core_properties.modified = dt.datetime(2013, 12, 23, 9, 0)
    document.add_paragraph("Mietvertrag für die Wohnung in der Gartenstraße 7.")
    contract = folder / "contract.docx"
    document.save(str(contract))
    june_2024 = int(dt.datetime(2024, 6, 10, 12, tzinfo=dt.UTC).timestamp())
    os.utime(contract, (june_2024, june_2024))
    mail = email.message.EmailMessage()
    mail["From"], mail["To"], mail["Subject"] = "anna@example.com", "me@example.com", "Miete"
    mail["Date"] = "Tue, 05 Mar 2019 08:30:00 +0000"
    mail.set_content("Die Miete für März ist überwiesen.")
    (folder / "miete.eml").write_bytes(mail.as_bytes())  # copied in 2024: its date is 2019's
    os.utime(folder / "miete.eml", (june_2024, june_2024))
    crawler.crawl([str(folder)])
    fields = details(crawler.index, "contract.docx").fields
    assert fields["modified_date"] == "2024-06-10T12:00:00Z"
    assert fields["document_modified"] == "2013-12-23T09:00:00Z"
    assert fields["document_created"] == "2013-12-20T09:00:00Z"
    in_2024 = [{"field": "modified_date", "operator": "range", "from": "2024-01-01"}]
    found = crawler.index.search("*", filters=in_2024, max_passages=0)
    assert {h.file_name for h in found.documents} == {"contract.docx"}
    assert details(crawler.index, "miete.eml").fields["modified_date"] == "2019-03-05T08:30:00Z"
