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
from pathlib import Path

# run with -P (bench/ off the front of sys.path: bench/pyserini.py would hide the package); the
# shared files are found at the end of the path, after pyserini's own
sys.path.append(str(Path(__file__).resolve().parent))
from _pyserini_encode import stand_in
from _searcher_runs import runs_and_speeds


def main() -> None:
    collection, index, big, big_index, topics_path = sys.argv[1:6]
    repeat = int(sys.argv[6])
    stand_in()
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
    figures = runs_and_speeds(LuceneSearcher(index), topics, repeat)
    documents = int(LuceneSearcher(f"{big_index}-0").num_docs)
    figures.update(indexing_s=indexing_s, documents=documents)
    print("\n" + json.dumps(figures), flush=True)


if __name__ == "__main__":
    main()
