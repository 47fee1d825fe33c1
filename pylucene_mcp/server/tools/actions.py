"""Next calls a search answer suggests (``_actions``, asked for with ``actions: true``), so that
the model need not guess them: read the top document, the next page, and the facet values that
narrow the hits most, each as the tool and the arguments to change."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pylucene_mcp.basics.shapes import to_dict
from pylucene_mcp.engine.core.backend import Filter

# facet dimensions offered to narrow by, at most
MAX_DRILL_DOWNS = 2


def search_actions(data: dict[str, Any], applied: Sequence[Filter]) -> list[dict[str, Any]]:
    """The actions for the search answer ``data``, given the filters it was made with."""
    filters = [to_dict(f) for f in applied]  # as the tool takes them again
    actions: list[dict[str, Any]] = []
    documents = data["documents"]
    if documents:
        actions.append(
            {
                "why": "read the top document",
                "tool": "getDocumentDetails",
                "arguments": {"filePath": documents[0]["filePath"]},
                "sameArguments": False,
            }
        )
    if data.get("nextCursor"):
        actions.append(_same("the next page", {"cursor": data["nextCursor"]}))
    elif data["hasNextPage"]:
        following = data["page"] + 1
        actions.append(_same(f"page {following} of {data['totalPages']}", {"page": following}))
    total = data["totalHits"]
    filtered = {f["field"] for f in filters}
    narrowing = sorted(
        (values[0]["count"], dim, values[0]["value"])
        for dim, values in data["facets"].items()
        if dim not in filtered and values and values[0]["count"] < total
    )[::-1][:MAX_DRILL_DOWNS]
    for count, dim, value in narrowing:
        chosen = [*filters, {"field": dim, "value": value}]
        actions.append(_same(f"only {dim} {value!r}: {count} of {total} hits", {"filters": chosen}))
    return actions


def _same(why: str, changed: dict[str, Any]) -> dict[str, Any]:
    return {"why": why, "tool": "search", "arguments": changed, "sameArguments": True}
