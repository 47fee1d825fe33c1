"""Search: the classic query syntax through the project's parser, filters, DrillSideways facets,
sorting, paging and passages. :func:`search` is what the Python API, the CLI and the MCP tool
all call; its result dataclasses carry exactly what the tool returns (``to_dict()``)."""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, Literal

from pylucene_mcp import analysis, documents, errors, jvm, schema
from pylucene_mcp.passages import Passage

if TYPE_CHECKING:
    from pylucene_mcp.index import Index

Operator = Literal["eq", "in", "not", "not_in", "range"]
MAX_PAGE_SIZE = 100
MAX_WINDOW = 10_000
DEFAULT_TIMEOUT_S = 5.0  # Settings.search_timeout_s
FACET_TOP_N = 10
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)


def to_dict(value: Any) -> Any:
    """A result dataclass as the JSON the MCP tool returns: camelCase keys, no None values."""
    if hasattr(value, "__dataclass_fields__"):
        out = {}
        for f in fields(value):
            item = getattr(value, f.name)
            if item is None or f.metadata.get("internal"):
                continue
            if item is False and f.metadata.get("omit_false"):
                continue
            out[f.metadata.get("json", camel(f.name))] = to_dict(item)
        return out
    if isinstance(value, Mapping):
        return {k: to_dict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_dict(v) for v in value]
    return value


@dataclass(frozen=True)
class Filter:
    """One filter: ``eq``/``not`` take ``value``, ``in``/``not_in`` ``values``, ``range``
    ``from_``/``to`` (inclusive, either may be open)."""

    field: str
    operator: Operator = "eq"
    value: Any = None
    values: tuple[Any, ...] | None = None
    from_: Any = dataclasses.field(default=None, metadata={"json": "from"})
    to: Any = None

    @classmethod
    def of(cls, spec: Filter | Mapping[str, Any]) -> Filter:
        """A filter from a dict as the MCP tool receives it (``from`` may be spelled ``from_``)."""
        if isinstance(spec, Filter):
            return spec
        if not isinstance(spec, Mapping) or "field" not in spec:
            raise errors.InvalidFilterError(
                "a filter is {field, operator, value | values | from/to}, e.g. "
                "{'field': 'language', 'operator': 'eq', 'value': 'de'}"
            )
        values = spec.get("values")
        return cls(
            field=str(spec["field"]),
            operator=spec.get("operator", "eq"),
            value=spec.get("value"),
            values=tuple(values) if values is not None else None,
            from_=spec.get("from", spec.get("from_")),
            to=spec.get("to"),
        )


@dataclass(frozen=True)
class ActiveFilter:
    """A filter as applied, with the number of documents the query matches with it alone."""

    filter: Filter
    match_count: int


@dataclass(frozen=True)
class FacetValue:
    value: str
    count: int


@dataclass(frozen=True)
class Hit:
    """One document of a result page."""

    file_path: str
    file_name: str | None
    title: str | None
    author: str | None
    language: str | None
    file_extension: str | None
    file_type: str | None
    file_size: int | None
    created_date: str | None
    modified_date: str | None
    indexed_date: str | None
    score: float
    passages: tuple[Passage, ...]
    doc_id: int = dataclasses.field(
        default=-1, repr=False, compare=False, metadata={"internal": True}
    )


@dataclass(frozen=True)
class SearchResult:
    """A page of hits with the facet counts and the filters that produced it."""

    documents: tuple[Hit, ...]
    total_hits: int
    page: int
    page_size: int
    total_pages: int
    has_next_page: bool
    facets: dict[str, tuple[FacetValue, ...]]
    active_filters: tuple[ActiveFilter, ...]
    search_time_ms: float
    #: True when the time limit cut the search short: the hits, counts and facets are those
    #: found in time (a lower bound), and some passages may be missing their highlights.
    partial_results: bool = dataclasses.field(default=False, metadata={"omit_false": True})

    def to_dict(self, max_bytes: int | None = None) -> dict[str, Any]:
        """The JSON the MCP ``search`` tool returns; with ``max_bytes``, fitted to that many
        bytes of compact JSON (see :func:`fit_passages`)."""
        data: dict[str, Any] = to_dict(self)
        data["activeFilters"] = [
            {**to_dict(a.filter), "matchCount": a.match_count} for a in self.active_filters
        ]
        return data if max_bytes is None else fit_passages(data, max_bytes)


