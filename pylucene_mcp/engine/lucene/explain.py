"""The embedded index's explanations: Lucene's own, of one document, read into the core's
:class:`~pylucene_mcp.engine.core.explain.DocumentExplanation`."""

from __future__ import annotations

from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.engine.core import documents
from pylucene_mcp.engine.core.explain import DocumentExplanation, Explanation, explanation_of
from pylucene_mcp.engine.core.query import parse_query
from pylucene_mcp.engine.lucene.index import LuceneIndex
from pylucene_mcp.engine.lucene.queries import document_id


def explain(
    index: LuceneIndex, query: str, file_path: str, *, default_operator: str = "AND"
) -> DocumentExplanation:
    """Why the document of ``file_path`` scores what it scores for ``query`` (BM25, per term).

    The contributions of the terms add up to the score when the query is a sum of clauses (the
    usual case: terms, phrases, AND/OR); each gives its BM25 factors.

    Raises:
        DocumentNotFoundError: when no indexed document has that path.
        QuerySyntaxError, UnknownFieldError: for a query that does not parse.
    """
    parsed = parse_query(query, default_operator)
    path = documents.normalize_path(file_path)
    with index.searcher() as searcher:
        return explain_document(
            searcher, parsed.match_query, document_id(searcher, path), path, query
        )


def explain_document(
    searcher: Any, lucene_query: Any, doc_id: int, path: str, query: str
) -> DocumentExplanation:
    """:func:`explain` for a document already found (``doc_id`` in ``searcher``) and a query
    already parsed (``lucene_query``; ``query`` is its text, for the answer)."""
    with jvm.java_errors():
        tree = Explanation.of(searcher.explain(lucene_query, doc_id))
    return explanation_of(tree, path, query)
