"""Learned sparse retrieval side by side with pyserini, in one run: the same CACM impact
collection indexed by Anserini's ``IndexCollection -collection JsonVectorCollection -impact
-pretokenized`` (pyserini 1.6.0's jar) and by ours with the same arguments, the 64 topics searched
with each side's ``LuceneImpactSearcher`` over the same pre-encoded weights (1,000 hits a topic),
ours also over pyserini's index; the runs compared document by document and score by score, MAP
and P@30 by the same ``evaluate``; then batch-search speed at k=10 and k=1000 on one and two
threads (the best of five batches after one to warm up). Target: identical runs, not slower.

No learned sparse model can be had here (no model hub), so the weights are **BM25's, quantized**
(said as such): a document's weight for a term is its BM25 (k1 0.9, b 0.4) contribution times
10, rounded, over the terms of Anserini's English analyzer; a query's weight for a term is how
often the topic has it. What is compared is the retrieval (indexing the weights as impacts,
scoring and ordering), which is what the two implementations do.

    python bench/pyserini_impact.py [--repeat 4] [--venv DIR]
"""

from __future__ import annotations

import collections
import json
import math
import tempfile
from pathlib import Path
from typing import Any

from _impact_runs import Cached, impact_runs_and_speeds
from pyserini import MEASURES, cacm, cacm_side_by_side, json_collection, run_side

from pylucene_mcp import jvm
from pylucene_mcp.research import (
    LuceneImpactSearcher,
    LuceneSearcher,
    evaluate,
)
from pylucene_mcp.research.analysis import get_lucene_analyzer, tokens
from pylucene_mcp.research.indexer import index_collection

K1, B, SCALE = 0.9, 0.4, 10


def impact_vectors(docs: list[dict[str, str]]) -> list[dict[str, Any]]:
    """Each document's terms weighted by their BM25 contribution × 10, rounded (≥ 1)."""
    analyzer = get_lucene_analyzer()
    counted = [collections.Counter(tokens(analyzer, d["contents"])) for d in docs]
    df = collections.Counter(t for c in counted for t in c)
    lengths = [sum(c.values()) for c in counted]
    average = sum(lengths) / len(lengths)
    vectors = []
    for doc, counts, length in zip(docs, counted, lengths, strict=True):
        vector = {}
        for term, tf in counts.items():
            idf = math.log(1 + (len(docs) - df[term] + 0.5) / (df[term] + 0.5))
            weight = idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average))
            vector[term] = max(1, round(weight * SCALE))
        vectors.append({"id": doc["id"], "vector": vector})
    return vectors


def encoded_topics(topics: dict[str, str]) -> dict[str, dict[str, Any]]:
    analyzer = get_lucene_analyzer()
    return {
        qid: {"contents": text, "vector": dict(collections.Counter(tokens(analyzer, text)))}
        for qid, text in topics.items()
    }


