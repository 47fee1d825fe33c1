"""Counts beside a search: named queries (``facetQueries``) and ranges of a date or size field
in equal steps (``rangeFacets``: ``modified_date`` by month, ``file_size`` by 1 MB), each over
the search's own hits (query and filters).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine import documents
from pylucene_mcp.engine.filters import Filter, constrain, parse_filters
from pylucene_mcp.engine.index import Index
from pylucene_mcp.engine.query import limit_ms, parse_query
from pylucene_mcp.engine.results import RangeBucket

MAX_BUCKETS = 50
MAX_FACET_QUERIES = 20
DATE_GAPS = ("day", "week", "month", "year")


@dataclass(frozen=True)
class RangeFacet:
    """Buckets of ``field`` from ``start`` to ``end`` in steps of ``gap`` (``day``, ``week``,
    ``month``, ``year`` for dates; a number of bytes for ``file_size``)."""

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
    start = dt.datetime.fromtimestamp(
        documents.to_epoch_millis(str(facet.start), facet.field) / 1000, tz=dt.UTC
    )
    end = dt.datetime.fromtimestamp(
        documents.to_epoch_millis(str(facet.end), facet.field, end_of_day=True) / 1000, tz=dt.UTC
    )
    edges = [start]
    while edges[-1] < end and len(edges) <= MAX_BUCKETS + 1:
        edges.append(_step(edges[-1], str(facet.gap)))
    return [int(e.timestamp() * 1000) for e in edges]


def _step(moment: dt.datetime, gap: str) -> dt.datetime:
    if gap == "day":
        return moment + dt.timedelta(days=1)
    if gap == "week":
        return moment + dt.timedelta(weeks=1)
    if gap == "month":
        year, month = divmod(moment.month, 12)
        return moment.replace(year=moment.year + year, month=month + 1)
    return moment.replace(year=moment.year + 1)


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


def facet_counts(
    index: Index,
    query: str,
    *,
    filters: Sequence[Filter | Mapping[str, Any]] = (),
    facet_queries: Mapping[str, str] | None = None,
    range_facets: Sequence[RangeFacet | Mapping[str, Any]] = (),
    default_operator: str = "AND",
    word_forms: bool = True,
    timeout_s: float = 0.0,
) -> tuple[dict[str, int], dict[str, list[RangeBucket]], bool]:
    """The counts of ``facet_queries`` (name → count) and of each range facet's buckets
    (field → buckets, ``to`` excluded), over the hits of ``query`` with ``filters`` (parsed as
    :func:`~pylucene_mcp.engine.search.search` parses it, ``word_forms`` too), and whether the time
    limit (``timeout_s`` for all the counts together, 0: none) cut them short: then the counts
    not done in time are left out (a facet query) or end the list (a range facet's buckets).

    Raises:
        QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError.
    """
    named = dict(facet_queries or {})
    if len(named) > MAX_FACET_QUERIES:
        raise errors.InvalidRequestError(f"at most {MAX_FACET_QUERIES} facet queries")
    ranges = [RangeFacet.of(r) for r in range_facets]
    plans = [(r, _edges(r)) for r in ranges]
    parsed_filters = parse_filters(filters)
    parsed = parse_query(query, default_operator, word_forms=word_forms)
    extra = {
        name: parse_query(text, default_operator, word_forms=word_forms).match_query
        for name, text in named.items()
    }
    long_point = jvm.jclass("org.apache.lucene.document.LongPoint")
    deadline = jvm.jclass("io.github.pylucenemcp.search.Deadline")
    with index.searcher() as searcher, jvm.java_errors(caller_input=True):
        count = _limited_counter(searcher)
        deadline.start(limit_ms(timeout_s))
        try:
            query_counts: dict[str, int] = {}
            partial = False
            for name, q in extra.items():
                found = count(constrain(parsed.match_query, parsed_filters, q))
                if found is None:
                    partial = True
                    break
                query_counts[name] = found
            range_counts: dict[str, list[RangeBucket]] = {}
            for facet, edges in plans:
                buckets = []
                for low, high in zip(edges, edges[1:], strict=False):
                    if partial:
                        break
                    bounded = long_point.newRangeQuery(facet.field, low, high - 1)
                    shown = (
                        (schema.iso(low), schema.iso(high))
                        if facet.field in schema.DATE_FIELDS
                        else (low, high)
                    )
                    found = count(constrain(parsed.match_query, parsed_filters, bounded))
                    if found is None:
                        partial = True
                        break
                    buckets.append(RangeBucket({"from": shown[0], "to": shown[1], "count": found}))
                range_counts[facet.field] = buckets
        finally:
            deadline.clear()
    return query_counts, range_counts, partial


def _limited_counter(searcher: Any) -> Any:
    """A count of hits that stops at this thread's deadlines (``Deadline``): the count, or None
    when time ran out (term expansion, reading or collecting)."""
    limited = jvm.jclass("org.apache.lucene.search.IndexSearcher")(
        jvm.jclass("io.github.pylucenemcp.search.SearchContext").limitedReader(searcher)
    )
    limited.setTimeout(jvm.jclass("io.github.pylucenemcp.search.Deadline").COLLECT)
    exiting = jvm.jclass("org.apache.lucene.index.ExitableDirectoryReader$ExitingReaderException")

    def count(query: Any) -> int | None:
        try:
            found = int(limited.count(query))
        except exiting:
            return None
        return None if limited.timedOut() else found

    return count
