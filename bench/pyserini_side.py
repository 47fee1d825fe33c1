"""pyserini's half of ``bench/pyserini.py``, run in pyserini's own virtualenv: indexes a
JsonCollection with Anserini's ``IndexCollection`` (as ``python -m pyserini.index.lucene``
does) and runs the topics with ``LuceneSearcher.batch_search`` for each configuration and
times the batches; or, with ``build``, indexes once in a process of its own and says how long
the indexing took. Its answer is one JSON object on a line of stdout that starts with ``@@``
(Anserini logs there too).

    python bench/pyserini_side.py CACM_DIR CACM_INDEX TOPICS_JSON REPEAT
    python bench/pyserini_side.py build SOURCE_DIR INDEX THREADS
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

#: what starts a line of this side's answers
MARK = "@@ "


def main() -> None:
    stand_in()
    from pyserini.pyclass import autoclass  # first: it puts Anserini's jar on the class path
    from pyserini.search.lucene import LuceneSearcher

    def build(source: str, target: str, threads: int) -> float:
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
                str(threads),
                "-storePositions",
                "-storeDocvectors",
                "-storeRaw",
            ]  # fmt: skip
        )
        return time.perf_counter() - started

    if sys.argv[1] == "build":  # one build in this process, as a person runs the indexer
        source, target, threads = sys.argv[2:5]
        seconds = build(source, target, int(threads))
        answer({"seconds": seconds, "documents": int(LuceneSearcher(target).num_docs)})
        return
    collection, index, topics_path = sys.argv[1:4]
    repeat = int(sys.argv[4])
    if not os.path.isdir(index):
        build(collection, index, 2)
    topics = json.loads(open(topics_path, encoding="utf-8").read())
    answer(runs_and_speeds(LuceneSearcher(index), topics, repeat))


def answer(value: object) -> None:
    """One answer on stdout, marked (Anserini logs there too)."""
    print("\n" + MARK + json.dumps(value), flush=True)


if __name__ == "__main__":
    main()