def compact_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON, as it goes over the wire."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def fit_passages(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Drops passages until the answer fits ``max_bytes`` of compact JSON: first the weaker
    passages, lowest-ranked hit first, so that every hit keeps its best one; then, if that is not
    enough, the best passages of the lowest-ranked hits (the first hit keeps its own).
    ``passagesOmitted`` says how many went (fewer hits, a lower ``maxPassages`` or a shorter
    ``passageLength`` bring them back, and getDocumentDetails reads any document)."""
    size = compact_size(data)
    if size <= max_bytes:
        return data
    documents = data["documents"]
    omitted = 0
    marker = len(',"passagesOmitted":') + 3
    for keep in (1, 0):
        while size + marker > max_bytes:
            candidates = [d for d in documents[1:] if len(d.get("passages", ())) > keep]
            if keep and len(documents) and len(documents[0].get("passages", ())) > 1:
                candidates.insert(0, documents[0])
            if not candidates:
                break
            dropped = candidates[-1]["passages"].pop()
            size -= compact_size(dropped) + (1 if candidates[-1]["passages"] else 0)
            omitted += 1
    if omitted:
        data["passagesOmitted"] = omitted
    return data


# -- query parsing ---------------------------------------------------------------------------


_HIT_FIELDS = (
    schema.FILE_PATH,
    "file_name",
    "title",
    "author",
    "language",
    "file_extension",
    "file_type",
    "file_size",
    "created_date",
    "modified_date",
    "indexed_date",
    schema.PAGE_OFFSETS,
)


@functools.cache
def _context() -> Any:
    """The Java ``SearchContext``: schema, analyzer and facets shared by every search."""
    from pylucene_mcp.documents import make_facets_config

    return jvm.jclass("io.github.pylucenemcp.search.SearchContext")(
        analysis.schema_analyzer(),
        make_facets_config(),
        schema.CONTENT,
        schema.CONTENT_REVERSED,
        schema.CONTENT_TRANSLIT_DE,
        jvm.jset(schema.TEXT_FIELDS),
        jvm.jset(schema.KEYWORD_FIELDS),
        jvm.jset(schema.LONG_FIELDS),
        jvm.jset(schema.DATE_FIELDS),
        jvm.jset(_HIT_FIELDS),
        schema.PAGE_OFFSETS,
        jvm.jarray("String", list(schema.FACET_FIELDS)),
        FACET_TOP_N,
    )


@dataclass(frozen=True)
class ParsedQuery:
    """The Lucene query to run, the one to highlight with, and the query's units (terms,
    phrases, patterns) that passages' term coverage counts."""

    query: Any
    highlight_query: Any
    units: Any
    match_all: bool


