"""Filters: what a search's ``filters`` mean as Lucene queries (terms, points, drill-down
facet values), and the errors that say which field takes which operator."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine.core import documents

Operator = schema.FilterOperator
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


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


def filter_error(flt: Filter) -> errors.PyLuceneMcpError | None:
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
    if flt.field in schema.FACET_FIELDS and flt.operator != "range":
        given = (flt.value,) if flt.operator in ("eq", "not") else tuple(flt.values or ())
        if any(facet_value(flt, value) == "" for value in given):
            return errors.InvalidFilterError(
                f"filter on '{flt.field}': a value is empty; give one of the values that the "
                f"search's facets list for '{flt.field}'"
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
            "$facets", flt.field, jvm.jarray("String", [facet_value(flt, value)])
        )
        return jvm.jclass("org.apache.lucene.search.TermQuery")(facet_term)
    return jvm.jclass("org.apache.lucene.search.TermQuery")(
        term(flt.field, schema.keyword_value(flt.field, str(value)))
    )


def facet_value(flt: Filter, value: Any) -> str:
    return schema.keyword_value(flt.field, str(value))


def filter_query(flt: Filter) -> Any:
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


def parse_filters(specs: Sequence[Filter | Mapping[str, Any]]) -> list[Filter]:
    """``specs`` as filters, each checked against its field.

    Raises:
        UnknownFieldError, InvalidFilterError: for the first filter that is wrong.
    """
    parsed = [Filter.of(spec) for spec in specs]
    for flt in parsed:
        problem = filter_error(flt)
        if problem is not None:
            raise problem
    return parsed


def constrain(query: Any, filters: Sequence[Filter], *also: Any) -> Any:
    """``query`` within ``filters`` (``not``/``not_in`` exclude) and within each query of
    ``also``. With one filter, it is what ``activeFilters[].matchCount`` counts."""
    j = jvm.jclass
    occur = j("org.apache.lucene.search.BooleanClause$Occur")
    boolean = j("org.apache.lucene.search.BooleanQuery$Builder")()
    boolean.add(query, occur.MUST)
    for flt in filters:
        negative = flt.operator in ("not", "not_in")
        boolean.add(filter_query(flt), occur.MUST_NOT if negative else occur.FILTER)
    for clause in also:
        boolean.add(clause, occur.FILTER)
    return boolean.build()
