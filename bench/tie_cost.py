"""What breaking ties in score by the file path costs (docs/performance.md): on a kept index of
``bench/scale.py``, the product's queries for their 10 best hits sorted by relevance alone (the
top-scores collector, which skips what cannot compete) and by relevance then path (a sort that
gives every page of one search, and a cursor walk, one order), interleaved: first Lucene's
collection alone, then the product's whole search (exact total, DrillSideways facets,
passages), with the sort and with relevance alone put back.

    python bench/tie_cost.py [--size 100000] [--runs 30]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from _common import scale_index, scale_options, summary
from scale import QUERIES, RARE_RANK, pseudo_word


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    scale_options(parser, "tie-cost.json")
    args = parser.parse_args()
    path: Path = scale_index(args.index_dir, args.size, args.cacm)

    from pylucene_mcp import Index, jvm
    from pylucene_mcp.engine.core.query import parse_query

    index = Index.open(path, read_only=True)
    sort_field = jvm.jclass("org.apache.lucene.search.SortField")
    types = jvm.jclass("org.apache.lucene.search.SortField$Type")
    by_path = jvm.jclass("org.apache.lucene.search.Sort")(
        sort_field.FIELD_SCORE, sort_field("file_path", types.STRING)
    )
    queries = {
        name: parse_query(pseudo_word(RARE_RANK) if text == "RARE" else text, "AND").match_query
        for name, text in QUERIES.items()
        if name not in ("filtered", "faceted")
    }
    samples: dict[tuple[str, str], list[float]] = {}
    with index.searcher() as searcher:
        for run in range(args.runs + 3):
            for name, query in queries.items():
                for form in ("score", "score+path"):
                    started = time.perf_counter()
                    if form == "score":
                        searcher.search(query, 10)
                    else:
                        searcher.search(query, 10, by_path, True)
                    if run >= 3:
                        elapsed = (time.perf_counter() - started) * 1000
                        samples.setdefault((name, form), []).append(elapsed)
    print(f"{args.size:,} documents, {args.runs} runs each, interleaved:")
    for name in queries:
        alone = statistics.median(samples[(name, "score")])
        tied = statistics.median(samples[(name, "score+path")])
        print(f"  {name:18} {summary('score', samples[(name, 'score')])}")
        print(f"  {'':18} {summary('score+path', samples[(name, 'score+path')])}")
        print(f"  {'':18} ratio of medians {tied / alone:.2f}")
    whole(index, args.runs)
    index.close()


def whole(index: object, runs: int) -> None:
    """The product's search, as the tool runs it, with the tie-break and without it."""
    from pylucene_mcp.engine.lucene import search as engine

    with_path = engine._sort

    def without_path(field_name: str, order: str) -> object:
        return None if field_name == "_score" else with_path(field_name, order)

    texts = {
        name: pseudo_word(RARE_RANK) if text == "RARE" else text
        for name, text in QUERIES.items()
        if name not in ("filtered", "faceted")
    }
    samples: dict[tuple[str, str], list[float]] = {}
    for run in range(runs + 3):
        for name, text in texts.items():
            for form, sort in (("score", without_path), ("score+path", with_path)):
                engine._sort = sort  # type: ignore[assignment]
                started = time.perf_counter()
                index.search(text)  # type: ignore[attr-defined]
                if run >= 3:
                    elapsed = (time.perf_counter() - started) * 1000
                    samples.setdefault((name, form), []).append(elapsed)
    engine._sort = with_path
    print("the product's whole search (total, facets, passages), interleaved:")
    for name in texts:
        alone = statistics.median(samples[(name, "score")])
        tied = statistics.median(samples[(name, "score+path")])
        print(f"  {name:18} {alone:7.1f} ms  {tied:7.1f} ms  ratio {tied / alone:.2f}")


if __name__ == "__main__":
    main()
