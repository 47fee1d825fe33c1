"""The result shapes of a search and how they go on the wire: frozen dataclasses whose
``to_dict()`` gives the tool's camelCase JSON (no None values), and the fitting of an answer into
its byte budget."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from pylucene_mcp.filters import Filter
from pylucene_mcp.passages import Passage


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


def select(
    data: dict[str, Any],
    fields: Sequence[str] | None = None,
    facets: Sequence[str] | None = None,
    facet_min_count: int = 1,
) -> dict[str, Any]:
    """The tool's answer with only the hit ``fields`` asked for (``filePath`` always: it is the
    id), only the facet dimensions in ``facets`` (none for an empty list), and facet values
    counted at least ``facet_min_count`` times. None leaves a part as it is."""
    if fields is not None:
        keep = {"filePath", *fields}
        data["documents"] = [
            {k: v for k, v in doc.items() if k in keep} for doc in data["documents"]
        ]
    if facets is not None:
        data["facets"] = {dim: values for dim, values in data["facets"].items() if dim in facets}
    if facet_min_count > 1:
        data["facets"] = {
            dim: [v for v in values if v["count"] >= facet_min_count]
            for dim, values in data["facets"].items()
        }
    return data
