"""Several servers on one index (docs/reliability.md, "Many servers, one index"): what a search
costs in a reader against the writer's own, and searches in readers while the writer crawls.

One ``serve`` crawls a first folder of text files (CACM abstracts joined, as ``scale.py``
writes them) and so writes the index; then one reader (and for the second part three) starts
on the same index. Measured through MCP over stdio, interleaved:

1. quiet: the same searches through the writer and through a reader, p50/p95 each, and the
   ratio;
2. a second folder added *through a reader* (the call is handed to the writer, which crawls it),
   while searches run through the reader and the writer: p50/p95, errors, and how long after
   the crawl's end the reader shows its last commit;
3. four servers (one writer, three readers): searches round-robin over all four while the writer
   crawls a third folder; errors and p50 per server.

    python bench/sharing.py [--files 1500] [--rounds 20]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from _common import ROOT, cacm_pages, joined_text, write_json

sys.path.insert(0, str(ROOT))
from tests.stdio_peer import StdioPeer, handshake

QUERIES = ["program", "algorithm AND language", '"programming language"', "comput*", "*tion"]


class Server:
    def __init__(self, index: Path, home: Path) -> None:
        self.peer = StdioPeer(index, home)
        handshake(self.peer, "2025-06-18")
        self.lock = threading.Lock()

    def call(self, tool: str, **arguments: Any) -> tuple[float, dict[str, Any]]:
        with self.lock:  # one request at a time on a peer's pipe
            started = time.perf_counter()
            reply = self.peer.request(
                "tools/call", {"name": tool, "arguments": arguments}, timeout=600
            )
            return (time.perf_counter() - started) * 1000, reply["result"]

    def total(self) -> int:
        return int(self.call("search", query="*", pageSize=1)[1]["structuredContent"]["totalHits"])


def write_folder(folder: Path, count: int, abstracts: list[str], seed: int) -> None:
    import random

    folder.mkdir(parents=True)
    rng = random.Random(seed)
    for n in range(count):
        (folder / f"doc{n:05}.txt").write_text(joined_text(rng, abstracts), encoding="utf-8")


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def figures(samples: list[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(samples), 1),
        "p95_ms": round(percentile(samples, 0.95), 1),
        "n": len(samples),
    }


def searches(server: Server, rounds: int, errors: list[str]) -> list[float]:
    taken = []
    for _ in range(rounds):
        for query in QUERIES:
            ms, result = server.call("search", query=query)
            if result.get("isError"):
                errors.append(result["content"][0]["text"])
            taken.append(ms)
    return taken


def during_crawl(
    servers: list[Server], starter: Server, folder: Path, expected: int
) -> dict[str, Any]:
    """Searches through each of ``servers`` until the crawl of ``folder``, which ``starter``
    adds, has ended and every server shows ``expected`` documents."""
    errors: list[str] = []
    taken: dict[int, list[float]] = {i: [] for i in range(len(servers))}
    _, started = starter.call("addCrawlableDirectory", path=str(folder))
    assert not started.get("isError"), started
    began = time.perf_counter()
    writer = servers[0]
    crawl_end: float | None = None
    seen_at: dict[int, float] = {}
    while len(seen_at) < len(servers):
        for i, server in enumerate(servers):
            for query in QUERIES:
                ms, result = server.call("search", query=query)
                if result.get("isError"):
                    errors.append(result["content"][0]["text"])
                if crawl_end is None:
                    taken[i].append(ms)
            if i not in seen_at and server.total() == expected:
                seen_at[i] = time.perf_counter()
        if crawl_end is None:
            status = writer.call("getCrawlerStatus")[1]["structuredContent"]["status"]
            if status not in ("QUEUED", "CRAWLING", "PAUSED"):
                crawl_end = time.perf_counter()
    assert crawl_end is not None
    return {
        "crawl_s": round(crawl_end - began, 1),
        "errors": len(errors),
        "first_error": errors[0] if errors else None,
        "per_server": [figures(taken[i]) for i in range(len(servers)) if taken[i]],
        "seen_after_crawl_end_s": [round(max(0.0, seen_at[i] - crawl_end), 2) for i in seen_at],
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=1500)
    parser.add_argument("--rounds", type=int, default=20)
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm/cacm.tar.gz")
    parser.add_argument("--json", type=Path, default=Path("bench-sharing.json"))
    args = parser.parse_args()
    abstracts = [" ".join(lines) for _, _, lines in cacm_pages(args.cacm)]
    base = Path(tempfile.mkdtemp(prefix="pylucene-mcp-sharing-"))
    for n, name in enumerate(["first", "second", "third"]):
        write_folder(base / name, args.files, abstracts, seed=n)
    (base / "home").mkdir()
    index = base / "index"
    result: dict[str, Any] = {"files_per_folder": args.files}

    writer = Server(index, base / "home")
    servers = [writer]
    try:
        writer.call("addCrawlableDirectory", path=str(base / "first"), crawlNow=False)
        writer.call("startCrawl", wait=True)
        reader = Server(index, base / "home")
        servers.append(reader)
        searches(writer, 3, [])  # both warm
        searches(reader, 3, [])
        quiet_errors: list[str] = []
        by_writer: list[float] = []
        by_reader: list[float] = []
        for _ in range(args.rounds):  # interleaved
            by_writer += searches(writer, 1, quiet_errors)
            by_reader += searches(reader, 1, quiet_errors)
        result["quiet"] = {
            "writer": figures(by_writer),
            "reader": figures(by_reader),
            "reader_over_writer_p50": round(
                statistics.median(by_reader) / statistics.median(by_writer), 2
            ),
            "errors": len(quiet_errors),
        }
        print("quiet:", result["quiet"])

        # a folder added through the reader: the writer records and crawls it
        result["two_servers_during_crawl"] = during_crawl(
            servers, reader, base / "second", 2 * args.files
        )
        print(
            "two servers, a crawl started through the reader:", result["two_servers_during_crawl"]
        )

        servers += [Server(index, base / "home") for _ in range(2)]
        for server in servers[2:]:
            searches(server, 2, [])
        result["four_servers_during_crawl"] = during_crawl(
            servers, writer, base / "third", 3 * args.files
        )
        print("four servers, the writer crawls:", result["four_servers_during_crawl"])
    finally:
        for server in servers:
            server.peer.close()
    write_json(args.json, result)


if __name__ == "__main__":
    main()
