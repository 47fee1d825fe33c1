"""An index pyserini built opens in our LuceneSearcher and LuceneIndexReader and answers as
pyserini answered over it.

The fixture (tests/fixtures/anserini-cacm, made by bench/anserini_fixture.py) is a Lucene 9 index
that pyserini 1.6.0's own indexer (Anserini's IndexCollection, HtmlCollection) built over 300
CACM abstracts, with pyserini's answers over it recorded beside it: BM25, QLD, RM3 and Rocchio
hits, RM3's feedback terms, a document's raw text, contents, vector and positions, statistics,
term counts, a BM25 weight and an analysis. No pyserini runs here.
"""

from __future__ import annotations

import json
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.basics.errors import IndexAccessError, InvalidRequestError
from pylucene_mcp.research import FieldSpec, LuceneIndexReader, LuceneSearcher, ResearchIndex
from pylucene_mcp.research.analysis import Analyzer, get_lucene_analyzer
from pylucene_mcp.research.index_folder import lucene_info

FIXTURE = Path(__file__).parent / "fixtures" / "anserini-cacm"


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("anserini")
    with tarfile.open(FIXTURE / "index.tar.gz") as tar:
        tar.extractall(folder, filter="data")
    return folder / "index"


@pytest.fixture(scope="module")
def answers() -> dict[str, Any]:
    return json.loads((FIXTURE / "answers.json").read_text(encoding="utf-8"))


@pytest.fixture()
def searcher(index: Path) -> Any:
    with LuceneSearcher(str(index)) as searcher:
        yield searcher


def _hits(found: list[Any]) -> list[tuple[str, int, float]]:
    return [(h.docid, h.lucene_docid, round(h.score, 4)) for h in found]


def _theirs(hits: list[list[Any]]) -> list[tuple[str, int, float]]:
    return [(d, n, round(s, 4)) for d, n, s in hits]


def test_it_is_a_lucene_9_index_read_through_the_backward_codecs(index: Path) -> None:
    info = lucene_info(index)
    assert info.created_major == 9
    assert [f.name for f in info.fields] == ["contents", "id", "raw"]


def test_searches_rank_and_score_as_pyserini_did(searcher: Any, answers: dict[str, Any]) -> None:
    assert searcher.num_docs == answers["num_docs"] == 300
    for query in answers["queries"]:
        assert _hits(searcher.search(query, k=20)) == _theirs(answers["bm25"][query]), query
    searcher.set_rm3()
    for query in answers["queries"]:
        assert _hits(searcher.search(query, k=20)) == _theirs(answers["rm3"][query]), query
    terms = searcher.get_feedback_terms(answers["queries"][0])
    assert terms.keys() == answers["rm3_terms"].keys()
    assert all(terms[t] == pytest.approx(w, abs=1e-6) for t, w in answers["rm3_terms"].items())
    searcher.unset_rm3()
    searcher.set_rocchio()
    for query in answers["queries"]:
        assert _hits(searcher.search(query, k=20)) == _theirs(answers["rocchio"][query]), query
    searcher.unset_rocchio()
    searcher.set_qld()
    for query in answers["queries"]:
        assert _hits(searcher.search(query, k=20)) == _theirs(answers["qld"][query]), query


def test_documents_vectors_and_statistics_read_as_pyserini_did(
    index: Path, answers: dict[str, Any]
) -> None:
    document = answers["document"]
    docid = document["docid"]
    with LuceneIndexReader(str(index)) as reader:
        assert reader.doc_raw(docid) == document["raw"]
        assert reader.doc_raw(docid).startswith("<html>")  # Anserini's raw: the HTML file
        assert reader.doc_contents(docid) == document["contents"]
        assert reader.get_document_vector(docid) == document["vector"]
        assert reader.get_term_positions(docid) == document["positions"]
        assert reader.stats() == answers["stats"]
        for word, counts in answers["term_counts"].items():
            assert list(reader.get_term_counts(word)) == counts
        weight = reader.compute_bm25_term_weight(docid, "comput", analyzer=None)
        assert weight == pytest.approx(answers["bm25_weight"], abs=1e-9)
        assert reader.analyze("The Running Computers' programs") == answers["analyze"]


def test_the_analyzer_taken_is_the_one_anserini_indexed_with(
    index: Path, answers: dict[str, Any]
) -> None:
    """The index does not say its analyzer: our English analyzer over the stored contents
    gives, word for word, the vector Anserini's analysis stored."""
    english = Analyzer(get_lucene_analyzer())
    with LuceneIndexReader(str(index)) as reader:
        for n in (0, 7, 150, 299):
            docid = f"CACM-{n + 1:04d}"
            counted = Counter(english.analyze(reader.doc_contents(docid)))
            assert dict(counted) == reader.get_document_vector(docid), docid


def test_it_is_read_not_written(index: Path) -> None:
    with pytest.raises(IndexAccessError, match="built by Anserini .* read_only=True"):
        ResearchIndex.open(index)
    fields = {"id": FieldSpec.keyword(), "contents": FieldSpec.text()}
    with pytest.raises(InvalidRequestError, match="no research index .one Anserini built: 300"):
        ResearchIndex.create(index, fields)  # would have added to it
    with ResearchIndex.open(index, read_only=True) as opened:
        assert len(opened) == 300
        assert opened.fields["id"].kind == "keyword"
        assert opened.fields["contents"].term_vectors
        assert opened.search("retrieval").total_hits > 0
    assert not (index / "write.lock").exists()
