"""A search as every backend takes it: :class:`SearchRequest`, made and checked once, with the
engine's own (Python) names. The MCP tool, the CLI and the Python API each make one from what
they were given; a backend only runs it. What a cursor belongs to (:meth:`SearchRequest.owner`)
is worked out here too, so that both backends' cursors are bound to a search the same way."""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from typing import Any, Protocol, get_args

from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.shapes import Encoded, to_dict
from pylucene_mcp.engine.core import cursors, limits
from pylucene_mcp.engine.core.counts import RangeFacet, buckets, plan
from pylucene_mcp.engine.core.filters import Filter, parse_filters
from pylucene_mcp.engine.core.query import query_text
from pylucene_mcp.engine.core.readable import Readable
from pylucene_mcp.engine.core.results import ActiveFilter, RangeBucket, SearchResult

#: how deep ``page`` may go; a cursor goes further
MAX_WINDOW = 10_000
DEFAULT_TIMEOUT_S = 5.0  # Settings.search_timeout_s


@dataclasses.dataclass(frozen=True)
class SearchRequest:
    """One search: ``query`` with ``filters``, one page of hits (by ``page`` or ``cursor``) in
    the order of ``sort``, passages, facets and counts.

    Filters on different fields AND together; the values of one facet field (``author``,
    ``language``, ``file_extension``, ``file_type``) OR together, and its facet still counts the
    other values (DrillSideways). Each facet dimension lists its ``facet_limit`` most frequent
    values (1–100).

    Deep paging goes by cursor: ``cursor="*"`` starts, and each result's ``next_cursor`` gives
    the page after it (None after the last), past the first 10,000 hits too; a cursor belongs to
    its query, filters and sort, and ``page`` stays 1.

    ``facet_queries`` (name → query, parsed as ``query`` is) and ``range_facets`` (buckets of a
    date or size field: ``{"field", "start", "end", "gap"}``, see :class:`RangeFacet`) are
    counted among the hits.

    The search stops after ``timeout_s`` (0: no limit), counts included: what was found by then
    comes back with ``partial_results`` set.

    Words and phrases also match other forms of their words (``lock`` finds "locks"), weighted
    below the word itself; ``word_forms=False`` matches only the words as written.

    Raises (on making one):
        InvalidRequestError: for a paging, sort, passage, facet or count parameter out of its
            range (the message names the parameter and what it takes).
        InvalidFilterError, UnknownFieldError: for a filter that is wrong.
    """

    query: str
    filters: Sequence[Filter | Mapping[str, Any]] = ()
    sort: str = "_score"
    sort_order: limits.SortOrder = "desc"
    page: int = 1
    page_size: int = 10
    default_operator: str = "AND"
    max_passages: int = 3
    passage_length: int = 200
    timeout_s: float = DEFAULT_TIMEOUT_S
    facet_limit: int = 10
    cursor: str | None = None
    word_forms: bool = True
    facet_queries: Mapping[str, str] | None = None
    range_facets: Sequence[RangeFacet | Mapping[str, Any]] = ()
    #: the documents the asker may read (None: every document), or the folders of them: the
    #: search, its totals, facets, counts and passages answer as if no other document existed
    within: Readable | Sequence[str] | None = None
    #: lexical (the query's words); semantic: the documents with a chunk whose similarity to
    #: ``vector`` (the query embedded) reaches ``similarity_threshold``; hybrid: both, the first
    #: hundred of each fused by reciprocal rank (docs/semantic.md)
    mode: limits.Mode = "lexical"
    vector: Sequence[float] | None = None
    similarity_threshold: float = 0.7
    # worked out once from the above
    parsed_filters: tuple[Filter, ...] = dataclasses.field(init=False, repr=False, compare=False)
    named: dict[str, str] = dataclasses.field(init=False, repr=False, compare=False)
    ranges: list[tuple[RangeFacet, list[int]]] = dataclasses.field(
        init=False, repr=False, compare=False
    )
    text: str = dataclasses.field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check(self)
        named, ranges = plan(self.facet_queries, self.range_facets)
        derived = {
            "parsed_filters": tuple(parse_filters(self.filters)),
            "named": named,
            "ranges": ranges,
            "text": query_text(self.query, self.default_operator),
            "within": None if self.within is None else Readable.of(self.within),
        }
        for name, value in derived.items():
            object.__setattr__(self, name, value)

    @classmethod
    def of(cls, request: SearchRequest | str, **options: Any) -> SearchRequest:
        """``request`` as it is, or a request for the query text ``request`` with ``options``.

        Raises:
            InvalidRequestError: for an option a search does not take (the message lists
                those it does), or both a request and options.
        """
        if isinstance(request, SearchRequest):
            if options:
                raise errors.InvalidRequestError(
                    "give a SearchRequest or a query with options, not both: "
                    "dataclasses.replace(request, ...) changes one"
                )
            return request
        unknown = [name for name in options if name not in _OPTIONS]
        if unknown:
            raise errors.InvalidRequestError(
                f"a search takes no option {', '.join(map(repr, unknown))}; it takes "
                f"{', '.join(_OPTIONS)}"
            )
        return cls(request, **options)

    @property
    def counted_texts(self) -> list[str]:
        """The facet queries' texts, as the search parses them."""
        return [query_text(q, self.default_operator) for q in self.named.values()]

    def answer(
        self,
        *,
        documents: Encoded,
        total: int,
        facets: Any,
        filter_counts: Sequence[int],
        started: float,
        counted: Sequence[int] = (),
        ranges_counted: Sequence[Sequence[int]] = (),
        walk: tuple[bool, str | None] | None = None,
        partial: bool = False,
    ) -> dict[str, Any]:
        """The answer to this request as both backends give it, in the result's order, from
        what the backend found: the page's hits (JSON text), the total, the facets, each
        filter's match count, the counts of the facet queries and of the range buckets (fewer
        when time ran out: the list ends there), and for a walk by cursor whether a page
        follows and the cursor to it; ``started`` is when the search began."""
        total_pages = math.ceil(total / self.page_size) if total else 0
        more, next_cursor = self.page < total_pages, None
        if walk is not None:  # paged by cursor: whether a page follows, and the cursor to it
            more, next_cursor = walk
        return SearchResult.wire(
            documents=documents,
            total_hits=total,
            page=self.page,
            page_size=self.page_size,
            total_pages=total_pages,
            has_next_page=more,
            facets=facets,
            active_filters=[
                to_dict(flt) | ActiveFilter.wire(match_count=count)
                for flt, count in zip(self.parsed_filters, filter_counts, strict=True)
            ],
            search_time_ms=round((time.perf_counter() - started) * 1000, 2),
            # what was counted in time, in the order asked
            facet_queries=dict(zip(self.named, counted, strict=False)) if self.named else None,
            range_facets=buckets(self.ranges, ranges_counted) if self.ranges else None,
            next_cursor=next_cursor if more else None,
            partial_results=partial or None,
        )

    def owner(self, identity: str) -> str:
        """What a cursor of this search on the index ``identity`` belongs to: the index, the
        query, its operator (and whether word forms count), the filters, the sort and the
        folders it is trimmed to."""
        operator = self.default_operator if self.word_forms else f"{self.default_operator}/exact"
        filters = [to_dict(f) for f in self.parsed_filters]
        search: list[Any] = [self.text, operator, filters, self.sort, self.sort_order]
        if isinstance(self.within, Readable):  # a cursor of one reader's view is no other's
            search.append(list(self.within.key))
        return cursors.owner(identity, *search)


