"""Side by side with pyserini, in one run: the same CACM runs through pyserini 1.6.0's
``LuceneSearcher`` (over an Anserini index) and through ours (over a research index) — BM25
(0.9, 0.4), QLD (mu 1000), BM25+RM3 (10, 10, 0.5) and BM25+Rocchio (its defaults), 1,000 hits
each, MAP and P@30 by the same ``evaluate`` — then indexing speed (CACM ×32, two threads each,
the best of three) and batch-search speed at k=10 and k=1000 with one and two threads (the best
of five batches after one to warm up). Target: the same figures (±0.0005) and not slower on any
speed.

pyserini runs in a virtualenv of its own, made on first use (``--venv``): ``pyserini==1.6.0``
from PyPI without its dependencies (its sdist carries Anserini's jar; its dense retrieval wants
torch), with what its Lucene searcher needs (``pyjnius`` and a few light packages); its jar
needs Java 21 or later, which the product finds as it finds its own.

    python bench/pyserini.py [--copies 32] [--repeat 4] [--venv DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, pyserini_venv, write_json
from _searcher_runs import runs_and_speeds

from pylucene_mcp import jvm
from pylucene_mcp.jvm import find_java_home
from pylucene_mcp.research import (
    Analyzer,
    FieldSpec,
    LuceneSearcher,
    ResearchIndex,
    evaluate,
    html_text,
    read_qrels,
    read_topics,
)

CACM = ROOT.parent / "shared" / "eval" / "cacm"
CHAIN = ["englishPossessive", "lowercase", "stop", "porterStem"]  # Anserini's English chain
MEASURES = ["map", "P_30"]


def cacm() -> list[dict[str, str]]:
    docs = []
    with tarfile.open(CACM / "cacm.tar.gz") as tar:
        for member in tar.getmembers():
            raw = tar.extractfile(member) if member.name.endswith(".html") else None
            if raw is not None:
                text = html_text(raw.read().decode("utf-8", "replace"))
                docs.append({"id": Path(member.name).stem, "contents": text})
    return docs


def copies(docs: list[dict[str, str]], n: int) -> list[dict[str, str]]:
    return [{"id": f"{d['id']}-{c}", "contents": d["contents"]} for c in range(n) for d in docs]


def json_collection(docs: list[dict[str, str]], folder: Path) -> Path:
    folder.mkdir(parents=True)
    with open(folder / "docs.jsonl", "w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps(doc) + "\n")
    return folder


def fields() -> dict[str, FieldSpec]:
    """As Anserini indexes with -storePositions -storeDocvectors -storeRaw: ids as doc values
    (the tie order), the text stored, with positions and term vectors."""
    return {
        "id": FieldSpec.keyword(doc_values=True),
        "contents": FieldSpec.text(Analyzer.custom("standard", CHAIN), True, term_vectors=True),
    }


def ours(
    docs: list[dict[str, str]],
    big: list[dict[str, str]],
    work: Path,
    topics: dict[str, str],
    repeat: int,
) -> dict[str, Any]:
    with ResearchIndex.create(work / "ours", fields()) as index:
        index.add_many(docs)
    times = []
    for n in range(3):  # the best of three, as pyserini's side
        started = time.perf_counter()
        with ResearchIndex.create(work / f"ours-big-{n}", fields()) as index:
            index.add_many(big, threads=2)  # as Anserini's -threads 2
        times.append(time.perf_counter() - started)
    indexing_s = min(times)
    with LuceneSearcher(work / "ours") as searcher:
        figures = runs_and_speeds(searcher, topics, repeat)
    return {**figures, "indexing_s": indexing_s, "documents": len(big)}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=4, help="the topics this many times a batch")
    parser.add_argument("--venv", type=Path, default=ROOT / "bench-data" / "pyserini-venv")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    python = pyserini_venv(args.venv)
    topics = read_topics(CACM / "topics.cacm.txt")
    qrels = read_qrels(CACM / "qrels.cacm.txt")
    docs = cacm()
    big = copies(docs, args.copies)
    jvm.start()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "topics.json").write_text(json.dumps(topics), encoding="utf-8")
        side = subprocess.run(
            [
                str(python),
                "-P",  # the script's folder off sys.path: there, this file would be `pyserini`
                str(ROOT / "bench" / "pyserini_side.py"),
                str(json_collection(docs, work / "cacm")),
                str(work / "theirs"),
                str(json_collection(big, work / "big")),
                str(work / "theirs-big"),
                str(work / "topics.json"),
                str(args.repeat),
            ],
            env={**os.environ, "JAVA_HOME": str(find_java_home())},
            capture_output=True,
            text=True,
            check=False,
        )
        if side.returncode != 0:
            raise SystemExit(f"pyserini's side failed:\n{side.stderr[-3000:]}")
        theirs = json.loads(side.stdout.splitlines()[-1])  # Anserini logs on stdout first
        mine = ours(docs, big, work, topics=topics, repeat=args.repeat)
    report(mine, theirs, qrels)
    if args.json:
        write_json(args.json, {"ours": mine["speed"], "pyserini": theirs["speed"]})


def report(mine: dict[str, Any], theirs: dict[str, Any], qrels: Any) -> None:
    print(f"{'CACM':24}{'pyserini':>12}{'ours':>12}")
    for name in mine["runs"]:
        a = evaluate(
            {q: [tuple(h) for h in r] for q, r in theirs["runs"][name].items()}, qrels, MEASURES
        )
        b = evaluate(
            {q: [tuple(h) for h in r] for q, r in mine["runs"][name].items()}, qrels, MEASURES
        )
        for m in MEASURES:
            print(f"{name + ' ' + m:24}{a[m]:12.4f}{b[m]:12.4f}")
    n = mine["documents"]
    print(f"{'indexing, docs/s':24}{theirs['documents'] / theirs['indexing_s']:12,.0f}"
          f"{n / mine['indexing_s']:12,.0f}   ({n:,} documents, 2 threads)")  # fmt: skip
    for key in mine["speed"]:
        print(f"{'q/s ' + key:24}{theirs['speed'][key]:12,.0f}{mine['speed'][key]:12,.0f}")


if __name__ == "__main__":
    main()
