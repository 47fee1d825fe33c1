"""The bounds of every number a request takes, each stated once (docs/architecture.md).

The engine checks a Python caller's value against its bound and names the Python parameter
(``page_size must be 1–100, got 0``); each MCP tool's parameter schema is made from the same
bound (``Field(**PAGE_SIZE.schema())`` in ``server/tools``), so that the SDK refuses what the
engine would, with the tool's own name, and the two cannot drift apart
(``tests/test_limits.py`` reads both from every tool's published schema).

The lengths (:class:`Length`: characters of a query or a path, entries of a list) are the MCP
tools' alone: they keep a client's message to a size the server answers at once, and a Python
caller, who may search with a query of 3,000 words, is not held to them. They are stated here
once all the same, for every tool that takes such a value, with the request's choices (``Mode``,
``SortOrder``; the default operator is ``basics.config.Operator``, a filter's operator
``basics.schema.FilterOperator``), which the engine checks too.
"""

from __future__ import annotations

import dataclasses
from typing import Literal

from pylucene_mcp.basics import errors

#: how a search ranks: by its words, by its meaning (the semantic path), or both fused
Mode = Literal["lexical", "semantic", "hybrid"]
#: the order of a sorted search
SortOrder = Literal["asc", "desc"]


@dataclasses.dataclass(frozen=True)
class Bounds:
    """The closed range ``low``–``high`` of a number (``high`` None: no upper bound)."""

    low: float
    high: float | None = None

    def check(self, name: str, value: float) -> None:
        """Raises ``InvalidRequestError`` naming ``name``, the range and ``value`` when
        ``value`` lies outside it."""
        # written as "not within", so that NaN (which compares false to everything) is refused
        if not (self.low <= value and (self.high is None or value <= self.high)):
            raise errors.InvalidRequestError(f"{name} must be {self.said()}, got {value}")

    def said(self) -> str:
        low = _number(self.low)
        return f"{low} or more" if self.high is None else f"{low}–{_number(self.high)}"

    def schema(self) -> dict[str, float]:
        """The bound as a pydantic ``Field``'s arguments (``ge``, ``le``)."""
        return {"ge": self.low} if self.high is None else {"ge": self.low, "le": self.high}


@dataclasses.dataclass(frozen=True)
class Length:
    """How many items (characters of a text, entries of a list) a value may hold: at most
    ``high``, at least ``low``."""

    high: int
    low: int = 0

    def schema(self) -> dict[str, int]:
        """The bound as a pydantic ``Field``'s arguments (``max_length``, ``min_length``)."""
        return {"max_length": self.high, **({"min_length": self.low} if self.low else {})}


def _number(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)


#: a search's page (a cursor goes further)
PAGE = Bounds(1, 1000)
#: a search's hits per page
PAGE_SIZE = Bounds(1, 100)
#: passages per hit
MAX_PASSAGES = Bounds(0, 10)
#: characters per passage
PASSAGE_LENGTH = Bounds(50, 1000)
#: values per facet
FACET_LIMIT = Bounds(1, 100)
#: a semantic search's least cosine similarity
SIMILARITY_THRESHOLD = Bounds(-1, 1)
#: a quote's least similarity for a near match, and the places an answer lists
QUOTE_SIMILARITY = Bounds(0, 1)
QUOTE_RESULTS = Bounds(1, 50)
#: terms a vocabulary question lists
TERM_LIMIT = Bounds(1, 100)
#: a group of duplicates' least size, and its pages
GROUP_SIZE = Bounds(2, 1000)
GROUP_PAGE_SIZE = Bounds(1, 50)
#: documents whose score a profile explains
DOC_EXPLANATIONS = Bounds(1, 10)
#: characters of a document's text in one answer, from a non-negative offset
DETAILS_LENGTH = Bounds(1, 100_000)
DETAILS_OFFSET = Bounds(0)
#: segments an optimized index keeps
SEGMENTS = Bounds(1, 1000)
#: a search's own time limit, below the server's (milliseconds)
TIME_ALLOWED_MS = Bounds(1, 600_000)
#: the least count of a facet value shown
FACET_MIN_COUNT = Bounds(1, 1_000_000)

#: characters of a query's text
QUERY_CHARS = Length(10_000)
#: characters of a counted query (one of a search's ``countQueries``), and how many a search has
COUNTED_QUERY_CHARS = Length(1_000)
COUNTED_QUERIES = Length(20)
#: range facets of one search
RANGE_FACETS = Length(4)
#: filters of one search, and values of one filter
FILTERS = Length(20)
FILTER_VALUES = Length(100, 1)
#: characters of a path a tool takes (a file's or a folder's)
PATH_CHARS = Length(4096, 1)
#: folders one crawl is asked for
CRAWL_FOLDERS = Length(100)
#: characters of an administration operation's id
OPERATION_ID_CHARS = Length(50)
#: characters of a field's name, and of a prefix the vocabulary completes
FIELD_NAME_CHARS = Length(100, 1)
PREFIX_CHARS = Length(200)
#: characters of a quote to locate (a few words to a few sentences)
QUOTE_CHARS = Length(2_000, 1)
