"""pylucene-mcp: real Apache Lucene 10 from Python, and as an MCP server for AI assistants.

Importing this package never starts the JVM; the first call that needs Lucene does.

    >>> from pylucene_mcp import Index                                # doctest: +SKIP
    >>> index = Index.open("~/my-index")                              # doctest: +SKIP
    >>> index.search('"signed contract"~3 OR *vertrag*').documents   # doctest: +SKIP

Raw Lucene is one call away: after ``start_jvm()``, ``from org.apache.lucene.search import
IndexSearcher`` works, with the same class path the package uses.
"""

import logging
from typing import TYPE_CHECKING

# a library's logger: where no logging is set up (a REPL), nothing is printed of it (an error
# reaches the caller as one exception); the server and the CLI log to their file and stderr
logging.getLogger(__name__).addHandler(logging.NullHandler())

if TYPE_CHECKING:  # imported when first used (see __getattr__): a server start needs none
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
    from pylucene_mcp.engine.core.analysis import Token, analyze
    from pylucene_mcp.engine.core.explain import DocumentExplanation, Explanation, TermContribution
    from pylucene_mcp.engine.core.filters import Filter
    from pylucene_mcp.engine.core.passages import Passage
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.engine.core.results import ActiveFilter, FacetValue, Hit, SearchResult
    from pylucene_mcp.engine.lucene.writer import Writer
    from pylucene_mcp.jvm import start as start_jvm

# name → (module, name in it): what ``from pylucene_mcp import X`` imports on first use, so that
# the command line and the server start without the Python API's modules
_PUBLIC = {
    "ActiveFilter": ("pylucene_mcp.engine.core.results", "ActiveFilter"),
    "AdminBusyError": ("pylucene_mcp.basics.errors", "AdminBusyError"),
    "DiskFullError": ("pylucene_mcp.basics.errors", "DiskFullError"),
    "DocumentExplanation": ("pylucene_mcp.engine.core.explain", "DocumentExplanation"),
    "DocumentNotFoundError": ("pylucene_mcp.basics.errors", "DocumentNotFoundError"),
    "Explanation": ("pylucene_mcp.engine.core.explain", "Explanation"),
    "FacetValue": ("pylucene_mcp.engine.core.results", "FacetValue"),
    "Filter": ("pylucene_mcp.engine.core.filters", "Filter"),
    "Hit": ("pylucene_mcp.engine.core.results", "Hit"),
    "Index": ("pylucene_mcp.api", "Index"),
    "IndexAccessError": ("pylucene_mcp.basics.errors", "IndexAccessError"),
    "IndexCorruptError": ("pylucene_mcp.basics.errors", "IndexCorruptError"),
    "IndexLockedError": ("pylucene_mcp.basics.errors", "IndexLockedError"),
    "InvalidFilterError": ("pylucene_mcp.basics.errors", "InvalidFilterError"),
    "InvalidRequestError": ("pylucene_mcp.basics.errors", "InvalidRequestError"),
    "JvmError": ("pylucene_mcp.basics.errors", "JvmError"),
    "Passage": ("pylucene_mcp.engine.core.passages", "Passage"),
    "PyLuceneMcpError": ("pylucene_mcp.basics.errors", "PyLuceneMcpError"),
    "QuerySyntaxError": ("pylucene_mcp.basics.errors", "QuerySyntaxError"),
    "SearchRequest": ("pylucene_mcp.engine.core.request", "SearchRequest"),
    "SearchResult": ("pylucene_mcp.engine.core.results", "SearchResult"),
    "SearchTimeoutError": ("pylucene_mcp.basics.errors", "SearchTimeoutError"),
    "SetupError": ("pylucene_mcp.basics.errors", "SetupError"),
    "TermContribution": ("pylucene_mcp.engine.core.explain", "TermContribution"),
    "Token": ("pylucene_mcp.engine.core.analysis", "Token"),
    "TooManyClausesError": ("pylucene_mcp.basics.errors", "TooManyClausesError"),
    "TryLaterError": ("pylucene_mcp.basics.errors", "TryLaterError"),
    "UnknownFieldError": ("pylucene_mcp.basics.errors", "UnknownFieldError"),
    "Writer": ("pylucene_mcp.engine.lucene.writer", "Writer"),
    "analyze": ("pylucene_mcp.engine.core.analysis", "analyze"),
    "start_jvm": ("pylucene_mcp.jvm", "start"),
}


def __getattr__(name: str) -> object:
    if name not in _PUBLIC:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    module, attribute = _PUBLIC[name]
    value = getattr(importlib.import_module(module), attribute)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_PUBLIC])


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
    "SearchRequest",
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
