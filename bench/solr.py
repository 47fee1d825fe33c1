"""The embedded index beside a 2-node SolrCloud (issue 21): the same documents written to both
through the Backend's writer, then the same searches through MCP over stdio, interleaved.

The cluster: ``tests/solr_cluster.py``'s local cluster (Solr 9.10.1 from Maven Central, two
nodes in one JVM of its own), a collection of 2 shards × 2 replicas made by ``solr init``. The
documents: ``bench/scale.py``'s stream (CACM abstracts of 2–5 KB, an open vocabulary).

Prints, per backend: indexing documents/s (blocks of 500, committed each); then per query type
the p50 and p95 of the MCP round trip and the server's ``searchTimeMs``, and where the
collection's time goes, from the same search run in this process (medians): in all, the search
request's round trip beside the time Solr reports for it (``QTime``: the difference is the HTTP
hop), the requests that rank a pattern over the collection, and the page built from the stored
text (hits, passages).

    python bench/solr.py [--docs 20000] [--rounds 20] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import cacm_pages, scale_options, write_json
from scale import stream
from search_latency import SCALE_QUERIES, request

from tests.solr_cluster import LocalCluster
from tests.stdio_peer import StdioPeer, handshake

#: bench/search_latency.py's queries on the same documents, and one without passages
QUERIES: list[dict[str, Any]] = [
    *SCALE_QUERIES,
    {"query": "system OR method", "defaultOperator": "OR", "maxPassages": 0},
]
BLOCK = 500


def label(arguments: dict[str, Any]) -> str:
    extra = " +filter" if arguments.get("filters") else ""
    extra += " (no passages)" if arguments.get("maxPassages") == 0 else ""
    return f"{arguments['query']}{extra}"


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]


PARTS = ("total", "select", "qtime", "terms", "page")


def breakdown(solr: Any, arguments: dict[str, Any]) -> dict[str, float]:
    """Where one in-process search of ``solr`` spends its time (ms): in all, the search
    request's round trip and Solr's ``QTime`` for it, the requests that rank patterns over the
    collection, the page."""
    spent = dict.fromkeys(PARTS, 0.0)
    collection = solr.collection
    select, terms, page = collection.select, collection.pattern_terms, solr._page

    def timed_select(body: dict[str, Any]) -> dict[str, Any]:
        started = time.perf_counter()
        answer: dict[str, Any] = select(body)
        spent["select"] += (time.perf_counter() - started) * 1000
        spent["qtime"] += float(answer["responseHeader"].get("QTime", 0))
        return answer

    def timed(part: str, call: Any) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                spent[part] += (time.perf_counter() - started) * 1000

        return run

    collection.select, collection.pattern_terms = timed_select, timed("terms", terms)
    solr._page = timed("page", page)
    try:
        timed("total", solr.search)(request(arguments))
    finally:
        collection.select, collection.pattern_terms, solr._page = select, terms, page
    return spent


def index_into(backend: Any, docs: list[dict[str, Any]]) -> float:
    """Documents per second of writing ``docs`` in committed blocks."""
    started = time.perf_counter()
    for start in range(0, len(docs), BLOCK):
        with backend.writer() as writer:
            for doc in docs[start : start + BLOCK]:
                writer.add(doc)
    backend.refresh()
    return len(docs) / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=20)
    scale_options(parser, "bench-solr.json")
    args = parser.parse_args()
    from pylucene_mcp import jvm
    from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend
    from pylucene_mcp.engine.solr import SolrBackend, SolrClient, SolrSettings, init

    jvm.start()
    abstracts = [" ".join(lines) for _, _, lines in cacm_pages(args.cacm)]
    docs = list(stream(args.docs, abstracts))
    figures: dict[str, Any] = {"docs": args.docs}
    with tempfile.TemporaryDirectory(prefix="pylucene-mcp-bench-solr-") as folder:
        base = Path(folder)
        cluster = LocalCluster(2, base / "cluster")
        try:
            settings = SolrSettings(tuple(cluster.urls), collection="bench")
            client = SolrClient(settings)
            init(client, shards=2, replicas=2)
            client.close()
            embedded = EmbeddedBackend.open(base / "index")
            solr = SolrBackend.open(settings)
            figures["indexing_docs_per_s"] = {
                "embedded": round(index_into(embedded, docs)),
                "solr": round(index_into(solr, docs)),
            }
            print(f"indexing {args.docs:,} documents, docs/s: {figures['indexing_docs_per_s']}")
            embedded.close()
            env = {
                "PYLUCENE_MCP_BACKEND": "solr",
                "PYLUCENE_MCP_SOLR_URLS": ",".join(cluster.urls),
                "PYLUCENE_MCP_SOLR_COLLECTION": "bench",
            }
            peers = {
                "embedded": StdioPeer(base / "index", base / "home-embedded"),
                "solr": StdioPeer(base / "unused", base / "home-solr", env),
            }
            rows: dict[str, dict[str, list[float]]] = {
                label(q): {"embedded": [], "solr": [], "solr_server": [], **{p: [] for p in PARTS}}
                for q in QUERIES
            }
            try:
                for peer in peers.values():
                    handshake(peer, "2025-11-25")
                for round_ in range(args.rounds + 3):  # three rounds of warm-up
                    for arguments in QUERIES:
                        row = rows[label(arguments)]
                        for name, peer in peers.items():
                            started = time.perf_counter()
                            answer = peer.request(
                                "tools/call", {"name": "search", "arguments": arguments}
                            )
                            took = (time.perf_counter() - started) * 1000
                            result = answer["result"]
                            assert not result.get("isError"), result
                            if round_ >= 3:
                                row[name].append(took)
                                if name == "solr":
                                    searched = result["structuredContent"]["searchTimeMs"]
                                    row["solr_server"].append(searched)
                        parts = breakdown(solr, arguments)
                        if round_ >= 3:
                            for part, took in parts.items():
                                row[part].append(took)
            finally:
                for peer in peers.values():
                    peer.close()
                solr.close()
        finally:
            cluster.close()
    heads = ("embedded p50/p95", "solr p50/p95", "server", "in-proc", "select", "QTime")
    print(
        f"{'query':32} {heads[0]:>18} {heads[1]:>16} {heads[2]:>7} {heads[3]:>7} "
        f"{heads[4]:>7} {heads[5]:>6} {'terms':>6} {'page':>6}"
    )
    figures["queries"] = {}
    for name, row in rows.items():
        figures["queries"][name] = {
            "embedded_p50_ms": round(statistics.median(row["embedded"]), 1),
            "embedded_p95_ms": round(p95(row["embedded"]), 1),
            "solr_p50_ms": round(statistics.median(row["solr"]), 1),
            "solr_p95_ms": round(p95(row["solr"]), 1),
            "solr_search_time_ms": round(statistics.median(row["solr_server"]), 1),
            **{f"{part}_ms": round(statistics.median(row[part]), 1) for part in PARTS},
        }
        f = figures["queries"][name]
        print(
            f"{name:32} {f['embedded_p50_ms']:8.1f}/{f['embedded_p95_ms']:<8.1f} "
            f"{f['solr_p50_ms']:7.1f}/{f['solr_p95_ms']:<8.1f} {f['solr_search_time_ms']:7.1f} "
            f"{f['total_ms']:7.1f} {f['select_ms']:7.1f} {f['qtime_ms']:6.1f} "
            f"{f['terms_ms']:6.1f} {f['page_ms']:6.1f}"
        )
    write_json(args.json, figures)


if __name__ == "__main__":
    main()
