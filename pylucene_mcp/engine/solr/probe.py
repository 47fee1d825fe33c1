"""The diagnostics' :class:`~pylucene_mcp.engine.core.probe.Probe` over a SolrCloud collection:
counts and top hits from ``/select`` (the portable query), term statistics from the terms
component, pattern expansions from the plugin, explanations from Solr's structured explain.

A pattern's expansion is the collection's terms that it reaches, each shard's listed by the
plugin through Lucene's automaton (``/pylucene/terms``) and merged. A node's cost is the
documents it matches (Lucene's estimate, which the embedded index gives, is not available from
Solr)."""

from __future__ import annotations

import json
from typing import Any

import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core.explain import DocumentExplanation, explanation_of
from pylucene_mcp.engine.solr.collection import SolrCollection


class SolrProbe:
    """The answers of ``collection``."""

    def __init__(self, collection: SolrCollection) -> None:
        self.collection = collection

    def _node(self, query: Any) -> dict[str, Any]:
        return nodes.portable_query(query)

    def documents(self) -> int:
        return self.collection.count(nodes.ALL)

    def count(self, query: Any) -> int:
        return self.collection.count(self._node(query))

    def matches(self, query: Any, path: str) -> bool:
        only = nodes.local(nodes.term(schema.FILE_PATH, path))
        return self.collection.count(self._node(query), only) > 0

    def stored(self, path: str) -> dict[str, list[str]]:
        found = self.collection.stored(path)
        values: dict[str, list[str]] = {}
        for name, value in found.items():
            if name not in schema.FIELDS:
                continue
            listed = value if isinstance(value, list) else [value]
            if name in schema.DATE_FIELDS:
                values[name] = [str(schema.iso(int(v))) for v in listed]
            else:
                values[name] = [str(v) for v in listed]
        return values

    def top(self, query: Any, n: int) -> list[tuple[str, float]]:
        answer = self.collection.select(
            {
                "query": json.dumps(self.collection.ranked(self._node(query))),
                "limit": n,
                "fields": "file_path,score",
                "sort": "score desc,file_path asc",
            }
        )
        return [(d["file_path"], float(d["score"])) for d in answer["response"]["docs"]]

    def term_stats(self, field: str, term: str) -> tuple[int, int]:
        for found, doc_freq, total in self.collection.terms(field, **{"terms.list": term}):
            if found == term:
                return doc_freq, total or 0
        return 0, 0

    def field_documents(self, field: str) -> int:
        spec = schema.FIELDS.get(field)
        return self.collection.count(nodes.presence(field, spec.kind if spec else "text"))

    def cost(self, query: Any, max_terms: int, sample: int) -> dict[str, Any]:
        found: dict[str, Any] = {"cost": self.count(query)}
        node = self._node(query)
        if node.get("t") not in ("prefix", "wildcard", "regexp", "fuzzy"):
            return found
        words = self.collection.pattern_terms({**node, "ranked": False}, max_terms)
        found["terms"] = len(words)
        found["complete"] = len(words) < max_terms
        found["sample"] = words[:sample]
        return found

    def explain(self, query: Any, path: str, text: str) -> DocumentExplanation:
        tree = self.collection.explanation(self.collection.ranked(self._node(query)), path)
        return explanation_of(tree, path, text)

    def facet_cost(self, query: Any) -> dict[str, Any] | None:
        """None: Solr answers a faceted search as one, without the parts' times."""
        return None
