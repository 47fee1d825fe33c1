"""A file is read within a memory bound, and one that failed is not tried at every start.

Issue: one 90 MB text file (under the 100 MB limit) took the server to 4.4 GB, out of memory
with a 2 GB heap, and the crawl at each start hit it again. The text kept of a file is capped
(``max_content_chars``: its start is indexed, the rest cut, the log says so), and a file that
failed is not extracted again until it changes (or a full crawl asks), across restarts
(``bench/big_file.py`` measures the memory)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from pylucene_mcp import Index
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.failures import NOT_AGAIN
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings


def test_a_big_text_is_cut_at_max_content_chars_and_indexed(
    fresh_index: Index, tmp_path: Path
) -> None:
    folder = tmp_path / "big"
    folder.mkdir()
    words = [f"w{n:06}" for n in range(40_000)]  # 40,000 words of 8 characters: 320,000
    (folder / "big.txt").write_text("openingword " + " ".join(words) + " closingword\n")
    server = TikaProcess(TikaSettings(max_content_chars=100_000))
    try:
        report = Crawler(fresh_index, Extractor(server), CrawlSettings()).crawl([str(folder)])
    finally:
        server.close()
    assert (report.added, report.failed) == (1, 0)
    assert fresh_index.search("openingword").total_hits == 1
    assert fresh_index.search("closingword").total_hits == 0  # past the cut
    hit = fresh_index.search("openingword").documents[0]
    details = fresh_index.document_details(hit.file_path, length=10)
    assert 90_000 <= details.content_length <= 100_000, details.content_length


class _Counting(Extractor):
    def __init__(self, server: TikaProcess) -> None:
        super().__init__(server)
        self.tried: list[str] = []

    def extract(self, path: Path, *args: Any) -> Any:
        self.tried.append(path.name)
        return super().extract(path, *args)


def test_a_failed_file_is_not_tried_again_until_it_changes(
    tmp_path: Path, tika: TikaProcess
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "broken.pdf").write_bytes(b"%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF")
    (folder / "fine.txt").write_text("a fine note about puffins")
    failures = tmp_path / "state" / "failed.json"

    def crawl(full: bool = False) -> tuple[Any, list[str]]:
        # a new index handle and crawler each time: as after a restart
        index = Index.open(tmp_path / "index")
        try:
            extractor = _Counting(tika)
            crawler = Crawler(index, extractor, CrawlSettings(failures_file=failures))
            return crawler.crawl([str(folder)], full=full), extractor.tried
        finally:
            index.close()

    first, tried = crawl()
    assert tried == ["broken.pdf", "fine.txt"] and first.failed == 1
    reason = first.failures[0]["reason"]
    assert "corrupt" in reason
    again, tried = crawl()
    assert tried == []  # neither the indexed file nor the failed one is read
    assert again.failed == 1 and again.failures[0]["reason"] == f"{reason} ({NOT_AGAIN})"
    os.utime(folder / "broken.pdf", ns=(1_700_000_000_000_000_000,) * 2)  # it changed
    changed, tried = crawl()
    assert tried == ["broken.pdf"] and changed.failed == 1
    full, tried = crawl(full=True)
    assert sorted(tried) == ["broken.pdf", "fine.txt"]
    (folder / "broken.pdf").write_text("now a text file about gannets", encoding="utf-8")
    fixed, tried = crawl()
    assert tried == ["broken.pdf"] and (fixed.added, fixed.updated, fixed.failed) == (1, 0, 0)
    (folder / "broken.pdf").unlink()
    crawl()
    assert failures.read_text() == "{}"  # nothing kept of a file that is gone


def test_files_that_met_no_tika_are_tried_again_by_the_next_crawl(
    tmp_path: Path, tika: TikaProcess
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(6):
        (folder / f"page{n}.html").write_text(f"<p>page {n} about kittiwakes</p>")
    failures = tmp_path / "state" / "failed.json"
    # a Tika that dies while it starts (its JVM cannot have the heap: as an OOM kill at start)
    dying = TikaProcess(TikaSettings(heap="1m"), log_dir=tmp_path / "tika-logs")
    index = Index.open(tmp_path / "index")
    try:
        first = Crawler(index, Extractor(dying), CrawlSettings(failures_file=failures))
        report = first.crawl([str(folder)])
        assert report.failed == 6 and all("start-up" in f["reason"] for f in report.failures)
        # none of the files is to blame: none is kept as failed
        assert not failures.exists() or json.loads(failures.read_text()) == {}
        again = Crawler(index, Extractor(tika), CrawlSettings(failures_file=failures))
        report = again.crawl([str(folder)])
        assert (report.added, report.failed) == (6, 0)
        assert index.search("kittiwakes").total_hits == 6
    finally:
        dying.close()
        index.close()
