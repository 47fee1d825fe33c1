"""The bounds of every number a request takes, each stated once (docs/architecture.md).

The engine checks a Python caller's value against its bound and names the Python parameter
(``page_size must be 1–100, got 0``); each MCP tool's parameter schema is made from the same
bound (``Field(**PAGE_SIZE.schema())`` in ``server/tools``), so that the SDK refuses what the
engine would, with the tool's own name, and the two cannot drift apart
(``tests/test_limits.py`` reads both from every tool's published schema).
"""

from __future__ import annotations

import dataclasses

from pylucene_mcp.basics import errors


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
