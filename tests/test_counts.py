"""facetQueries and rangeFacets: counts among a search's hits, checked against searches that
count the same thing another way."""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path

import pytest
from mcp import Client

from pylucene_mcp import Index, InvalidRequestError
from pylucene_mcp.engine.core.request import facet_counts
from tests.mcp_client import call, connect


@pytest.fixture
def reports(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        for n in range(12):
            w.add(
                {
                    "file_path": f"/d/{n:02}.txt",
                    "content": "report " + ("urgent" if n % 3 == 0 else "routine"),
                    "modified_date": f"2024-{n + 1:02d}-15",
                    "file_size": n * 1000,
                    "language": "de" if n % 2 else "en",
                }
            )
    return fresh_index


def test_named_queries_and_buckets_count_among_the_hits(reports: Index) -> None:
    german = [{"field": "language", "value": "de"}]
    named, ranges, partial = facet_counts(
        reports,
        "report",
        filters=german,
        facet_queries={"urgent": "urgent", "routine": "routine"},
        range_facets=[
            {"field": "modified_date", "start": "2024-01-01", "end": "2024-12-31", "gap": "month"},
            {"field": "file_size", "start": 0, "end": 12000, "gap": 4000},
        ],
    )
    assert named == {
        "urgent": reports.search("urgent", filters=german).total_hits,
        "routine": reports.search("routine", filters=german).total_hits,
    }
    months = ranges["modified_date"]
    assert len(months) == 12 and months[1].from_ == "2024-02-01T00:00:00Z"
    assert [b.count for b in months] == [n % 2 for n in range(12)]  # the German ones: odd n
    sizes = [(b.from_, b.to, b.count) for b in ranges["file_size"]]
    assert sizes == [(0, 4000, 2), (4000, 8000, 2), (8000, 12000, 2)]
    assert partial is False


def test_date_and_size_buckets_end_by_one_rule(reports: Index) -> None:
    """Issue: a date facet with end 2024-01-01 by month added a January bucket that counted a
    document of 2024-01-15, while a size facet stopped at its end. Both cover start up to end,
    end excluded, the last bucket cut at end."""
    _, ranges, _ = facet_counts(reports, "*", range_facets=[
        {"field": "modified_date", "start": "2023-11-01", "end": "2024-01-01", "gap": "month"},
        {"field": "file_size", "start": 0, "end": 2500, "gap": 1000},
    ])  # fmt: skip
    _, later, _ = facet_counts(reports, "*", range_facets=[
        {"field": "modified_date", "start": "2023-12-01", "end": "2024-02-10", "gap": "month"},
    ])  # fmt: skip
    months, cut = ranges["modified_date"], later["modified_date"]
    assert [(b.from_[:10], b.to[:10], b.count) for b in months] == [
        ("2023-11-01", "2023-12-01", 0),
        ("2023-12-01", "2024-01-01", 0),  # no January: the document of 2024-01-15 is past end
    ]
    assert [(b.from_[:10], b.to[:10], b.count) for b in cut] == [
        ("2023-12-01", "2024-01-01", 0),
        ("2024-01-01", "2024-02-01", 1),
        ("2024-02-01", "2024-02-10", 0),  # cut at end: the document of 2024-02-15 is past it
    ]
    sizes = [(b.from_, b.to, b.count) for b in ranges["file_size"]]
    assert sizes == [(0, 1000, 1), (1000, 2000, 1), (2000, 2500, 1)]


def test_a_gap_of_one_over_a_huge_span_is_refused_without_building_its_edges(
    reports: Index,
) -> None:
    """10^18 buckets: refused at once (the edges had all been built first, 10^8 took GBs)."""
    with pytest.raises(InvalidRequestError, match="more than 50 buckets"):
        facet_counts(reports, "*", range_facets=[
            {"field": "file_size", "start": 0, "end": 10**18, "gap": 1}
        ])  # fmt: skip
    _, ranges, _ = facet_counts(reports, "*", range_facets=[
        {"field": "file_size", "start": 0, "end": 50, "gap": 1}
    ])  # fmt: skip
    assert len(ranges["file_size"]) == 50


def test_the_counts_are_inside_the_searchs_own_time_limit(tmp_path: Path) -> None:
    """Twenty infix patterns counted under a limit that the search alone fits in (3× its own
    time) but its counts do not: the counts not done in time are left out and the answer says
    it is partial; without a limit all come, each what plain Python counts. (Each set of
    patterns is new to the index when timed: Lucene caches a filter it has seen. The search
    finds a tenth of the documents, the patterns expand over all of their words: with every
    document found the counts had taken 5.6× the search alone once on a busy machine, too close
    to the limit's 3×.)"""
    index = Index.open(tmp_path / "many")
    try:
        terms = [f"w{n:06}x" for n in range(60_000)]
        with index.writer() as w:
            w.add_many(  # a tenth of them found: the patterns expand over every term
                {"file_path": f"/m/{n}", "content": f"{t} {'alpha' if n % 10 == 0 else 'beta'}"}
                for n, t in enumerate(terms)
            )
        pairs = [(a, b) for a in range(10) for b in range(10)]

        def patterns(first: int) -> dict[str, str]:
            return {f"q{a}{b}": f"*{a}*{b}*" for a, b in pairs[first : first + 20]}

        def timed(run: Callable[[], object]) -> float:
            started = time.perf_counter()
            run()
            return time.perf_counter() - started

        facet_counts(index, "alpha", facet_queries=patterns(0))  # the code compiled
        alone = min(
            timed(lambda: index.search("alpha", page_size=1, max_passages=0)) for _ in range(3)
        )
        counted = timed(lambda: facet_counts(index, "alpha", facet_queries=patterns(20)))
        assert counted > 6 * alone, (alone, counted)  # what the limit below relies on
        queries = patterns(40)
        named, _, partial = facet_counts(index, "alpha", facet_queries=queries, timeout_s=3 * alone)
        assert partial and len(named) < len(queries)
        assert list(named) == list(queries)[: len(named)]  # those done in time, in their order
        named, _, partial = facet_counts(index, "alpha", facet_queries=queries)
        expected = {
            name: sum(1 for t in terms[::10] if re.search(f"{name[1]}.*{name[2]}", t))
            for name in queries
        }
        assert not partial and named == expected
    finally:
        index.close()


def test_bad_ranges_are_refused_with_what_to_give(reports: Index) -> None:
    with pytest.raises(InvalidRequestError, match="day, week, month, year"):
        facet_counts(reports, "*", range_facets=[
            {"field": "modified_date", "start": "2024-01-01", "end": "2024-02-01", "gap": "1d"}
        ])  # fmt: skip
    with pytest.raises(InvalidRequestError, match="more than 50 buckets"):
        facet_counts(reports, "*", range_facets=[
            {"field": "modified_date", "start": "2020-01-01", "end": "2024-12-31", "gap": "day"}
        ])  # fmt: skip
    with pytest.raises(InvalidRequestError, match="date or size field"):
        facet_counts(reports, "*", range_facets=[
            {"field": "language", "start": 0, "end": 1, "gap": 1}
        ])  # fmt: skip


@pytest.fixture
async def client(reports: Index) -> AsyncIterator[Client]:
    async with connect(reports) as connected:
        yield connected


@pytest.mark.anyio
async def test_the_search_tool_carries_them(client: Client) -> None:
    found = await call(
        client,
        "search",
        query="report",
        facetQueries={"urgent": "urgent"},
        rangeFacets=[{"field": "file_size", "start": 0, "end": 12000, "gap": 6000}],
    )
    assert found["facetQueries"] == {"urgent": 4}
    assert found["rangeFacets"]["file_size"] == [
        {"from": 0, "to": 6000, "count": 6},
        {"from": 6000, "to": 12000, "count": 6},
    ]
    plain = await call(client, "search", query="report")
    assert "facetQueries" not in plain and "rangeFacets" not in plain


def test_facet_limit_shows_more_values_than_the_default(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        for n in range(15):
            for copy in range(n + 1):  # author n has n + 1 documents: a strict order
                w.add({"file_path": f"/a/{n}-{copy}.txt", "content": "x", "author": f"A{n:02}"})
    default = fresh_index.search("x").facets["author"]
    assert [v.value for v in default] == [f"A{n:02}" for n in range(14, 4, -1)]
    wide = fresh_index.search("x", facet_limit=15).facets["author"]
    assert [v.count for v in wide] == list(range(15, 0, -1))
    with pytest.raises(InvalidRequestError, match="facet_limit must be 1–100"):
        fresh_index.search("x", facet_limit=101)