def parse_query(text: str, default_operator: str = "AND") -> ParsedQuery:
    """Parses ``text`` in Lucene's classic syntax (see ``ContentQueryParser``).

    Raises:
        QuerySyntaxError: quoting the problem, with a corrected query when one is found.
        UnknownFieldError: for ``field:value`` with a field the schema does not have.
    """
    if default_operator not in ("AND", "OR"):
        raise errors.InvalidRequestError(
            f"defaultOperator must be AND or OR, not {default_operator!r}"
        )
    stripped = text.strip()
    if not stripped:
        raise errors.QuerySyntaxError(
            "the query is empty; to list every document use '*' (and narrow it with filters)",
            text,
            "*",
        )
    if stripped in ("*", "*:*"):
        everything = jvm.jclass("org.apache.lucene.search.MatchAllDocsQuery")()
        return ParsedQuery(everything, everything, jvm.jclass("java.util.ArrayList")(), True)
    parse_error = jvm.jclass("org.apache.lucene.queryparser.classic.ParseException")
    try:
        with jvm.java_errors():
            parsed = _context().parse(stripped, default_operator == "AND")
    except errors.UnknownFieldError:
        raise
    except errors.TooManyClausesError:
        raise
    except errors.QuerySyntaxError as exc:
        message = _first_line(str(exc))
        if "too many boolean clauses" in message.lower():
            raise errors.TooManyClausesError(
                f"query {quote(stripped)} has more clauses (words, phrases, terms) than Lucene "
                "takes in one query; split it into several searches or use fewer OR-terms"
            ) from exc
        suggestion = suggest_fix(stripped, default_operator, parse_error)
        if suggestion:
            shown = suggestion if len(suggestion) <= QUOTE_CHARS else quote(suggestion)
            hint = f" Try: {shown}"
        elif re.fullmatch(r"(\s*(AND|OR|NOT|&&|\|\||!)\s*)+", stripped):
            hint = (
                " AND, OR and NOT are operators: put words on both sides (lease AND rent), "
                "or write them in lower case to search for the word (and)"
            )
        elif message.startswith(("field '", "the regular expression")):
            hint = ""  # the shim's own message says what to write
        else:
            hint = (
                ' Special characters (+ - && || ! ( ) { } [ ] ^ " ~ * ? : \\ /) need a \\ '
                "before them to be searched as text"
            )
        raise errors.QuerySyntaxError(
            f"cannot parse query {quote(stripped)}: {message}.{hint}", stripped, suggestion
        ) from exc
    except errors.InvalidRequestError as exc:  # Lucene's RegExp refuses a /pattern/
        raise errors.QuerySyntaxError(
            f"cannot parse query {quote(stripped)}: the regular expression at position "
            f"{stripped.find('/')} is not valid ({_first_line(str(exc))}); / starts and ends a "
            "regular expression, so write \\/ to search for a slash",
            stripped,
        ) from exc
    if parsed.query is None:  # only punctuation
        raise errors.QuerySyntaxError(
            f"query {quote(stripped)} has no searchable words; use letters or digits", stripped
        )
    return ParsedQuery(parsed.query, parsed.highlightQuery, parsed.units, False)


QUOTE_CHARS = 200


def quote(text: str) -> str:
    """``text`` as an error message quotes it: at most 200 characters."""
    if len(text) <= QUOTE_CHARS:
        return repr(text)
    return f"{text[:QUOTE_CHARS]!r}… ({len(text) - QUOTE_CHARS} more characters)"


def _first_line(message: str) -> str:
    message = message.split("\n")[0].strip()
    message = re.sub(r"^Cannot parse '.*?': ", "", message, flags=re.DOTALL)
    if len(message) > 2 * QUOTE_CHARS:
        message = message[: 2 * QUOTE_CHARS] + "…"
    return message.rstrip(".")


def suggest_fix(text: str, default_operator: str, parse_error: Any) -> str | None:
    """A corrected form of a query that fails to parse, or None.

    Closes an open quote, balances parentheses, drops dangling operators and field prefixes;
    offers the result only when it parses.
    """
    fixed = text
    if fixed.count('"') % 2:
        fixed += '"'
    opened = closed = 0
    kept = []
    for char in fixed:
        if char == "(":
            opened += 1
        elif char == ")":
            if closed >= opened:
                continue
            closed += 1
        kept.append(char)
    fixed = "".join(kept) + ")" * (opened - closed)
    fixed = re.sub(r"^\s*(AND|OR|&&|\|\|)\s+", "", fixed)
    fixed = re.sub(r"\s+(AND|OR|NOT|&&|\|\||!|-|\+)\s*$", "", fixed)
    fixed = re.sub(r"(\w+):\s*$", r"\1", fixed)
    # Only repairs that keep what was asked: no escaping of special characters (it would turn
    # /a{1,100000}/ or modified_date:[2024 TO *] into a search for odd literal text).
    if fixed == text or not fixed.strip():
        return None
    try:
        _context().parser(default_operator == "AND", False).parse(fixed)
    except parse_error:
        return None
    return fixed


