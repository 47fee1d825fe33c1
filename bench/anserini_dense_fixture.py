"""Makes ``tests/fixtures/anserini-dense``: the flat and the HNSW dense index that pyserini 1.6.0's
jar builds (Anserini's ``IndexFlatDenseVectors`` and ``IndexHnswDenseVectors -M 16 -efC 100``)
over 80 seeded unit vectors of 16 dimensions, the vectors, and pyserini's answers to 6 queries
(``LuceneFlatDenseSearcher``, ``LuceneHnswDenseSearcher`` at ef_search 100), which
``tests/test_dense.py`` checks ours against over pyserini's own indexes. pyserini runs in its
own virtualenv (``bench/pyserini_dense_side.py``).

    python bench/anserini_dense_fixture.py [--venv DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import tarfile
import tempfile
from pathlib import Path

import numpy as np
from _common import ROOT, pyserini_venv
from pyserini import run_side

TARGET = ROOT / "tests" / "fixtures" / "anserini-dense"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--venv", type=Path, default=ROOT / "bench-data" / "pyserini-venv")
    python = pyserini_venv(parser.parse_args().venv)
    chance = np.random.default_rng(52)
    rows = chance.normal(size=(86, 16))
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    documents, queries = rows[:80], rows[80:]
    TARGET.mkdir(parents=True, exist_ok=True)
    with open(TARGET / "vectors.jsonl", "w", encoding="utf-8") as out:
        for n, row in enumerate(documents):
            out.write(json.dumps({"docid": f"v{n:03}", "vector": [float(x) for x in row]}) + "\n")
    asked = {f"q{n}": json.dumps([float(x) for x in row]) for n, row in enumerate(queries)}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "vectors").mkdir()
        shutil.copy(TARGET / "vectors.jsonl", work / "vectors" / "vectors.jsonl")
        (work / "queries.json").write_text(json.dumps(asked), encoding="utf-8")
        answer = run_side(python, "pyserini_dense_side.py", str(work / "vectors"), str(work),
                          str(work / "queries.json"), "1")  # fmt: skip
        for kind in ("flat", "hnsw"):
            with tarfile.open(TARGET / f"{kind}.tar.gz", "w:gz") as tar:
                for file in sorted((work / f"theirs-{kind}").iterdir()):
                    if file.name != "write.lock":
                        tar.add(file, arcname=file.name)
    (TARGET / "answers.json").write_text(
        json.dumps({"queries": asked, "runs": answer["runs"]}, indent=1), encoding="utf-8"
    )
    print(f"wrote {TARGET}")


if __name__ == "__main__":
    main()
