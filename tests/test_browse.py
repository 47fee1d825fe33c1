"""Browsing: all documents within chosen facet values ("*" with author X) answers as
DrillSideways would (a chosen dimension counted without its own choice), though it does not
visit every document of the index. The counts are checked against the documents written."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from pylucene_mcp import Index, SearchResult

DOCS = [
    {
        "file_path": f"/browse/{n:03}.{'pdf' if n % 5 == 0 else 'txt'}",
        "content": f"document {n}",
        "author": f"author{n % 3}",
        "language": "de" if n % 2 else "en",
        "modified_date": 1_700_000_000_000 + n * 60_000,
    }
    for n in range(300)
]
EVERYTHING = {"field": "modified_date", "operator": "range", "from": "2000-01-01"}


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    index = Index.open(tmp_path_factory.mktemp("browse"), refresh_interval_s=60)
    for part in range(7):  # several segments, so that a search runs on several slices
        with index.writer() as w:
            w.add_many(DOCS[part::7])
    yield index
    index.close()


def counts(result: SearchResult, dim: str) -> dict[str, int]:
    return {v.value: v.count for v in result.facets[dim]}


def facet_values(doc: dict[str, Any]) -> dict[str, str]:
    """A document's value of each facet dimension, as written (the extension from the path)."""
    return {
        "author": doc["author"],
        "language": doc["language"],
        "file_extension": doc["file_path"].rsplit(".", 1)[1],
    }


def expected(dim: str, **chosen: set[str]) -> dict[str, int]:
    """``dim``'s counts over the documents within every chosen dimension but ``dim`` itself."""
    values = [facet_values(d) for d in DOCS]
    within = [v for v in values if all(v[k] in ok for k, ok in chosen.items() if k != dim)]
    return dict(Counter(v[dim] for v in within))


def test_one_chosen_value_counts_its_dimension_over_everything(index: Index) -> None:
    result = index.search("*", filters=[{"field": "author", "value": "author1"}])
    assert result.total_hits == 100
    assert counts(result, "author") == expected("author") == {f"author{n}": 100 for n in range(3)}
    assert counts(result, "language") == expected("language", author={"author1"})
    assert counts(result, "file_extension") == expected("file_extension", author={"author1"})


def test_two_chosen_dimensions_count_each_other(index: Index) -> None:
    chosen = [{"field": "author", "value": "author1"}, {"field": "language", "value": "de"}]
    result = index.search("*", filters=chosen)
    assert result.total_hits == sum(
        1 for d in DOCS if d["author"] == "author1" and d["language"] == "de"
    )
    assert counts(result, "author") == expected("author", language={"de"})
    assert counts(result, "language") == expected("language", author={"author1"})
    assert counts(result, "file_extension") == expected(
        "file_extension", author={"author1"}, language={"de"}
    )


def test_two_values_of_one_dimension_or_together(index: Index) -> None:
    chosen = [{"field": "author", "value": "author0"}, {"field": "author", "value": "author2"}]
    result = index.search("*", filters=chosen)
    assert result.total_hits == 200
    assert counts(result, "author") == expected("author")
    assert counts(result, "language") == expected("language", author={"author0", "author2"})


@pytest.mark.parametrize(
    "chosen",
    [
        [{"field": "author", "value": "author1"}],
        [{"field": "author", "value": "author1"}, {"field": "file_extension", "value": "pdf"}],
    ],
)
@pytest.mark.parametrize("kwargs", [{}, {"sort": "modified_date", "page": 2, "page_size": 7}])
def test_browsing_answers_as_drill_sideways_does(
    index: Index, chosen: list[dict[str, str]], kwargs: dict[str, Any]
) -> None:
    """A filter that every document passes sends the same search through DrillSideways."""
    browsed = index.search("*", filters=chosen, **kwargs)
    sideways = index.search("*", filters=[*chosen, EVERYTHING], **kwargs)
    assert browsed.total_hits == sideways.total_hits > 0
    assert [h.file_path for h in browsed.documents] == [h.file_path for h in sideways.documents]
    assert [h.score for h in browsed.documents] == [h.score for h in sideways.documents]
    assert browsed.facets == sideways.facets


def test_a_cursor_pages_through_a_browse(index: Index) -> None:
    seen: list[str] = []
    cursor = "*"
    while cursor:
        page = index.search(
            "*", filters=[{"field": "author", "value": "author2"}], cursor=cursor, page_size=30
        )
        seen += [h.file_path for h in page.documents]
        cursor = page.next_cursor
    assert sorted(seen) == sorted(d["file_path"] for d in DOCS if d["author"] == "author2")
