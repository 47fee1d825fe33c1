"""Search: one page of hits with DrillSideways facets, sorting, paging and passages, in one
call into the shim under a time limit. :func:`search` is what the Python API, the CLI and the
MCP tool all call; the result shapes are in :mod:`pylucene_mcp.engine.results`."""

from __future__ import annotations

import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.shapes import Encoded, to_dict
from pylucene_mcp.engine import cursors
from pylucene_mcp.engine.counts import RangeFacet, buckets, plan
from pylucene_mcp.engine.filters import (
    LONG_MAX,
    LONG_MIN,
    Filter,
    facet_value,
    filter_query,
    parse_filters,
)
from pylucene_mcp.engine.query import context, limit_ms, parse_query, query_text
from pylucene_mcp.engine.results import RangeBucket, SearchResult

if TYPE_CHECKING:
    from pylucene_mcp.engine.index import LuceneIndex

MAX_PAGE_SIZE = 100
MAX_FACET_LIMIT = 100
_HEADER = json.JSONDecoder()
# where a page ended, as the shim writes it: doc:score, and :value under a sort
#: a cursor's position: the last hit's score (and sort value before it) and its file path
MAX_WINDOW = 10_000
DEFAULT_TIMEOUT_S = 5.0  # Settings.search_timeout_s


def search(
    index: LuceneIndex,
    query: str,
    *,
    filters: Sequence[Filter | Mapping[str, Any]] = (),
    sort: str = "_score",
    sort_order: Literal["asc", "desc"] = "desc",
    page: int = 1,
    page_size: int = 10,
    default_operator: str = "AND",
    max_passages: int = 3,
    passage_length: int = 200,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    facet_limit: int = 10,
    cursor: str | None = None,
    word_forms: bool = True,
    facet_queries: Mapping[str, str] | None = None,
    range_facets: Sequence[RangeFacet | Mapping[str, Any]] = (),
    **tool_names: Any,
) -> SearchResult:
    """Runs ``query`` with ``filters`` and returns one page of hits with facets and passages.

    Filters on different fields AND together; the values of one facet field (``author``,
    ``language``, ``file_extension``, ``file_type``) OR together, and its facet still counts the
    other values (DrillSideways).

    Each facet dimension lists its ``facet_limit`` most frequent values (1–100, default 10).

    Deep paging goes by cursor: ``cursor="*"`` starts, and each result's ``next_cursor`` gives
    the page after it (None after the last), past the first 10,000 hits too; a cursor belongs to
    its query, filters and sort, and ``page`` stays 1.

    ``facet_queries`` (name → query, parsed as ``query`` is) and ``range_facets`` (buckets of a
    date or size field: ``{"field", "start", "end", "gap"}``, see
    :class:`~pylucene_mcp.engine.counts.RangeFacet`) are counted among the hits:
    ``facet_queries``/``range_facets`` of the result.

    The search stops after ``timeout_s`` (0: no limit), counts included: what was found by then
    comes back with ``partial_results`` set (counts not done in time are left out: a facet
    query, or the buckets that end a range facet); when nothing was found yet (wildcard, fuzzy
    or regex terms still being expanded), ``SearchTimeoutError`` says how to make the query cheaper.

    Words and phrases also match other forms of their words (``lock`` finds "locks" and
    "locked", ``Haus`` "Häuser"), weighted below the word itself; ``word_forms=False`` matches
    only the words as written (folded as always).

    The MCP tool's names are taken too (``pageSize=20``, ``sortOrder``, ``defaultOperator``,
    ``maxPassages``, ``passageLength``, ``facetLimit``, ``wordForms``, ``facetQueries``,
    ``rangeFacets``, ``timeAllowedMs``).

    Raises:
        QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError,
        SearchTimeoutError.
    """
    if tool_names:
        return search(index, query, **_python_names(locals(), tool_names))
    started = time.perf_counter()
    check_request(
        page, page_size, cursor, sort, sort_order, max_passages, passage_length, facet_limit
    )
    named, ranges = plan(facet_queries, range_facets)
    parsed_filters = parse_filters(filters)
    text = query_text(query, default_operator)
    counted = [query_text(q, default_operator) for q in named.values()]
    fingerprint = after = None
    snapshot = -1
    if cursor is not None:  # what a cursor belongs to, and where it continues
        operator = default_operator if word_forms else f"{default_operator}/exact"
        fingerprint = _fingerprint(index.identity, text, operator, parsed_filters, sort, sort_order)
        snapshot, after = _position(cursor, fingerprint, sort)
    try:
        with jvm.java_errors():
            request = _request(text, default_operator == "AND", word_forms, parsed_filters)
            request.sort(_sort(sort, sort_order, by_key=fingerprint is not None))
            request.page(page, page_size, after).passages(max_passages, passage_length)
            if fingerprint is not None:
                request.walk(snapshot)
            request.facetLimit(facet_limit).timeoutMs(limit_ms(timeout_s))
            for counted_text in counted:
                request.countQuery(counted_text)
            for facet, edges in ranges:
                request.countRanges(facet.field, jvm.jarray("long", edges))
            answer_bytes = context().run(index.searchers, index.snapshots, request)
    except errors.QuerySyntaxError:
        # parsed again on their own: each says what is wrong and what to write instead
        for each in (text, *counted):
            parse_query(each, default_operator, word_forms=word_forms)
        raise
    # the shim wrote the hits and facets as the tool returns them: a header, then the hits,
    # which stay JSON text until read; the rest is added here, in SearchResult's order
    raw = memoryview(answer_bytes).tobytes().decode("utf-8")
    answer, end = _HEADER.raw_decode(raw)
    total = answer["totalHits"]
    total_pages = math.ceil(total / page_size) if total else 0
    data = {
        "documents": Encoded(raw[end:]),
        "totalHits": total,
        "page": page,
        "pageSize": page_size,
        "totalPages": total_pages,
        "hasNextPage": page < total_pages,
        "facets": answer["facets"],
        "activeFilters": [
            {**to_dict(flt), "matchCount": count}
            for flt, count in zip(parsed_filters, answer["counts"], strict=True)
        ],
        "searchTimeMs": round((time.perf_counter() - started) * 1000, 2),
    }
    if named:  # what was counted in time, in the order asked
        data["facetQueries"] = dict(zip(named, answer["counted"], strict=False))
    if ranges:
        data["rangeFacets"] = to_dict(buckets(ranges, answer["ranges"]))
    if fingerprint is not None:  # paged by cursor; hasNextPage: whether a page follows
        data["hasNextPage"] = answer.get("more", total > page_size)
        if data["hasNextPage"]:
            kept = answer.get("snapshot", -1)
            data["nextCursor"] = cursors.encode(fingerprint, f"{kept}|{answer['last']}")
    if answer["partial"]:
        data["partialResults"] = True
    return SearchResult(data)


