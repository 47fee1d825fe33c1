"""A semantic search of the embedded index (docs/semantic.md): the documents whose best chunk
reaches the similarity threshold, with totals, facets (DrillSideways included), filters and a
reader's view exactly as a plain-Python oracle computes them from the same chunk vectors with
numpy; each hit's similarity, chunk and passage; what is refused and how."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from pylucene_mcp import Index, IndexAccessError, InvalidRequestError, jvm
from pylucene_mcp.basics.errors import IndexReadOnlyError
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.semantic import chunks
from pylucene_mcp.semantic.encoder import Encoder
from tests.semantic_model import ensure

TOPICS = {
    "rivers": [
        "The river flooded the valley after a week of heavy rain.",
        "Boats carried grain down the wide river to the harbour.",
        "Salmon swim upstream against the current every autumn.",
    ],
    "cooking": [
        "Knead the dough, let it rise, then bake the bread for forty minutes.",
        "A soup of lentils, onions and carrots simmers on the stove.",
        "Whisk the eggs with sugar until the cream turns pale.",
    ],
    "computers": [
        "The compiler turns the source program into machine instructions.",
        "A database index makes lookups by key fast.",
        "The operating system schedules processes on the processor cores.",
    ],
}
AUTHORS = ["Ada", "Bo", "Cy"]
THRESHOLD = 0.25


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(ensure())


def _open(kind: str, request: pytest.FixtureRequest, folder: Path) -> Any:
    """A new, empty backend: an embedded index, or a SolrCloud collection of its own on the
    session's local cluster."""
    if kind == "embedded":
        return Index.open(folder / "index")
    from pylucene_mcp.engine.solr import configset
    from pylucene_mcp.engine.solr.backend import SolrBackend
    from pylucene_mcp.engine.solr.client import SolrClient

    settings = dataclasses.replace(request.getfixturevalue("solr_settings"), collection="semantic")
    client = SolrClient(settings)
    try:
        configset.init(client, shards=2, replicas=1)
    finally:
        client.close()
    backend = SolrBackend.open(settings, refresh_interval_s=0.05)
    with backend.writer() as writer:
        writer.delete_under("/")
    return backend


@pytest.fixture(scope="module", params=["embedded", "solr"])
def corpus(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, encoder: Encoder
) -> Iterator[tuple[Any, dict[str, dict[str, Any]]]]:
    """27 documents with their chunks and vectors, on each backend, and the oracle's copy of
    both."""
    index = _open(request.param, request, tmp_path_factory.mktemp("semantic"))
    docs: dict[str, dict[str, Any]] = {}
    n = 0
    for topic, sentences in TOPICS.items():
        for k in range(9):
            path = f"/docs/{'ab'[n % 2]}/{topic}-{k}.txt"
            text = " ".join(sentences[(k + i) % 3] for i in range(2 + k % 3)) + f" Note {k}."
            docs[path] = {
                "file_path": path,
                "content": text,
                "author": AUTHORS[n % 3],
                "language": "de" if n % 4 == 0 else "en",
            }
            n += 1
    with index.writer() as writer:
        for doc in docs.values():
            writer.add(doc)
    index.refresh()
    store = index.keep_vectors("all-minilm-l6-v2")
    hashes = {p: s.content_hash for p, s in index.file_states(["/docs"]).items()}
    store.delete(list(store.states()))  # a collection's chunks outlive its documents
    for path, doc in docs.items():
        found = chunks.chunks(encoder, doc["content"])
        doc["chunks"] = found
        store.replace(path, hashes[path] or "", found)
    store.commit()
    yield index, docs
    index.close()


def oracle(
    docs: dict[str, dict[str, Any]], query: Any, keep: Any = lambda d: True
) -> list[tuple[str, float]]:
    """The documents whose best chunk reaches the threshold, best first, by plain numpy."""
    found = []
    for path, doc in docs.items():
        if not keep(doc):
            continue
        best = max(float(np.dot(c.vector, query)) for c in doc["chunks"])
        if best >= THRESHOLD:
            found.append((path, best))
    return sorted(found, key=lambda pair: (-pair[1], pair[0]))


def semantic(index: Any, vector: Any, **options: Any) -> dict[str, Any]:
    request = SearchRequest(
        "a question",  # the text a lexical search would parse; a semantic one has its vector
        mode="semantic",
        vector=list(vector),
        similarity_threshold=THRESHOLD,
        page_size=50,
        **options,
    )
    return index.search(request).to_dict()  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "question",
    ["When does the water rise over its banks?", "How do I make bread?", "fast key lookups"],
)
def test_the_documents_and_their_order_are_the_oracles(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder, question: str
) -> None:
    index, docs = corpus
    vector = encoder.embed(question)
    truth = oracle(docs, vector)
    answer = semantic(index, vector)
    assert answer["totalHits"] == len(truth) > 0
    got = [(h["filePath"], h["similarity"]) for h in answer["documents"]]
    assert [p for p, _ in got] == [p for p, _ in truth]
    for (_, similarity), (_, expected) in zip(got, truth, strict=True):
        assert similarity == pytest.approx(expected, abs=2e-4)
    authors = Counter(docs[p]["author"] for p, _ in truth)
    assert {f["value"]: f["count"] for f in answer["facets"]["author"]} == authors


