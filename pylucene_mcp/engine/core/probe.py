"""What the diagnostic tools (``profileQuery``, ``explainMiss``) ask of an index, as one small
interface: counts of a Lucene query, a term's statistics, a document's stored values, the top
hits, an explanation. The diagnostics are written once against :class:`Probe`; the embedded index
answers through its searcher (:class:`LuceneProbe`), a remote one through its engine (the
SolrCloud backend's ``SolrProbe``), so that both give the same reasons from the same checks.

Queries are the parsed Lucene queries (Java objects) of :mod:`pylucene_mcp.engine.core.query`.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol

from pylucene_mcp.engine.core.explain import DocumentExplanation


class Probe(Protocol):
    """An index as the diagnostics see it (at one point in time)."""

    def documents(self) -> int:
        """How many documents searches see."""

    def count(self, query: Any) -> int:
        """How many documents match ``query``."""

    def matches(self, query: Any, path: str) -> bool:
        """Whether the document of ``path`` matches ``query``."""

    def stored(self, path: str) -> dict[str, list[str]]:
        """The stored values of the document of ``path`` as text (dates ISO-8601), by field.

        Raises:
            DocumentNotFoundError: when no indexed document has that path.
        """

    def top(self, query: Any, n: int) -> list[tuple[str, float]]:
        """The first ``n`` hits of ``query``: their paths and scores, best first."""

    def term_stats(self, field: str, term: str) -> tuple[int, int]:
        """The documents that hold ``term`` in ``field``, and its occurrences."""

    def field_documents(self, field: str) -> int:
        """The documents that have ``field`` (its terms)."""

    def cost(self, query: Any, max_terms: int, sample: int) -> dict[str, Any]:
        """``{"cost": documents}``, with ``"terms"``, ``"complete"`` and ``"sample"`` for a
        pattern: how many words of the index it reaches (up to ``max_terms``), the first ones."""

    def explain(self, query: Any, path: str, text: str) -> DocumentExplanation:
        """How ``query`` (written as ``text``) scores the document of ``path``."""

    def facet_cost(self, query: Any) -> dict[str, Any] | None:
        """What counting the facets of ``query``'s hits costs (``searchMs``, ``collectMs``,
        ``countMs``, ``dimensions``), or None where the index does not break it down."""


class Probed(Protocol):
    """An index the diagnostics can ask: every backend. ``profile_query`` and ``explain_miss``
    are written once against it (:mod:`pylucene_mcp.engine.core.profile`,
    :mod:`pylucene_mcp.engine.core.miss`) and are methods of each backend as they are."""

    def probe(self) -> AbstractContextManager[Probe]:
        """The index as the diagnostics see it, at one point in time, for the ``with`` block
        (Java's errors said as the caller's where it has any)."""
