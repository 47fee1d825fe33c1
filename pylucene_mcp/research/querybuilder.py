"""pyserini's query builder (``pyserini.search.lucene.querybuilder``), function for function, and
its ``get_lucene_analyzer``, so that a script that builds Lucene queries runs with its import
changed::

    from pylucene_mcp.research import querybuilder
    from pylucene_mcp.research.querybuilder import get_lucene_analyzer

    should = querybuilder.JBooleanClauseOccur["should"].value
    builder = querybuilder.get_boolean_query_builder()
    information = querybuilder.get_term_query("information")
    builder.add(querybuilder.get_boost_query(information, 2.0), should)
    hits = searcher.search(builder.build())

The queries are Lucene's own classes. Importing the module starts the JVM (the clause kinds are
Lucene's ``BooleanClause.Occur`` values).
"""

from __future__ import annotations

import enum
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.analysis import get_lucene_analyzer

__all__ = [
    "JBooleanClauseOccur",
    "get_boolean_query_builder",
    "get_boost_query",
    "get_lucene_analyzer",
    "get_term_query",
]

jvm.start()
_OCCUR = jvm.jclass("org.apache.lucene.search.BooleanClause$Occur")


class JBooleanClauseOccur(enum.Enum):
    """How a clause takes part in a Boolean query: Lucene's ``BooleanClause.Occur``."""

    should = _OCCUR.SHOULD
    must = _OCCUR.MUST
    must_not = _OCCUR.MUST_NOT
    filter = _OCCUR.FILTER


def get_boolean_query_builder() -> Any:
    """A new Lucene ``BooleanQuery.Builder``."""
    return jvm.jclass("org.apache.lucene.search.BooleanQuery$Builder")()


def get_term_query(term: str, field: str = "contents", analyzer: Any = None) -> Any:
    """A Lucene ``TermQuery`` of ``term`` as ``analyzer`` (default: :func:`get_lucene_analyzer`)
    makes it: its first term.

    Raises:
        InvalidRequestError: when the analyzer leaves no term (a stop word).
    """
    chain = get_lucene_analyzer() if analyzer is None else analyzer
    with jvm.java_errors(caller_input=True):
        tokens = jvm.jclass("io.github.pylucenemcp.research.Retrieval").tokens(chain, field, term)
    if len(tokens) == 0:
        raise errors.InvalidRequestError(
            f"{term!r} is no term once analysed (a stop word?): give another, or an analyzer "
            "that keeps it"
        )
    j = jvm.jclass
    term = j("org.apache.lucene.index.Term")(field, str(tokens[0]))
    return j("org.apache.lucene.search.TermQuery")(term)


def get_boost_query(query: Any, boost: float) -> Any:
    """``query`` with its score multiplied by ``boost`` (a Lucene ``BoostQuery``)."""
    return jvm.jclass("org.apache.lucene.search.BoostQuery")(query, float(boost))
