"""pyserini's half of ``bench/pyserini.py``, run in pyserini's own virtualenv: indexes a
JsonCollection with Anserini's ``IndexCollection`` (as ``python -m pyserini.index.lucene``
does), then runs the topics with ``LuceneSearcher.batch_search`` for each configuration and
times the batches. Prints one JSON object as the last line of stdout (Anserini logs there
too): the runs and the timings.

    python bench/pyserini_side.py CACM_DIR CACM_INDEX BIG_DIR BIG_INDEX TOPICS_JSON REPEAT

(CACM_DIR: the collection once, whose index the runs and the search speeds use; BIG_DIR: many
copies of it, whose indexing is timed.)
"""

from __future__ import annotations

import json
import os
import sys
import time
import types

# pyserini's dense and learned-sparse encoders import torch and transformers, which its Lucene
# searcher never uses: a stand-in module lets `pyserini.search.lucene` import without them
_ENCODERS = [
    "QueryEncoder", "CachedDataQueryEncoder", "SlimQueryEncoder", "SpladeQueryEncoder",
    "UniCoilQueryEncoder", "TokFreqQueryEncoder", "AggretrieverQueryEncoder",
]  # fmt: skip


def main() -> None:
    collection, index, big, big_index, topics_path = sys.argv[1:6]
    repeat = int(sys.argv[6])
    stub = types.ModuleType("pyserini.encode")
    for name in _ENCODERS:
        setattr(stub, name, type(name, (), {}))
    sys.modules["pyserini.encode"] = stub
    from pyserini.pyclass import autoclass  # first: it puts Anserini's jar on the class path
    from pyserini.search.lucene import LuceneSearcher

    def build(source: str, target: str) -> float:
        started = time.perf_counter()
        autoclass("io.anserini.index.IndexCollection").main(
            [
                "-collection",
                "JsonCollection",
                "-input",
                source,
                "-index",
                target,
                "-generator",
                "DefaultLuceneDocumentGenerator",
                "-threads",
                "2",
                "-storePositions",
                "-storeDocvectors",
                "-storeRaw",
            ]  # fmt: skip
        )
        return time.perf_counter() - started

    if not os.path.isdir(index):
        build(collection, index)
    indexing_s = min(build(big, f"{big_index}-{n}") for n in range(3))  # the best of three
    topics = json.loads(open(topics_path, encoding="utf-8").read())
    qids, texts = list(topics), list(topics.values())
    searcher = LuceneSearcher(index)
    runs = {}
    for name, setup in [
        ("bm25", lambda: searcher.set_bm25(0.9, 0.4)),
        ("qld", lambda: searcher.set_qld(1000)),
        ("bm25+rm3", lambda: (searcher.set_bm25(0.9, 0.4), searcher.set_rm3(10, 10, 0.5))),
        ("bm25+rocchio", lambda: (searcher.set_bm25(0.9, 0.4), searcher.set_rocchio())),
    ]:
        searcher.unset_rm3()
        searcher.unset_rocchio()
        setup()
        found = searcher.batch_search(texts, qids, k=1000, threads=2)
        runs[name] = {q: [[h.docid, h.score] for h in hits] for q, hits in found.items()}
    searcher.unset_rm3()
    searcher.unset_rocchio()
    searcher.set_bm25(0.9, 0.4)
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
    documents = int(LuceneSearcher(f"{big_index}-0").num_docs)
    figures = {"runs": runs, "speed": speed, "indexing_s": indexing_s, "documents": documents}
    print("\n" + json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
