"""What ``bench/pyserini_impact.py`` measures of an impact searcher with pyserini's API, one
function for both sides (ours, and pyserini's in its own virtualenv, which imports this file and
``_searcher_runs.py``, nothing else of the project): the CACM run, and the batch-search speeds."""

from __future__ import annotations

from typing import Any

from _searcher_runs import batch_speeds


class Cached:
    """Pre-encoded queries by their text (pyserini's ``CachedDataQueryEncoder``'s lookup, as an
    object: pyserini's own class needs torch's imports, which its virtualenv here has not)."""

    def __init__(self, vectors: dict[str, dict[str, int]]) -> None:
        self.vectors = vectors

    def encode(self, text: str, **kwargs: Any) -> dict[str, int]:
        return self.vectors[text.strip()]


def impact_runs_and_speeds(searcher: Any, topics: dict[str, str], repeat: int) -> dict[str, Any]:
    """``{"run": {qid: [[docid, score], ...]}, "speed": {label: q/s}}``: 1,000 hits a topic on
    two threads; then the best of five batches (the topics ``repeat`` times) after one to warm
    up, at k=10 and k=1000 on one and two threads."""
    qids, texts = list(topics), list(topics.values())
    found = searcher.batch_search(texts, qids, k=1000, threads=2)
    run = {q: [[h.docid, h.score] for h in hits] for q, hits in found.items()}
    return {"run": run, "speed": batch_speeds(searcher, texts, repeat)}
