"""Counts beside a search: named queries (``facetQueries``) and ranges of a date or size field
in equal steps (``rangeFacets``: ``modified_date`` by month, ``file_size`` by 1 MB), each over
the search's own hits (query and filters), counted by the search itself
(:func:`pylucene_mcp.engine.lucene.search.search`, within its time limit); here they are planned and
their answers shaped.
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine.core import documents
from pylucene_mcp.engine.core.results import RangeBucket

MAX_BUCKETS = 50
MAX_FACET_QUERIES = 20
DATE_GAPS = ("day", "week", "month", "year")


@dataclass(frozen=True)
class RangeFacet:
    """Buckets of ``field`` from ``start`` to ``end`` in steps of ``gap`` (``day``, ``week``,
    ``month``, ``year`` for dates; a number of bytes for ``file_size``). One rule for both: the
    buckets cover ``start`` up to ``end``, ``end`` excluded (as each bucket's ``to``), the last
    one cut at ``end`` where the steps do not meet it; a date alone means its first instant."""

    field: str
    start: Any
    end: Any
    gap: Any

    @classmethod
    def of(cls, spec: RangeFacet | Mapping[str, Any]) -> RangeFacet:
        if isinstance(spec, RangeFacet):
            return spec
        try:
            return cls(spec["field"], spec["start"], spec["end"], spec["gap"])
        except KeyError as exc:
            raise errors.InvalidRequestError(
                f"a range facet needs field, start, end and gap; {exc.args[0]!r} is missing"
            ) from exc


def _date_edges(facet: RangeFacet) -> list[int]:
    if facet.gap not in DATE_GAPS:
        raise errors.InvalidRequestError(
            f"the gap of a date range facet is one of {', '.join(DATE_GAPS)}, not {facet.gap!r}"
        )
    try:
        start, end = (
            dt.datetime.fromtimestamp(
                documents.to_epoch_millis(str(value), facet.field) / 1000, tz=dt.UTC
            )
            for value in (facet.start, facet.end)
        )
    except ValueError as exc:
        raise errors.InvalidFilterError(f"a range facet's start and end: {exc}") from exc
    if end <= start:
        raise errors.InvalidRequestError("a range facet needs end > start and a gap above 0")
    edges = [start]
    while edges[-1] < end and len(edges) <= MAX_BUCKETS + 1:  # the last bucket cut at end
        edges.append(min(_step(start, str(facet.gap), len(edges)), end))
    return [int(e.timestamp() * 1000) for e in edges]


def _step(start: dt.datetime, gap: str, count: int) -> dt.datetime:
    """``count`` gaps after ``start``: a month or a year as a calendar takes it, from the
    start's day (31 January, then 29 February in a leap year, 31 March; 29 February, then 28
    February), never from the previous bucket's shortened one."""
    if gap == "day":
        return start + dt.timedelta(days=count)
    if gap == "week":
        return start + dt.timedelta(weeks=count)
    months = count if gap == "month" else 12 * count
    year, month = divmod(start.month - 1 + months, 12)
    year += start.year
    day = min(start.day, calendar.monthrange(year, month + 1)[1])
    return start.replace(year=year, month=month + 1, day=day)


def _size_edges(facet: RangeFacet) -> list[int]:
    try:
        start, end, gap = int(facet.start), int(facet.end), int(facet.gap)
    except (TypeError, ValueError) as exc:
        raise errors.InvalidRequestError(
            "a file_size range facet takes numbers of bytes: start, end and gap"
        ) from exc
    if gap <= 0 or end <= start:
        raise errors.InvalidRequestError("a range facet needs end > start and a gap above 0")
    # at most the edges a facet may have (and one more, to say it has too many): a gap of 1
    # over 10^8 bytes must not build 10^8 edges first
    edges = list(range(start, min(end, start + gap * (MAX_BUCKETS + 2)), gap))
    return [*edges, min(end, edges[-1] + gap)] if edges[-1] < end else edges


def _edges(facet: RangeFacet) -> list[int]:
    if facet.field in schema.DATE_FIELDS:
        edges = _date_edges(facet)
    elif facet.field in schema.LONG_FIELDS:
        edges = _size_edges(facet)
    else:
        numeric = ", ".join((*schema.DATE_FIELDS[:3], *schema.LONG_FIELDS))
        raise errors.InvalidRequestError(
            f"range facets take a date or size field ({numeric}), not '{facet.field}'"
        )
    if len(edges) - 1 > MAX_BUCKETS:
        raise errors.InvalidRequestError(
            f"the range facet on {facet.field} would have more than {MAX_BUCKETS} buckets; "
            "take a larger gap or a shorter span"
        )
    return edges


def plan(
    facet_queries: Mapping[str, str] | None, range_facets: Sequence[RangeFacet | Mapping[str, Any]]
) -> tuple[dict[str, str], list[tuple[RangeFacet, list[int]]]]:
    """The named queries and each range facet with its bucket edges, as the search counts them.

    Raises:
        InvalidRequestError: for too many queries or buckets, or a range facet that is wrong.
    """
    named = dict(facet_queries or {})
    if len(named) > MAX_FACET_QUERIES:
        raise errors.InvalidRequestError(f"at most {MAX_FACET_QUERIES} facet queries")
    return named, [(facet, _edges(facet)) for facet in map(RangeFacet.of, range_facets)]


def buckets(
    ranges: Sequence[tuple[RangeFacet, list[int]]], counted: Sequence[Sequence[int]]
) -> dict[str, list[RangeBucket]]:
    """Each range facet's buckets (``to`` excluded) with the counts the search found for them
    (fewer when time ran out: the list ends there)."""
    found: dict[str, list[RangeBucket]] = {}
    for (facet, edges), counts in zip(ranges, counted, strict=True):
        dates = facet.field in schema.DATE_FIELDS
        found[facet.field] = [
            RangeBucket(
                {
                    "from": schema.iso(low) if dates else low,
                    "to": schema.iso(high) if dates else high,
                    "count": count,
                }
            )
            for low, high, count in zip(edges, edges[1:], counts, strict=False)
        ]
    return found
