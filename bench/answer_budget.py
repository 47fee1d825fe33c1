"""The search answer's size and its passages per hit at pageSize 10, 20, 50 and 100, as the
client receives it (the SDK's in-memory client, compact JSON), on the real files of
``bench/passage_cost.py`` (80 LaTeX manuals as PDF, 80 Python pages, 30 German texts) crawled
by the product: how the budget of docs/tools.md holds and how evenly passages are given up.

    python bench/answer_budget.py [--index-dir DIR]
"""

from __future__ import annotations

import argparse
import json
import statistics
from pathlib import Path
from typing import Any

import anyio
from _common import ROOT, write_json
from passage_cost import corpus, crawl

from pylucene_mcp import Index
from tests.mcp_client import call, connect

QUERIES = ["file OR function", "table AND column", "Vertrag OR Jahr OR Zeit", "font*"]
PAGE_SIZES = (10, 20, 50, 100)


async def measure(index: Index) -> list[dict[str, Any]]:
    rows = []
    async with connect(index) as client:
        for query in QUERIES:
            for size in PAGE_SIZES:
                answer = await call(
                    client, "search", query=query, defaultOperator="AND", pageSize=size
                )
                wire = len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode())
                counts = [len(d.get("passages", ())) for d in answer["documents"]]
                rows.append(
                    {
                        "query": query,
                        "page_size": size,
                        "hits": len(counts),
                        "bytes": wire,
                        "hits_without_passage": sum(1 for c in counts if c == 0),
                        "passages_median": statistics.median(counts) if counts else 0,
                        "omitted": answer.get("passagesOmitted", 0),
                        "shortened_to": answer.get("passagesShortenedTo"),
                    }
                )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--index-dir", type=Path, default=ROOT / "bench-data" / "passages")
    parser.add_argument("--json", type=Path, default=Path("bench-answer-budget.json"))
    args = parser.parse_args()
    crawl(corpus(args.index_dir / "files"), args.index_dir / "index")
    index = Index.open(args.index_dir / "index", read_only=True)
    try:
        rows = anyio.run(measure, index)
    finally:
        index.close()
    print(f"{'query':<26} {'size':>4} {'hits':>4} {'bytes':>6} {'none':>4} {'med':>4} "
          f"{'omitted':>7} {'cut to':>6}")  # fmt: skip
    for r in rows:
        print(
            f"{r['query']:<26} {r['page_size']:>4} {r['hits']:>4} {r['bytes']:>6} "
            f"{r['hits_without_passage']:>4} {r['passages_median']:>4} {r['omitted']:>7} "
            f"{r['shortened_to'] or '-':>6}"
        )
    write_json(args.json, rows)


if __name__ == "__main__":
    main()
