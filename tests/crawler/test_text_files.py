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
