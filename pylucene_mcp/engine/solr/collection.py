"""One SolrCloud collection as the backend and the diagnostics ask it: a search request, a
count, one document's stored fields, an explanation, the terms component, the shards' leaders.
Every request goes through :class:`~pylucene_mcp.engine.solr.client.SolrClient` (its node list,
auth and errors); queries are the portable JSON of :mod:`pylucene_mcp.engine.solr.nodes`."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pylucene_mcp.engine.solr.configset as configset
import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine.core import documents
from pylucene_mcp.engine.core.explain import Explanation
from pylucene_mcp.engine.solr.client import SolrClient

#: the fields a query scores on, as Solr's statistics parameters list them
SCORED_FIELDS = "!".join(
    name for name, spec in schema.FIELDS.items() if spec.kind in ("text", "shadow")
)
#: rows per request when walking many documents (file states, a vector search's paths)
WALK_ROWS = 5000
#: how long the shards' replicas are taken as known (a new leader is seen within it)
STATE_TTL_S = 5.0
#: the terms a ranked pattern scores by (the product parser's ``RankedPatterns.TERMS``)
RANKED_TERMS = 50


class SolrCollection:
    """The collection that ``client``'s settings name."""

    def __init__(self, client: SolrClient) -> None:
        self.client = client
        self.name = client.settings.collection
        self._replicas: tuple[float, list[list[dict[str, Any]]]] | None = None

    def select(self, body: dict[str, Any]) -> dict[str, Any]:
        """A search request (the JSON request API of ``/select``). Every shard reports the
        statistics of every analysed field (``solr.stats.fields``): Solr's exact distributed
        statistics otherwise sum a field's only over the shards that hold one of the query's
        terms in it, and a phrase whose words are all on one shard would score with that
        shard's document count."""
        params = body.setdefault("params", {})
        params.setdefault("shards.tolerant", "true")
        params.setdefault("solr.stats.fields", SCORED_FIELDS)
        return self.client.post(self.client.collection("select"), body)

    def walk(self, node: Mapping[str, Any], fields: str, *filters: str) -> Iterator[dict[str, Any]]:
        """Every document of ``node`` within ``filters``, with ``fields``, in the order of the
        unique key, :data:`WALK_ROWS` to a request (a cursor: writes meanwhile neither repeat
        nor skip a document that stays)."""
        mark = "*"
        while True:
            answer = self.select(
                {
                    "query": json.dumps(node),
                    "filter": list(filters),
                    "limit": WALK_ROWS,
                    "sort": f"{schema.FILE_PATH} asc",
                    "fields": fields,
                    "params": {"cursorMark": mark, "shards.tolerant": "false"},
                }
            )
            yield from answer["response"]["docs"]
            following = answer.get("nextCursorMark")
            if not following or following == mark:
                return
            mark = following

    def count(self, node: Mapping[str, Any], *filters: str) -> int:
        answer = self.select({"query": json.dumps(node), "filter": list(filters), "limit": 0})
        return int(answer["response"]["numFound"])

    def stored(self, file_path: str, fields: str = "*") -> dict[str, Any]:
        """The stored fields of the document of ``file_path``.

        Raises:
            DocumentNotFoundError: when the collection has no document with that path.
        """
        path = documents.normalize_path(file_path)
        answer = self.select(
            {
                "query": json.dumps(nodes.term(schema.FILE_PATH, path)),
                "limit": 1,
                "fields": fields,
                "params": {"shards.tolerant": "false"},
            }
        )
        docs = answer["response"]["docs"]
        if not docs:
            raise errors.DocumentNotFoundError.of(path)
        found: dict[str, Any] = docs[0]
        return found

    def explanation(self, node: Mapping[str, Any], path: str) -> Explanation:
        """The explanation of ``node`` for the document of ``path``: of the hit, with the
        collection's statistics, when it matches; else from the shard that holds it (Solr
        explains other documents only within one shard: a non-match scores nothing anyway)."""
        debug = {"debug": "results", "debug.explain.structured": "true"}
        answer = self.select(
            {
                "query": json.dumps(node),
                "filter": [nodes.local(nodes.term(schema.FILE_PATH, path))],
                "limit": 1,
                "fields": "file_path",
                "params": {**debug, "shards.tolerant": "false"},
            }
        )
        explained = answer.get("debug", {}).get("explain", {})
        if path in explained:
            return Explanation.of_json(explained[path])
        other = {
            **debug,
            "explainOther": nodes.local(nodes.term(schema.FILE_PATH, path)),
            "distrib": "false",
        }
        for replica in self.leaders():
            found = self.client.request(
                "POST",
                f"{replica['core']}/select",
                data=json.dumps({"query": json.dumps(node), "limit": 0, "params": other}).encode(),
                headers={"Content-Type": "application/json"},
                nodes=[replica["base_url"]],
            )
            tree = found.get("debug", {}).get("explainOther", {}).get(path)
            if tree is not None:
                return Explanation.of_json(tree)
        raise errors.DocumentNotFoundError(f"no shard of the collection holds {path!r} now")

    def terms(self, name: str, **params: Any) -> list[tuple[str, int, int | None]]:
        answer = self.client.get(
            self.client.collection("terms"),
            {"terms.fl": name, "terms.mincount": 1, "terms.ttf": "true", **params},
        )
        listed = answer.get("terms", {}).get(name, {})
        if isinstance(listed, list):  # the flat form: term, count, term, count …
            listed = dict(zip(listed[::2], listed[1::2], strict=True))
        out: list[tuple[str, int, int | None]] = []
        for term, counts in listed.items():
            if isinstance(counts, dict):
                out.append((term, int(counts.get("df", 0)), int(counts.get("ttf", 0))))
            else:
                out.append((term, int(counts), None))
        return out

    def leaders(self) -> list[dict[str, Any]]:
        """Each shard's active leader replica (``core``, ``base_url`` …)."""
        return [
            replicas[0]
            for replicas in self.shard_replicas()
            if replicas and replicas[0].get("leader") == "true"
        ]

    def leader_cores(self) -> list[dict[str, Any]]:
        """The index of each shard's leader: its documents, deleted documents and size."""
        out = []
        for replica in self.leaders():
            status = self.client.request(
                "GET",
                "admin/cores",
                params={"action": "STATUS", "core": replica["core"]},
                nodes=[replica["base_url"]],
            )
            out.append(status.get("status", {}).get(replica["core"], {}).get("index", {}))
        return out

    def lucene_version(self) -> str:
        info = self.client.get("admin/info/system")
        return str(info.get("lucene", {}).get("lucene-spec-version", "unknown"))

    def ranked(self, node: dict[str, Any]) -> dict[str, Any]:
        """``node`` with each ranked prefix or wildcard ranked over the whole collection: its
        first :data:`RANKED_TERMS` terms in index order (the terms Lucene's top-terms rewrite
        keeps) as a ``blend`` node, ORed, when the pattern reaches more, with the pattern itself
        weighted 0 (every document of every term matches); a fuzzy word's most similar terms,
        with their similarity. Each shard would otherwise keep the best terms of its own part
        and blend their statistics apart."""
        kind = node.get("t")
        if kind in ("prefix", "wildcard", "fuzzy") and node.get("ranked"):
            return self._ranked_pattern(node)
        if kind == "bool":
            return {**node, "c": [{**c, "q": self.ranked(c["q"])} for c in node["c"]]}
        if kind in ("boost", "const"):
            return {**node, "q": self.ranked(node["q"])}
        return node

    def _ranked_pattern(self, node: dict[str, Any]) -> dict[str, Any]:
        plain = {**node, "ranked": False}
        best: dict[str, Any] = {"t": "blend", "f": node["f"]}
        if node["t"] == "fuzzy":  # the most similar terms first, as Lucene keeps them
            similar = self.fuzzy_terms(plain, RANKED_TERMS + 1)
            found = [term for term, _ in similar]
            best["b"] = [boost for _, boost in similar[:RANKED_TERMS]]
        else:
            found = self.pattern_terms(plain, RANKED_TERMS + 1)
        if not found:
            return {"t": "none"}
        best["v"] = found[:RANKED_TERMS]
        if len(found) <= RANKED_TERMS:
            return best
        every = {"t": "boost", "b": 0.0, "q": {**node, "ranked": False}}
        return {
            "t": "bool",
            "msm": 0,
            "c": [{"o": "SHOULD", "q": best}, {"o": "SHOULD", "q": every}],
        }

    def pattern_terms(self, node: dict[str, Any], limit: int) -> list[str]:
        """The first ``limit`` terms, in index order, that the pattern ``node`` reaches in the
        collection: each shard's first ``limit`` (the plugin's ``/pylucene/terms``, through
        Lucene's automaton), merged. A shard without a live replica has no hits to rank."""
        merged = {str(t) for t in self._shard_terms(node, limit, {})}
        return sorted(merged, key=lambda t: t.encode("utf-8"))[:limit]

    def fuzzy_terms(self, node: dict[str, Any], limit: int) -> list[tuple[str, float]]:
        """The ``limit`` terms most similar to the fuzzy word ``node`` in the collection, each
        with its similarity (the boost Lucene gives it), best first, then in index order: each
        shard's best ``limit``, merged."""
        merged = {str(t): float(b) for t, b in self._shard_terms(node, limit, {"order": "boost"})}
        ranked = sorted(merged.items(), key=lambda tb: (-tb[1], tb[0].encode("utf-8")))
        return ranked[:limit]

    def _shard_terms(self, node: dict[str, Any], limit: int, extra: dict[str, str]) -> list[Any]:
        found: list[Any] = []
        params = {"q": json.dumps(node, ensure_ascii=False), "limit": limit, **extra}
        for replicas in self.shard_replicas():
            for replica in replicas:
                try:
                    answer = self.client.request(
                        "GET",
                        f"{replica['core']}/pylucene/terms",
                        params=params,
                        nodes=[replica["base_url"]],
                    )
                except errors.RemoteIndexError:
                    continue  # a replica on a node going down: the shard's next one
                found.extend(answer.get("terms", []))
                break
        return found

    def shard_replicas(self) -> list[list[dict[str, Any]]]:
        """Each shard's active replicas, its leader first (the cluster's state, kept for a few
        seconds)."""
        now = time.monotonic()
        if self._replicas is None or now - self._replicas[0] > STATE_TTL_S:
            state = configset.collections(self.client).get(self.name, {})
            shards = []
            for shard in state.get("shards", {}).values():
                active = [
                    r for r in shard.get("replicas", {}).values() if r.get("state") == "active"
                ]
                shards.append(sorted(active, key=lambda r: r.get("leader") != "true"))
            self._replicas = (now, shards)
        return self._replicas[1]
