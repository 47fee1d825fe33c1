"""Live updates through watchdog: debounced, coalesced, through the crawl pipeline."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from pylucene_mcp.crawler.pipeline import Crawler
from pylucene_mcp.crawler.walk import Patterns
from pylucene_mcp.crawler.watch import Watcher
from tests.waiting import eventually


@pytest.fixture
def watched(crawler: Crawler, tmp_path: Path) -> Iterator[tuple[Crawler, Watcher, Path]]:
    folder = tmp_path / "live"
    folder.mkdir()
    (folder / "start.txt").write_text("initial document about herons")
    crawler.crawl([str(folder)])
    watcher = Watcher(crawler, [str(folder)], Patterns(), debounce_s=0.5)
    watcher.start()
    yield crawler, watcher, folder
    watcher.stop()


def hits(crawler: Crawler, query: str) -> int:
    crawler.index.refresh()
    return crawler.index.search(query).total_hits


def test_created_modified_deleted_and_renamed_files_follow(
    watched: tuple[Crawler, Watcher, Path],
) -> None:
    crawler, watcher, folder = watched
    assert crawler.status.value == "WATCHING"
    (folder / "new.txt").write_text("a new file about cormorants")
    assert eventually(lambda: hits(crawler, "cormorants") == 1)
    (folder / "new.txt").write_text("the file now speaks of pelicans")
    assert eventually(lambda: hits(crawler, "pelicans") == 1 and hits(crawler, "cormorants") == 0)
    (folder / "new.txt").rename(folder / "renamed.txt")
    assert eventually(lambda: hits(crawler, "file_name:renamed.txt") == 1)
    assert hits(crawler, "file_name:new.txt") == 0
    (folder / "renamed.txt").unlink()
    assert eventually(lambda: hits(crawler, "pelicans") == 0)
    sub = folder / "sub"
    sub.mkdir()
    (sub / "inner.md").write_text("# inner notes on grebes")
    assert eventually(lambda: hits(crawler, "grebes") == 1)
    (folder / "ignored.bin").write_bytes(b"grebes")  # not an included type
    (folder / ".hidden.txt").write_text("grebes")  # hidden
    outside = folder.parent / "outside.txt"
    outside.write_text("grebes from outside")
    (folder / "link.txt").symlink_to(outside)  # leads outside the watched folder
    (folder / "sentinel.txt").write_text("kestrels")  # after the others: when it is in, they were
    assert eventually(lambda: hits(crawler, "kestrels") == 1)
    assert hits(crawler, "grebes") == 1


def test_five_quick_saves_make_one_extraction_and_one_commit(
    watched: tuple[Crawler, Watcher, Path],
) -> None:
    crawler, watcher, folder = watched
    batches = watcher.batches
    target = folder / "draft.txt"
    for n in range(5):
        target.write_text(f"draft version {n} about swifts")
        time.sleep(0.05)  # the saves come 50 ms apart (the scenario, not a wait for anything)
    assert eventually(lambda: hits(crawler, "swifts") == 1)
    (folder / "sentinel.txt").write_text("kestrels")  # a later event: its own batch
    assert eventually(lambda: hits(crawler, "kestrels") == 1)
    # the outcome is recorded just after the commit that made the sentinel searchable
    assert eventually(lambda: watcher.last_outcome == {str(folder / "sentinel.txt"): "added"})
    assert watcher.batches == batches + 2  # the five saves were one batch
    assert crawler.index.search('"version 4"').total_hits == 1