def test_filters_and_chosen_facet_values_count_as_in_a_lexical_search(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    index, docs = corpus
    vector = encoder.embed("cooking a meal in the kitchen")
    english = oracle(docs, vector, lambda d: d["language"] == "en")
    answer = semantic(
        index,
        vector,
        filters=[
            {"field": "language", "operator": "eq", "value": "en"},
            {"field": "author", "operator": "eq", "value": "Bo"},
        ],
    )
    chosen = [p for p, _ in english if docs[p]["author"] == "Bo"]
    assert [h["filePath"] for h in answer["documents"]] == chosen
    assert answer["totalHits"] == len(chosen)
    # the author facet counts the other authors too (DrillSideways), within the language
    sideways = Counter(docs[p]["author"] for p, _ in english)
    assert {f["value"]: f["count"] for f in answer["facets"]["author"]} == sideways
    assert len(sideways) > 1


def test_an_exclusion_limits_the_vector_search_itself(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    index, docs = corpus
    vector = encoder.embed("machines that run programs")
    truth = oracle(docs, vector, lambda d: d["author"] != "Ada")
    answer = semantic(
        index, vector, filters=[{"field": "author", "operator": "not", "value": "Ada"}]
    )
    assert [h["filePath"] for h in answer["documents"]] == [p for p, _ in truth]
    assert answer["totalHits"] == len(truth) > 0
    counted = Counter(docs[p]["author"] for p, _ in truth)
    assert {f["value"]: f["count"] for f in answer["facets"]["author"]} == counted
    assert "Ada" not in counted


def test_a_readers_folders_limit_what_it_finds(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    """As the request's readable folders, and on the embedded index as its view of them."""
    index, docs = corpus
    vector = encoder.embed("boats on the water")
    truth = oracle(docs, vector, lambda d: d["file_path"].startswith("/docs/a/"))
    answers = [semantic(index, vector, within=["/docs/a"])]
    view = index.viewed(["/docs/a"])  # None on a collection, which has no views
    assert (view is not None) == isinstance(index, Index)
    if view is not None:
        answers.append(semantic(view, vector))
    for answer in answers:
        assert [h["filePath"] for h in answer["documents"]] == [p for p, _ in truth]
        assert answer["totalHits"] == len(truth) > 0


def test_each_hit_has_its_chunk_as_its_passage(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    index, docs = corpus
    vector = encoder.embed("the processor runs programs")
    answer = semantic(index, vector, passage_length=60)
    assert answer["documents"]
    for hit in answer["documents"]:
        start, end = hit["chunk"]
        content = docs[hit["filePath"]]["content"]
        best = max(docs[hit["filePath"]]["chunks"], key=lambda c: float(np.dot(c.vector, vector)))
        assert (start, end) == (best.start, best.end)
        (passage,) = hit["passages"]
        shown = passage["text"].removesuffix("…")
        assert len(passage["text"]) <= 60 and content[start:end].startswith(shown)
        assert hit["score"] == pytest.approx(hit["similarity"], abs=1e-3)


def test_a_documents_miss_says_its_best_chunk_and_rank_as_the_oracle(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    index, docs = corpus
    vector = encoder.embed("a river full of fish")
    ranked = oracle(docs, vector, lambda d: True)
    below = [(p, sim) for p, sim in _every(docs, vector) if sim < THRESHOLD]
    request = SearchRequest(
        "x", mode="semantic", vector=list(vector), similarity_threshold=THRESHOLD
    )
    for path, similarity in [ranked[0], ranked[-1], below[0]]:
        miss = index.semantic_miss(path, request)
        assert miss.similarity == pytest.approx(similarity, abs=2e-4)
        assert miss.reaches_threshold == (similarity >= THRESHOLD)
        everyone = _every(docs, vector)
        assert miss.rank == 1 + sum(1 for p, sim in everyone if sim > similarity + 1e-4)
        best = max(docs[path]["chunks"], key=lambda c: float(np.dot(c.vector, vector)))
        assert miss.chunk == (best.start, best.end)
    # a document without vectors yet: nothing is said of the threshold (it had "does not reach")
    waiting = index.semantic_miss("/docs/not-embedded-yet.txt", request)
    assert (waiting.similarity, waiting.reaches_threshold, waiting.rank) == (None, None, None)


def _every(docs: dict[str, dict[str, Any]], query: Any) -> list[tuple[str, float]]:
    """Every document with its best chunk's similarity, best first."""
    found = [
        (path, max(float(np.dot(c.vector, query)) for c in doc["chunks"]))
        for path, doc in docs.items()
    ]
    return sorted(found, key=lambda pair: (-pair[1], pair[0]))


def test_a_higher_threshold_keeps_fewer(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    index, _ = corpus
    vector = encoder.embed("rivers and rain")
    low = semantic(index, vector)["totalHits"]
    request = SearchRequest("rain", mode="semantic", vector=list(vector), similarity_threshold=0.6)
    assert index.search(request).to_dict()["totalHits"] < low


def test_semantic_search_without_vectors_says_how_to_turn_them_on(tmp_path: Path) -> None:
    with Index.open(tmp_path / "index") as index:
        with pytest.raises(InvalidRequestError, match="vectors: true"):
            index.search(SearchRequest("rain", mode="semantic", vector=[0.1] * 384))
        with pytest.raises(InvalidRequestError, match="needs the query's vector"):
            index.search(SearchRequest("rain", mode="semantic"))
        with pytest.raises(InvalidRequestError, match="mode must be"):
            index.search(SearchRequest("rain", mode="vibes"))  # type: ignore[arg-type]


def test_vectors_outlive_a_restart_and_another_model_makes_them_again(
    tmp_path: Path, encoder: Encoder
) -> None:
    with Index.open(tmp_path / "index") as index:
        store = index.keep_vectors("model-one")
        store.replace("/d/a.txt", "h1", chunks.chunks(encoder, "Herons wait by the water."))
        store.commit()
        assert store.states() == {"/d/a.txt": "h1"}
    with Index.open(tmp_path / "index") as index:
        assert index.keep_vectors("model-one").states() == {"/d/a.txt": "h1"}
    with Index.open(tmp_path / "index") as index:
        assert index.keep_vectors("model-two").states() == {}  # made with another: dropped
    assert (tmp_path / "index-vectors").is_dir()


def test_hybrid_fuses_both_lists_by_reciprocal_rank(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    index, docs = corpus
    words, question = "3 OR 4", "baking a loaf in the kitchen"  # "Note 3." ends three
    vector = encoder.embed(question)
    lexical = index.search(
        SearchRequest(words, default_operator="OR", page_size=100, max_passages=0)
    ).to_dict()["documents"]
    meaning = oracle(docs, vector)
    fused: dict[str, float] = {}
    for rank, hit in enumerate(lexical, start=1):
        fused[hit["filePath"]] = fused.get(hit["filePath"], 0.0) + 1 / (60 + rank)
    for rank, (path, _) in enumerate(meaning, start=1):
        fused[path] = fused.get(path, 0.0) + 1 / (60 + rank)
    answer = index.search(
        SearchRequest(
            words,
            mode="hybrid",
            vector=list(vector),
            similarity_threshold=THRESHOLD,
            default_operator="OR",
            page_size=50,
        )
    ).to_dict()
    union = {h["filePath"] for h in lexical} | {p for p, _ in meaning}
    assert answer["totalHits"] == len(union) > len(lexical)
    got = answer["documents"]
    assert {h["filePath"]: h["score"] for h in got} == pytest.approx(
        {p: round(v, 6) for p, v in fused.items()}, abs=2e-6
    )
    scores = [h["score"] for h in got]
    assert scores == sorted(scores, reverse=True)
    by_path = {h["filePath"]: h for h in got}
    for rank, hit in enumerate(lexical, start=1):
        assert by_path[hit["filePath"]]["lexicalRank"] == rank
        assert by_path[hit["filePath"]]["lexicalScore"] == hit["score"]
        assert "<em>" in by_path[hit["filePath"]]["passages"][0]["text"]  # the words' passage
    for rank, (path, similarity) in enumerate(meaning, start=1):
        assert by_path[path]["semanticRank"] == rank
        assert by_path[path]["similarity"] == pytest.approx(similarity, abs=2e-4)
        if "lexicalRank" not in by_path[path]:  # found by meaning alone: its chunk
            start, end = by_path[path]["chunk"]
            shown = by_path[path]["passages"][0]["text"].removesuffix("…")
            assert docs[path]["content"][start:end].startswith(shown)


@pytest.mark.parametrize("corpus", ["embedded"], indirect=True)
def test_a_reader_beside_the_writer_searches_the_writers_vectors(
    corpus: tuple[Any, dict[str, dict[str, Any]]], encoder: Encoder
) -> None:
    index, docs = corpus
    vector = encoder.embed("the processor runs programs")
    reader = Index.open(index.path, read_only=True)
    try:
        reader.keep_vectors("all-minilm-l6-v2")
        assert reader.vectors is not None and reader.vectors.read_only
        mine = semantic(reader, vector)
        assert [h["filePath"] for h in mine["documents"]] == [p for p, _ in oracle(docs, vector)]
        with pytest.raises(IndexReadOnlyError, match="only searches them"):
            reader.vectors.replace("/x", "h", [])
    finally:
        reader.close()


def test_a_reader_before_any_vectors_is_told_who_makes_them(tmp_path: Path) -> None:
    Index.open(tmp_path / "index").close()
    with Index.open(tmp_path / "index", read_only=True) as reader:
        with pytest.raises(IndexAccessError, match="the server that writes the index makes them"):
            reader.keep_vectors("m")


def test_a_collections_vectors_are_beside_it_and_remade_for_another_model(
    solr_settings: Any, encoder: Encoder
) -> None:
    from pylucene_mcp.engine.solr import configset
    from pylucene_mcp.engine.solr.backend import SolrBackend
    from pylucene_mcp.engine.solr.client import SolrClient

    backend = SolrBackend.open(solr_settings)
    try:
        store = backend.keep_vectors("model-one")
        store.delete(list(store.states()))
        store.replace("/d/a.txt", "h1", chunks.chunks(encoder, "Herons wait by the water."))
        store.commit()
        assert store.states() == {"/d/a.txt": "h1"}
    finally:
        backend.close()
    client = SolrClient(solr_settings)
    try:
        found = configset.collections(client)
    finally:
        client.close()
    beside = found[solr_settings.collection + "-vectors"]
    main = found[solr_settings.collection]
    assert beside["configName"] == main["configName"]
    assert len(beside["shards"]) == len(main["shards"])
    backend = SolrBackend.open(solr_settings)
    try:
        assert backend.keep_vectors("model-one").states() == {"/d/a.txt": "h1"}
    finally:
        backend.close()
    backend = SolrBackend.open(solr_settings)
    try:
        # made with another model: not current, so the embedder makes them again
        assert backend.keep_vectors("model-two").states()["/d/a.txt"] != "h1"
    finally:
        backend.close()


def test_a_model_of_a_dimension_without_a_field_is_refused_in_plain_words() -> None:
    from pylucene_mcp.basics.errors import SetupError
    from pylucene_mcp.engine.solr.vectors import vector_field

    assert vector_field(384) == "chunk_vector_384"
    with pytest.raises(SetupError, match="choose a model of one of these"):
        vector_field(300)


def test_above_the_exact_size_the_graph_answers_the_oracles_documents_on_both(
    corpus: tuple[Any, dict[str, dict[str, Any]]],
    encoder: Encoder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Past ``EXACT_CHUNKS`` a search walks the HNSW graph (the embedded index's of 7-bit vectors,
    rescored in full precision; Solr's ``knn`` on each shard's graph of full-precision vectors):
    here the walk's candidates hold every chunk, so its documents, order and similarities are
    the oracle's exactly, filters included (a pre-filter)."""
    import pylucene_mcp.engine.core.semantic as shared

    index, docs = corpus
    if isinstance(index, Index):
        _assert_quantized(index)
    exact = semantic(index, encoder.embed("machines that run programs"))
    assert "approximate" not in exact  # every vector read
    monkeypatch.setattr(shared, "EXACT_CHUNKS", 0)
    for question, keep, filters in [
        ("When does the water rise over its banks?", lambda d: True, []),
        (
            "machines that run programs",
            lambda d: d["author"] != "Ada",
            [{"field": "author", "operator": "not", "value": "Ada"}],
        ),
    ]:
        vector = encoder.embed(question)
        truth = oracle(docs, vector, keep)
        answer = semantic(index, vector, filters=filters)
        assert answer["approximate"] is True  # a walk: said, though here it found them all
        got = [(h["filePath"], h["similarity"]) for h in answer["documents"]]
        assert [p for p, _ in got] == [p for p, _ in truth]
        for (_, similarity), (_, expected) in zip(got, truth, strict=True):
            assert similarity == pytest.approx(expected, abs=2e-4)  # rescored: not 7-bit


def _assert_quantized(index: Index) -> None:
    """The embedded index's chunk vectors are in a graph of 7-bit vectors."""
    from pylucene_mcp.engine.lucene import vectors

    store = index.keep_vectors("all-minilm-l6-v2")
    searcher = store._manager.acquire()
    try:
        formats = {
            str(
                leaf.reader()
                .getFieldInfos()
                .fieldInfo(vectors.VECTOR)
                .getAttribute("PerFieldKnnVectorsFormat.format")
            )
            for leaf in searcher.getIndexReader().leaves()
        }
    finally:
        store._manager.release(searcher)
    quantized = "org.apache.lucene.codecs.lucene104.Lucene104HnswScalarQuantizedVectorsFormat"
    assert formats == {str(jvm.jclass(quantized).NAME)}
