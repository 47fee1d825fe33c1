"""pyserini's half of ``bench/pyserini_impact.py``, run in pyserini's own virtualenv: indexes a
``JsonVectorCollection`` with Anserini's ``IndexCollection -impact -pretokenized`` (as
``python -m pyserini.index.lucene`` does), then runs the topics with ``LuceneImpactSearcher``
over their pre-encoded weights and times the batches. Its answer is one JSON object on a line of
stdout that starts with ``@@``.

    python -P bench/pyserini_impact_side.py VECTORS_DIR INDEX QUERIES_JSON REPEAT
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parent))
from _impact_runs import Cached, impact_runs_and_speeds
from _pyserini_encode import stand_in
from pyserini_side import answer


def main() -> None:
    stand_in()
    from pyserini.pyclass import autoclass  # first: it puts Anserini's jar on the class path
    from pyserini.search.lucene import LuceneImpactSearcher

    vectors, index, queries_path = sys.argv[1:4]
    repeat = int(sys.argv[4])
    started = time.perf_counter()
    autoclass("io.anserini.index.IndexCollection").main(
        ["-collection", "JsonVectorCollection", "-input", vectors, "-index", index,
         "-generator", "DefaultLuceneDocumentGenerator", "-impact", "-pretokenized",
         "-threads", "1"]
    )  # fmt: skip
    seconds = time.perf_counter() - started
    queries = json.loads(Path(queries_path).read_text(encoding="utf-8"))
    topics = {qid: q["contents"] for qid, q in queries.items()}
    encoder = Cached({q["contents"].strip(): q["vector"] for q in queries.values()})
    figures = impact_runs_and_speeds(LuceneImpactSearcher(index, encoder), topics, repeat)
    answer({**figures, "index_seconds": seconds})


if __name__ == "__main__":
    main()
