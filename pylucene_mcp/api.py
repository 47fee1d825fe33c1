"""The public Python API's ``Index``: the embedded Lucene index with everything the MCP tools
can ask of it at hand, for people in a REPL: ``Index.open(path).search("*vertrag")``.

It is the engine's :class:`~pylucene_mcp.engine.embedded.EmbeddedBackend` (the implementation of
:class:`~pylucene_mcp.engine.backend.Backend` that the server uses too) under its public name.
"""

from __future__ import annotations

from typing import Any

from pylucene_mcp.engine.embedded import EmbeddedBackend
from pylucene_mcp.engine.request import SearchRequest
from pylucene_mcp.engine.results import SearchResult


class Index(EmbeddedBackend):
    """A Lucene index on disk, searchable in place.

    ``search`` (a query and the options of a :class:`SearchRequest`: ``page_size=20``),
    ``explain`` (each matched term's BM25 contribution),
    ``document_details``, ``profile_query``, ``explain_miss``, ``facet_counts``,
    ``top_terms``, ``suggest_terms``, ``find_duplicates``, ``index_stats``, ``field_infos``;
    ``writer()`` for blocks of writes; ``searcher()`` for Lucene's own ``IndexSearcher``.
    """

    def search(self, request: SearchRequest | str, **options: Any) -> SearchResult:
        """One page of hits: ``index.search('"signed contract"~3', page_size=20)`` takes a query
        and the options of a :class:`~pylucene_mcp.engine.request.SearchRequest` (Python names;
        the MCP tool's are refused with the list), or a request made already.

        Raises:
            QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError,
            SearchTimeoutError.
        """
        return super().search(SearchRequest.of(request, **options))
