"""Side by side with pyserini, in one run: the same CACM runs through pyserini 1.6.0's
``LuceneSearcher`` (over an Anserini index) and through ours (over a research index) — BM25
(0.9, 0.4), QLD (mu 1000), BM25+RM3 (10, 10, 0.5) and BM25+Rocchio (its defaults), 1,000 hits
each, MAP and P@30 by the same ``evaluate``, and the same runs through ours over pyserini's
index (Lucene 9, opened as it is) — then indexing speed (CACM ×32 as the same JSON lines,
pyserini's ``IndexCollection`` and our command line's ``index_collection`` with the same
flags, on one thread and on two, each build a process of its own, the two sides taking turns,
the best of five each: the indexing alone and the whole process) and
batch-search speed at k=10 and k=1000 with one and two threads (the best of five batches after
one to warm up). Target: the same figures
(±0.0005) and not slower on any speed.

pyserini runs in a virtualenv of its own, made on first use (``--venv``): ``pyserini==1.6.0``
from PyPI without its dependencies (its sdist carries Anserini's jar; its dense retrieval wants
torch), with what its Lucene searcher needs (``pyjnius`` and a few light packages); its jar
needs Java 21 or later, which the product finds as it finds its own.

    python bench/pyserini.py [--copies 32] [--repeat 4] [--venv DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, pyserini_venv, write_json
from _searcher_runs import runs, runs_and_speeds
from pyserini_side import MARK

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


def cacm_side_by_side() -> tuple[argparse.Namespace, Path, dict[str, str], Any]:
    """What each side-by-side script with pyserini starts from: its arguments (``--repeat``,
    ``--venv``), pyserini's virtualenv's python, CACM's topics and qrels."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=4, help="the topics this many times a batch")
    parser.add_argument("--venv", type=Path, default=ROOT / "bench-data" / "pyserini-venv")
    args = parser.parse_args()
    topics = read_topics(CACM / "topics.cacm.txt")
    return args, pyserini_venv(args.venv), topics, read_qrels(CACM / "qrels.cacm.txt")


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


def ours(docs: list[dict[str, str]], work: Path, topics: dict[str, str], repeat: int) -> Any:
    """Our side's runs and speeds over our own index of CACM, and its runs over pyserini's
    (its indexer's, Lucene 9, opened as it is)."""
    with ResearchIndex.create(work / "ours", fields()) as index:
        index.add_many(docs)
    with LuceneSearcher(work / "ours") as searcher:
        figures = runs_and_speeds(searcher, topics, repeat)
    with LuceneSearcher(work / "theirs") as searcher:
        figures["runs_over_theirs"] = runs(searcher, topics)
    return figures


def builds(python: Path, big: Path, work: Path, rounds: int) -> dict[str, Any]:
    """Indexing the same JSON lines on 1 and 2 threads, each build a process of its own as a
    person runs the indexer (pyserini's ``IndexCollection``; our command line), the two sides
    taking turns ``rounds`` times, each after the disk has taken the last one's writes: the
    best time of the indexing alone and of the whole process, and the documents."""
    env = {**os.environ, "JAVA_HOME": str(find_java_home())}
    flags = ["-storePositions", "-storeDocvectors", "-storeRaw"]
    best: dict[str, dict[str, float]] = {}
    documents = 0
    for n in range(rounds):
        for threads in (1, 2):
            for name in ("pyserini", "ours"):
                target = work / f"{name}-{threads}-{n}"
                if name == "pyserini":
                    command = [str(python), "-P", str(ROOT / "bench" / "pyserini_side.py"),
                               "build", str(big), str(target), str(threads)]  # fmt: skip
                else:
                    command = [sys.executable, "-m", "pylucene_mcp.research.pyserini",
                               "-collection", "JsonCollection", "-input", str(big),
                               "-index", str(target), "-threads", str(threads), *flags]  # fmt: skip
                os.sync()
                started = time.perf_counter()
                done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
                whole = time.perf_counter() - started
                if name == "pyserini":
                    answer = marked(done.stdout)
                    indexing, documents = answer["seconds"], answer["documents"]
                else:
                    said = re.search(r"([\d,]+) documents indexed in ([\d.]+) s", done.stderr)
                    assert said is not None, done.stderr
                    assert int(said.group(1).replace(",", "")) == documents, said.group(0)
                    indexing = float(said.group(2))
                side = best.setdefault(name, {})
                for key, value in (
                    (f"indexing {threads}t", indexing),
                    (f"process {threads}t", whole),
                ):
                    side[key] = min(side.get(key, math.inf), value)
                shutil.rmtree(target)  # the disk is not the machine's to fill
    return {"seconds": best, "documents": documents}


def run_side(python: Path, script: str, *arguments: str) -> Any:
    """The answer of pyserini's side: ``bench/<script>`` run with ``arguments`` by pyserini's
    virtualenv's ``python`` (``-P``: the script's folder off sys.path: there, this file would
    be ``pyserini``), on the JVM the product finds."""
    side = subprocess.run(
        [str(python), "-P", str(ROOT / "bench" / script), *arguments],
        env={**os.environ, "JAVA_HOME": str(find_java_home())},
        capture_output=True,
        text=True,
        check=False,
    )
    if side.returncode != 0:
        raise SystemExit(f"pyserini's side failed:\n{side.stderr[-3000:]}")
    return marked(side.stdout)


def marked(stdout: str) -> Any:
    """The answer of pyserini's side: its line marked ``@@`` (Anserini logs on stdout too)."""
    return json.loads(next(x for x in stdout.splitlines() if x.startswith(MARK))[len(MARK) :])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=32)
    parser.add_argument("--repeat", type=int, default=4, help="the topics this many times a batch")
    parser.add_argument("--venv", type=Path, default=ROOT / "bench-data" / "pyserini-venv")
    parser.add_argument("--rounds", type=int, default=5, help="indexing runs of each side")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    python = pyserini_venv(args.venv)
    topics = read_topics(CACM / "topics.cacm.txt")
    qrels = read_qrels(CACM / "qrels.cacm.txt")
    docs = cacm()
    jvm.start()
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "topics.json").write_text(json.dumps(topics), encoding="utf-8")
        big = json_collection(copies(docs, args.copies), work / "big")
        theirs = run_side(
            python,
            "pyserini_side.py",
            str(json_collection(docs, work / "cacm")),
            str(work / "theirs"),
            str(work / "topics.json"),
            str(args.repeat),
        )
        mine = ours(docs, work, topics=topics, repeat=args.repeat)
        built = builds(python, big, work, args.rounds)
    report(mine, theirs, built, qrels)
    if args.json:
        write_json(
            args.json, {"ours": mine["speed"], "pyserini": theirs["speed"], "indexing": built}
        )


def report(mine: dict[str, Any], theirs: dict[str, Any], built: dict[str, Any], qrels: Any) -> None:
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
    for name, run in mine["runs_over_theirs"].items():
        b = evaluate({q: [tuple(h) for h in r] for q, r in run.items()}, qrels, MEASURES)
        print(f"{name + ' MAP':24}{'':12}{b['map']:12.4f}   (ours over pyserini's index)")
    n = built["documents"]
    for key in built["seconds"]["ours"]:
        label = f"{key}, docs/s"
        print(f"{label:24}{n / built['seconds']['pyserini'][key]:12,.0f}"
              f"{n / built['seconds']['ours'][key]:12,.0f}   ({n:,} documents)")  # fmt: skip
    for key in mine["speed"]:
        print(f"{'q/s ' + key:24}{theirs['speed'][key]:12,.0f}{mine['speed'][key]:12,.0f}")


if __name__ == "__main__":
    main()
