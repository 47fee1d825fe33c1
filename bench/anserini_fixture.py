"""Makes ``tests/fixtures/anserini-cacm``: a Lucene 9 index built by pyserini 1.6.0's own indexer
(Anserini's ``IndexCollection``, ``HtmlCollection``) over the first CACM abstracts, and pyserini's
answers over it, which ``tests/test_anserini_index.py`` checks ours against. pyserini is not a
dependency: this runs it in its own virtualenv (made on first use, as ``bench/pyserini.py``).

    python bench/anserini_fixture.py [--documents 300] [--venv DIR]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

from _common import ROOT, anserini_html_index, pyserini_venv

from pylucene_mcp.jvm import find_java_home

CACM = ROOT.parent / "shared" / "eval" / "cacm"
TARGET = ROOT / "tests" / "fixtures" / "anserini-cacm"
#: what pyserini is asked, run in its virtualenv; prints one JSON object
_ASK = r"""
import json, sys
sys.path.append(sys.argv[2])
from _pyserini_encode import stand_in
stand_in()
from pyserini.search.lucene import LuceneSearcher
from pyserini.index.lucene import LuceneIndexReader

index, queries = sys.argv[1], json.loads(sys.argv[3])
searcher = LuceneSearcher(index)
reader = LuceneIndexReader(index)
def hits(found):
    return [[h.docid, h.lucene_docid, h.score] for h in found]
answers = {"num_docs": searcher.num_docs, "bm25": {}, "qld": {}, "rm3": {}, "rocchio": {}}
for q in queries:
    answers["bm25"][q] = hits(searcher.search(q, k=20))
searcher.set_rm3()
for q in queries:
    answers["rm3"][q] = hits(searcher.search(q, k=20))
answers["rm3_terms"] = searcher.get_feedback_terms(queries[0])
searcher.unset_rm3()
searcher.set_rocchio()
for q in queries:
    answers["rocchio"][q] = hits(searcher.search(q, k=20))
searcher.unset_rocchio()
searcher.set_qld()
for q in queries:
    answers["qld"][q] = hits(searcher.search(q, k=20))
first = answers["bm25"][queries[0]][0][0]
answers["document"] = {
    "docid": first,
    "raw": reader.doc_raw(first),
    "contents": reader.doc_contents(first),
    "vector": reader.get_document_vector(first),
    "positions": reader.get_term_positions(first),
}
answers["stats"] = reader.stats()
answers["term_counts"] = {w: list(reader.get_term_counts(w)) for w in ["computers", "retrieval"]}
answers["bm25_weight"] = reader.compute_bm25_term_weight(first, "comput", analyzer=None)
answers["analyze"] = reader.analyze("The Running Computers' programs")
print(json.dumps(answers))
"""
QUERIES = ["information retrieval", "parallel computing", "sorting algorithms", "compiler"]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--documents", type=int, default=300)
    parser.add_argument("--venv", type=Path, default=ROOT / "bench-data" / "pyserini-venv")
    args = parser.parse_args()
    python = pyserini_venv(args.venv)
    env = {**os.environ, "JAVA_HOME": str(find_java_home())}
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        (work / "input").mkdir()
        with tarfile.open(CACM / "cacm.tar.gz") as source:
            members = sorted(
                (m for m in source.getmembers() if m.name.endswith(".html")), key=lambda m: m.name
            )[: args.documents]
            with tarfile.open(work / "input" / "cacm.tar.gz", "w:gz") as part:
                for member in members:
                    data = source.extractfile(member)
                    assert data is not None
                    part.addfile(member, io.BytesIO(data.read()))
        index = work / "index"
        anserini_html_index(python, work / "input", index, env)
        asked = subprocess.run(
            [str(python), "-c", _ASK, str(index), str(ROOT / "bench"), json.dumps(QUERIES)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
        )
        answers = json.loads(asked.stdout.splitlines()[-1])  # Anserini logs on stdout first
        version = subprocess.run(
            [str(python), "-m", "pip", "show", "pyserini"], capture_output=True, text=True
        ).stdout
        answers["made_by"] = next(
            (line for line in version.splitlines() if line.startswith("Version")), ""
        )
        answers["queries"] = QUERIES
        if TARGET.exists():
            shutil.rmtree(TARGET)
        TARGET.mkdir(parents=True)
        with tarfile.open(TARGET / "index.tar.gz", "w:gz") as tar:
            tar.add(index, arcname="index")
        (TARGET / "answers.json").write_text(
            json.dumps(answers, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
        )
    size = sum(p.stat().st_size for p in TARGET.iterdir())
    print(f"{TARGET}: {args.documents} documents, {size:,} bytes", file=sys.stderr)


if __name__ == "__main__":
    main()
