"""Process start → first MCP answers, over real stdio, N runs (default 10).

Prints the median time from spawning `python -m pylucene_mcp serve` to the `initialize` answer,
to the `tools/list` answer, and to the first `search` answer (which includes the JVM start and
opening the index); then the time of a first search sent 3 s after the handshake, when the
background start has opened and primed the index. Budget (DESIGN.md): first response within
1 s, JVM not on that path.

    python bench/startup.py [RUNS]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from _common import fixture_index, summary

from tests.stdio_peer import StdioPeer, handshake


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    index_path = fixture_index()
    init_ms, list_ms, search_ms = [], [], []
    for _ in range(runs):
        with tempfile.TemporaryDirectory() as home:
            started = time.perf_counter()
            peer = StdioPeer(index_path, Path(home))
            handshake(peer, "2025-11-25")
            init_ms.append((time.perf_counter() - started) * 1000)
            peer.request("tools/list")
            list_ms.append((time.perf_counter() - started) * 1000)
            peer.request("tools/call", {"name": "search", "arguments": {"query": "*vertrag*"}})
            search_ms.append((time.perf_counter() - started) * 1000)
            peer.close()
    settled_ms = []
    for _ in range(max(1, runs // 2)):  # a client that asks its first question a little later
        with tempfile.TemporaryDirectory() as home:
            peer = StdioPeer(index_path, Path(home))
            handshake(peer, "2025-11-25")
            peer.request("tools/list")
            time.sleep(3)
            started = time.perf_counter()
            peer.request("tools/call", {"name": "search", "arguments": {"query": "*vertrag*"}})
            settled_ms.append((time.perf_counter() - started) * 1000)
            peer.close()
    print(summary("spawn → initialize answer", init_ms))
    print(summary("spawn → tools/list answer", list_ms))
    print(summary("spawn → first search answer (JVM + index open)", search_ms))
    print(summary("first search 3 s after the handshake (warmed up in the background)", settled_ms))


if __name__ == "__main__":
    main()
