"""`search` latency through MCP over real stdio on the fixture index.

One server process; a warm-up, then ROUNDS rounds over a mix of queries (plain terms, leading and
infix wildcards, transliteration, phrases with slop, filters with facets). Prints the
round-trip time seen by the client and the server-side `searchTimeMs`.

    python bench/search_latency.py [ROUNDS]
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import fixture_index, summary

from tests.stdio_peer import StdioPeer, handshake

QUERIES: list[dict[str, Any]] = [
    {"query": "contract"},
    {"query": "*vertrag"},
    {"query": "*vertrag*"},
    {"query": "Mueller"},
    {"query": '"contract signed"~3'},
    {"query": "agreem* OR contract*", "defaultOperator": "OR"},
    {"query": "quokka"},
    {"query": "*", "filters": [{"field": "language", "value": "de"}]},
    {
        "query": "contract OR agreement",
        "filters": [{"field": "modified_date", "operator": "range", "from": "2023-01-01"}],
        "sort": "modified_date",
    },
]


def main() -> None:
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    index_path = fixture_index()
    with tempfile.TemporaryDirectory() as home:
        peer = StdioPeer(index_path, Path(home))
        handshake(peer, "2025-11-25")
        for arguments in QUERIES:  # warm-up: JVM start, JIT, first searcher
            peer.request("tools/call", {"name": "search", "arguments": arguments})
        client_ms, server_ms = [], []
        for _ in range(rounds):
            for arguments in QUERIES:
                started = time.perf_counter()
                answer = peer.request("tools/call", {"name": "search", "arguments": arguments})
                client_ms.append((time.perf_counter() - started) * 1000)
                result = answer["result"]
                assert not result.get("isError"), result
                server_ms.append(result["structuredContent"]["searchTimeMs"])
        peer.close()
    print(summary("search round trip through MCP stdio", client_ms))
    print(summary("search inside the server (searchTimeMs)", server_ms))


if __name__ == "__main__":
    main()
