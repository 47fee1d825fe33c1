"""What the diagnostic tools (``profileQuery``, ``explainMiss``) ask of an index, as one small
interface: counts of a Lucene query, a term's statistics, a document's stored values, the top
hits, an explanation. The diagnostics are written once against :class:`Probe`; the embedded index
answers through its searcher (:class:`LuceneProbe`), a remote one through its engine (the
SolrCloud backend's ``SolrProbe``), so that both give the same reasons from the same checks.

Queries are the parsed Lucene queries (Java objects) of :mod:`pylucene_mcp.engine.query`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from contextlib import AbstractContextManager
from typing import Any, Protocol

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.explain import DocumentExplanation, explain_document
from pylucene_mcp.engine.filters import constrain
from pylucene_mcp.engine.index import LuceneIndex, document_id, path_query
from pylucene_mcp.engine.query import context


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
    are written once against it (:mod:`pylucene_mcp.engine.profile`,
    :mod:`pylucene_mcp.engine.miss`) and are methods of each backend as they are."""

    def probe(self) -> AbstractContextManager[Probe]:
        """The index as the diagnostics see it, at one point in time, for the ``with`` block
        (Java's errors said as the caller's where it has any)."""


@contextlib.contextmanager
def lucene_probe(index: LuceneIndex) -> Iterator[Probe]:
    """The embedded index's :meth:`Probed.probe`: one searcher for the block."""
    with index.searcher() as searcher, jvm.java_errors(caller_input=True):
        yield LuceneProbe(index, searcher)


class LuceneProbe:
    """The embedded index's answers, from one searcher (acquire it for the probe's life)."""

    def __init__(self, index: LuceneIndex, searcher: Any) -> None:
        self.index = index
        self.searcher = searcher
        self.reader = searcher.getIndexReader()

    def documents(self) -> int:
        return int(self.reader.numDocs())

    def count(self, query: Any) -> int:
        return int(self.searcher.count(query))

    def matches(self, query: Any, path: str) -> bool:
        return int(self.searcher.count(constrain(query, [], path_query(path)))) > 0

    def stored(self, path: str) -> dict[str, list[str]]:
        document = self.searcher.storedFields().document(document_id(self.searcher, path))
        values: dict[str, list[str]] = {}
        for stored in document.getFields():
            name = str(stored.name())
            number = stored.numericValue()
            if number is None:
                text = str(stored.stringValue())
            elif name in schema.DATE_FIELDS:
                text = str(schema.iso(int(number.longValue())))
            else:
                text = str(int(number.longValue()))
            values.setdefault(name, []).append(text)
        return values

    def top(self, query: Any, n: int) -> list[tuple[str, float]]:
        stored = self.searcher.storedFields()
        return [
            (str(stored.document(hit.doc).get(schema.FILE_PATH)), float(hit.score))
            for hit in self.searcher.search(query, n).scoreDocs
        ]

    def term_stats(self, field: str, term: str) -> tuple[int, int]:
        java_term = jvm.jclass("org.apache.lucene.index.Term")(field, term)
        return int(self.reader.docFreq(java_term)), int(self.reader.totalTermFreq(java_term))

    def field_documents(self, field: str) -> int:
        return int(self.reader.getDocCount(field))

    def cost(self, query: Any, max_terms: int, sample: int) -> dict[str, Any]:
        costs = jvm.jclass("io.github.pylucenemcp.search.QueryCosts")
        found: dict[str, Any] = json.loads(
            memoryview(costs.of(self.searcher, query, max_terms, sample)).tobytes()
        )
        return found

    def explain(self, query: Any, path: str, text: str) -> DocumentExplanation:
        return explain_document(self.searcher, query, document_id(self.searcher, path), path, text)

    def facet_cost(self, query: Any) -> dict[str, Any] | None:
        measured: dict[str, Any] = json.loads(
            memoryview(context().facetCost(self.index.searchers, query, 5)).tobytes()
        )
        return measured