def main() -> None:
    args, python, topics, qrels = cacm_side_by_side()
    jvm.start()
    queries = encoded_topics(topics)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        source = work / "vectors"
        source.mkdir()
        with open(source / "cacm.jsonl", "w", encoding="utf-8") as out:
            for doc in impact_vectors(cacm()):
                out.write(json.dumps(doc) + "\n")
        (work / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
        theirs = run_side(
            python,
            "pyserini_impact_side.py",
            str(source),
            str(work / "theirs"),
            str(work / "queries.json"),
            str(args.repeat),
        )
        index_collection(
            ["-collection", "JsonVectorCollection", "-input", str(source), "-index",
             str(work / "ours"), "-impact", "-pretokenized", "-threads", "1"]
        )  # fmt: skip
        weights = Cached({q["contents"].strip(): q["vector"] for q in queries.values()})
        with LuceneImpactSearcher(work / "ours", weights) as searcher:
            mine = impact_runs_and_speeds(searcher, topics, args.repeat)
        with LuceneImpactSearcher(work / "theirs", weights) as searcher:
            over_theirs = impact_runs_and_speeds(searcher, topics, 1)["run"]
        bm25 = bm25_run(work, topics)
    report(theirs, mine, over_theirs, qrels)
    fused(bm25, mine["run"], qrels)


def bm25_run(work: Path, topics: dict[str, str]) -> dict[str, list[list[Any]]]:
    """CACM's BM25 (0.9, 0.4) run of ours, as Anserini indexes and searches a JsonCollection."""
    json_collection(cacm(), work / "text")
    index_collection(["-collection", "JsonCollection", "-input", str(work / "text"), "-index",
                      str(work / "bm25"), "-storeDocvectors"])  # fmt: skip
    with LuceneSearcher(str(work / "bm25")) as searcher:
        found = searcher.batch_search(list(topics.values()), list(topics), k=1000, threads=2)
    return {q: [[h.docid, h.score] for h in hits] for q, hits in found.items()}


def fused(bm25: dict[str, Any], other: dict[str, Any], qrels: Any, name: str = "impact") -> None:
    """MAP and P@30 of BM25, of the ``other`` run, and of the two fused by reciprocal rank."""
    from pylucene_mcp.research.fusion import reciprocal_rank_fusion
    from pylucene_mcp.research.trectools import TrecRun

    runs = [
        TrecRun.from_list(
            [(q, "Q0", d, r, s, tag) for q, hits in run.items() for r, (d, s) in enumerate(hits, 1)]
        )
        for run, tag in ((bm25, "bm25"), (other, name))
    ]
    rrf = reciprocal_rank_fusion(runs, depth=1000, k=1000).run_data
    both = {q: list(zip(g["docid"], g["score"], strict=True)) for q, g in rrf.groupby("topic")}
    print()
    for label, run in (("BM25 (ours)", bm25), (f"{name} (ours)", other), ("RRF of the two", both)):
        scores = evaluate({q: [tuple(h) for h in r] for q, r in run.items()}, qrels, MEASURES)
        print(f"{label:28} " + ", ".join(f"{m} {scores[m]:.4f}" for m in MEASURES))


def same(a: dict[str, list[list[Any]]], b: dict[str, list[list[Any]]]) -> tuple[int, int, float]:
    """Topics whose ranked ids are identical, hits compared, and the largest score difference."""
    topics = sum(1 for q in a if [h[0] for h in a[q]] == [h[0] for h in b.get(q, [])])
    hits = sum(len(r) for r in a.values())
    worst = max(
        (abs(x[1] - y[1]) for q in a for x, y in zip(a[q], b.get(q, []), strict=False)),
        default=0.0,
    )
    return topics, hits, worst


def report(
    theirs: dict[str, Any], mine: dict[str, Any], over_theirs: dict[str, Any], qrels: Any
) -> None:
    for name, run in (("pyserini", theirs["run"]), ("ours", mine["run"]),
                      ("ours over pyserini's index", over_theirs)):  # fmt: skip
        scores = evaluate({q: [tuple(h) for h in r] for q, r in run.items()}, qrels, MEASURES)
        figures = ", ".join(f"{m} {scores[m]:.4f}" for m in MEASURES)
        print(f"{name:28} {figures}")
    for name, run in (("ours", mine["run"]), ("ours over pyserini's index", over_theirs)):
        topics, hits, worst = same(theirs["run"], run)
        print(f"{name} against pyserini: {topics} of {len(theirs['run'])} topics ranked the "
              f"same ({hits} hits), largest score difference {worst:.6f}")  # fmt: skip
    print(f"\n{'queries/s':24}{'pyserini':>12}{'ours':>12}{'ratio':>8}")
    for label, value in theirs["speed"].items():
        ours = mine["speed"][label]
        print(f"{label:24}{value:12.1f}{ours:12.1f}{ours / value:8.2f}")
    print(f"pyserini's indexing: {theirs['index_seconds']:.2f} s")


if __name__ == "__main__":
    main()
