"""Argument models shared by the tools."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core.backend import Filter, limits


class SearchFilter(BaseModel):
    """eq/not take value; in/not_in take values; range takes from and/or to (inclusive)."""

    model_config = ConfigDict(populate_by_name=True, extra="forbid")

    field: str = Field(
        description="field name, e.g. language, author, file_extension, modified_date, file_size"
    )
    operator: schema.FilterOperator = "eq"
    value: str | int | None = None
    values: list[str | int] | None = Field(
        default=None, min_length=limits.FILTER_VALUES.low, max_length=limits.FILTER_VALUES.high
    )
    from_: str | int | None = Field(
        default=None, alias="from", description="date (2024-01-01) or number"
    )
    to: str | int | None = Field(default=None, description="date (2024-12-31T23:59:59Z) or number")


def filter_specs(filters: list[SearchFilter] | None) -> list[Filter]:
    """The tool's filters as the engine takes them: its ``Filter``s, made once here."""
    return [
        Filter(
            field=f.field,
            operator=f.operator,
            value=f.value,
            values=None if f.values is None else tuple(f.values),
            from_=f.from_,
            to=f.to,
        )
        for f in filters or ()
    ]


class RangeFacetIn(BaseModel):
    """Buckets of a date field (gap: day, week, month or year) or of file_size (gap in bytes)."""

    model_config = ConfigDict(extra="forbid")

    field: Literal["modified_date", "created_date", "indexed_date", "file_size"]
    start: str | int = Field(description="a date (2024-01-01) or a number of bytes")
    end: str | int = Field(description="a date or a number of bytes")
    gap: str | int = Field(description="day, week, month, year; or a number of bytes")
