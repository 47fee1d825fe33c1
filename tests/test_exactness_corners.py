"""The corners of exactness a real folder has, against an oracle in plain Python over the same
documents (docs/query.md, docs/tools.md): paths up to 250 bytes and a cursor walk over all of
them, exclusive date bounds at an instant and at a day, date range facets that start on a
month's last days or on 29 February, ties in score across pages, and emoji sequences whose
joiners the index does not keep. Every case is generated from a seed (said in the figures;
``PYLUCENE_MCP_EXACTNESS_SEED`` runs it again)."""

from __future__ import annotations

import calendar
import datetime as dt
import os
import random
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from pylucene_mcp import Index
from pylucene_mcp.crawler.normalize import normalize_text
from tests.conftest import FIGURES
from tests.mcp_client import call, connect

pytestmark = pytest.mark.anyio

SEED = int(os.environ.get("PYLUCENE_MCP_EXACTNESS_SEED") or time.time_ns() % 1_000_000_007)
DOCS = 2000
TIES = 25  # documents of one text: their scores tie
WORDS = ("heron", "otter", "kestrel", "marten", "plover", "stoat")
#: emoji as a person writes them: a joiner (U+200D) or a variation selector inside
EMOJI = ("👩\u200d💻", "👨\u200d👩\u200d👧", "🏳\ufe0f\u200d🌈")
DAY_MS = 86_400_000


@dataclass(frozen=True)
class Doc:
    path: str
    words: tuple[str, ...]
    modified_ms: int
    emoji: str | None


def _path(rng: random.Random, n: int) -> str:
    """A path of 20 to 250 bytes in UTF-8, with letters of several scripts."""
    want = rng.choice((20, 60, 120, 200, 230, 250))
    pieces = ["/corners", f"{n:04}"]
    alphabet = "abcdefghijklmnopqrstuvwxyzäöüß日本éñ"
    while len("/".join(pieces).encode()) < want - 12:
        pieces.append("".join(rng.choice(alphabet) for _ in range(rng.randint(3, 12))))
    path = "/".join(pieces)
    while len(path.encode()) > want:
        path = path[:-1]
    return path.rstrip("/") + ".txt"


def _moment(rng: random.Random) -> int:
    """An instant of 2023–2024, often on a day's edge (its first or last millisecond) or on a
    month's last days, where bounds and buckets are easy to get wrong."""
    day = dt.datetime(2023, 1, 1, tzinfo=dt.UTC) + dt.timedelta(days=rng.randrange(731))
    if rng.random() < 0.3:  # a month's last days, 29 February 2024 among them
        last = calendar.monthrange(day.year, day.month)[1]
        day = day.replace(day=rng.randint(max(1, last - 3), last))
    start = int(day.timestamp() * 1000)
    return rng.choice((start, start + DAY_MS - 1, start + rng.randrange(DAY_MS)))


@pytest.fixture(scope="module")
def corners(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Index, list[Doc]]]:
    rng = random.Random(SEED)
    FIGURES["exactness corners seed (PYLUCENE_MCP_EXACTNESS_SEED runs it again)"] = SEED
    docs = []
    paths: set[str] = set()
    for n in range(DOCS):
        path = _path(rng, n)
        assert path not in paths
        paths.add(path)
        if n < TIES:
            words: tuple[str, ...] = ("tiemark", "heron", "otter")  # one text: one score
        else:
            words = tuple(rng.choice(WORDS) for _ in range(rng.randint(2, 6)))
        # no emoji beside the tied texts: a longer text scores lower
        emoji = rng.choice(EMOJI) if rng.random() < 0.05 and n >= TIES else None
        docs.append(Doc(path, words, _moment(rng), emoji))
    index = Index.open(tmp_path_factory.mktemp("corners") / "index")
    with index.writer() as writer:
        writer.add_many(
            {
                "file_path": d.path,
                # as the crawler keeps a text: its invisible characters (the joiners) removed
                "content": normalize_text(
                    " ".join(d.words) + (f" wrote {d.emoji} today" if d.emoji else "")
                ),
                "file_mtime": d.modified_ms,
                "modified_date": d.modified_ms,
            }
            for d in docs
        )
    yield index, docs
    index.close()


