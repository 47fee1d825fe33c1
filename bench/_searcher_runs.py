"""What ``bench/pyserini.py`` measures of a searcher with pyserini's API, one function for both
sides (ours, and pyserini's in its own virtualenv, which imports this file and nothing else of
the project): the CACM runs of each configuration, and the batch-search speeds."""

from __future__ import annotations

import time
from typing import Any

#: each run's configuration: a name and how to set a searcher up for it
CONFIGURATIONS = ("bm25", "qld", "bm25+rm3", "bm25+rocchio")


def _setup(searcher: Any, name: str) -> None:
    searcher.unset_rm3()
    searcher.unset_rocchio()
    if name == "qld":
        searcher.set_qld(1000)
    else:
        searcher.set_bm25(0.9, 0.4)
    if name == "bm25+rm3":
        searcher.set_rm3(10, 10, 0.5)
    if name == "bm25+rocchio":
        searcher.set_rocchio()


def runs(searcher: Any, topics: dict[str, str]) -> dict[str, Any]:
    """``{configuration: {qid: [[docid, score], ...]}}``: 1,000 hits a topic on two threads for
    each configuration."""
    qids, texts = list(topics), list(topics.values())
    out = {}
    for name in CONFIGURATIONS:
        _setup(searcher, name)
        found = searcher.batch_search(texts, qids, k=1000, threads=2)
        out[name] = {q: [[h.docid, h.score] for h in hits] for q, hits in found.items()}
    return out


def runs_and_speeds(searcher: Any, topics: dict[str, str], repeat: int) -> dict[str, Any]:
    """``{"runs": {configuration: {qid: [[docid, score], ...]}}, "speed": {label: q/s}}``: 1,000
    hits a topic on two threads for each configuration; then, with BM25, the best of five
    batches (the topics ``repeat`` times) after one to warm up, at k=10 and k=1000 on one and
    two threads."""
    texts = list(topics.values())
    found_runs = runs(searcher, topics)
    _setup(searcher, "bm25")
    return {"runs": found_runs, "speed": batch_speeds(searcher, texts, repeat)}


def batch_speeds(searcher: Any, texts: list[Any], repeat: int) -> dict[str, float]:
    """Queries a second of ``searcher.batch_search``: the best of five batches (``texts``
    ``repeat`` times) after one to warm up, at k=10 and k=1000 on one and two threads."""
    speed = {}
    many = texts * repeat
    ids = [str(i) for i in range(len(many))]
    for k in (10, 1000):
        for threads in (1, 2):
            best = 0.0
            searcher.batch_search(many, ids, k=k, threads=threads)  # warm-up, not timed
            for _ in range(5):
                t = time.perf_counter()
                searcher.batch_search(many, ids, k=k, threads=threads)
                best = max(best, len(many) / (time.perf_counter() - t))
            speed[f"k={k}, {threads} thread{'s' if threads > 1 else ''}"] = best
    return speed
