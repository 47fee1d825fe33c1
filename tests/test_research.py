"""Research indexes: a schema of one's own, bulk indexing, search with a similarity per
search, raw queries, explanations as data, deletion by query, iteration and notebook tables."""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import InvalidRequestError, QuerySyntaxError, UnknownFieldError, jvm
from pylucene_mcp.research import Analyzer, FieldSpec, ResearchIndex, Similarity

DOCS = [
    {"id": "d1", "title": "Apple pie <best>", "body": "apple apple pie with cinnamon"},
    {"id": "d2", "title": "Pear tart", "body": "a pear tart and one apple"},
    {"id": "d3", "title": "Plum cake", "body": "plums, sugar and butter"},
]


# The scores of d1 for "apples" (stemmed "appl": twice in d1's 5 body tokens, once in d2's 6; d3
# has 4; 15 tokens in all, 3 documents), worked out by hand from the formulas, not by Lucene:
# BM25(k1=0.9, b=0.4): ln(1 + (N - n + 0.5) / (n + 0.5)) · tf / (tf + k1 · (1 - b + b · dl/avgdl))
BM25_D1 = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5)) * 2 / (2 + 0.9 * (1 - 0.4 + 0.4 * 5 / 5))
# LM Dirichlet(mu=100): ln(1 + tf / (mu · P(t|C))) + ln(mu / (dl + mu)), P(t|C) = (3+1) / (15+1)
DIRICHLET_D1 = math.log(1 + 2 / (100 * (3 + 1) / (15 + 1))) + math.log(100 / (5 + 100))


@pytest.fixture
def recipes(tmp_path: Path) -> Iterator[ResearchIndex]:
    english = Analyzer.custom("standard", ["lowercase", "porterStem"])
    index = ResearchIndex.create(
        tmp_path / "recipes",
        {
            "id": FieldSpec.keyword(),
            "title": FieldSpec.text(english, stored=True),
            "body": FieldSpec.text(english),
        },
        Similarity.bm25(0.9, 0.4),
    )
    assert index.add_many(DOCS, batch=2) == 3  # two batches across the boundary
    yield index
    index.close()


def test_bulk_indexing_keeps_every_field_and_refuses_unknown_ones(recipes: ResearchIndex) -> None:
    assert len(recipes) == 3
    assert [d["id"] for d in recipes] == ["d1", "d2", "d3"]
    assert "body" not in next(iter(recipes))  # not stored
    with pytest.raises(UnknownFieldError, match="this index has: id, title, body"):
        recipes.add_many([{"id": "d4", "category": "dessert"}])


def test_bulk_indexing_keeps_text_beyond_the_basic_plane_and_absent_values(tmp_path: Path) -> None:
    """Values cross into Java as one text cut by lengths in Java's UTF-16 units: a character
    beyond the basic plane (two units, one Python character) must not shift the values after
    it; an absent value leaves the field out; a lone surrogate, which Java cannot hold, is
    refused with what to do and nothing of its batch is added."""
    words = Analyzer.custom("whitespace")
    fields = {
        "id": FieldSpec.keyword(),
        "t": FieldSpec.text(words, stored=True),
        "n": FieldSpec.text(words, stored=True),
    }
    docs = [
        {"id": "a", "t": "x 😀 y", "n": "é 𝔘 z"},
        {"id": "b", "n": "only n"},
        {"id": "c", "t": "😀😀", "n": None},
        {"id": "d", "t": "plain", "n": "ascii"},
    ]
    with ResearchIndex.create(tmp_path / "unicode", fields) as index:
        assert index.add_many(docs, batch=3) == 4
        assert list(index) == [{k: v for k, v in d.items() if v is not None} for d in docs]
        with pytest.raises(InvalidRequestError, match="lone surrogate"):
            index.add_many([{"id": "e", "t": "fine"}, {"id": "f", "t": "broken \ud800 text"}])
        assert len(index) == 4


