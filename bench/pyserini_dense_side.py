"""pyserini's half of ``bench/pyserini_dense.py``, run in pyserini's own virtualenv: indexes a
``JsonDenseVectorCollection`` with Anserini's ``IndexHnswDenseVectors`` (-M 16 -efC 100) and
``IndexFlatDenseVectors``, then runs the queries (their vectors' JSON text) through
``LuceneHnswDenseSearcher`` (ef_search 100) and ``LuceneFlatDenseSearcher`` and times the
batches. Its answer is one JSON object on a line of stdout that starts with ``@@``.

    python -P bench/pyserini_dense_side.py VECTORS_DIR WORK QUERIES_JSON REPEAT
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))
from _dense_runs import dense_runs_and_speeds
from _pyserini_encode import stand_in
from pyserini_side import answer


def main() -> None:
    stand_in()
    from pyserini.pyclass import autoclass  # first: it puts Anserini's jar on the class path
    from pyserini.search.lucene import LuceneFlatDenseSearcher, LuceneHnswDenseSearcher

    vectors, work, queries_path = sys.argv[1:4]
    repeat = int(sys.argv[4])
    common = ["-collection", "JsonDenseVectorCollection", "-input", vectors,
              "-generator", "DenseVectorDocumentGenerator", "-threads", "1"]  # fmt: skip
    started = time.perf_counter()
    autoclass("io.anserini.index.IndexHnswDenseVectors").main(
        [*common, "-index", f"{work}/theirs-hnsw", "-M", "16", "-efC", "100"]
    )
    seconds = time.perf_counter() - started
    autoclass("io.anserini.index.IndexFlatDenseVectors").main(
        [*common, "-index", f"{work}/theirs-flat"]
    )
    queries = json.loads(Path(queries_path).read_text(encoding="utf-8"))
    searchers = {
        "flat": LuceneFlatDenseSearcher(f"{work}/theirs-flat"),
        "hnsw": LuceneHnswDenseSearcher(f"{work}/theirs-hnsw", ef_search=100),
    }
    answer({**dense_runs_and_speeds(searchers, queries, repeat), "hnsw_index_seconds": seconds})


if __name__ == "__main__":
    main()