# -- filters ---------------------------------------------------------------------------------


def _filter_error(flt: Filter) -> errors.PyLuceneMcpError | None:
    spec = schema.FIELDS.get(flt.field)
    if spec is None or spec.kind == "shadow":
        return errors.UnknownFieldError(
            f"unknown filter field '{flt.field}'; filterable fields: "
            f"{', '.join(schema.FILTERABLE_FIELDS)}",
            flt.field,
            schema.FILTERABLE_FIELDS,
        )
    if flt.operator not in schema.FILTER_OPERATORS:
        return errors.InvalidFilterError(
            f"unknown operator {flt.operator!r}; use one of {', '.join(schema.FILTER_OPERATORS)}"
        )
    if flt.operator not in spec.filter_operators:
        if spec.kind == "text":
            return errors.InvalidFilterError(
                f"field '{flt.field}' is analyzed text and cannot be filtered with "
                f"'{flt.operator}'; search it in the query instead: {flt.field}:(word1 OR word2). "
                f"Filterable fields: {', '.join(schema.FILTERABLE_FIELDS)}"
            )
        return errors.InvalidFilterError(
            f"field '{flt.field}' takes {', '.join(spec.filter_operators)}, not '{flt.operator}'"
            + (
                "; for a range use a date or number field such as modified_date or file_size"
                if flt.operator == "range"
                else ""
            )
        )
    if flt.operator in ("eq", "not") and flt.value is None:
        return errors.InvalidFilterError(f"filter '{flt.operator}' on '{flt.field}' needs 'value'")
    if flt.operator in ("in", "not_in") and not flt.values:
        return errors.InvalidFilterError(
            f"filter '{flt.operator}' on '{flt.field}' needs a non-empty 'values' list"
        )
    if flt.operator == "range" and flt.from_ is None and flt.to is None:
        return errors.InvalidFilterError(
            f"range filter on '{flt.field}' needs 'from', 'to' or both, e.g. "
            "{'field': 'modified_date', 'operator': 'range', 'from': '2024-01-01'}"
        )
    return None


def _long_bounds(flt: Filter, value: Any, upper: bool) -> int:
    if flt.field in schema.DATE_FIELDS and isinstance(value, int | float):
        # 2024 would be read as 2024 ms after 1970 and match nearly everything
        raise errors.InvalidFilterError(
            f"filter on '{flt.field}': the number {value!r} is not a date; give it as text: "
            "2024-01-01, 2024-01-01T10:30:00Z (UTC) or epoch milliseconds as digits "
            "('1704067200000'); the year 2024 is from '2024-01-01' to '2024-12-31'"
        )
    try:
        if flt.field in schema.DATE_FIELDS:
            return documents.to_epoch_millis(value, flt.field, end_of_day=upper)
        return int(value)
    except (TypeError, ValueError) as exc:
        what = "a date" if flt.field in schema.DATE_FIELDS else "a whole number of bytes"
        raise errors.InvalidFilterError(
            f"filter on '{flt.field}': {value!r} is not {what}"
            + (
                "; use 2024-01-01 or 2024-01-01T10:30:00Z"
                if flt.field in schema.DATE_FIELDS
                else ""
            )
        ) from exc