#: the options :meth:`SearchRequest.of` takes beside the query
_OPTIONS = tuple(f.name for f in dataclasses.fields(SearchRequest) if f.init and f.name != "query")


def _check(request: SearchRequest) -> None:
    """Checks a search's paging, sort, passage and facet parameters.

    Raises:
        InvalidRequestError: saying which parameter is wrong and what it takes (by its Python
            name: the MCP tool's schema, made from the same bounds, refuses first by its own).
    """
    page, size = request.page, request.page_size
    limits.PAGE_SIZE.check("page_size", size)
    limits.PAGE.check("page", page)
    if request.cursor is not None and page != 1:
        raise errors.InvalidRequestError(
            "a cursor replaces page: leave page at 1 and pass the next cursor of the last answer"
        )
    if page * size > MAX_WINDOW:
        raise errors.InvalidRequestError(
            f"page {page} of {size} hits goes past the first {MAX_WINDOW} hits; "
            "narrow the query or add filters"
        )
    if request.mode not in get_args(limits.Mode):
        raise errors.InvalidRequestError(
            f"mode must be {' or '.join(get_args(limits.Mode))}, got {request.mode!r}"
        )
    if request.mode != "lexical":
        if request.vector is None:
            raise errors.InvalidRequestError(
                f"a {request.mode} search needs the query's vector (the server embeds the query)"
            )
        if request.cursor is not None:
            raise errors.InvalidRequestError(
                f"a {request.mode} search pages with page, not with a cursor: its semantic "
                "documents are at most the 1,000 most similar"
            )
        limits.SIMILARITY_THRESHOLD.check("similarity_threshold", request.similarity_threshold)
    if request.sort not in schema.SORT_FIELDS:
        raise errors.InvalidRequestError(f"sort must be one of {', '.join(schema.SORT_FIELDS)}")
    if request.sort_order not in get_args(limits.SortOrder):
        raise errors.InvalidRequestError("sort_order must be 'asc' or 'desc'")
    limits.MAX_PASSAGES.check("max_passages", request.max_passages)
    limits.PASSAGE_LENGTH.check("passage_length", request.passage_length)
    limits.FACET_LIMIT.check("facet_limit", request.facet_limit)


class Searches(Protocol):
    """What :func:`facet_counts` asks of an index: a search (every backend's ``search``)."""

    def search(self, request: SearchRequest) -> SearchResult: ...


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
    counting = SearchRequest(
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
    result = index.search(counting)
    ranges = {field: list(found) for field, found in (result.range_facets or {}).items()}
    return dict(result.facet_queries or {}), ranges, result.partial_results
