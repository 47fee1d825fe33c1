"""What ``bench/pyserini_dense.py`` measures of pyserini's two dense searchers, one function for
both sides (ours, and pyserini's in its own virtualenv, which imports this file and
``_searcher_runs.py``, nothing else of the project): each searcher's CACM run and its speeds."""

from __future__ import annotations

from typing import Any

from _searcher_runs import batch_speeds


def dense_runs_and_speeds(
    searchers: dict[str, Any], queries: dict[str, str], repeat: int
) -> dict[str, Any]:
    """For each searcher by name: ``{"run": {qid: [[docid, score], ...]}}`` (1,000 hits a
    query given as its vector's JSON text, two threads) and ``{"speed": {label: q/s}}``."""
    qids, vectors = list(queries), list(queries.values())
    runs, speeds = {}, {}
    for name, searcher in searchers.items():
        found = searcher.batch_search(vectors, qids, k=1000, threads=2)
        runs[name] = {q: [[h.docid, h.score] for h in hits] for q, hits in found.items()}
        speeds[name] = batch_speeds(searcher, vectors, repeat)
    return {"runs": runs, "speed": speeds}