def check_request(
    page: int,
    page_size: int,
    cursor: str | None,
    sort: str,
    sort_order: str,
    max_passages: int,
    passage_length: int,
    facet_limit: int,
) -> None:
    """Checks a search's paging, sort, passage and facet parameters (every backend's).

    Raises:
        InvalidRequestError: saying which parameter is wrong and what it takes.
    """
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise errors.InvalidRequestError(f"pageSize must be 1–{MAX_PAGE_SIZE}, got {page_size}")
    if page < 1:
        raise errors.InvalidRequestError(f"page starts at 1, got {page}")
    if cursor is not None and page != 1:
        raise errors.InvalidRequestError(
            "a cursor replaces page: leave page at 1 and pass the nextCursor of the last answer"
        )
    if page * page_size > MAX_WINDOW:
        raise errors.InvalidRequestError(
            f"page {page} × pageSize {page_size} goes past the first {MAX_WINDOW} hits; "
            "narrow the query or add filters"
        )
    if sort not in schema.SORT_FIELDS:
        raise errors.InvalidRequestError(f"sort must be one of {', '.join(schema.SORT_FIELDS)}")
    if sort_order not in ("asc", "desc"):
        raise errors.InvalidRequestError("sortOrder must be 'asc' or 'desc'")
    if not 0 <= max_passages <= 10:
        raise errors.InvalidRequestError(f"maxPassages must be 0–10, got {max_passages}")
    if not 50 <= passage_length <= 1000:
        raise errors.InvalidRequestError(f"passageLength must be 50–1000, got {passage_length}")
    if not 1 <= facet_limit <= MAX_FACET_LIMIT:
        raise errors.InvalidRequestError(
            f"facetLimit must be 1–{MAX_FACET_LIMIT}, got {facet_limit}"
        )


def _request(text: str, and_: bool, word_forms: bool, filters: Sequence[Filter]) -> Any:
    """The shim's ``SearchRequest`` of ``text`` within ``filters``: each a clause, an exclusion,
    or values of a facet dimension chosen by drill-down (so that its facet still counts the
    other values)."""
    kinds = jvm.jclass("io.github.pylucenemcp.search.FilterKind")
    request = jvm.jclass("io.github.pylucenemcp.search.SearchRequest")(text)
    request.operator(and_, word_forms)
    for flt in filters:
        if flt.field in schema.FACET_FIELDS and flt.operator in ("eq", "in"):
            request.filter(filter_query(flt), kinds.DRILL_DOWN)
            chosen = [flt.value] if flt.operator == "eq" else list(flt.values or ())
            for value in dict.fromkeys(facet_value(flt, v) for v in chosen):
                request.drillDown(flt.field, value)
        else:
            negative = flt.operator in ("not", "not_in")
            request.filter(filter_query(flt), kinds.EXCLUDE if negative else kinds.FILTER)
    return request


