"""Indexing throughput of the product schema (issue 13): documents of 2–5 KB of real text (CACM
abstracts joined until each reaches its drawn length) written through the Python API one at a
time (``Writer.add``) and in batches (``Writer.add_many``: one call into Java per batch,
analysed on every core), against the same rows written by Java alone through the same
``SchemaWriter`` (``bench/shims/IndexingWork.java``); then the cost of each field's analysis
chain over the same texts, single-threaded.

Each way writes a new index and commits it; the ways run interleaved, best of ``--rounds``.
Prints a table and writes the figures as JSON (``--json``).

    python bench/indexing.py [--docs N] [--rounds R] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from pathlib import Path

from _common import ROOT, cacm_pages, joined_text
from boundary import javac

SLOTS_NOTE = "Index.add_many"


def documents(count: int, archive: Path, seed: int = 13) -> list[dict[str, object]]:
    """``count`` documents of 2–5 KB, each CACM abstracts joined in a random order."""
    abstracts = [" ".join(lines) for _, _, lines in cacm_pages(archive)]
    rng = random.Random(seed)
    out = []
    for n in range(count):
        text = joined_text(rng, abstracts)
        out.append(
            {
                "file_path": f"/bench/{n:07}.txt",
                "title": text[:60],
                "content": text,
                "language": "en",
                "modified_date": 1_700_000_000_000 + n,
                "file_size": len(text),
            }
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm/cacm.tar.gz")
    parser.add_argument("--json", type=Path, default=Path("bench-indexing.json"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pylucene-mcp-indexing-"))
    import subprocess

    from pylucene_mcp import jvm

    subprocess.run(
        [
            str(javac()),
            "--release",
            "21",
            "-cp",
            os.pathsep.join(jvm.class_path()),
            "-d",
            str(work / "classes"),
            str(ROOT / "bench" / "shims" / "IndexingWork.java"),
        ],
        check=True,
    )
    os.environ["PYLUCENE_MCP_CLASSPATH"] = str(work / "classes")
    from pylucene_mcp import Index
    from pylucene_mcp.engine.core import analysis
    from pylucene_mcp.engine.core import documents as docs_module
    from pylucene_mcp.engine.lucene import index as index_module

    jvm.start()
    docs = documents(args.docs, args.cacm)
    megabytes = sum(len(str(d["content"]).encode()) for d in docs) / 1e6
    rows = [docs_module.to_row(d) for d in docs]
    strings = jvm.jarray("String", [v for row in rows for v in row[0]])
    numbers = jvm.jarray("long", [v for row in rows for v in row[1]])
    work_class = jvm.jclass("IndexingWork")
    print(
        f"{len(docs)} documents of 2–5 KB, {megabytes:.1f} MB of text; "
        f"{index_module.INDEXING_THREADS} indexing threads"
    )

    def one_at_a_time(index: Index) -> None:
        with index.writer() as writer:
            for doc in docs:
                writer.add(doc)

    def batched(index: Index) -> None:
        with index.writer() as writer:
            writer.add_many(docs)

    def java(index: Index) -> None:
        with index.writer():
            work_class.write(index._schema_writer, strings, numbers, len(docs), 256)

    ways = {"Python add()": one_at_a_time, "Python add_many()": batched, "Java alone": java}
    seconds: dict[str, list[float]] = {name: [] for name in ways}
    for round_ in range(args.rounds):
        for name, way in ways.items():
            folder = work / f"{round_}-{len(seconds[name])}"
            index = Index.open(folder)
            started = time.perf_counter()
            way(index)
            seconds[name].append(time.perf_counter() - started)
            index.close()
            shutil.rmtree(folder)
    best = {name: min(times) for name, times in seconds.items()}
    print(f"{'way':20} {'docs/s':>9} {'MB/s':>7} {'vs Java':>8}  all runs (s)")
    for name in ways:
        print(
            f"{name:20} {len(docs) / best[name]:9.0f} {megabytes / best[name]:7.2f} "
            f"{best['Java alone'] / best[name]:8.2f}  "
            + ", ".join(f"{t:.2f}" for t in seconds[name])
        )
    per_hour = len(docs) / best["Python add_many()"] * 3600
    print(f"1M documents at the add_many() rate: {1_000_000 / per_hour * 60:.1f} minutes")

    texts = jvm.jarray("String", [str(d["content"]) for d in docs[:2000]])
    fields = ["content", "content_reversed", "content_translit_de", "content_lemma_en",
              "content_lemma_de"]  # fmt: skip
    work_class.analysis(analysis.schema_analyzer(), jvm.jarray("String", fields), texts)  # warm
    cost = work_class.analysis(analysis.schema_analyzer(), jvm.jarray("String", fields), texts)
    analysed_mb = sum(len(str(t)) for t in texts) / 1e6
    print(f"analysis alone, one thread, {len(texts)} texts ({analysed_mb:.1f} MB):")
    chains = {}
    for i, field in enumerate(fields):
        ms = int(cost[2 * i]) / 1e6
        chains[field] = {"ms": round(ms, 1), "tokens": int(cost[2 * i + 1])}
        print(f"  {field:22} {ms:8.1f} ms  {analysed_mb / ms * 1000:6.1f} MB/s")
    figures = {
        "documents": len(docs),
        "megabytes": round(megabytes, 2),
        "threads": index_module.INDEXING_THREADS,
        "seconds": seconds,
        "docs_per_s": {name: round(len(docs) / best[name], 1) for name in ways},
        "vs_java": {name: round(best["Java alone"] / best[name], 3) for name in ways},
        "analysis": chains,
    }
    args.json.write_text(json.dumps(figures, indent=1))
    print(f"figures: {args.json}")
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
