"""The embedded index as the diagnostics ask it (the core's
:class:`~pylucene_mcp.engine.core.probe.Probe`), through one searcher."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core.explain import DocumentExplanation
from pylucene_mcp.engine.core.filters import constrain
from pylucene_mcp.engine.core.probe import Probe
from pylucene_mcp.engine.core.query import context
from pylucene_mcp.engine.lucene.explain import explain_document
from pylucene_mcp.engine.lucene.index import LuceneIndex
from pylucene_mcp.engine.lucene.queries import document_id, path_query


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
        if self.index.visible_to is not None:
            # Lucene's estimate of a range counts the points of every document, hidden or not:
            # a view says the documents it matches instead
            found["cost"] = int(self.searcher.count(query))
        return found

    def explain(self, query: Any, path: str, text: str) -> DocumentExplanation:
        return explain_document(self.searcher, query, document_id(self.searcher, path), path, text)

    def facet_cost(self, query: Any) -> dict[str, Any] | None:
        measured: dict[str, Any] = json.loads(
            memoryview(context().facetCost(self.index.searchers, query, 5)).tobytes()
        )
        return measured
