"""``pylucene-mcp serve`` with configured directories, over real stdio: it crawls on start,
watches, reindexes by itself after a schema change, and sends MCP progress notifications."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import Index
from pylucene_mcp.basics import schema
from tests.stdio_peer import StdioPeer, handshake
from tests.waiting import until

pytestmark = pytest.mark.slow


def wait_for(peer: StdioPeer, status: str, timeout: float = 120) -> dict[str, Any]:
    seen: list[dict[str, Any]] = []

    def reached() -> bool:
        answer = peer.request("tools/call", {"name": "getCrawlerStatus", "arguments": {}})
        seen.append(answer["result"]["structuredContent"])
        return bool(seen[-1]["status"] == status)

    until(reached, timeout, f"crawler status {status}")
    return seen[-1]


def test_serve_crawls_watches_reindexes_and_reports_progress(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    for n in range(6):
        (folder / f"letter{n}.txt").write_text(f"letter {n} about puffins and gannets")
    # an index left by an older schema version: the server must rebuild it by itself
    index_path = tmp_path / "index"
    old = Index.open(index_path)
    old._commit_schema_version = 1
    with old.writer() as writer:
        writer.add({"file_path": str(folder / "letter0.txt"), "content": "stale text"})
    old.close()

    peer = StdioPeer(
        index_path, tmp_path / "home", extra_env={"PYLUCENE_MCP_DIRECTORIES": str(folder)}
    )
    try:
        handshake(peer, "2025-11-25")
        wait_for(peer, "WATCHING")
        stats = peer.request("tools/call", {"name": "getIndexStats", "arguments": {}})
        data = stats["result"]["structuredContent"]
        assert data["schemaVersion"] == schema.SCHEMA_VERSION and data["needsReindex"] is False
        assert data["documentCount"] == 6
        search = peer.request("tools/call", {"name": "search", "arguments": {"query": "puffins"}})
        assert search["result"]["structuredContent"]["totalHits"] == 6

        (folder / "letter9.txt").write_text("a late letter about skuas")

        def skuas() -> int:
            found = peer.request("tools/call", {"name": "search", "arguments": {"query": "skuas"}})
            return int(found["result"]["structuredContent"]["totalHits"])

        until(lambda: skuas() == 1, 30, "the watcher's indexing of the new file")

        before = len(peer.lines)
        answer = peer.request(
            "tools/call",
            {
                "name": "startCrawl",
                "arguments": {"fullReindex": True},
                "_meta": {"progressToken": "crawl-1"},
            },
        )
        assert answer["result"]["structuredContent"]["report"]["updated"] == 7
        progress = [line for line in peer.lines[before:] if '"notifications/progress"' in line]
        assert progress and all('"crawl-1"' in line for line in progress)
        last = json.loads(progress[-1])["params"]
        assert last["progress"] == 8 == last["total"]  # 7 files, then the commit
        assert last["progressToken"] == "crawl-1" and last["message"].startswith("crawl finished")
    finally:
        peer.close()
    assert peer.proc.returncode == 0


def test_the_status_is_never_idle_while_a_crawl_waits_to_start(tmp_path: Path) -> None:
    """A client that polls getCrawlerStatus from the first moment and reads the index when it
    says IDLE or WATCHING finds every file: before the start-up crawl has begun, and while an
    added folder's crawl waits for it, the status is QUEUED."""
    first, second = tmp_path / "first", tmp_path / "second"
    for folder, count in ((first, 40), (second, 15)):
        folder.mkdir()
        for n in range(count):
            (folder / f"{folder.name}{n}.txt").write_text(f"note {n} about kittiwakes")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.yaml").write_text(json.dumps({"directories": [str(first)]}))
    peer = StdioPeer(tmp_path / "index", home)
    seen: list[str] = []
    try:
        handshake(peer, "2025-06-18")

        def status() -> str:
            answer = peer.request("tools/call", {"name": "getCrawlerStatus", "arguments": {}})
            seen.append(answer["result"]["structuredContent"]["status"])
            return seen[-1]

        def total() -> int:
            answer = peer.request(
                "tools/call", {"name": "search", "arguments": {"query": "kittiwakes"}}
            )
            return int(answer["result"]["structuredContent"]["totalHits"])

        until(lambda: status() in ("IDLE", "WATCHING"), 120, "the start-up crawl's end")
        assert total() == 40, seen
        added = peer.request(
            "tools/call",
            {"name": "addCrawlableDirectory", "arguments": {"path": str(second)}},
        )["result"]["structuredContent"]
        assert added["crawling"] is True
        until(lambda: status() in ("IDLE", "WATCHING"), 120, "the added folder's crawl")
        assert total() == 55, seen
    finally:
        peer.close()
    assert "QUEUED" in seen or "CRAWLING" in seen, seen
