"""pyserini's LuceneSearcher and LuceneIndexReader over a research index: bag-of-words search
with Anserini's tie order and score rounding, QLD, RM3's feedback terms, documents by either id,
and the reader's statistics, postings and vectors checked against plain Python over the same
analysed text."""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from pylucene_mcp import DocumentNotFoundError, InvalidRequestError, UnknownFieldError
from pylucene_mcp.research import (
    Analyzer,
    FieldSpec,
    LuceneIndexReader,
    LuceneSearcher,
    PyseriniAnswer,
    ResearchIndex,
    Similarity,
)

# d2 and d4 have the same text: equal scores, which Anserini orders by collection id
DOCS = [
    {"id": "d3", "contents": "parallel computing on parallel processors"},
    {"id": "d4", "contents": "sorting networks for parallel sorting"},
    {"id": "d1", "contents": "computing the fast fourier transform"},
    {"id": "d2", "contents": "sorting networks for parallel sorting"},
    {"id": "d5", "contents": "a survey of compilers"},
]
CHAIN = ["lowercase", "stop", "porterStem"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("pyserini") / "index"
    english = Analyzer.custom("standard", CHAIN)
    fields = {
        "id": FieldSpec.keyword(doc_values=True),
        "contents": FieldSpec.text(english, stored=True, term_vectors=True),
    }
    with ResearchIndex.create(path, fields, Similarity.bm25(0.9, 0.4)) as index:
        for doc in DOCS:  # a segment each: statistics over segments
            index.add_many([doc])
    return path


@pytest.fixture(scope="module")
def searcher(folder: Path) -> Iterator[LuceneSearcher]:
    with LuceneSearcher(str(folder)) as s:
        yield s


def analysed(text: str) -> list[str]:
    """The chain by hand: lowercase, English stop words out, Porter stems of these words."""
    stems = {"computing": "comput", "processors": "processor", "sorting": "sort",
             "networks": "network", "transform": "transform", "compilers": "compil",
             "survey": "survei"}  # fmt: skip
    stop = {"a", "on", "for", "the", "of"}
    return [stems.get(w, w) for w in text.lower().split() if w not in stop]


def positions(text: str) -> dict[str, list[int]]:
    """Each analysed term's positions: a stop word is gone but keeps its place."""
    out: dict[str, list[int]] = {}
    for place, word in enumerate(text.lower().split()):
        for term in analysed(word):
            out.setdefault(term, []).append(place)
    return out


def bm25(term: str, doc: dict[str, str], k1: float = 0.9, b: float = 0.4) -> float:
    """BM25 of one term for one document, from the analysed texts of all DOCS."""
    lengths = [len(analysed(d["contents"])) for d in DOCS]
    df = sum(term in analysed(d["contents"]) for d in DOCS)
    tf = analysed(doc["contents"]).count(term)
    dl = len(analysed(doc["contents"]))
    idf = math.log(1 + (len(DOCS) - df + 0.5) / (df + 0.5))
    return idf * tf / (tf + k1 * (1 - b + b * dl / (sum(lengths) / len(DOCS))))


def test_a_text_is_a_bag_of_its_words_ranked_as_anserini_ranks(searcher: LuceneSearcher) -> None:
    hits = searcher.search("parallel sorting networks", k=5)
    by_id = {d["id"]: d for d in DOCS}
    expected = {d: sum(bm25(t, by_id[d]) for t in ["parallel", "sort", "network"]) for d in by_id}
    ranked = sorted((d for d in by_id if expected[d] > 0), key=lambda d: (-expected[d], d))
    assert [h.docid for h in hits] == ranked  # d2 before d4: equal scores, by id
    assert hits[0].docid == "d2" and hits[1].docid == "d4"
    # scores rounded to 1e-4, the tie lowered by 1e-6
    assert hits[0].score == pytest.approx(round(expected["d2"], 4), abs=1e-6)
    assert hits[1].score == pytest.approx(round(expected["d4"], 4) - 1e-6, abs=1e-7)
    assert hits[0].score > hits[1].score
    assert searcher.doc(hits[0].lucene_docid).docid() == "d2"
    assert hits[0].lucene_document.get("id") == "d2"
    # a Lucene query's hits are ranked the same way
    query = searcher._index.query("contents:parallel OR contents:sort OR contents:network")
    assert [h.docid for h in searcher.search(query, k=5)] == ranked
    with pytest.raises(InvalidRequestError, match="q is a text or a Lucene Query"):
        searcher.search(42, k=5)  # type: ignore[arg-type]
    # a repeated word counts twice (boost 2), as in Anserini's bag of words
    twice = searcher.search("compilers compilers", k=1)[0]
    assert twice.score == pytest.approx(round(2 * bm25("compil", by_id["d5"]), 4), abs=1e-6)


def test_fields_search_a_bag_of_words_on_each_boosted(searcher: LuceneSearcher) -> None:
    one = searcher.search("fourier", k=1, fields={"contents": 2.0})[0]
    plain = searcher.search("fourier", k=1)[0]
    assert one.docid == plain.docid == "d1"
    assert one.score == pytest.approx(round(2 * bm25("fourier", DOCS[2]), 4), abs=1e-6)
    assert searcher.batch_search(["fourier"], ["q"], fields={"contents": 1})["q"] == [plain]
    with pytest.raises(UnknownFieldError, match="unknown field 'title'"):
        searcher.search("fourier", fields={"title": 1.0})


def test_batch_search_gives_each_query_its_hits_by_id(searcher: LuceneSearcher) -> None:
    found = searcher.batch_search(["fourier", "compilers", "nothing"], ["q1", "q2", "q3"], k=3)
    assert {q: [h.docid for h in hits] for q, hits in found.items()} == {
        "q1": ["d1"],
        "q2": ["d5"],
        "q3": [],
    }
    assert found == searcher.batch_search(
        ["fourier", "compilers", "nothing"], ["q1", "q2", "q3"], 3, 2
    )


def test_qld_scores_by_dirichlet_smoothing(searcher: LuceneSearcher) -> None:
    searcher.set_qld(100)
    try:
        hit = searcher.search("fourier", k=1)[0]
    finally:
        searcher.set_bm25()
    tokens = [analysed(d["contents"]) for d in DOCS]
    total = sum(len(t) for t in tokens)
    # Lucene's LMDirichlet: ln(1 + tf / (mu · P(t|C))) + ln(mu / (dl + mu)), P(t|C) = (cf+1)/(T+1)
    p = (1 + 1) / (total + 1)
    d1 = analysed(DOCS[2]["contents"])
    expected = math.log(1 + 1 / (100 * p)) + math.log(100 / (len(d1) + 100))
    assert hit.docid == "d1" and hit.score == pytest.approx(round(expected, 4), abs=1e-6)
    assert searcher.get_similarity().toString() == "BM25(k1=0.9,b=0.4)"


def test_rm3_feedback_terms_come_from_the_first_hits_vectors(searcher: LuceneSearcher) -> None:
    assert not searcher.is_using_rm3()
    searcher.set_rm3(fb_terms=3, fb_docs=2, original_query_weight=0.5)
    try:
        assert searcher.is_using_rm3()
        terms = searcher.get_feedback_terms("parallel")
        hits = searcher.search("parallel", k=5)
    finally:
        searcher.unset_rm3()
    # every word here is in more than a tenth of the documents, which Anserini's RM3 takes for
    # a stop word: the model is empty, and the query keeps its own half of the weight alone
    assert terms == {"parallel": 0.5}
    assert [h.docid for h in hits] == [h.docid for h in searcher.search("parallel", k=5)]


def test_rm3_and_rocchio_take_turns(searcher: LuceneSearcher, folder: Path) -> None:
    searcher.set_rm3()
    searcher.set_rocchio(top_fb_docs=2, top_fb_terms=5)
    try:
        assert searcher.is_using_rocchio() and not searcher.is_using_rm3()
        # every word is in more than a tenth of these documents: no feedback term, and the
        # query's own terms (weight alpha = 1) rank as the bag of words does
        hits = searcher.search("sorting networks", k=5)
        with LuceneSearcher(folder) as plain:
            assert [h.docid for h in hits] == [
                h.docid for h in plain.search("sorting networks", k=5)
            ]
        searcher.set_rm3()
        assert searcher.is_using_rm3() and not searcher.is_using_rocchio()
    finally:
        searcher.unset_rm3()
        searcher.unset_rocchio()
    assert not searcher.is_using_rm3() and not searcher.is_using_rocchio()


def test_documents_by_collection_id_or_lucene_id(searcher: LuceneSearcher) -> None:
    doc = searcher.doc("d5")
    assert doc is not None and doc.docid() == doc.id() == "d5"
    assert doc.contents() == doc.raw() == "a survey of compilers"
    assert doc.get("contents") == doc.lucene_document().get("contents")
    assert searcher.doc("nope") is None and searcher.doc(99) is None
    lucene = searcher.index_reader.convert_collection_docid_to_internal_docid("d5")
    assert lucene is not None and searcher.doc(lucene).docid() == "d5"
    assert searcher.index_reader.convert_internal_docid_to_collection_docid(lucene) == "d5"
    assert searcher.doc_by_field("id", "d1").contents() == DOCS[2]["contents"]
    assert set(searcher.batch_doc(["d1", "nope", "d2"])) == {"d1", "d2"}
    assert searcher.num_docs == 5


def test_the_readers_statistics_postings_and_vectors_match_plain_python(folder: Path) -> None:
    reader = LuceneIndexReader(folder)
    tokens = {d["id"]: analysed(d["contents"]) for d in DOCS}
    every = Counter(t for ts in tokens.values() for t in ts)
    assert reader.stats() == {
        "total_terms": sum(every.values()),
        "documents": 5,
        "non_empty_documents": 5,
        "unique_terms": len(every),  # over five segments (pyserini's says -1)
    }
    terms = {t.term: (t.df, t.cf) for t in reader.terms()}
    assert terms == {t: (sum(t in ts for ts in tokens.values()), every[t]) for t in every}
    assert reader.get_term_counts("Sorting") == (2, 4)  # analysed as the field is
    assert reader.get_term_counts("sorting", analyzer=None) == (0, 0)  # as it is: no such term
    assert reader.get_term_counts("the") == (0, 0)  # a stop word: nothing left
    postings = reader.get_postings_list("parallel")
    lucene = {d: reader.convert_collection_docid_to_internal_docid(d) for d in tokens}
    # positions count the stop words' places too ("on" stands between computing and parallel)
    expected = sorted(
        (lucene[d["id"]], len(places), places)
        for d in DOCS
        if (places := positions(d["contents"]).get("parallel"))
    )
    assert [(p.docid, p.tf, p.positions) for p in postings or []] == expected
    assert reader.get_postings_list("absent") is None
    assert reader.get_document_vector("d3") == dict(Counter(tokens["d3"]))
    assert reader.get_term_positions("d3") == positions(DOCS[0]["contents"])
    assert reader.compute_bm25_term_weight("d3", "parallel") == pytest.approx(
        bm25("parallel", DOCS[0]), rel=1e-6
    )
    assert reader.compute_bm25_term_weight("d5", "parallel") == 0.0
    assert reader.analyze("The Sorting Networks") == ["sort", "network"]
    assert reader.doc_contents("d1") == DOCS[2]["contents"] and reader.doc_raw("nope") is None
    reader.close()


def test_misuse_gets_the_projects_errors(searcher: LuceneSearcher, tmp_path: Path) -> None:
    with pytest.raises(InvalidRequestError, match="k is a whole number"):
        searcher.search("x", k=0)
    with pytest.raises(InvalidRequestError, match="2 queries but 1 qids"):
        searcher.batch_search(["a", "b"], ["q1"])
    with pytest.raises(InvalidRequestError, match="a query is a text"):
        searcher.batch_search([3], ["q1"])  # type: ignore[list-item]
    with pytest.raises(InvalidRequestError, match="a docid is the collection's id"):
        searcher.doc(1.5)  # type: ignore[arg-type]
    with pytest.raises(UnknownFieldError, match="unknown field 'title'"):
        searcher.index_reader.stats("title")
    # where pyserini answers None or -1 (and its scripts test for it), so do these, saying why
    reader = searcher.index_reader
    with pytest.warns(PyseriniAnswer, match="no keyword field"):
        assert searcher.doc_by_field("contents", "x") is None
    with pytest.warns(PyseriniAnswer, match="no document with the id 'nope'"):
        assert reader.get_document_vector("nope") is None
    with pytest.warns(PyseriniAnswer, match="no document with the id 'nope'"):
        assert reader.get_term_positions("nope") is None
    with pytest.warns(PyseriniAnswer, match="no document with the id 'nope'"):
        assert reader.convert_collection_docid_to_internal_docid("nope") == -1
    with pytest.raises(DocumentNotFoundError, match="no document with the id 'nope'"):
        reader.compute_bm25_term_weight("nope", "sort")
    # several terms once analysed: as pyserini, the documents with them as a phrase, no cf
    assert searcher.index_reader.get_term_counts("parallel sorting") == (2, None)
    with pytest.raises(InvalidRequestError, match="2 terms once analysed"):
        searcher.index_reader.get_postings_list("parallel sorting")
    with pytest.raises(InvalidRequestError, match="feedback .RM3, Rocchio. needs the query's text"):
        searcher.set_rm3()
        try:
            searcher.search(searcher._index.query("parallel"))
        finally:
            searcher.unset_rm3()
    plain = tmp_path / "plain"
    with ResearchIndex.create(plain, {"id": FieldSpec.keyword(), "contents": FieldSpec.text()}):
        pass
    with (
        LuceneSearcher(plain) as without,
        pytest.raises(InvalidRequestError, match="term_vectors=True"),
    ):
        without.set_rm3()


def test_evaluate_takes_trec_evals_names_and_gives_each_topic() -> None:
    from pylucene_mcp.research import evaluate

    qrels = {"q1": {"a": 1, "c": 1}, "q2": {"b": 1}}
    run = {"q1": [("a", 3.0), ("b", 2.0), ("c", 1.0)], "q2": [("a", 2.0), ("b", 1.0)]}
    # by hand: q1's AP = (1/1 + 2/3) / 2, q2's = (1/2) / 1; P@2: q1 1/2, q2 1/2; RR: 1 and 1/2
    figures = evaluate(run, qrels, ["map", "P_2", "recip_rank", "nDCG@10"], per_topic=True)
    assert figures["map"] == pytest.approx(((1 + 2 / 3) / 2 + 1 / 2) / 2)
    assert figures["P_2"] == pytest.approx(0.5) and figures["recip_rank"] == pytest.approx(0.75)
    assert figures["per_topic"]["map"] == pytest.approx({"q1": (1 + 2 / 3) / 2, "q2": 0.5})
    assert set(figures["per_topic"]) == {"map", "P_2", "recip_rank", "nDCG@10"}
    with pytest.raises(InvalidRequestError, match="unknown measure 'mapp'"):
        evaluate(run, qrels, ["mapp"])


def test_the_query_builder_builds_what_a_text_search_runs(searcher: LuceneSearcher) -> None:
    from pylucene_mcp.research import querybuilder

    should = querybuilder.JBooleanClauseOccur["should"].value
    plain = querybuilder.get_boolean_query_builder()
    boosted = querybuilder.get_boolean_query_builder()
    for word in ("sorting", "networks"):
        term = querybuilder.get_term_query(word)  # Anserini's English analyzer: sort, network
        plain.add(term, should)
        boosted.add(querybuilder.get_boost_query(term, 2.0), should)
    built = searcher.search(plain.build())
    text = searcher.search("sorting networks")
    assert [(h.docid, h.score) for h in built] == [(h.docid, h.score) for h in text]
    assert len(text) == 2
    double = searcher.search(boosted.build())
    assert [h.docid for h in double] == [h.docid for h in text]
    assert [h.score for h in double] == pytest.approx([2 * h.score for h in text], abs=1e-3)
    unstemmed = querybuilder.get_lucene_analyzer(stemming=False)
    assert querybuilder.get_term_query("Sorting", analyzer=unstemmed).getTerm().text() == "sorting"
    with pytest.raises(InvalidRequestError, match="no term once analysed"):
        querybuilder.get_term_query("the")
    searcher.set_rm3()
    try:  # pyserini's NotImplementedError, and the project's error
        with pytest.raises(NotImplementedError, match="needs the query's text"):
            searcher.search(plain.build())
    finally:
        searcher.unset_rm3()


def test_set_analyzer_and_set_language_change_how_queries_are_analysed(folder: Path) -> None:
    from pylucene_mcp.research import querybuilder

    with LuceneSearcher(folder) as searcher:
        stemmed = searcher.search("sorting")  # the index's chain: sort
        searcher.set_analyzer(querybuilder.get_lucene_analyzer(stemming=False))
        assert searcher.search("sorting") == []  # "sorting" is no term of the stemmed index
        searcher.set_language("en")  # Anserini's English analyzer: sort again
        assert [(h.docid, h.score) for h in searcher.search("sorting")] == [
            (h.docid, h.score) for h in stemmed
        ]
        searcher.set_language("de")  # German stemming leaves "sorting" as it is
        assert searcher.search("sorting") == []
        with pytest.raises(InvalidRequestError, match="no analyzer of the language 'xx'"):
            searcher.set_language("xx")
        with pytest.raises(InvalidRequestError, match="a Java Analyzer"):
            searcher.set_analyzer("english")
        searcher.set_analyzer(None)
        assert len(searcher.search("sorting")) == len(stemmed) == 2


def test_the_indexer_replaces_appends_and_indexes_as_anserini(tmp_path: Path) -> None:
    """pyserini's LuceneIndexer writes a new index over one already there (its append flag
    adds to it); ResearchIndex.create had appended: 3 documents became 6."""
    import json

    from pylucene_mcp.research import LuceneIndexer

    folder = tmp_path / "otf"
    docs = [{"id": d["id"], "contents": d["contents"]} for d in DOCS[:3]]
    indexer = LuceneIndexer(str(folder))
    for doc in docs:
        indexer.add_doc_raw(json.dumps(doc))
    indexer.close()
    same = tmp_path / "same"  # the same documents, indexed with Anserini's chain by hand
    fields = {
        "id": FieldSpec.keyword(doc_values=True),
        "contents": FieldSpec.text(Analyzer.custom("standard", CHAIN), stored=True),
    }
    with ResearchIndex.create(same, fields, Similarity.bm25(0.9, 0.4)) as index:
        index.add_many(docs)
    with LuceneSearcher(str(folder)) as searcher, LuceneSearcher(str(same)) as reference:
        assert searcher.num_docs == 3
        found = [(h.docid, h.score) for h in searcher.search("parallel computing")]
        assert found and found == [
            (h.docid, h.score) for h in reference.search("parallel computing")
        ]
    with LuceneIndexer(str(folder), threads=2) as again:  # replaced, not added to
        again.add_batch_dict(docs)
    assert len(LuceneIndexReader(str(folder)).doc("d3").contents() or "") > 0
    with LuceneSearcher(str(folder)) as searcher:
        assert searcher.num_docs == 3
    with LuceneIndexer(args=["-index", str(folder), "-append"]) as more:
        more.add_batch_raw(
            [json.dumps({"id": f"x{d['id']}", "contents": d["contents"]}) for d in docs]
        )
    with LuceneSearcher(str(folder)) as searcher:
        assert searcher.num_docs == 6
    pre = tmp_path / "pretokenized"
    with LuceneIndexer(args=["-index", str(pre), "-pretokenized"]) as tokens:
        tokens.add_doc_dict({"id": "t1", "contents": "Sorting networks"})
    reader = LuceneIndexReader(str(pre))
    assert reader.get_document_vector("t1") == {"Sorting": 1, "networks": 1}
    reader.close()
    # its queries as pyserini's searcher analyses them: "network" (written so) matches,
    # "Sorting" (stemmed "sort") does not
    with LuceneSearcher(str(pre)) as searcher:
        assert [h.docid for h in searcher.search("network")] == []
        assert [h.docid for h in searcher.search("sorting networks")] == []
    with LuceneIndexer(args=["-index", str(pre), "-pretokenized"]) as tokens:
        tokens.add_doc_dict({"id": "t1", "contents": "sort network"})
    with LuceneSearcher(str(pre)) as searcher:  # the stemmed forms, written so, match
        assert [h.docid for h in searcher.search("Sorting networks")] == ["t1"]
    with pytest.raises(InvalidRequestError, match="'-bogus' is no argument"):
        LuceneIndexer(args=["-index", str(pre), "-bogus"])
    with LuceneIndexer(str(pre)) as english:  # replaces the whitespace-analysed index
        english.add_doc_dict({"id": "t1", "contents": "Sorting networks"})
        with pytest.raises(InvalidRequestError, match="has an id and contents"):
            english.add_doc_dict({"id": "t2"})
    reader = LuceneIndexReader(str(pre))
    assert reader.get_document_vector("t1") == {"sort": 1, "network": 1}
    reader.close()
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("not an index")
    with pytest.raises(InvalidRequestError, match="holds other things than an index"):
        LuceneIndexer(str(tmp_path / "notes"))
    assert (tmp_path / "notes" / "mine.txt").exists()
    from pylucene_mcp import Index

    product = Index.open(tmp_path / "product")
    with product.writer() as writer:
        writer.add({"file_path": "/p/a.txt", "content": "kept"})
    product.close()
    with pytest.raises(InvalidRequestError, match="the product's own index"):
        LuceneIndexer(str(tmp_path / "product"))
    kept = Index.open(tmp_path / "product")
    assert len(kept) == 1
    kept.close()


def test_query_document_scores_and_bm25_dumps_agree_with_the_search(
    searcher: LuceneSearcher, tmp_path: Path
) -> None:
    import json

    reader = searcher.index_reader
    for query in ("parallel sorting", "computing networks"):
        hits = searcher.search(query)
        assert hits
        for hit in hits:
            assert reader.compute_query_document_score(hit.docid, query) == pytest.approx(
                hit.score, abs=1e-4
            )
    qld = Similarity.lm_dirichlet(500)
    searcher.set_qld(500)
    try:
        for hit in searcher.search("parallel sorting"):
            score = reader.compute_query_document_score(hit.docid, "parallel sorting", qld)
            assert score == pytest.approx(hit.score, abs=1e-4)
    finally:
        searcher.set_bm25(0.9, 0.4)
    with pytest.warns(PyseriniAnswer):
        assert reader.compute_query_document_score("nope", "sorting") is None

    dump = tmp_path / "bm25.jsonl"
    assert reader.dump_documents_BM25(dump) == searcher.num_docs
    vectors = {d["id"]: d["vector"] for d in map(json.loads, dump.read_text().splitlines())}
    assert set(vectors) == {d["id"] for d in DOCS}
    for docid, vector in vectors.items():
        for term, weight in vector.items():  # each weight is the term's BM25 weight alone
            expected = reader.compute_bm25_term_weight(docid, term, analyzer=None)
            assert weight == pytest.approx(expected, abs=1e-6)
    # brute force over the dump: a query's score is the sum of its terms' weights
    terms = reader.analyze("parallel sorting")
    for hit in searcher.search("parallel sorting"):
        summed = sum(vectors[hit.docid].get(t, 0.0) for t in terms)
        assert summed == pytest.approx(hit.score, abs=1e-4)

    quantized = tmp_path / "quantized.jsonl"
    reader.quantize_weights(dump, quantized)
    weights = [
        w
        for line in quantized.read_text().splitlines()
        for w in json.loads(line)["vector"].values()
    ]
    assert min(weights) == 1 and max(weights) == 256
    assert all(isinstance(w, int) for w in weights)


def test_vectorizers_give_pyserinis_sparse_rows(folder: Path, searcher: LuceneSearcher) -> None:
    from collections import Counter

    from pylucene_mcp.research.vectorizer import BM25Vectorizer, TfidfVectorizer

    reader = searcher.index_reader
    analysed = {d["id"]: Counter(reader.analyze(d["contents"])) for d in DOCS}
    df = Counter(term for counts in analysed.values() for term in counts)
    vocabulary = sorted(term for term, n in df.items() if n > 1)  # min_df=1: in 2 or more
    tfidf = TfidfVectorizer(folder)
    assert tfidf.vocabulary_ == vocabulary
    rows = tfidf.get_vectors(["d3", "d1"], norm=None)
    assert rows.shape == (2, len(vocabulary))
    for row, docid in enumerate(["d3", "d1"]):
        for term, tf in analysed[docid].items():
            if term in vocabulary:
                expected = tf * math.log(len(DOCS) / df[term])
                assert rows[row, vocabulary.index(term)] == pytest.approx(expected)
    unit = tfidf.get_vectors(["d3", "d1"])
    assert [sum(v * v for v in unit.getrow(r).data) for r in range(2)] == pytest.approx([1, 1])
    bm25 = BM25Vectorizer(folder).get_vectors(["d4"], norm=None)
    for term in analysed["d4"]:
        weight = reader.compute_bm25_term_weight("d4", term, analyzer=None)
        assert bm25[0, vocabulary.index(term)] == pytest.approx(weight)
    query = tfidf.get_query_vector("parallel parallel sorting")
    assert query[0, vocabulary.index("parallel")] == 2 and query[0, vocabulary.index("sort")] == 1


def test_the_command_line_indexes_a_json_collection_as_anserinis(tmp_path: Path) -> None:
    """``python -m pylucene_mcp.research.pyserini -collection JsonCollection …``, as pyserini's
    ``python -m pyserini.index.lucene``: a JSON array, an object and JSON lines, in files below
    the input folder; term vectors only with -storeDocvectors."""
    import json
    import subprocess
    import sys

    source = tmp_path / "collection"
    (source / "part").mkdir(parents=True)
    (source / "a.json").write_text(json.dumps(DOCS[:2]), encoding="utf-8")
    (source / "b.json").write_text(json.dumps(DOCS[2]), encoding="utf-8")
    lines = "\n".join(json.dumps(d) for d in DOCS[3:])
    (source / "part" / "c.jsonl").write_text(lines + "\n", encoding="utf-8")
    (source / "notes.txt").write_text("not a document", encoding="utf-8")

    cache = tmp_path / "cache"  # the class-data archive the first run writes: this test's own
    env = {**os.environ, "PYLUCENE_MCP_CACHE": str(cache)}

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pylucene_mcp.research.pyserini", *args]
        return subprocess.run(command, capture_output=True, text=True, timeout=300, env=env)

    common = ["-collection", "JsonCollection", "-input", str(source), "-threads", "1"]
    done = run(*common, "-index", str(tmp_path / "vectors"), "-storeDocvectors", "-storeRaw")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""  # stdout stays free, as everywhere in the project
    assert "5 documents indexed" in done.stderr
    # the JVM's class-data archive is written for the next runs (or tried once: a runtime
    # without class-data sharing)
    assert [p.suffix for p in cache.iterdir()] in ([".jsa"], [".failed"])
    with LuceneIndexReader(str(tmp_path / "vectors")) as reader:
        for doc in DOCS:
            assert reader.get_document_vector(doc["id"]) == dict(Counter(analysed(doc["contents"])))
        assert reader.doc_raw("d5") == DOCS[4]["contents"]
    done = run(*common, "--index", str(tmp_path / "plain"))  # pyserini's --name spelling too
    assert done.returncode == 0, done.stderr
    with LuceneSearcher(str(tmp_path / "plain")) as plain:
        assert plain.num_docs == 5
        assert plain.doc("d1").contents() is None  # not stored without -storeContents
        with pytest.raises(TypeError, match="term_vectors=True"):  # pyserini's TypeError too
            plain.set_rm3()
    refused = run(*common, "-index", str(tmp_path / "x"), "-collection", "TrecCollection")
    assert refused.returncode == 2 and "JsonCollection" in refused.stderr
    assert run("-input", str(tmp_path / "none"), "-index", str(tmp_path / "y")).returncode == 2


def test_pyserinis_other_names_are_here(searcher: LuceneSearcher, tmp_path: Path) -> None:
    """What pyserini's modules export beside the searcher and reader: hits as JScoredDoc, the
    bag-of-words query generator, similarities by name, Java's String, Jackson's object nodes
    for the indexer, and its analysis module."""
    from pylucene_mcp.research import pyserini
    from pylucene_mcp.research.analysis import JAnalyzerUtils, get_lucene_analyzer
    from pylucene_mcp.research.pyserini import (
        JacksonObjectMapper,
        JBagOfWordsQueryGenerator,
        JScoredDoc,
        JString,
        LuceneIndexer,
        LuceneSimilarities,
    )

    plain = searcher.search("parallel sorting", k=3)
    generated = searcher.search(
        "parallel sorting", k=3, query_generator=JBagOfWordsQueryGenerator()
    )
    assert generated == plain and isinstance(plain[0], JScoredDoc)
    with pytest.raises(InvalidRequestError, match="bag of words"):
        searcher.search("parallel", query_generator=object())
    assert str(LuceneSimilarities.bm25(0.8, 0.2).toString()) == "BM25(k1=0.8,b=0.2)"
    assert float(LuceneSimilarities.qld(500).getMu()) == 500.0
    assert str(JString("zoölogy")) == "zoölogy"
    assert pyserini.querybuilder.get_term_query("Sorting").toString() == "contents:sort"
    mapper = JacksonObjectMapper()
    node = mapper.createObjectNode().put("id", "j1").put("contents", "parallel compilers")
    assert json_of(node.toString()) == {"id": "j1", "contents": "parallel compilers"}
    with LuceneIndexer(str(tmp_path / "nodes")) as indexer:
        indexer.add_doc_json(node)
        indexer.add_batch_json([mapper.createObjectNode().put("id", "j2").put("contents", "x y")])
    with LuceneSearcher(str(tmp_path / "nodes")) as nodes:
        assert [h.docid for h in nodes.search("compilers")] == ["j1"]
    words = JAnalyzerUtils.analyze(get_lucene_analyzer(stemming=False), "Sorting Networks")
    assert [str(w) for w in words.toArray()] == ["sorting", "networks"]


def json_of(text: str) -> object:
    import json

    return json.loads(text)


def test_the_analysis_module_gives_anserinis_analyzers_and_pyserinis_errors() -> None:
    from pylucene_mcp.research.analysis import Analyzer as Wrapper
    from pylucene_mcp.research.analysis import get_lucene_analyzer

    text = "The buses' drivers are running on time"
    assert Wrapper(get_lucene_analyzer()).analyze(text) == ["buse", "driver", "run", "time"]
    krovetz = Wrapper(get_lucene_analyzer(stemmer="krovetz"))
    assert krovetz.analyze(text) == ["bus", "driver", "running", "time"]
    bare = Wrapper(get_lucene_analyzer(stemming=False, stopwords=False))
    assert bare.analyze(text) == ["the", "buses", "drivers", "are", "running", "on", "time"]
    assert Wrapper(get_lucene_analyzer()).compute_document_vector("run runs ran") == {
        "run": 2,
        "ran": 1,
    }
    assert Wrapper(get_lucene_analyzer("de")).analyze("Die Häuser") == ["haus"]
    with pytest.raises(TypeError, match="wraps a Java Analyzer"):
        Wrapper("str")
    with pytest.raises(ValueError, match="no analyzer of the language 'blah'"):
        get_lucene_analyzer("blah")
    with pytest.raises(InvalidRequestError, match="Hugging Face"):
        get_lucene_analyzer("hgf_tokenizer", huggingFaceTokenizer="bert-base-uncased")
    with pytest.raises(ValueError, match="porter or krovetz"):
        get_lucene_analyzer(stemmer="snowball")