def test_search_ranks_by_the_index_similarity_or_one_given_for_the_search(
    recipes: ResearchIndex,
) -> None:
    found = recipes.search("apples", field="body")  # stemmed like the field
    assert [h.fields["id"] for h in found] == ["d1", "d2"] and found.total_hits == 2
    bm25 = found.hits[0].score
    assert bm25 == pytest.approx(BM25_D1, rel=1e-5)
    dirichlet = recipes.search("apples", field="body", similarity=Similarity.lm_dirichlet(100))
    assert dirichlet.hits[0].score == pytest.approx(DIRICHLET_D1, rel=1e-5)
    again = recipes.search("apples", field="body")
    assert again.hits[0].score == pytest.approx(bm25)  # the other search changed nothing


def test_a_raw_lucene_query_and_its_explanation_as_data(recipes: ResearchIndex) -> None:
    term = jvm.jclass("org.apache.lucene.index.Term")("body", "appl")
    raw = jvm.jclass("org.apache.lucene.search.TermQuery")(term)
    found = recipes.search(raw)
    assert [h.fields["id"] for h in found] == ["d1", "d2"]
    explained = recipes.explain(raw, found.hits[0].doc)
    assert explained.match and math.isclose(explained.value, found.hits[0].score, rel_tol=1e-6)
    assert "appl" in explained.description


def test_delete_by_query_and_the_notebook_table(recipes: ResearchIndex) -> None:
    table = recipes.search("title:pie OR title:tart")._repr_html_()
    assert "<table>" in table and "&lt;best&gt;" in table and "<best>" not in table
    assert recipes.delete("pie", field="title") == 1
    assert len(recipes) == 2 and [d["id"] for d in recipes] == ["d2", "d3"]


def test_batch_search_runs_every_topic_on_java_threads_in_topic_order(
    recipes: ResearchIndex,
) -> None:
    topics = {"q1": "apples", "q2": "plum cake", "q3": "nothing here"}
    one = recipes.batch_search(topics, "body", "id", k=5, threads=1)
    two = recipes.batch_search(topics, "body", "id", k=5, threads=2)
    assert one == two and list(two) == ["q1", "q2", "q3"]
    assert [doc for doc, _ in two["q1"]] == ["d1", "d2"] and two["q3"] == []
    assert two["q1"][0][1] == pytest.approx(BM25_D1, rel=1e-5)
    lm = recipes.batch_search(topics, "body", "id", similarity=Similarity.lm_dirichlet(100))
    assert lm["q1"][0] == ("d1", pytest.approx(DIRICHLET_D1, rel=1e-5))


def test_long_indexing_can_show_a_progress_bar(recipes: ResearchIndex) -> None:
    more = [{"id": f"x{n}", "body": f"extra note {n}"} for n in range(1200)]
    assert recipes.add_many(more, batch=500, progress=True) == 1200
    assert len(recipes) == 1203


def test_the_products_chains_by_name(tmp_path: Path) -> None:
    index = ResearchIndex.create(
        tmp_path / "folded", {"body": FieldSpec.text(Analyzer.product("content"))}
    )
    try:
        # the possessive stands for its owner too (at its position: docs/query.md)
        assert index.terms("Müller’s ﬁnance", "body") == ["muller's", "muller", "finance"]
    finally:
        index.close()
    with pytest.raises(InvalidRequestError, match="there are content, reversed"):
        Analyzer.product("stemmed")


def test_numbers_doc_values_and_term_vectors(tmp_path: Path) -> None:
    index = ResearchIndex.create(
        tmp_path / "papers",
        {
            "id": FieldSpec.keyword(doc_values=True),
            "year": FieldSpec.long(),
            "body": FieldSpec.text(Analyzer.custom("standard", ["lowercase"]), term_vectors=True),
        },
    )
    try:
        index.add_many(
            [
                {"id": "p1", "year": 1999, "body": "graph graph search"},
                {"id": "p2", "year": "2004", "body": "search engines"},
                {"id": "p3", "year": 2011, "body": "graph theory"},
            ]
        )
        points = jvm.jclass("org.apache.lucene.document.LongPoint")
        recent = index.search(points.newRangeQuery("year", 2000, 2020))
        assert sorted(h.fields["id"] for h in recent) == ["p2", "p3"]
        assert recent.hits[0].fields["year"] in {"2004", "2011"}  # stored numbers come back
        first = index.search("graph").hits[0]
        assert index.term_vector(first.doc, "body") == {"graph": 2, "search": 1}
        assert index.term_vector(first.doc, "id") == {}  # no vectors for that field
        with pytest.raises(InvalidRequestError, match="'year' holds whole numbers, not 'soon'"):
            index.add_many([{"id": "p4", "year": "soon"}])
    finally:
        index.close()