def _iso(ms: int) -> str:
    return (
        dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    )


def _day_bounds(day: dt.date) -> tuple[int, int]:
    start = int(dt.datetime(day.year, day.month, day.day, tzinfo=dt.UTC).timestamp() * 1000)
    return start, start + DAY_MS - 1


def test_date_bounds_at_instants_and_days_equal_the_oracle(
    corners: tuple[Index, list[Doc]],
) -> None:
    index, docs = corners
    rng = random.Random(SEED + 1)
    wrong = []
    for _ in range(60):
        doc = rng.choice(docs)
        at = doc.modified_ms
        day = dt.datetime.fromtimestamp(at / 1000, tz=dt.UTC).date()
        first, last = _day_bounds(day)
        never, ever = -(2**62), 2**62
        cases = {  # query → the least and the greatest instant it takes
            f"modified_date:{{{at} TO *]": (at + 1, ever),
            f"modified_date:[{at} TO *]": (at, ever),
            f"modified_date:[* TO {at}}}": (never, at - 1),
            f'modified_date:{{"{_iso(at)}" TO *]': (at + 1, ever),
            f"modified_date:{{{day.isoformat()} TO *]": (last + 1, ever),
            f"modified_date:[{day.isoformat()} TO *]": (first, ever),
            f"modified_date:[* TO {day.isoformat()}}}": (never, first - 1),
            f"modified_date:[* TO {day.isoformat()}]": (never, last),
        }
        for query, (low, high) in cases.items():
            expected = sum(1 for d in docs if low <= d.modified_ms <= high)
            got = index.search(query, max_passages=0, timeout_s=0).total_hits
            if got != expected:
                wrong.append((query, got, expected))
    assert not wrong, f"seed {SEED}: {wrong[:10]}"


def _calendar_edges(start: dt.datetime, end: dt.datetime, gap: str) -> list[dt.datetime]:
    """The oracle's buckets: the k-th edge is k gaps after the start, a month or a year as a
    calendar counts it (the start's day, or the month's last when it has none)."""
    edges = [start]
    k = 1
    while edges[-1] < end:
        months = k * (1 if gap == "month" else 12)
        year = start.year + (start.month - 1 + months) // 12
        month = (start.month - 1 + months) % 12 + 1
        day = min(start.day, calendar.monthrange(year, month)[1])
        edges.append(min(start.replace(year=year, month=month, day=day), end))
        k += 1
    return edges


def test_date_range_facets_from_month_ends_and_leap_days_equal_the_oracle(
    corners: tuple[Index, list[Doc]],
) -> None:
    index, docs = corners
    starts = [(2023, 1, 31), (2023, 3, 30), (2023, 8, 31), (2024, 2, 29), (2023, 5, 29)]
    wrong = []
    for year, month, day in starts:
        for gap in ("month", "year"):
            start = dt.datetime(year, month, day, tzinfo=dt.UTC)
            end = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)
            facet = {"field": "modified_date", "start": start.date().isoformat(), "gap": gap}
            facet["end"] = end.date().isoformat()
            result = index.search("*", range_facets=[facet], max_passages=0, timeout_s=0)
            assert result.range_facets is not None
            got = [(str(b.from_), b.count) for b in result.range_facets["modified_date"]]
            edges = _calendar_edges(start, end, gap)
            ms = [int(e.timestamp() * 1000) for e in edges]
            expected = [
                (_iso(ms[i])[:10], sum(1 for d in docs if ms[i] <= d.modified_ms < ms[i + 1]))
                for i in range(len(ms) - 1)
            ]
            if [(s[:10], c) for s, c in got] != expected:
                wrong.append((facet, got[:4], expected[:4]))
    assert not wrong, wrong[:3]