def _value_query(flt: Filter, value: Any) -> Any:
    """The query matching one value of a filter's field."""
    if flt.field in schema.LONG_FIELDS or flt.field in schema.DATE_FIELDS:
        long_point = jvm.jclass("org.apache.lucene.document.LongPoint")
        return long_point.newRangeQuery(
            flt.field, _long_bounds(flt, value, False), _long_bounds(flt, value, True)
        )
    term = jvm.jclass("org.apache.lucene.index.Term")
    if flt.field in schema.FACET_FIELDS:
        drill = jvm.jclass("org.apache.lucene.facet.DrillDownQuery")
        facet_term = drill.term(
            "$facets", flt.field, jvm.jarray("String", [_facet_value(flt, value)])
        )
        return jvm.jclass("org.apache.lucene.search.TermQuery")(facet_term)
    return jvm.jclass("org.apache.lucene.search.TermQuery")(
        term(flt.field, schema.keyword_value(flt.field, str(value)))
    )


def _facet_value(flt: Filter, value: Any) -> str:
    return schema.keyword_value(flt.field, str(value))


def _filter_query(flt: Filter) -> Any:
    """The query of the filter's positive form (for ``not``/``not_in``: what to exclude)."""
    if flt.operator == "range":
        lower = LONG_MIN if flt.from_ is None else _long_bounds(flt, flt.from_, False)
        upper = LONG_MAX if flt.to is None else _long_bounds(flt, flt.to, True)
        if lower > upper:
            raise errors.InvalidFilterError(
                f"range filter on '{flt.field}': 'from' ({flt.from_}) is after 'to' ({flt.to})"
            )
        return jvm.jclass("org.apache.lucene.document.LongPoint").newRangeQuery(
            flt.field, lower, upper
        )
    values = (flt.value,) if flt.operator in ("eq", "not") else tuple(flt.values or ())
    if len(values) == 1:
        return _value_query(flt, values[0])
    boolean = jvm.jclass("org.apache.lucene.search.BooleanQuery$Builder")()
    should = jvm.jclass("org.apache.lucene.search.BooleanClause$Occur").SHOULD
    for value in values:
        boolean.add(_value_query(flt, value), should)
    return boolean.build()


# -- the search ------------------------------------------------------------------------------


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
) -> SearchResult:
    """Runs ``query`` with ``filters`` and returns one page of hits with facets and passages.

    Filters on different fields AND together; the values of one facet field (``author``,
    ``language``, ``file_extension``, ``file_type``) OR together, and its facet still counts the
    other values (DrillSideways).

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

    parsed_filters = [Filter.of(f) for f in filters]
    for flt in parsed_filters:
        problem = _filter_error(flt)
        if problem is not None:
            raise problem
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
                drill_values.setdefault(flt.field, []).extend(_facet_value(flt, v) for v in values)
            elif flt.operator in ("not", "not_in"):
                base.add(_filter_query(flt), occur.MUST_NOT)
            else:
                base.add(_filter_query(flt), occur.FILTER)
        base_query = base.build()
        drill_down = j("org.apache.lucene.facet.DrillDownQuery")(index.facets_config, base_query)
        for dim, values in drill_values.items():
            for value in dict.fromkeys(values):
                drill_down.add(dim, jvm.jarray("String", [value]))

        counts = jvm.jarray(
            "org.apache.lucene.search.Query",
            [_with_filter(parsed.query, flt) for flt in parsed_filters],
        )
        highlight = None if parsed.match_all or max_passages == 0 else parsed.highlight_query
        with index.searcher() as searcher:
            limited_reader, state = index.facet_state(searcher)
            answer = json.loads(
                _context().run(
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
        dim: tuple(FacetValue(label, count) for label, count in values)
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


def _with_filter(query: Any, flt: Filter) -> Any:
    """``query`` with ``flt`` alone: what ``activeFilters[].matchCount`` counts."""
    j = jvm.jclass
    occur = j("org.apache.lucene.search.BooleanClause$Occur")
    boolean = j("org.apache.lucene.search.BooleanQuery$Builder")()
    boolean.add(query, occur.MUST)
    negative = flt.operator in ("not", "not_in")
    boolean.add(_filter_query(flt), occur.MUST_NOT if negative else occur.FILTER)
    return boolean.build()


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
