"""pylucene-mcp: real Apache Lucene 10 from Python, and as an MCP server for AI assistants.

Importing this package never starts the JVM; the first call that needs Lucene does.

    >>> from pylucene_mcp import Index                                # doctest: +SKIP
    >>> index = Index.open("~/my-index")                              # doctest: +SKIP
    >>> index.search('"signed contract"~3 OR *vertrag*').documents   # doctest: +SKIP

Raw Lucene is one call away: after ``start_jvm()``, ``from org.apache.lucene.search import
IndexSearcher`` works, with the same class path the package uses.
"""

from pylucene_mcp.api import Index
from pylucene_mcp.basics.errors import (
    AdminBusyError,
    DiskFullError,
    DocumentNotFoundError,
    IndexAccessError,
    IndexCorruptError,
    IndexLockedError,
    InvalidFilterError,
    InvalidRequestError,
    JvmError,
    PyLuceneMcpError,
    QuerySyntaxError,
    SearchTimeoutError,
    SetupError,
    TooManyClausesError,
    TryLaterError,
    UnknownFieldError,
)
from pylucene_mcp.engine.analysis import Token, analyze
from pylucene_mcp.engine.explain import DocumentExplanation, Explanation, TermContribution
from pylucene_mcp.engine.filters import Filter
from pylucene_mcp.engine.index import Writer
from pylucene_mcp.engine.passages import Passage
from pylucene_mcp.engine.results import ActiveFilter, FacetValue, Hit, SearchResult
from pylucene_mcp.jvm import start as start_jvm

__version__ = "0.1.0"

__all__ = [
    "AdminBusyError",
    "DiskFullError",
    "DocumentExplanation",
    "ActiveFilter",
    "DocumentNotFoundError",
    "Explanation",
    "FacetValue",
    "Filter",
    "Hit",
    "Index",
    "IndexAccessError",
    "IndexCorruptError",
    "IndexLockedError",
    "InvalidFilterError",
    "InvalidRequestError",
    "JvmError",
    "Passage",
    "PyLuceneMcpError",
    "QuerySyntaxError",
    "SearchResult",
    "SearchTimeoutError",
    "SetupError",
    "TermContribution",
    "Token",
    "TooManyClausesError",
    "TryLaterError",
    "UnknownFieldError",
    "Writer",
    "analyze",
    "start_jvm",
]
