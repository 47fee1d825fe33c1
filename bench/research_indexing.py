"""Indexing a research index through the Python API vs the same work in one Java call.

The CACM abstracts (``shared/eval/cacm``, 3,204 documents) five times over, with Anserini's
analysis chain (standard tokenizer, English possessive, lower case, stop words, Porter stemmer):
``ResearchIndex.add_many`` from a list of Python dicts (batches of 2,000 cross into Java as one
array each) against ``BulkWriter.add`` handed all the values at once from Java's side. Each
round indexes into a new folder; the rounds alternate, and the medians are printed.

    python bench/research_indexing.py [--rounds 3] [--copies 5]
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

from _common import ROOT
from boundary import cacm_docs

from pylucene_mcp import jvm
from pylucene_mcp.research import Analyzer, FieldSpec, ResearchIndex, Similarity

CHAIN = ["englishPossessive", "lowercase", "stop", "porterStem"]  # stop: Lucene's English set


def fields() -> dict[str, FieldSpec]:
    english = Analyzer.custom("standard", CHAIN)
    return {"id": FieldSpec.keyword(), "contents": FieldSpec.text(english)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--copies", type=int, default=5)
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm/cacm.tar.gz")
    args = parser.parse_args()
    jvm.start()
    base = cacm_docs(args.cacm)
    docs = [
        {"id": f"{copy}-{d['file_path']}", "contents": d["content"]}
        for copy in range(args.copies)
        for d in base
    ]
    api: list[float] = []
    java: list[float] = []
    with tempfile.TemporaryDirectory() as work:
        for round_ in range(args.rounds):
            index = ResearchIndex.create(Path(work) / f"api{round_}", fields(), Similarity.bm25())
            started = time.perf_counter()
            index.add_many(docs)
            api.append(len(docs) / (time.perf_counter() - started))
            index.close()

            index = ResearchIndex.create(Path(work) / f"java{round_}", fields(), Similarity.bm25())
            bulk = jvm.jclass("io.github.pylucenemcp.research.BulkWriter")(
                index.java,
                jvm.jarray("String", ["id", "contents"]),
                jvm.jarray("boolean", [False, True]),
                jvm.jarray("boolean", [True, False]),
            )
            values = jvm.jarray("String", [v for d in docs for v in (d["id"], d["contents"])])
            started = time.perf_counter()
            bulk.add(values)  # the Java loop alone: documents built and analysed in Java
            index.java.commit()
            java.append(len(docs) / (time.perf_counter() - started))
            index.close()
    api_rate, java_rate = statistics.median(api), statistics.median(java)
    print(f"{len(docs)} CACM documents, {args.rounds} rounds, medians:")
    print(f"  through ResearchIndex.add_many (Python dicts): {api_rate:,.0f} docs/s")
    print(f"  one Java call over the same values:            {java_rate:,.0f} docs/s")
    print(f"  the API reaches {api_rate / java_rate:.0%} of the Java loop")


if __name__ == "__main__":
    main()
