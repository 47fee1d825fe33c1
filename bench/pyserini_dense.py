"""Dense retrieval side by side with pyserini, in one run: CACM's abstracts and topics encoded
by the tests' model (all-MiniLM-L6-v2, run by the semantic path's encoder: ONNX Runtime, unit
vectors), indexed by Anserini's ``IndexHnswDenseVectors`` (-M 16 -efC 100) and
``IndexFlatDenseVectors`` (pyserini 1.6.0's jar) and by ours (the same HNSW settings), the 64
topics searched with each side's ``LuceneFlatDenseSearcher`` and ``LuceneHnswDenseSearcher``
(ef_search 100, pyserini's default) over the same query vectors, 1,000 hits a topic (HNSW: the
100 its walk finds); the flat runs compared hit by hit, the HNSW runs' recall of the flat top ten,
MAP and P@30 by the same ``evaluate``; then batch-search speed at k=10 and k=1000 on one and two
threads (the best of five batches after one to warm up). Target: identical flat runs, HNSW recall
≥ 0.99, not slower.

    python bench/pyserini_dense.py [--repeat 4] [--venv DIR]
"""

from __future__ import annotations

import json
import tempfile
import time
from pathlib import Path
from typing import Any

from _dense_runs import dense_runs_and_speeds
from pyserini import MEASURES, cacm, cacm_side_by_side, run_side
from pyserini_impact import bm25_run, fused

from pylucene_mcp.research import (
    LuceneFlatDenseSearcher,
    LuceneHnswDenseSearcher,
    evaluate,
)
from pylucene_mcp.research.indexer import index_collection
from pylucene_mcp.semantic.encoder import Encoder
from tests.semantic_model import ensure


def encoded(texts: dict[str, str]) -> dict[str, list[float]]:
    """Each text's unit vector by the tests' model (its first 256 tokens)."""
    model = Encoder(ensure())
    return {key: [round(float(x), 7) for x in model.embed(text)] for key, text in texts.items()}


def main() -> None:
    args, python, topics, qrels = cacm_side_by_side()
    started = time.perf_counter()
    documents = encoded({d["id"]: d["contents"] for d in cacm()})
    queries = {qid: json.dumps(v) for qid, v in encoded(topics).items()}
    print(f"encoded {len(documents)} abstracts and {len(queries)} topics in "
          f"{time.perf_counter() - started:.0f} s", flush=True)  # fmt: skip
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        source = work / "vectors"
        source.mkdir()
        with open(source / "cacm.jsonl", "w", encoding="utf-8") as out:
            for doc_id, vector in documents.items():
                out.write(json.dumps({"docid": doc_id, "vector": vector}) + "\n")
        (work / "queries.json").write_text(json.dumps(queries), encoding="utf-8")
        theirs = run_side(
            python,
            "pyserini_dense_side.py",
            str(source),
            str(work),
            str(work / "queries.json"),
            str(args.repeat),
        )
        started = time.perf_counter()
        index_collection(
            ["-collection", "JsonDenseVectorCollection", "-input", str(source), "-index",
             str(work / "ours"), "-M", "16", "-efC", "100"]
        )  # fmt: skip
        built = time.perf_counter() - started
        searchers = {
            "flat": LuceneFlatDenseSearcher(work / "ours"),
            "hnsw": LuceneHnswDenseSearcher(work / "ours", ef_search=100),
        }
        mine = dense_runs_and_speeds(searchers, queries, args.repeat)
        for searcher in searchers.values():
            searcher.close()
        over_theirs = {}
        for name, kind in (("hnsw", LuceneHnswDenseSearcher), ("flat", LuceneFlatDenseSearcher)):
            with kind(work / f"theirs-{name}") as searcher:
                over_theirs[name] = dense_runs_and_speeds({name: searcher}, queries, 1)["runs"][
                    name
                ]
        bm25 = bm25_run(work, topics)
    report(theirs, mine, over_theirs, qrels, built)
    fused(bm25, mine["runs"]["flat"], qrels, "dense flat")


def recall(run: dict[str, Any], exact: dict[str, Any], k: int = 10) -> float:
    found = sum(len({h[0] for h in run[q][:k]} & {h[0] for h in exact[q][:k]}) for q in exact)
    return found / sum(min(k, len(exact[q])) for q in exact)


def report(
    theirs: dict[str, Any],
    mine: dict[str, Any],
    over_theirs: dict[str, Any],
    qrels: Any,
    built: float,
) -> None:
    rows = [(f"pyserini {n}", theirs["runs"][n]) for n in ("flat", "hnsw")]
    rows += [(f"ours {n}", mine["runs"][n]) for n in ("flat", "hnsw")]
    rows += [(f"ours {n} over pyserini's index", run) for n, run in over_theirs.items()]
    exact = theirs["runs"]["flat"]
    for name, run in rows:
        scores = evaluate({q: [tuple(h) for h in r] for q, r in run.items()}, qrels, MEASURES)
        figures = ", ".join(f"{m} {scores[m]:.4f}" for m in MEASURES)
        print(f"{name:28} {figures}, recall@10 of the exact top ten {recall(run, exact):.4f}")
    same = sum(
        1 for q in exact if [h[0] for h in exact[q]] == [h[0] for h in mine["runs"]["flat"][q]]
    )
    worst = max(
        abs(a[1] - b[1])
        for q in exact
        for a, b in zip(exact[q], mine["runs"]["flat"][q], strict=False)
    )
    print(f"flat: {same} of {len(exact)} topics ranked the same (1,000 hits each), largest "
          f"score difference {worst:.2e}")  # fmt: skip
    over = over_theirs["flat"]
    same = sum(1 for q in exact if [h[0] for h in exact[q]] == [h[0] for h in over[q]])
    print(f"flat over pyserini's index: {same} of {len(exact)} topics ranked the same")
    print(f"\n{'queries/s':28}{'pyserini':>12}{'ours':>12}{'ratio':>8}")
    for name in ("flat", "hnsw"):
        for label, value in theirs["speed"][name].items():
            ours = mine["speed"][name][label]
            print(f"{name + ' ' + label:28}{value:12.1f}{ours:12.1f}{ours / value:8.2f}")
    print(f"HNSW indexing: pyserini {theirs['hnsw_index_seconds']:.2f} s, ours {built:.2f} s")


if __name__ == "__main__":
    main()
