"""The public Python API's ``Index``: the embedded Lucene index with everything the MCP tools
can ask of it at hand, for people in a REPL: ``Index.open(path).search("*vertrag")``.

It is the engine's :class:`~pylucene_mcp.engine.lucene.embedded.EmbeddedBackend` (the
implementation of :class:`~pylucene_mcp.engine.core.backend.Backend` that the server uses too)
under its public name.
"""

from __future__ import annotations

from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend


class Index(EmbeddedBackend):
    """A Lucene index on disk, searchable in place.

    ``search`` (a query and the options of a ``SearchRequest``: ``page_size=20``, or a request),
    ``explain`` (each matched term's BM25 contribution), ``document_details``,
    ``profile_query``, ``explain_miss``, ``facet_counts``, ``top_terms``, ``suggest_terms``,
    ``find_duplicates``, ``index_stats``, ``field_infos``;
    ``writer()`` for blocks of writes; ``searcher()`` for Lucene's own ``IndexSearcher``.
    """