def test_a_bad_date_in_a_range_facet_says_what_a_date_is(corners: tuple[Index, list[Doc]]) -> None:
    from pylucene_mcp.basics.errors import InvalidRequestError

    index, _ = corners
    for start in ("NOW-1YEAR", "2024-02-30", "yesterday"):
        facet = {"field": "modified_date", "start": start, "end": "2025-01-01", "gap": "month"}
        with pytest.raises(InvalidRequestError, match="2024-01-01"):
            index.search("*", range_facets=[facet])


def test_ties_in_score_come_in_path_order_on_pages_as_by_cursor(
    corners: tuple[Index, list[Doc]],
) -> None:
    index, docs = corners
    oracle = sorted(d.path for d in docs if "tiemark" in d.words)  # one text: one score
    assert len(oracle) == TIES
    paged: list[str] = []
    for page in range(1, 10):
        found = index.search("tiemark", page=page, page_size=4, max_passages=0)
        paged += [hit.file_path for hit in found.documents]
    walked: list[str] = []
    cursor: str | None = "*"
    while cursor is not None:
        found = index.search("tiemark", cursor=cursor, page_size=4, max_passages=0)
        walked += [hit.file_path for hit in found.documents]
        cursor = found.next_cursor
    assert paged == walked == oracle


def test_an_emoji_sequence_finds_the_text_that_has_it(corners: tuple[Index, list[Doc]]) -> None:
    index, docs = corners
    for emoji in EMOJI:
        expected = {d.path for d in docs if d.emoji == emoji}
        got = index.search(emoji, page_size=100, max_passages=0, timeout_s=0)
        assert {hit.file_path for hit in got.documents} == expected, ascii(emoji)


async def test_a_cursor_walk_over_every_long_path_loses_and_repeats_nothing(
    corners: tuple[Index, list[Doc]],
) -> None:
    """Through the MCP tool, as a client walks: every nextCursor is taken back, whatever the
    length of the path the page ended on."""
    index, docs = corners
    longest = max(len(d.path.encode()) for d in docs)
    assert longest >= 240
    async with connect(index) as client:
        for sort in ("_score", "modified_date"):
            seen: list[str] = []
            cursor = "*"
            while cursor:
                found: dict[str, Any] = await call(
                    client, "search", query="*", sort=sort, cursor=cursor, pageSize=50,
                    maxPassages=0,
                )  # fmt: skip
                seen += [hit["filePath"] for hit in found["documents"]]
                cursor = found.get("nextCursor")
            assert len(seen) == len(set(seen)) == DOCS, sort
            assert set(seen) == {d.path for d in docs}


def test_a_document_added_through_the_python_api_finds_its_emoji_sequences_too(
    fresh_index: Index,
) -> None:
    """The crawler's text had its joiners removed, a query drops them, but a text added through
    the Python API kept them: ``👩‍💻`` as written found it not. Its pages still start at
    their words."""
    pages = [
        "Erste Seite: sie 👩\u200d💻 schreibt\u200b.\n",
        "Zweite Seite \u00adhier 🏳\ufe0f\u200d🌈.",
    ]
    content = "".join(pages)
    with fresh_index.writer() as writer:
        writer.add(
            {
                "file_path": "/d/paged.txt",
                "content": content,
                "title": "Titel\u200d mit 👨\u200d👩\u200d👧",
                "page_offsets": [0, len(pages[0])],
            }
        )
    for emoji in EMOJI:
        found = fresh_index.search(emoji, max_passages=0)
        assert [hit.file_path for hit in found.documents] == ["/d/paged.txt"], ascii(emoji)
    stored = fresh_index.stored_document("/d/paged.txt")
    oracle = "".join(
        c for c in content if c not in "\u200b\u200d\u00ad"
    )  # the joiners, the soft hyphen
    assert stored.content == oracle
    starts = [int(p) for p in (stored.pages or "").split(",")]
    assert [stored.content[start:].split(":")[0].split(" ")[0] for start in starts] == [
        "Erste",
        "Zweite",
    ]
