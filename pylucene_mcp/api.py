"""The public Python API's ``Index``: the engine's index with its search at hand.

The engine keeps its arrows one way (:mod:`pylucene_mcp.search` builds on
:mod:`pylucene_mcp.index`, never the reverse); this face joins them for people in a REPL:
``Index.open(path).search("*vertrag")``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pylucene_mcp import errors, index
from pylucene_mcp.explain import DocumentExplanation, explain
from pylucene_mcp.filters import Filter
from pylucene_mcp.results import SearchResult
from pylucene_mcp.search import DEFAULT_TIMEOUT_S, search

# the search tool's parameter names that differ from the Python ones
TOOL_NAMES = {
    "sortOrder": "sort_order",
    "pageSize": "page_size",
    "defaultOperator": "default_operator",
    "maxPassages": "max_passages",
    "passageLength": "passage_length",
    "facetLimit": "facet_limit",
}


class Index(index.Index):
    """A Lucene index on disk (see :class:`pylucene_mcp.index.Index`), searchable in place."""

    def search(
        self,
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
        **tool_names: Any,
    ) -> SearchResult:
        """Searches the index; see :func:`pylucene_mcp.search.search` for the parameters. The
        MCP tool's names are taken too (``pageSize=20``, ``sortOrder``, ``defaultOperator``,
        ``maxPassages``, ``passageLength``, ``facetLimit``, ``timeAllowedMs``).

        Raises:
            QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError,
            SearchTimeoutError.
        """
        params: dict[str, Any] = {
            "filters": filters,
            "sort": sort,
            "sort_order": sort_order,
            "page": page,
            "page_size": page_size,
            "default_operator": default_operator,
            "max_passages": max_passages,
            "passage_length": passage_length,
            "timeout_s": timeout_s,
            "facet_limit": facet_limit,
            "cursor": cursor,
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
        return search(self, query, **params)

    def explain(
        self, query: str, file_path: str, *, default_operator: str = "AND"
    ) -> DocumentExplanation:
        """Why the document of ``file_path`` scores what it scores for ``query``: Lucene's
        explanation as Python data, and each matched term's BM25 contribution; see
        :func:`pylucene_mcp.explain.explain`.

        Raises:
            DocumentNotFoundError, QuerySyntaxError, UnknownFieldError.
        """
        return explain(self, query, file_path, default_operator=default_operator)
