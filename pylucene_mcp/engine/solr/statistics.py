"""A SolrCloud collection's vocabulary and statistics: term counts from the terms component,
duplicate groups from a terms facet on the content hash, index statistics and field infos from
the collection's counts and the cluster's state."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pylucene_mcp.engine.solr.configset as configset
import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core import vocabulary
from pylucene_mcp.engine.core.info import (
    ClusterInfo,
    DateRange,
    FieldInfo,
    IndexStats,
    field_info,
)
from pylucene_mcp.engine.core.vocabulary import DuplicateFile, DuplicateGroup, TermCount
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from pylucene_mcp.engine.solr.collection import SolrCollection


def _by_count(
    found: list[tuple[str, int, int | None]],
) -> list[tuple[str, int, int | None]]:
    """Most documents first, then in term order (as the embedded index lists them)."""
    return sorted(found, key=lambda t: (-t[1], t[0].encode("utf-8")))


def _duplicate(doc: Mapping[str, Any]) -> dict[str, Any]:
    size, modified = doc.get("file_size"), doc.get("modified_date")
    return DuplicateFile.wire(
        file_path=doc["file_path"],
        file_size=None if size is None else int(size),
        modified_date=None if modified is None else schema.iso(int(modified)),
    )


def _iso_or_none(value: Any) -> str | None:
    return schema.iso(int(value)) if isinstance(value, int | float) else None


class SolrStatistics:
    """The vocabulary and statistics of a
    :class:`~pylucene_mcp.engine.solr.backend.SolrBackend`'s ``collection``."""

    def __init__(
        self, settings: SolrSettings, client: SolrClient, collection: SolrCollection
    ) -> None:
        self.settings = settings
        self.client = client
        self.collection = collection

    def term_counts(
        self, name: str, prefix: str | None, limit: int
    ) -> tuple[list[TermCount], int, bool]:
        """Solr's terms component, sorted by documents; it reads every term it needs."""
        asked = {"terms.limit": limit, "terms.sort": "count"}
        if prefix is not None:
            asked["terms.prefix"] = prefix
        found = self.collection.terms(name, **asked)
        counted = [TermCount(t, n, total) for t, n, total in _by_count(found)]
        return counted, len(found), True

    def duplicate_groups(
        self, min_group_size: int, under: str, offset: int, size: int
    ) -> tuple[int, list[DuplicateGroup], int]:
        """A terms facet on the content hash, then each group's first documents by path."""
        empty = nodes.term("content_hash", vocabulary.EMPTY_TEXT_HASH)
        node: dict[str, Any] = nodes.prefix(schema.FILE_PATH, under) if under else nodes.ALL
        answer = self.collection.select(
            {
                "query": json.dumps(node),
                "limit": 0,
                "facet": {
                    "hashes": {
                        "type": "terms",
                        "field": "content_hash",
                        "mincount": min_group_size,
                        "limit": size,
                        "offset": offset,
                        "sort": "count desc",
                        "numBuckets": True,
                        "domain": {"filter": nodes.local(nodes.without(empty))},
                    },
                    "apart": {"type": "query", "q": nodes.local(empty)},
                },
                "params": {"shards.tolerant": "false"},
            }
        )
        facets = answer.get("facets", {})
        buckets_found = facets.get("hashes", {}).get("buckets", [])
        total = int(facets.get("hashes", {}).get("numBuckets", 0))
        groups = []
        for bucket in buckets_found:
            listed = self.collection.select(
                {
                    "query": json.dumps(node),
                    "filter": [nodes.local(nodes.term("content_hash", bucket["val"]))],
                    "limit": vocabulary.MAX_LISTED,
                    "sort": "file_path asc",
                    "fields": "file_path,file_size,modified_date",
                    "params": {"shards.tolerant": "false"},
                }
            )["response"]["docs"]
            groups.append(
                DuplicateGroup(
                    DuplicateGroup.wire(
                        content_hash=bucket["val"],
                        size=int(bucket["count"]),
                        documents=[_duplicate(d) for d in listed],
                    )
                )
            )
        return total, groups, int(facets.get("apart", {}).get("count", 0))

    def index_stats(self, location: str, needs_reindex: bool) -> IndexStats:
        """Counts, size and date ranges of the collection (its size: the leaders' indexes), at
        ``location``."""
        facet = {
            f"{edge}_{name}": f"{edge}({name})"
            for name in schema.DATE_FIELDS
            for edge in ("min", "max")
        }
        answer = self.collection.select(
            {"query": json.dumps(nodes.ALL), "limit": 0, "facet": facet}
        )
        counted = answer.get("facets", {})
        ranges = {
            name: DateRange(
                _iso_or_none(counted.get(f"min_{name}")), _iso_or_none(counted.get(f"max_{name}"))
            )
            for name in schema.DATE_FIELDS
        }
        cores = self.collection.leader_cores()
        health = configset.health(self.client)
        return IndexStats(
            document_count=int(answer["response"]["numFound"]),
            deleted_documents=sum(c.get("deletedDocs", 0) for c in cores),
            index_path=location,
            schema_version=schema.SCHEMA_VERSION,
            needs_reindex=needs_reindex,
            lucene_version=self.collection.lucene_version(),
            size_bytes=sum(c.get("sizeInBytes", 0) for c in cores),
            fields=tuple(schema.FIELDS),
            date_ranges=ranges,
            cluster=ClusterInfo(
                collection=self.settings.collection,
                configset=health.configset,
                live_nodes=health.live_nodes,
                shards=health.shards,
                replicas=health.replicas,
                active_replicas=health.active_replicas,
            ),
        )

    def field_infos(self) -> tuple[FieldInfo, ...]:
        """Every schema field with the documents that have it (a count of its terms' or
        points' documents)."""
        facet: dict[str, Any] = {}
        for n, spec in enumerate(schema.FIELDS.values()):
            facet[f"f{n}"] = {
                "type": "query",
                "q": nodes.local(nodes.presence(spec.name, spec.kind)),
            }
        answer = self.collection.select(
            {"query": json.dumps(nodes.ALL), "limit": 0, "facet": facet}
        )
        counted = answer.get("facets", {})
        return tuple(
            field_info(spec, int(counted.get(f"f{n}", {}).get("count", 0)))
            for n, spec in enumerate(schema.FIELDS.values())
        )