class Searches(Protocol):
    """What :func:`facet_counts` asks of an index: a search (every backend's ``search``)."""

    def search(self, query: str, **options: Any) -> SearchResult: ...


def facet_counts(
    index: Searches,
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
    (field → buckets, ``to`` excluded) over the hits of ``query`` with ``filters``, and whether
    the time limit (``timeout_s``, 0: none) cut them short: the index's search for one hit
    without passages, which counts them (see :func:`search`); a method of every backend.

    Raises:
        QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError.
    """
    result = index.search(
        query,
        filters=filters,
        page_size=1,
        max_passages=0,
        default_operator=default_operator,
        word_forms=word_forms,
        timeout_s=timeout_s,
        facet_queries=facet_queries,
        range_facets=range_facets,
    )
    ranges = {field: list(found) for field, found in (result.range_facets or {}).items()}
    return dict(result.facet_queries or {}), ranges, result.partial_results


def _fingerprint(
    index: str, text: str, operator: str, filters: Sequence[Filter], sort: str, sort_order: str
) -> str:
    """What a cursor belongs to: the index, the query, its operator (and whether word forms
    count), the filters and the sort."""
    return cursors.owner(index, text, operator, [to_dict(f) for f in filters], sort, sort_order)


#: a number as Java writes a float or a long, and nothing else
_NUMBER = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[Ee][+-]?\d+)?|-?Infinity|NaN"
_SCORE_POSITION = re.compile(rf"(?:{_NUMBER}):.+", re.DOTALL)
_SORT_POSITION = re.compile(r"-?\d+:.+", re.DOTALL)


def _position(cursor: str, fingerprint: str, sort: str) -> tuple[int, str | None]:
    """The snapshot a walk pages through (-1: none yet, or none kept) and the position in the
    results that ``cursor`` continues after (None: the start).

    Raises:
        InvalidRequestError: for text that is not a cursor of this search.
    """
    position = cursors.decode(cursor, fingerprint)
    if position is None:
        return -1, None
    snapshot, _, last = position.partition("|")
    shape = _SCORE_POSITION if sort == "_score" else _SORT_POSITION
    if not re.fullmatch(r"-1|\d+", snapshot) or not shape.fullmatch(last):
        raise errors.InvalidRequestError(cursors.NOT_OURS)
    return int(snapshot), last


# the search tool's parameter names that differ from the Python ones
TOOL_NAMES = {
    "sortOrder": "sort_order",
    "pageSize": "page_size",
    "defaultOperator": "default_operator",
    "maxPassages": "max_passages",
    "passageLength": "passage_length",
    "facetLimit": "facet_limit",
    "wordForms": "word_forms",
    "facetQueries": "facet_queries",
    "rangeFacets": "range_facets",
}


def _python_names(given: dict[str, Any], tool_names: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of a :func:`search` call (``given``, its locals) with the tool's
    names in ``tool_names`` put in their Python places."""
    params = {
        k: v for k, v in given.items() if k not in ("index", "query", "tool_names", "started")
    }
    for name, value in tool_names.items():
        if name == "timeAllowedMs":
            params["timeout_s"] = value / 1000
        elif name in TOOL_NAMES:
            params[TOOL_NAMES[name]] = value
        else:
            raise errors.InvalidRequestError(
                f"search() takes no parameter {name!r}; it takes "
                f"{', '.join(params)} (or the tool's names: {', '.join(TOOL_NAMES)}, "
                "timeAllowedMs)"
            )
    return params


def _sort(field_name: str, order: str, *, by_key: bool) -> Any:
    """The Lucene sort: ``field_name`` and then the unique key, the file path, for its ties (no
    score: writes move scores, and a cursor's position that held one would then repeat or skip
    documents, as in Solr's cursorMark); ``_score``: by relevance (None), and for a cursor
    (``by_key``) the score and then the file path, so that a walk sees each document once however
    segments merge between its pages (Lucene's own last tie-break, the document number, changes
    with a merge)."""
    sort_field = jvm.jclass("org.apache.lucene.search.SortField")
    types = jvm.jclass("org.apache.lucene.search.SortField$Type")
    fields = []
    if field_name != "_score":
        primary = sort_field(field_name, types.LONG, order == "desc")
        primary.setMissingValue(
            jvm.jclass("java.lang.Long")(LONG_MIN if order == "desc" else LONG_MAX)
        )
        fields.append(primary)
    elif not by_key:
        return None
    else:
        fields.append(sort_field.FIELD_SCORE)
    fields.append(sort_field(schema.FILE_PATH, types.STRING))
    return jvm.jclass("org.apache.lucene.search.Sort")(*fields)
