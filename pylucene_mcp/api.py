"""The public Python API's ``Index``: the engine's index with its search at hand.

The engine keeps its arrows one way (:mod:`pylucene_mcp.engine.search` builds on
:mod:`pylucene_mcp.engine.index`, never the reverse); this face joins them for people in a REPL:
``Index.open(path).search("*vertrag")``.
"""

from __future__ import annotations

from pylucene_mcp.engine import index
from pylucene_mcp.engine.explain import DocumentExplanation, explain
from pylucene_mcp.engine.search import search


class Index(index.Index):
    """A Lucene index on disk (see :class:`pylucene_mcp.engine.index.Index`), searchable in
    place."""

    #: :func:`pylucene_mcp.engine.search.search` as a method: typed, and taking the MCP tool's
    #: parameter names too (``pageSize=20``)
    search = search

    def explain(
        self, query: str, file_path: str, *, default_operator: str = "AND"
    ) -> DocumentExplanation:
        """Why the document of ``file_path`` scores what it scores for ``query``: Lucene's
        explanation as Python data, and each matched term's BM25 contribution; see
        :func:`pylucene_mcp.engine.explain.explain`.

        Raises:
            DocumentNotFoundError, QuerySyntaxError, UnknownFieldError.
        """
        return explain(self, query, file_path, default_operator=default_operator)
