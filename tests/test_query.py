"""Precedence as written: with the default AND, words side by side bind tighter than OR, NOT
and - bind to the next clause, and a group of exclusions alone excludes from every document.
Each case lists the documents it must match; every other document of the corpus must not."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pylucene_mcp import Index
from pylucene_mcp.engine.core.profile import QueryNode, profile_query

DOCS = {
    "a": "machine learning pipelines",
    "b": "deep learning networks",
    "c": "machine network socket",
    "d": "neural network training",
    "e": "contract draft",
}

# (query, default operator, the documents it must match: all others must not)
CASES = [
    # the seed article's first query, and its halves
    ("(machine learning OR deep learning OR neural network*)", "AND", "abd"),
    ("machine learning OR deep learning", "AND", "ab"),
    ("machine learning OR deep learning OR neural network", "AND", "abd"),
    ("machine OR deep learning", "AND", "abc"),
    ("machine socket OR deep networks", "AND", "bc"),
    ("machine AND learning OR neural AND training", "AND", "ad"),
    ("contract OR deep AND networks", "AND", "be"),
    ("(machine OR deep) learning", "AND", "ab"),
    ("+machine learning OR deep", "AND", "ab"),
    # NOT and - bind to the next clause
    ("learning AND NOT deep", "AND", "a"),
    ("learning -deep OR socket", "AND", "ac"),
    ("socket OR (learning AND NOT deep)", "AND", "ac"),
    ("machine learning OR NOT socket", "AND", "abde"),
    ("-draft", "AND", "abcd"),
    ("NOT draft", "AND", "abcd"),
    ("NOT draft NOT machine", "AND", "bd"),
    ("learning AND (NOT deep)", "AND", "a"),
    # with OR as the default, every clause is optional unless marked
    ("machine learning", "OR", "abc"),
    ("machine learning OR deep", "OR", "abc"),
    ("+machine learning", "OR", "ac"),
    ("machine -learning", "OR", "c"),
]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    folder = tmp_path_factory.mktemp("precedence")
    index = Index.open(folder / "index")
    with index.writer() as writer:
        for name, text in DOCS.items():
            writer.add({"file_path": f"/p/{name}", "content": text, "language": "en"})
    yield index
    index.close()


def _found(index: Index, query: str, operator: str) -> str:
    result = index.search(query, default_operator=operator, max_passages=0, page_size=20)
    assert result.total_hits == len(result.documents)
    return "".join(sorted(Path(hit.file_path).name for hit in result.documents))


@pytest.mark.parametrize(("query", "operator", "expected"), CASES)
def test_a_query_matches_what_its_precedence_says(
    corpus: Index, query: str, operator: str, expected: str
) -> None:
    assert set(expected) <= set(DOCS)
    assert _found(corpus, query, operator) == expected


def test_the_alternatives_rank_as_alternatives(corpus: Index) -> None:
    """Both halves of an OR score: neither side is a required clause of the other."""
    result = corpus.search("machine learning OR deep learning", max_passages=0)
    scores = {Path(hit.file_path).name: hit.score for hit in result.documents}
    assert set(scores) == {"a", "b"}
    assert all(score > 0 for score in scores.values())


def test_profile_query_shows_the_groups(corpus: Index) -> None:
    profile = profile_query(corpus, "machine learning OR deep learning")
    top = profile.parsed
    assert top.type == "BooleanQuery"
    groups = top.clauses or ()
    assert [(g.type, g.occur) for g in groups] == [("BooleanQuery", "SHOULD")] * 2
    for group, words in zip(groups, (["machine", "learning"], ["deep", "learning"]), strict=True):
        clauses = group.clauses or ()
        assert [c.occur for c in clauses] == ["MUST", "MUST"]
        assert [_first_leaf(c).value for c in clauses] == words
    assert profile.matching == 2


def _first_leaf(node: QueryNode) -> QueryNode:
    """A word's first leaf: its content term (the word is that, or it in every field searched,
    each with its twins)."""
    while node.clauses:
        node = node.clauses[0]
    return node