@pytest.fixture
def papers(tmp_path: Path) -> Iterator[ResearchIndex]:
    index = ResearchIndex.create(
        tmp_path / "papers",
        {"id": FieldSpec.keyword(), "year": FieldSpec.long(), "body": FieldSpec.text()},
    )
    rows = [
        {"id": "doc-1", "year": 1970, "body": "graph search"},
        {"id": "doc", "year": 1972, "body": "graph theory"},
        {"id": "1", "year": 1975, "body": "search engines"},
        {"id": "CACM-0001", "year": 1976, "body": "parallel graph processing"},
        {"id": "cacm-0002", "year": 1980, "body": "sorting"},
    ]
    index.add_many(rows)
    yield index
    index.close()


def _ids(found: Any) -> list[str]:
    return sorted(hit.fields["id"] for hit in found)


@pytest.mark.parametrize(
    ("query", "ids"),
    [
        ("id:doc-1", ["doc-1"]),  # the exact value, not the words "doc" and "1"
        ("id:CACM-0001", ["CACM-0001"]),  # case kept: a keyword is as written
        ("id:cacm-0001", []),
        ("id:CACM*", ["CACM-0001"]),
        ('id:"doc"', ["doc"]),
        ("id:[CACM-0001 TO doc]", ["CACM-0001", "cacm-0002", "doc"]),
        ("year:1975", ["1"]),
        ("year:[1970 TO 1975]", ["1", "doc", "doc-1"]),
        ("year:{1970 TO 1975}", ["doc"]),
        ("year:[1976 TO *]", ["CACM-0001", "cacm-0002"]),
        ("graph AND year:[1971 TO *]", ["CACM-0001", "doc"]),
        ("body:graph -id:doc", ["CACM-0001", "doc-1"]),
        ("*:*", ["1", "CACM-0001", "cacm-0002", "doc", "doc-1"]),
    ],
)
def test_each_field_is_queried_as_it_is_indexed(
    papers: ResearchIndex, query: str, ids: list[str]
) -> None:
    assert _ids(papers.search(query, k=10)) == ids
    assert papers.search(query, k=10).total_hits == len(ids)


def test_a_delete_removes_exactly_what_matches(papers: ResearchIndex) -> None:
    assert papers.delete("id:doc-1") == 1
    assert _ids(papers.search("*:*", k=10)) == ["1", "CACM-0001", "cacm-0002", "doc"]
    assert papers.delete("year:[1975 TO 1976]") == 2
    assert _ids(papers.search("*:*", k=10)) == ["cacm-0002", "doc"]
    assert papers.delete("id:nothing") == 0
    assert len(papers) == 2


def test_delete_by_id_takes_each_id_as_a_term(papers: ResearchIndex) -> None:
    assert papers.delete_ids(["doc-1", "CACM-0001", "missing", "id:doc"]) == 2
    assert _ids(papers.search("*:*", k=10)) == ["1", "cacm-0002", "doc"]
    assert papers.delete_ids([]) == 0
    with pytest.raises(UnknownFieldError, match="delete_ids needs a keyword field; 'body'"):
        papers.delete_ids(["x"], field="body")


def test_a_query_on_a_field_the_schema_lacks_or_a_wrong_number_is_refused(
    papers: ResearchIndex,
) -> None:
    with pytest.raises(UnknownFieldError, match="unknown field 'title'; valid fields: body, id"):
        papers.search("title:graph")
    with pytest.raises(QuerySyntaxError, match="'year' holds whole numbers; 'soon' is not one"):
        papers.search("year:soon")
    with pytest.raises(QuerySyntaxError, match="year:19\\* is a pattern of text"):
        papers.search("year:19*")
