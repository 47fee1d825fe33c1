"""Learned sparse retrieval (pyserini's ``LuceneImpactSearcher``) against plain Python: documents
as term weights (made here from real prose: each word's count times a weight of its own, some of
them fractions), indexed as Anserini's ``JsonVectorCollection -impact`` is, and searched with
queries as weights and as texts; the oracle scores each document by the sum of the query's
integer weights times its own, keeps the terms pyserini keeps, and orders as Anserini does."""

from __future__ import annotations

import collections
import itertools
import json
import math
import random
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.basics.errors import InvalidRequestError
from pylucene_mcp.research import LuceneImpactSearcher, LuceneIndexer
from pylucene_mcp.research.indexer import index_collection
from tests.real_text import english_docstrings, words


def _documents(count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` documents of the standard library's prose as term weights: each word's count
    times a weight drawn for the word (a fraction for some: the index keeps its integer part)."""
    chance = random.Random(seed)
    weight: dict[str, float] = {}
    docs = []
    texts = [t for t in itertools.islice(english_docstrings(), count * 3) if len(t) > 200]
    for n, text in enumerate(texts[:count]):
        counts = collections.Counter(w.lower() for w in words(text))
        vector = {}
        for term, times in counts.items():
            if term not in weight:
                weight[term] = chance.choice([0.5, 1, 1.9, 2, 3, 7.5, 12])
            vector[term] = round(times * weight[term], 1)
        docs.append({"id": f"doc{n:04}", "vector": vector})
    return docs


def _oracle(
    docs: list[dict[str, Any]], query: dict[str, float], k: int, min_idf: float = 0.0
) -> list[tuple[str, float]]:
    """The ``k`` best (id, score): the query's terms in fewer than all documents (idf above
    ``min_idf``), each weight's integer part times the document's, summed; best score first,
    equal scores by id."""
    held = [{t: int(w) for t, w in d["vector"].items() if int(w) > 0} for d in docs]
    df = collections.Counter(t for h in held for t in h)
    kept = {t: int(w) for t, w in query.items() if df[t] and math.log(len(docs) / df[t]) > min_idf}
    scored = []
    for doc, weights in zip(docs, held, strict=True):
        matched = [t for t in kept if t in weights]
        if matched:
            scored.append((doc["id"], float(sum(kept[t] * weights[t] for t in matched))))
    scored.sort(key=lambda hit: (-hit[1], hit[0]))
    return scored[:k]


@pytest.fixture(scope="module")
def collection() -> list[dict[str, Any]]:
    return _documents(300, seed=5)


@pytest.fixture(scope="module")
def impact_index(
    collection: list[dict[str, Any]], tmp_path_factory: pytest.TempPathFactory
) -> Path:
    folder = tmp_path_factory.mktemp("impact") / "index"
    args = ["-collection", "JsonVectorCollection", "-impact", "-pretokenized"]
    with LuceneIndexer(str(folder), args=args) as indexer:
        indexer.add_batch_dict(collection)
    return folder


def _queries(docs: list[dict[str, Any]], count: int, seed: int) -> list[dict[str, float]]:
    """Queries of 2-6 terms drawn from the documents, weighted 1-150 (some fractions), with a
    term no document has now and then."""
    chance = random.Random(seed)
    vocabulary = sorted({t for d in docs for t in d["vector"]})
    queries = []
    for n in range(count):
        terms = chance.sample(vocabulary, chance.randint(2, 6))
        query = {t: chance.choice([1, 2, 5, 17.8, 40, 150]) for t in terms}
        if n % 5 == 0:
            query["zzzunindexed"] = 9
        queries.append(query)
    return queries


def _check(found: list[Any], expected: list[tuple[str, float]]) -> None:
    assert [h.docid for h in found] == [i for i, _ in expected]
    for hit, (_, score) in zip(found, expected, strict=True):
        assert hit.score == pytest.approx(score, abs=1e-3)


def test_a_query_of_weights_scores_the_sum_of_the_impacts(
    impact_index: Path, collection: list[dict[str, Any]]
) -> None:
    searcher = LuceneImpactSearcher(str(impact_index), None)
    assert searcher.num_docs == len(collection)
    for query in _queries(collection, 60, seed=9):
        for k in (10, 1000):
            _check(searcher.search(query, k=k), _oracle(collection, query, k))
    searcher.close()


def test_a_batch_on_two_threads_answers_as_one_search_at_a_time(
    impact_index: Path, collection: list[dict[str, Any]]
) -> None:
    queries = _queries(collection, 40, seed=13)
    qids = [f"q{n}" for n in range(len(queries))]
    with LuceneImpactSearcher(str(impact_index), None) as searcher:
        batch = searcher.batch_search(queries, qids, k=50, threads=2)
        assert list(batch) == qids
        for qid, query in zip(qids, queries, strict=True):
            _check(batch[qid], _oracle(collection, query, 50))


def test_a_text_is_weighted_by_its_encoder(
    impact_index: Path, collection: list[dict[str, Any]], tmp_path: Path
) -> None:
    text = "the module returns the value of the file"
    counted = collections.Counter(text.split())
    with LuceneImpactSearcher(str(impact_index), None) as searcher:  # white-space tokens
        _check(searcher.search(text, k=20), _oracle(collection, dict(counted), 20))
    encoded = tmp_path / "queries.jsonl"
    weights = {"module": 120, "file": 31, "value": 7}
    encoded.write_text(
        json.dumps({"id": "1", "contents": "which module reads a file", "vector": weights}) + "\n"
    )
    with LuceneImpactSearcher(str(impact_index), str(encoded), min_idf=0.5) as searcher:
        _check(
            searcher.search(" which module reads a file ", k=20),
            _oracle(collection, weights, 20, min_idf=0.5),
        )
        with pytest.raises(InvalidRequestError, match="not among the pre-encoded queries"):
            searcher.search("another question")


def test_the_command_line_indexes_a_folder_as_the_indexer_does(
    impact_index: Path, collection: list[dict[str, Any]], tmp_path: Path
) -> None:
    source = tmp_path / "vectors"
    source.mkdir()
    with (source / "part0.jsonl").open("w") as out:
        for doc in collection:
            out.write(json.dumps(doc) + "\n")
    target = tmp_path / "cli-index"
    args = ["-collection", "JsonVectorCollection", "-input", str(source), "-index", str(target),
            "-impact", "-pretokenized", "-threads", "2"]  # fmt: skip
    assert index_collection(args) == len(collection)
    query = _queries(collection, 1, seed=21)[0]
    with LuceneImpactSearcher(str(target)) as a, LuceneImpactSearcher(str(impact_index)) as b:
        assert [(h.docid, h.score) for h in a.search(query, 100)] == [
            (h.docid, h.score) for h in b.search(query, 100)
        ]


def test_what_cannot_be_done_here_is_said(impact_index: Path, tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError, match="pre-encoded queries"):
        LuceneImpactSearcher(str(impact_index), "naver/splade-cocondenser-ensembledistil")
    with pytest.raises(InvalidRequestError, match="ONNX"):
        LuceneImpactSearcher(str(impact_index), None, encoder_type="onnx")
    with LuceneImpactSearcher(str(impact_index)) as searcher:
        with pytest.raises(InvalidRequestError, match="without fields"):
            searcher.search("module", fields={"contents": 2.0})
        with pytest.raises(InvalidRequestError, match="k is a whole number"):
            searcher.search("module", k=0)
    args = ["-collection", "JsonVectorCollection", "-impact", "-pretokenized"]
    with LuceneIndexer(str(tmp_path / "bad"), args=args) as indexer:
        with pytest.raises(InvalidRequestError, match="vector of term weights"):
            indexer.add_doc_dict({"id": "d1", "contents": "no vector"})
        with pytest.raises(InvalidRequestError, match="white space"):
            indexer.add_doc_dict({"id": "d1", "vector": {"two words": 3}})
