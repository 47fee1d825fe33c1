"""Deep paging by cursor: every document once, in the order of page-by-page paging, past the
first 10,000 hits, stable while documents are added; a cursor of another search is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import Index, InvalidRequestError
from tests.mcp_client import call, connect, error


def add(index: Index, numbers: range, words: str = "alpha") -> None:
    with index.writer() as w:
        for n in numbers:
            w.add(
                {
                    "file_path": f"/c/{n:05}.txt",
                    "content": f"{words} " * (1 + n % 7) + f"number {n}",
                    "file_size": 1000 + (n % 5) * 10,  # ties: five sizes for all
                    "language": "de" if n % 3 else "en",
                }
            )


def walk(index: Index, query: str, **params: Any) -> list[str]:
    seen: list[str] = []
    cursor: str | None = "*"
    while cursor is not None:
        result = index.search(query, cursor=cursor, max_passages=0, **params)
        seen += [hit.file_path for hit in result.documents]
        assert result.has_next_page == (result.next_cursor is not None)
        cursor = result.next_cursor
    return seen


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"sort": "file_size", "sort_order": "asc"},
        {
            "sort": "file_size",
            "sort_order": "desc",
            "filters": [{"field": "language", "value": "de"}],
        },
    ],
)
def test_a_cursor_walks_every_hit_once_in_page_order(fresh_index: Index, params: dict) -> None:
    add(fresh_index, range(47))
    by_cursor = walk(fresh_index, "alpha", page_size=10, **params)
    by_page = [
        hit.file_path
        for page in range(1, 6)
        for hit in fresh_index.search("alpha", page=page, page_size=10, **params).documents
    ]
    assert by_cursor == by_page
    assert len(set(by_cursor)) == len(by_cursor) == fresh_index.search("alpha", **params).total_hits


def test_documents_added_between_pages_do_not_move_the_others(fresh_index: Index) -> None:
    add(fresh_index, range(30))
    first = fresh_index.search("*", cursor="*", page_size=10, sort="file_size", sort_order="asc")
    seen = [hit.file_path for hit in first.documents]
    add(fresh_index, range(100, 120))  # new documents on both sides of the position
    fresh_index.refresh()
    cursor = first.next_cursor
    while cursor is not None:
        result = fresh_index.search(
            "*", cursor=cursor, page_size=10, sort="file_size", sort_order="asc"
        )
        seen += [hit.file_path for hit in result.documents]
        cursor = result.next_cursor
    originals = [path for path in seen if int(path[3:8]) < 100]
    assert sorted(originals) == [f"/c/{n:05}.txt" for n in range(30)]  # each exactly once


def test_a_cursor_of_another_search_or_a_made_up_one_is_refused(fresh_index: Index) -> None:
    add(fresh_index, range(25))
    cursor = fresh_index.search("alpha", cursor="*", page_size=10).next_cursor
    assert cursor is not None
    with pytest.raises(InvalidRequestError, match="belongs to another query, filters, sort or"):
        fresh_index.search("beta", cursor=cursor, page_size=10)
    with pytest.raises(InvalidRequestError, match="belongs to another query, filters, sort or"):
        fresh_index.search("alpha", cursor=cursor, page_size=10, sort="file_size")
    with pytest.raises(InvalidRequestError, match="not one this server gave"):
        fresh_index.search("alpha", cursor="bm90IGEgY3Vyc29y", page_size=10)
    with pytest.raises(InvalidRequestError, match="a cursor replaces page"):
        fresh_index.search("alpha", cursor=cursor, page=2)
    assert fresh_index.search("alpha").next_cursor is None  # only cursor paging gives one


def test_a_cursor_of_another_index_is_refused(fresh_index: Index, tmp_path: Path) -> None:
    """Issue: a cursor from another index was taken as valid there. It belongs to its index."""
    add(fresh_index, range(25))
    other = Index.open(tmp_path / "other")
    try:
        add(other, range(25))  # the same documents, the same search: another index all the same
        cursor = other.search("alpha", cursor="*", page_size=10).next_cursor
        assert cursor is not None
        with pytest.raises(InvalidRequestError, match="belongs to another query, filters, sort or"):
            fresh_index.search("alpha", cursor=cursor, page_size=10)
        assert len(other.search("alpha", cursor=cursor, page_size=10).documents) == 10
    finally:
        other.close()


@pytest.mark.slow
def test_paging_past_ten_thousand_hits_works_by_cursor(fresh_index: Index) -> None:
    add(fresh_index, range(10_050))
    with pytest.raises(InvalidRequestError, match="goes past the first 10000 hits"):
        fresh_index.search("*", page=101, page_size=100)
    seen = walk(fresh_index, "*", page_size=100)
    assert len(seen) == len(set(seen)) == 10_050


@pytest.mark.anyio
async def test_the_search_tool_pages_by_cursor(fresh_index: Index) -> None:
    add(fresh_index, range(15))
    async with connect(fresh_index) as client:
        first = await call(client, "search", query="alpha", pageSize=10, cursor="*")
        assert len(first["documents"]) == 10 and first["hasNextPage"] is True
        second = await call(
            client, "search", query="alpha", pageSize=10, cursor=first["nextCursor"]
        )
        assert len(second["documents"]) == 5 and "nextCursor" not in second
        assert not {d["filePath"] for d in first["documents"]} & {
            d["filePath"] for d in second["documents"]
        }
        refused = await error(client, "search", query="beta", cursor=first["nextCursor"])
        assert "belongs to another query" in refused
        plain = await call(client, "search", query="alpha")
        assert "nextCursor" not in plain  # without a cursor the answer is as it always was


def _same_texts(index: Index, numbers: range) -> None:
    """``numbers`` written again as they were: each gets a new document number at the end."""
    with index.writer() as w:
        for n in numbers:
            w.add({"file_path": f"/m/{n:04}.txt", "content": "gamma delta", "language": "en"})


@pytest.mark.parametrize("query", ["*", "gamma"])
def test_a_walk_across_a_merge_sees_every_document_once(fresh_index: Index, query: str) -> None:
    """Equal scores everywhere: the order is the tie-break's. Between two pages the first
    page's documents are written again (new document numbers, at the end) and the index is
    merged into one segment (every number changes; the merge orders segments by size); the
    walk still sees each document once. Broken by document number, it saw a third twice."""
    for start in range(0, 300, 50):  # six commits: six segments
        _same_texts(fresh_index, range(start, start + 50))
    first = fresh_index.search(query, cursor="*", page_size=100, max_passages=0)
    seen = [hit.file_path for hit in first.documents]
    assert len({hit.score for hit in first.documents}) == 1
    for start in range(0, 100, 10):  # small segments: the merge puts them after the others
        _same_texts(fresh_index, range(start, start + 10))
    assert fresh_index.optimize(1) == 1
    fresh_index.refresh()
    cursor = first.next_cursor
    while cursor is not None:
        result = fresh_index.search(query, cursor=cursor, page_size=100, max_passages=0)
        seen += [hit.file_path for hit in result.documents]
        cursor = result.next_cursor
    assert sorted(seen) == [f"/m/{n:04}.txt" for n in range(300)]


@pytest.mark.anyio
async def test_the_search_tool_walks_across_a_merge(fresh_index: Index) -> None:
    for start in range(0, 60, 20):
        _same_texts(fresh_index, range(start, start + 20))
    async with connect(fresh_index) as client:
        page = await call(client, "search", query="gamma", pageSize=25, cursor="*", maxPassages=0)
        seen = [d["filePath"] for d in page["documents"]]
        for start in range(0, 25, 5):
            _same_texts(fresh_index, range(start, start + 5))
        fresh_index.optimize(1)
        fresh_index.refresh()
        while "nextCursor" in page:
            page = await call(
                client,
                "search",
                query="gamma",
                pageSize=25,
                cursor=page["nextCursor"],
                maxPassages=0,
            )
            seen += [d["filePath"] for d in page["documents"]]
    assert sorted(seen) == [f"/m/{n:04}.txt" for n in range(60)]


SORTS = [
    {},
    {"sort": "modified_date", "sort_order": "desc"},
    {"sort": "modified_date", "sort_order": "asc"},
    {"sort": "file_size", "sort_order": "asc"},
    {"sort": "file_size", "sort_order": "desc"},
]


def dated(index: Index, numbers: range, words: str = "alpha", size: int = 0) -> None:
    """Documents with distinct dates (later numbers later) and sizes with ties."""
    with index.writer() as w:
        for n in numbers:
            w.add(
                {
                    "file_path": f"/w/{n:05}.txt",
                    "content": f"{words} " * (1 + n % 5) + f"number {n}",
                    "file_size": size or 1000 + (n % 4) * 10,
                    "modified_date": 1_700_000_000_000 + n * 60_000,
                }
            )


@pytest.mark.parametrize("params", SORTS)
def test_a_walk_under_writes_sees_the_index_as_it_was_when_it_began(
    fresh_index: Index, params: dict
) -> None:
    """Issue: documents added between pages made every page start with the previous page's last
    document (by date), or hid half the hits (by size, ties). A walk pages through the index as
    it was at its first page: documents added, changed or deleted meanwhile move nothing."""
    dated(fresh_index, range(60))
    dated(fresh_index, range(100, 130), words="beta")  # not matching
    expected = walk(fresh_index, "alpha", page_size=7, **params)
    assert len(expected) == len(set(expected)) == 60
    seen: list[str] = []
    cursor: str | None = "*"
    round_ = 0
    while cursor is not None:
        result = fresh_index.search("alpha", cursor=cursor, page_size=7, max_passages=0, **params)
        seen += [hit.file_path for hit in result.documents]
        cursor = result.next_cursor
        round_ += 1
        dated(fresh_index, range(200 + 3 * round_, 203 + 3 * round_))  # later, matching
        dated(fresh_index, range(300 + round_, 301 + round_), words="beta")  # not matching
        dated(fresh_index, range(round_, round_ + 1), size=5)  # one changed (smaller)
        with fresh_index.writer() as w:  # one deleted, seen or not
            w.delete(f"/w/{(round_ * 7) % 60:05}.txt")
        fresh_index.refresh()
        assert fresh_index.search("alpha").total_hits != 60 or round_ > 8  # the writes show
    assert seen == expected


@pytest.mark.parametrize("params", SORTS[1:])
def test_a_walk_whose_snapshot_is_gone_goes_on_from_its_position(
    tmp_path: Path, params: dict
) -> None:
    """In a new server (or after the snapshot was released) a walk by a field goes on from its
    last position: every document that was there all along comes once."""
    index = Index.open(tmp_path / "index")
    try:
        dated(index, range(50))
        first = index.search("alpha", cursor="*", page_size=10, max_passages=0, **params)
    finally:
        index.close()
    index = Index.open(tmp_path / "index")  # a new server: no snapshot of the walk
    try:
        dated(index, range(500, 520))  # added meanwhile, and they may come or not
        seen = [hit.file_path for hit in first.documents]
        cursor = first.next_cursor
        while cursor is not None:
            result = index.search("alpha", cursor=cursor, page_size=10, max_passages=0, **params)
            seen += [hit.file_path for hit in result.documents]
            cursor = result.next_cursor
    finally:
        index.close()
    assert len(seen) == len(set(seen))
    assert {f"/w/{n:05}.txt" for n in range(50)} <= set(seen)
