"""Searches while a crawl writes: every search answers, none fails, and the hits only grow as
the crawl's commits become visible."""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

import pytest

from pylucene_mcp.crawler.pipeline import Crawler
from tests.conftest import FIGURES

pytestmark = pytest.mark.slow


def test_searches_during_a_crawl_all_answer_and_see_its_commits(
    crawler: Crawler, tmp_path: Path
) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(240):
        (folder / f"tide{n:03}.txt").write_text(f"tide table {n}: lighthouses and harbours")
    crawler.settings = replace(crawler.settings, batch_size=20)  # commits while searches run
    seen: dict[int, list[int]] = {0: [], 1: []}
    failures: list[BaseException] = []
    running = threading.Event()
    running.set()

    def searching(worker: int) -> None:
        while running.is_set():
            try:
                seen[worker].append(crawler.index.search("lighthouses", page_size=5).total_hits)
            except BaseException as exc:  # any failure is the finding
                failures.append(exc)
                return

    threads = [threading.Thread(target=searching, args=(w,)) for w in (0, 1)]
    crawler.start([str(folder)])
    for thread in threads:
        thread.start()
    assert crawler.wait(300)
    crawler.index.refresh()
    running.clear()
    for thread in threads:
        thread.join(60)
    assert not failures, failures
    for totals in seen.values():
        assert totals, "a searcher never got an answer"
        assert totals == sorted(totals)  # commits only add
    assert crawler.index.search("lighthouses").total_hits == 240
    searches = sum(len(t) for t in seen.values())
    distinct = len({t for totals in seen.values() for t in totals})
    FIGURES["searches during a crawl"] = (
        f"{searches} searches on 2 threads, 0 failed, {distinct} different totals seen"
    )
