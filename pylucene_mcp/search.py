"""Search: one page of hits with DrillSideways facets, sorting, paging and passages, in one
call into the shim under a time limit. :func:`search` is what the Python API, the CLI and the
MCP tool all call; the result shapes are in :mod:`pylucene_mcp.results`."""

from __future__ import annotations

import json
import math
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal

from pylucene_mcp import errors, jvm, schema
from pylucene_mcp.filters import (
    LONG_MAX,
    LONG_MIN,
    Filter,
    constrain,
    facet_value,
    filter_query,
    parse_filters,
)
from pylucene_mcp.passages import Passage
from pylucene_mcp.query import FACET_TOP_N, context, parse_query
from pylucene_mcp.results import ActiveFilter, FacetValue, Hit, SearchResult

if TYPE_CHECKING:
    from pylucene_mcp.index import Index

MAX_PAGE_SIZE = 100
MAX_WINDOW = 10_000
DEFAULT_TIMEOUT_S = 5.0  # Settings.search_timeout_s


def search(
    index: Index,
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
) -> SearchResult:
    """Runs ``query`` with ``filters`` and returns one page of hits with facets and passages.

    Filters on different fields AND together; the values of one facet field (``author``,
    ``language``, ``file_extension``, ``file_type``) OR together, and its facet still counts the
    other values (DrillSideways).

    Each facet dimension lists its ``facet_limit`` most frequent values (1–100, default 10).

    The search stops after ``timeout_s`` (0: no limit): what was found by then comes back with
    ``partial_results`` set; when nothing was found yet (wildcard, fuzzy or regex terms still
    being expanded), ``SearchTimeoutError`` says how to make the query cheaper.

    Raises:
        QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError,
        SearchTimeoutError.
    """
    started = time.perf_counter()
    if not 1 <= page_size <= MAX_PAGE_SIZE:
        raise errors.InvalidRequestError(f"pageSize must be 1–{MAX_PAGE_SIZE}, got {page_size}")
    if page < 1:
        raise errors.InvalidRequestError(f"page starts at 1, got {page}")
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
    if not 1 <= facet_limit <= FACET_TOP_N:
        raise errors.InvalidRequestError(f"facetLimit must be 1–{FACET_TOP_N}, got {facet_limit}")

    parsed_filters = parse_filters(filters)
    parsed = parse_query(query, default_operator)

    j = jvm.jclass
    occur = j("org.apache.lucene.search.BooleanClause$Occur")
    with jvm.java_errors():
        base = j("org.apache.lucene.search.BooleanQuery$Builder")()
        base.add(parsed.query, occur.MUST)
        drill_values: dict[str, list[str]] = {}
        for flt in parsed_filters:
            if flt.field in schema.FACET_FIELDS and flt.operator in ("eq", "in"):
                values = [flt.value] if flt.operator == "eq" else list(flt.values or ())
                drill_values.setdefault(flt.field, []).extend(facet_value(flt, v) for v in values)
            elif flt.operator in ("not", "not_in"):
                base.add(filter_query(flt), occur.MUST_NOT)
            else:
                base.add(filter_query(flt), occur.FILTER)
        base_query = base.build()
        drill_down = j("org.apache.lucene.facet.DrillDownQuery")(index.facets_config, base_query)
        for dim, values in drill_values.items():
            for value in dict.fromkeys(values):
                drill_down.add(dim, jvm.jarray("String", [value]))

        counts = jvm.jarray(
            "org.apache.lucene.search.Query",
            [constrain(parsed.query, [flt]) for flt in parsed_filters],
        )
        highlight = None if parsed.match_all or max_passages == 0 else parsed.highlight_query
        with index.searcher() as searcher:
            limited_reader, state = index.facet_state(searcher)
            answer = json.loads(
                context().run(
                    searcher,
                    limited_reader,
                    state,
                    drill_down,
                    None if sort == "_score" else _sort(sort, sort_order),
                    page,
                    page_size,
                    counts,
                    highlight,
                    parsed.units,
                    max(max_passages, 1),
                    passage_length,
                    jvm.jlong(int(timeout_s * 1000)),
                )
            )
    total = int(answer["total"])
    hits = tuple(
        _hit(row, score) for row, score in zip(answer["hits"], answer["scores"], strict=True)
    )
    facets = {
        dim: tuple(FacetValue(label, count) for label, count in values[:facet_limit])
        for dim, values in answer["facets"].items()
    }
    active = tuple(
        ActiveFilter(flt, count)
        for flt, count in zip(parsed_filters, answer["counts"], strict=True)
    )
    total_pages = math.ceil(total / page_size) if total else 0
    return SearchResult(
        documents=hits,
        total_hits=total,
        page=page,
        page_size=page_size,
        total_pages=total_pages,
        has_next_page=page < total_pages,
        facets=facets,
        active_filters=active,
        search_time_ms=round((time.perf_counter() - started) * 1000, 2),
        partial_results=bool(answer["partial"]),
    )


def _sort(field_name: str, order: str) -> Any:
    sort_field = jvm.jclass("org.apache.lucene.search.SortField")
    field_type = jvm.jclass("org.apache.lucene.search.SortField$Type").LONG
    primary = sort_field(field_name, field_type, order == "desc")
    primary.setMissingValue(jvm.jclass("java.lang.Long")(LONG_MIN if order == "desc" else LONG_MAX))
    return jvm.jclass("org.apache.lucene.search.Sort")(primary, sort_field.FIELD_SCORE)


def _hit(row: dict[str, Any], score: float) -> Hit:
    fields = row["fields"]

    def text(name: str) -> str | None:
        value = fields.get(name)
        return None if value is None else str(value)

    authors = fields.get("author")
    if isinstance(authors, list):
        authors = "; ".join(authors)
    return Hit(
        file_path=fields[schema.FILE_PATH],
        file_name=text("file_name"),
        title=text("title"),
        author=authors,
        language=text("language"),
        file_extension=text("file_extension"),
        file_type=text("file_type"),
        file_size=fields.get("file_size"),
        created_date=schema.iso(fields.get("created_date")),
        modified_date=schema.iso(fields.get("modified_date")),
        indexed_date=schema.iso(fields.get("indexed_date")),
        score=round(score, 4) if not math.isnan(score) else 0.0,
        passages=tuple(Passage.from_json(p) for p in row["passages"]),
        doc_id=int(row["doc"]),
    )
