"""Dense retrieval (pyserini's ``LuceneFlatDenseSearcher`` and ``LuceneHnswDenseSearcher``)
against numpy: pre-encoded unit vectors indexed as Anserini's ``JsonDenseVectorCollection``; the
flat search must give numpy's exact nearest documents (score ``(1 + dot) / 2``, ties by id), the
HNSW search nearly all of them."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pylucene_mcp.basics.errors import InvalidRequestError
from pylucene_mcp.research import LuceneFlatDenseSearcher, LuceneHnswDenseSearcher
from pylucene_mcp.research.indexer import index_collection

DIMENSION = 24


def _unit(rows: np.ndarray) -> np.ndarray:
    unit: np.ndarray = (rows / np.linalg.norm(rows, axis=1, keepdims=True)).astype(np.float32)
    return unit


@pytest.fixture(scope="module")
def vectors() -> np.ndarray:
    """600 documents' vectors around 12 centres (as real embeddings cluster), and a few copies
    of one vector: equal scores, ordered by id."""
    chance = np.random.default_rng(7)
    centres = chance.normal(size=(12, DIMENSION))
    rows = centres[chance.integers(0, 12, 600)] + 0.6 * chance.normal(size=(600, DIMENSION))
    rows[590:] = rows[3]  # ten ties
    return _unit(rows)


def _ids(count: int) -> list[str]:
    return [f"d{(n * 7919) % 10007:05}" for n in range(count)]  # not in index order


@pytest.fixture(scope="module")
def folders(vectors: np.ndarray, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("dense")
    source = work / "vectors"
    source.mkdir()
    with (source / "docs.jsonl").open("w") as out:
        for doc_id, row in zip(_ids(len(vectors)), vectors, strict=True):
            out.write(json.dumps({"docid": doc_id, "vector": [float(x) for x in row]}) + "\n")
    made = {}
    for name, extra in (("hnsw", []), ("int8", ["-quantize.int8"])):
        made[name] = work / name
        args = ["-collection", "JsonDenseVectorCollection", "-input", str(source),
                "-index", str(made[name]), "-M", "16", "-efC", "100", *extra]  # fmt: skip
        assert index_collection(args) == len(vectors)
    return made


def _oracle(vectors: np.ndarray, query: np.ndarray, k: int) -> list[tuple[str, float]]:
    """numpy's exact answer: Lucene's dot-product score of each document, best first, equal
    scores by id."""
    scores = (1 + vectors.astype(np.float32) @ query.astype(np.float32)) / 2
    ranked = sorted(
        zip(_ids(len(vectors)), scores.tolist(), strict=True), key=lambda h: (-h[1], h[0])
    )
    return ranked[:k]


def _queries(count: int, seed: int) -> np.ndarray:
    return _unit(np.random.default_rng(seed).normal(size=(count, DIMENSION)))


def test_the_flat_search_gives_numpy_s_exact_nearest_documents(
    folders: dict[str, Path], vectors: np.ndarray
) -> None:
    with LuceneFlatDenseSearcher(str(folders["hnsw"])) as searcher:
        assert searcher.num_docs == len(vectors)
        queries = [*_queries(30, seed=3), vectors[3]]  # the last: the ten equal vectors
        for query in queries:
            for k in (10, 100):
                found = searcher.search([float(x) for x in query], k=k)
                expected = _oracle(vectors, query, k)
                assert [h.docid for h in found] == [i for i, _ in expected]
                for hit, (_, score) in zip(found, expected, strict=True):
                    assert hit.score == pytest.approx(score, abs=1e-6)
        tied = searcher.search(json.dumps([float(x) for x in vectors[3]]), k=11)
        assert [h.docid for h in tied[:11]] == sorted(h.docid for h in tied[:11])


def test_the_hnsw_search_finds_nearly_all_of_the_exact_top_ten(
    folders: dict[str, Path], vectors: np.ndarray
) -> None:
    queries = _queries(40, seed=11)
    qids = [f"q{n}" for n in range(len(queries))]
    as_lists = [[float(x) for x in q] for q in queries]
    for name in ("hnsw", "int8"):
        with LuceneHnswDenseSearcher(str(folders[name]), ef_search=100) as searcher:
            found = searcher.batch_search(as_lists, qids, k=10, threads=2)
        recalled = sum(
            len({h.docid for h in found[qid]} & {i for i, _ in _oracle(vectors, q, 10)})
            for qid, q in zip(qids, queries, strict=True)
        )
        assert recalled / (10 * len(queries)) >= 0.95, name
        if name == "hnsw":  # full precision: each score is the vector's exact one
            for qid, q in zip(qids, queries, strict=True):
                exact = dict(_oracle(vectors, q, len(vectors)))
                for hit in found[qid]:
                    assert hit.score == pytest.approx(exact[hit.docid], abs=1e-6)


class _Encoder:
    """Texts as vectors: the query's words pick the documents' vectors it means."""

    def __init__(self, vectors: np.ndarray) -> None:
        self.vectors = vectors

    def encode(self, text: str) -> list[float]:
        picked = self.vectors[[int(word) for word in text.split()]].sum(axis=0)
        return [float(x) for x in _unit(picked[None, :])[0]]


def test_a_text_is_searched_through_its_encoder(
    folders: dict[str, Path], vectors: np.ndarray
) -> None:
    with LuceneFlatDenseSearcher(str(folders["hnsw"]), encoder=_Encoder(vectors)) as searcher:
        hits = searcher.search("17 17", k=5)
        assert hits[0].docid == _ids(len(vectors))[17]


def test_what_a_dense_search_cannot_take_is_said(folders: dict[str, Path], tmp_path: Path) -> None:
    with LuceneFlatDenseSearcher(str(folders["hnsw"])) as searcher:
        with pytest.raises(InvalidRequestError, match="24 numbers"):
            searcher.search([0.1, 0.2])
        with pytest.raises(InvalidRequestError, match="without an encoder"):
            searcher.search("semantic networks")
        with pytest.raises(InvalidRequestError, match="one id for each query"):
            searcher.batch_search([[0.0] * DIMENSION], ["a", "b"])
    with pytest.raises(InvalidRequestError, match="no index folder"):
        LuceneHnswDenseSearcher(str(tmp_path / "nowhere"))
    source = tmp_path / "bad"
    source.mkdir()
    (source / "docs.jsonl").write_text(json.dumps({"id": "d1", "contents": "no vector"}) + "\n")
    args = ["-collection", "JsonDenseVectorCollection", "-input", str(source),
            "-index", str(tmp_path / "bad-index")]  # fmt: skip
    with pytest.raises(InvalidRequestError, match="a docid and a vector"):
        index_collection(args)


def test_a_text_is_encoded_by_the_semantic_path_s_model_as_the_documents_were(
    tmp_path: Path,
) -> None:
    """A researcher's loop: documents encoded by a model, indexed, searched by a question in
    other words through the same model (``encoder=`` its folder)."""
    from pylucene_mcp.semantic.encoder import Encoder
    from tests.semantic_model import ensure

    texts = {
        "boats": "The ferry crosses the harbour every hour, carrying cars and passengers.",
        "bread": "Knead the dough, let it rise overnight, then bake the loaf until golden.",
        "stars": "The telescope observed a distant galaxy and measured its red shift.",
    }
    model = Encoder(ensure())
    source = tmp_path / "vectors"
    source.mkdir()
    with (source / "docs.jsonl").open("w") as out:
        for key, text in texts.items():
            vector = [float(x) for x in model.embed(text)]
            out.write(json.dumps({"docid": key, "vector": vector}) + "\n")
    index = tmp_path / "index"
    assert index_collection(["-collection", "JsonDenseVectorCollection", "-input", str(source),
                             "-index", str(index)]) == 3  # fmt: skip
    with LuceneFlatDenseSearcher(str(index), encoder=str(ensure())) as searcher:
        assert searcher.search("how to make a loaf of bread at home", k=1)[0].docid == "bread"
        assert searcher.search("a ship that takes people across the bay", k=1)[0].docid == "boats"


FIXTURE = Path(__file__).parent / "fixtures" / "anserini-dense"


@pytest.mark.parametrize("kind", ["flat", "hnsw"])
def test_the_dense_indexes_pyserini_builds_open_and_answer_as_pyserini_does(
    kind: str, tmp_path: Path
) -> None:
    """pyserini's own flat index (its vectors in a format of Anserini's own name) and HNSW index
    (bench/anserini_dense_fixture.py), searched by ours: pyserini's answers, and numpy's."""
    import tarfile

    with tarfile.open(FIXTURE / f"{kind}.tar.gz") as tar:
        tar.extractall(tmp_path / kind, filter="data")
    answers = json.loads((FIXTURE / "answers.json").read_text())
    lines = (FIXTURE / "vectors.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    vectors = np.array([r["vector"] for r in rows], dtype=np.float32)
    searcher: LuceneFlatDenseSearcher | LuceneHnswDenseSearcher = (
        LuceneFlatDenseSearcher(str(tmp_path / kind))
        if kind == "flat"
        else LuceneHnswDenseSearcher(str(tmp_path / kind), ef_search=100)
    )
    with searcher:
        assert searcher.num_docs == len(rows)
        for qid, query in answers["queries"].items():
            theirs = answers["runs"][kind][qid]
            ours = searcher.search(query, k=1000)
            assert [h.docid for h in ours] == [docid for docid, _ in theirs]
            for hit, (_, score) in zip(ours, theirs, strict=True):
                # Lucene 10 sums a dot product in its own order (and by the CPU's vector width):
                # the last bit of a float may differ from Lucene 9's
                assert hit.score == pytest.approx(score, abs=1e-6)
            scores = (1 + vectors @ np.array(json.loads(query), dtype=np.float32)) / 2
            best = sorted(range(len(rows)), key=lambda n: (-scores[n], rows[n]["docid"]))[:10]
            if kind == "flat":
                assert [h.docid for h in ours[:10]] == [rows[n]["docid"] for n in best]
