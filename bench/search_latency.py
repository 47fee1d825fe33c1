"""``search`` through MCP over real stdio against the same search in-process.

One server process on an index; in the bench process the same index opened read-only. A
warm-up, then ROUNDS rounds over a mix of queries, each sent through MCP and run in-process one
after the other (interleaved). Prints, per query, the median round trip seen by the client, the
server's own ``searchTimeMs``, the in-process ``search()`` with its ``to_dict()`` (what a Python
caller gets), and the answer's size; then the ratio of the medians (target ≤ 1.5×, issue 13).
Each query also runs through MCP with ``maxPassages: 0``: what its passages cost, with ÷ without
(target ≤ 3×, issue 23; on real files: ``bench/passage_cost.py``).

The index: the test corpus (``--docs 0``) or ``--docs N`` documents of the stream of
``bench/scale.py``, built once and kept in ``--index-dir``.

    python bench/search_latency.py [--rounds 30] [--docs 0,100000] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import fixture_index, scale_index, scale_options, write_json

from tests.stdio_peer import StdioPeer, handshake

FIXTURE_QUERIES: list[dict[str, Any]] = [
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
#: the tool's names in these benches that the engine's SearchRequest spells otherwise
PYTHON = {"defaultOperator": "default_operator", "maxPassages": "max_passages"}


def request(arguments: dict[str, Any]) -> Any:
    """The search tool's ``arguments`` as the engine's SearchRequest."""
    from pylucene_mcp.engine.core.request import SearchRequest

    return SearchRequest(**{PYTHON.get(k, k): v for k, v in arguments.items()})


SCALE_QUERIES: list[dict[str, Any]] = [
    {"query": "program"},
    {"query": "algorithm AND language"},
    {"query": '"programming language"'},
    {"query": "comput*"},
    {"query": "*port*"},
    {"query": "algoritm~1"},
    {"query": "*", "filters": [{"field": "author", "value": "author7"}]},
]


def label(arguments: dict[str, Any]) -> str:
    extra = " +filter" if arguments.get("filters") else ""
    return f"{arguments['query']}{extra}"


def measure(index_path: Path, queries: list[dict[str, Any]], rounds: int) -> dict[str, Any]:
    from pylucene_mcp import Index
    from pylucene_mcp.engine.lucene.search import search

    index = Index.open(index_path, read_only=True)
    rows: dict[str, dict[str, list[float]]] = {
        label(q): {"mcp": [], "server": [], "python": [], "bytes": [], "mcp_bare": []}
        for q in queries
    }
    with tempfile.TemporaryDirectory() as home:
        peer = StdioPeer(index_path, Path(home))
        try:
            handshake(peer, "2025-11-25")
            for _ in range(3):  # warm-up: JVM start, JIT, first searchers on both sides
                for arguments in queries:
                    peer.request("tools/call", {"name": "search", "arguments": arguments})
                    search(index, request(arguments)).to_dict()
            for _ in range(rounds):
                for arguments in queries:
                    row = rows[label(arguments)]
                    started = time.perf_counter()
                    answer = peer.request("tools/call", {"name": "search", "arguments": arguments})
                    row["mcp"].append((time.perf_counter() - started) * 1000)
                    result = answer["result"]
                    assert not result.get("isError"), result
                    row["server"].append(result["structuredContent"]["searchTimeMs"])
                    row["bytes"].append(len(result["content"][0]["text"].encode()))
                    started = time.perf_counter()
                    search(index, request(arguments)).to_dict()
                    row["python"].append((time.perf_counter() - started) * 1000)
                    bare = {**arguments, "maxPassages": 0}  # the same search without passages
                    started = time.perf_counter()
                    peer.request("tools/call", {"name": "search", "arguments": bare})
                    row["mcp_bare"].append((time.perf_counter() - started) * 1000)
        finally:
            peer.close()
            index.close()
    figures: dict[str, Any] = {}
    for name, row in rows.items():
        figures[name] = {key: round(statistics.median(values), 2) for key, values in row.items()}
    every = {
        key: [v for row in rows.values() for v in row[key]] for key in ("mcp", "python", "mcp_bare")
    }
    figures["all"] = {key: round(statistics.median(values), 2) for key, values in every.items()}
    return figures


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--docs", default="0,100000", help="0: the test corpus")
    scale_options(parser, "bench-search-latency.json")
    args = parser.parse_args()
    results: dict[str, Any] = {}
    for docs in (int(d) for d in args.docs.split(",")):
        if docs:
            index_path = scale_index(args.index_dir, docs, args.cacm)
            name, queries = f"{docs:,} documents", SCALE_QUERIES
        else:
            index_path, name, queries = fixture_index(), "test corpus", FIXTURE_QUERIES
        figures = measure(index_path, queries, args.rounds)
        results[name] = figures
        print(f"{name} ({args.rounds} rounds; medians in ms)")
        print(
            f"  {'query':34}{'MCP':>8}{'server':>8}{'Python':>8}{'ratio':>7}{'bytes':>8}"
            f"{'no pass.':>9}{'passages':>9}"
        )
        for query, row in figures.items():
            ratio = row["mcp"] / row["python"]
            size = f"{row['bytes']:8.0f}" if "bytes" in row else " " * 8
            server = f"{row['server']:8.2f}" if "server" in row else " " * 8
            passages = row["mcp"] / row["mcp_bare"]  # the MCP search with passages ÷ without
            print(
                f"  {query:34}{row['mcp']:8.2f}{server}{row['python']:8.2f}{ratio:6.2f}×{size}"
                f"{row['mcp_bare']:9.2f}{passages:8.2f}×"
            )
        ratio = figures["all"]["mcp"] / figures["all"]["python"]
        print(f"  MCP round trip: {ratio:.2f}× the in-process search (target ≤ 1.5×)")
    write_json(args.json, results)


if __name__ == "__main__":
    main()
