"""A crawl of real Office files leaves no copy of a document where other users can read it:
nothing of ours appears in the shared temp folder while it runs, Tika spools into the server's
private folder (0700), and that folder is gone once the server closes."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

from pylucene_mcp import Index
from pylucene_mcp.crawler import tika_process
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings


def _ours_in_shared_temp(before: set[str]) -> list[str]:
    shared = Path(tempfile.gettempdir())
    found = []
    for entry in shared.iterdir():
        if entry.name in before:
            continue
        try:
            owner = entry.lstat().st_uid
        except OSError:
            continue
        if owner == os.getuid() and ("tika" in entry.name or "pylucene-mcp" in entry.name):
            found.append(entry.name)
    return found


def test_a_crawl_of_office_files_spools_nowhere_shared(
    fresh_index: Index, corpus_files: dict[str, Path | None], tmp_path: Path
) -> None:
    docs = next(p for p in corpus_files.values() if p is not None).parent
    office = [p for p in docs.rglob("*") if p.suffix in (".docx", ".pptx", ".xlsx", ".odt")]
    assert len(office) >= 3, "the corpus has no Office files: the test proves nothing"
    before = {entry.name for entry in Path(tempfile.gettempdir()).iterdir()}
    server = TikaProcess(TikaSettings(), log_dir=tmp_path / "logs")
    seen: list[str] = []
    modes: set[int] = set()

    def look(done: int, total: int) -> None:
        seen.extend(_ours_in_shared_temp(before))
        spool = tika_process.spool_folder()
        modes.add(stat.S_IMODE(spool.stat().st_mode))

    try:
        crawler = Crawler(fresh_index, Extractor(server), CrawlSettings(batch_size=5))
        report = crawler.crawl([str(docs)], progress=look)
        assert report.added >= len(office)
        folder = tika_process.config_folder()
    finally:
        server.close()
    assert seen == [] and _ours_in_shared_temp(before) == []
    assert modes == {0o700}
    # gone with its last server (another Tika server of this test session may still use it)
    assert not folder.exists() or tika_process.folder_users(folder) > 0
