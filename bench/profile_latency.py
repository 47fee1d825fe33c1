"""profileQuery's time on a large index (DESIGN: about 10 ms on 100,000 documents).

Builds an index of DOCS synthetic documents through the Python API (words drawn from a Zipf
distribution over 30,000 words, so that some are common and most rare, in four languages and
three extensions), then profiles a mix of queries: terms rare and common, a phrase with slop, a
trailing, a leading and an infix wildcard, a fuzzy term, with and without a filter. Prints the
median and p95 of the default profile (tree with costs and expansions, term statistics, totals,
advice) and of the profile with filter impact and the top-3 BM25 breakdowns.

    python bench/profile_latency.py [--docs 100000] [--runs 30] [--seed 7]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

from _common import summary

from pylucene_mcp import Index
from pylucene_mcp.engine.core.profile import profile_query

LANGUAGES = ("en", "de", "fr", "it")
EXTENSIONS = ("pdf", "docx", "txt")


def words(count: int) -> list[str]:
    letters = "abcdefghijklmnopqrstuvwxyz"
    rng = random.Random(1)
    return sorted(
        {"".join(rng.choice(letters) for _ in range(rng.randint(4, 10))) for _ in range(count)}
    )


def build(path: Path, docs: int, seed: int) -> tuple[Index, list[str]]:
    vocabulary = words(30_000)
    weights = [1 / (rank + 1) for rank in range(len(vocabulary))]
    rng = random.Random(seed)
    index = Index.open(path)
    started = time.perf_counter()
    with index.writer() as writer:
        for n in range(docs):
            text = " ".join(rng.choices(vocabulary, weights, k=60))
            writer.add(
                {
                    "file_path": f"/bench/{n // 1000:03}/{n:06}.{EXTENSIONS[n % 3]}",
                    "content": text,
                    "language": LANGUAGES[n % 4],
                    "file_size": 1000 + n,
                    "modified_date": f"20{10 + n % 15}-0{1 + n % 9}-1{n % 9}",
                }
            )
    took = time.perf_counter() - started
    print(f"indexed {docs} documents in {took:.1f} s ({docs / took:.0f} docs/s)", file=sys.stderr)
    return index, vocabulary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as work:
        index, vocabulary = build(Path(work) / "index", args.docs, args.seed)
        common, rare = vocabulary[0], vocabulary[-1]
        middle = vocabulary[len(vocabulary) // 2]
        queries = [
            f"{common} {rare}",
            f'"{common} {middle}"~3',
            f"{middle[:4]}*",
            f"*{middle[-4:]}",
            f"*{middle[1:4]}*",
            f"{middle}~1",
            f"{common} OR {middle} OR {rare}",
        ]
        german = [{"field": "language", "value": "de"}]
        plain: list[float] = []
        full: list[float] = []
        for query in queries:  # warm-up
            profile_query(index, query)
        for _ in range(args.runs):
            for query in queries:
                started = time.perf_counter()
                profile_query(index, query)
                plain.append((time.perf_counter() - started) * 1000)
                started = time.perf_counter()
                profile_query(
                    index,
                    query,
                    filters=german,
                    analyze_filter_impact=True,
                    analyze_document_scoring=True,
                )
                full.append((time.perf_counter() - started) * 1000)
        index.close()
    print(summary(f"profileQuery on {args.docs} documents, default", plain))
    print(summary(f"profileQuery on {args.docs} documents, filter impact + 3 explanations", full))


if __name__ == "__main__":
    main()
