"""A SolrCloud collection as a :class:`~pylucene_mcp.engine.core.backend.Backend`: the same
tools, the same answers, with the index sharded and replicated over a cluster (docs/scale-out.md).

What runs where:

- A query is parsed and analysed here, by the same parser and analyzers as the embedded index
  (:func:`~pylucene_mcp.engine.core.query.parse_query`), and sent as the JSON of the Lucene query it
  became (``PortableQuery``); the product's Solr plugin (``defType=pylucene``) builds that query
  again on every shard. User text never reaches a Solr query parser or local params: filters,
  facet queries and range buckets are such JSON too, and the only local params are the
  product's own (``{!pylucene tag=…}``).
- Facets with DrillSideways semantics are the JSON Facet API with tagged filters: a facet
  dimension's own filter is excluded from its counts (``excludeTags``), so it still shows its
  other values. Each filter's ``matchCount`` is a query facet over the query alone.
- Scores are Solr's BM25 with exact distributed statistics (``ExactStatsCache``), so a sharded
  collection ranks as one index does; ties go by the file path.
- Passages come from the hits' stored text, highlighted here by the embedded index's own
  highlighter over an index in memory of the page's documents
  (``SearchContext.storedPage``): the same passages, with the page's statistics instead of the
  collection's.
- Writes are buffered for a block and sent when it ends, then committed: a block that raises
  sends nothing (Solr's cloud mode has no rollback; a block cut short between two of its
  requests keeps the part that was sent).
"""

from __future__ import annotations

import contextlib
import json
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import pylucene_mcp.engine.solr.configset as configset
import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, portable, schema
from pylucene_mcp.basics.shapes import Encoded
from pylucene_mcp.engine.core import cursors, documents, info, miss, profile, request, vocabulary
from pylucene_mcp.engine.core.documents import FileState
from pylucene_mcp.engine.core.explain import DocumentExplanation, explanation_of
from pylucene_mcp.engine.core.filters import Filter, filter_query
from pylucene_mcp.engine.core.info import (
    ClusterInfo,
    DateRange,
    FieldInfo,
    IndexStats,
    StoredDocument,
    field_info,
)
from pylucene_mcp.engine.core.probe import Probe
from pylucene_mcp.engine.core.query import context, limit_ms, parse_query
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.core.results import SearchResult
from pylucene_mcp.engine.core.vocabulary import DuplicateGroup, TermCount
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from pylucene_mcp.engine.solr.collection import Collection
from pylucene_mcp.engine.solr.probe import SolrProbe

#: the stored fields a page reads (its hits' fields, their pages and hash)
HIT_FIELDS = (
    "file_path",
    "file_name",
    "title",
    "author",
    "language",
    "file_extension",
    "file_type",
    "file_size",
    *schema.DATE_FIELDS,
    "content_hash",
    schema.PAGE_OFFSETS,
)
SCHEMA_VERSION_FIELD = "schema_version"

#: documents per update request, and the characters of text at which a request is sent early
UPDATE_DOCS = 500
UPDATE_CHARS = 8_000_000
#: rows per request when walking many documents (file states)
WALK_ROWS = 5000


def filter_node(flt: Filter) -> dict[str, Any]:
    """The filter's query as portable JSON (for ``not``/``not_in``: all but what it names)."""
    positive = nodes.portable_query(filter_query(flt))
    return nodes.without(positive) if flt.operator in ("not", "not_in") else positive


def _below(folders: Sequence[str]) -> dict[str, Any]:
    """The node of the documents whose file_path lies below one of ``folders``."""
    return nodes.any_of(
        [nodes.prefix(schema.FILE_PATH, portable.folder_prefix(f)) for f in folders]
    )


class SolrWriter:
    """The changes of one block, kept until it ends (see :meth:`SolrBackend.writer`)."""

    def __init__(self) -> None:
        self.commands: list[tuple[str, dict[str, Any]]] = []

    def add(self, doc: Mapping[str, Any]) -> None:
        self.commands.append(("add", {"doc": solr_document(doc)}))

    def delete(self, file_path: str | PurePath) -> None:
        self.commands.append(("delete", {"id": documents.normalize_path(file_path)}))

    def delete_under(self, folder: str, keep: Sequence[str] = ()) -> None:
        node = nodes.minus(_below([folder]), _below(keep)) if keep else _below([folder])
        self.commands.append(("delete", {"query": nodes.local(node)}))

    def delete_outside(self, folders: Sequence[str]) -> None:
        self.commands.append(("delete", {"query": nodes.local(nodes.without(_below(folders)))}))

    def delete_all(self) -> None:
        self.commands.append(("delete", {"query": nodes.local(nodes.ALL)}))

    def touch(self, file_path: str | PurePath, mtime_ms: int) -> None:
        # an in-place update of the doc-values-only field; _version_ 1: only if the document
        # exists (the conflict of a missing one is ignored, as Lucene ignores its update)
        self.commands.append(
            (
                "add",
                {
                    "doc": {
                        schema.FILE_PATH: documents.normalize_path(file_path),
                        schema.SEEN_MTIME: {"set": int(mtime_ms)},
                        "_version_": 1,
                    }
                },
            )
        )


def solr_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` (a mapping of schema fields) as the Solr document the configset takes: derived
    fields filled in as the embedded index fills them (:func:`documents.to_row`), keyword values
    as the index holds them, dates as epoch milliseconds, and the content copied to the lemma
    fields of its language.

    Raises:
        UnknownFieldError, InvalidRequestError: for a field or value the schema refuses.
    """
    strings, numbers, path = documents.to_row(doc)
    out: dict[str, Any] = {SCHEMA_VERSION_FIELD: schema.SCHEMA_VERSION}
    for name, value in zip(documents.STRING_SLOTS, strings, strict=True):
        if value is None:
            continue
        if name == documents.LEMMA_SLOT:
            for lemma_field in filter(None, value.split(",")):
                out[lemma_field] = strings[documents.STRING_SLOTS.index(schema.CONTENT)]
        elif name == schema.CONTENT:
            out[name] = value
        elif name == schema.PAGE_OFFSETS:
            out[name] = value
            out[nodes.PAGE_COUNT] = len(value.split(",")) if value else 0
        else:
            parts = [v for v in value.split(documents.SEPARATOR) if v]
            if parts:
                out[name] = parts if len(parts) > 1 else parts[0]
    for name, number in zip(documents.LONG_SLOTS, numbers, strict=True):
        if number != documents.NONE:
            out[name] = number
    if "file_mtime" in out:
        out[schema.SEEN_MTIME] = out["file_mtime"]
    out[schema.FILE_PATH] = path
    return out


def _stored_row(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A hit's stored fields from Solr as a mapping of schema fields (what ``to_row`` takes)."""
    row: dict[str, Any] = {}
    for name, value in doc.items():
        if name == schema.PAGE_OFFSETS:
            row[name] = [int(p) for p in str(value).split(",") if p]
        elif name in schema.FIELDS and schema.FIELDS[name].kind != "shadow":
            row[name] = value
    row.setdefault(schema.CONTENT, "")
    return row


class SolrBackend:
    """A SolrCloud collection: everything a
    :class:`~pylucene_mcp.engine.core.backend.Backend` offers (what Solr cannot give is said
    where it is left out; docs/scale-out.md)."""

    def __init__(self, settings: SolrSettings, *, refresh_interval_s: float = 1.0) -> None:
        self.settings = settings
        self.client = SolrClient(settings)
        self.collection = Collection(self.client)
        self._refresh_interval_s = refresh_interval_s

    @classmethod
    def open(cls, settings: SolrSettings, *, refresh_interval_s: float = 1.0) -> SolrBackend:
        """The backend of ``settings``' collection, once the cluster says it exists.

        Raises:
            RemoteIndexError: when no node answers or the collection does not exist.
        """
        backend = cls(settings, refresh_interval_s=refresh_interval_s)
        try:
            if settings.collection not in configset.collections(backend.client):
                raise errors.RemoteIndexError(
                    f"the collection '{settings.collection}' does not exist in the cluster at "
                    f"{', '.join(settings.urls)}: run `pylucene-mcp solr init`, or set "
                    "solr_collection (PYLUCENE_MCP_SOLR_COLLECTION) to an existing one"
                )
        except BaseException:
            backend.client.close()
            raise
        return backend

    # -- identity and lifetime --------------------------------------------------------------

    #: a collection that several people's servers may crawl into (docs/scale-out.md): a crawl
    #: leaves alone what its folders do not cover
    shared = True

    @property
    def identity(self) -> str:
        return f"solr:{self.settings.collection}@{','.join(sorted(self.settings.urls))}"

    @property
    def location(self) -> str:
        """The collection as a person names it: its first node's URL and its name."""
        return f"{self.client.urls[0]}/{self.settings.collection}"

    def __len__(self) -> int:
        return self.collection.count(nodes.ALL)

    @property
    def needs_reindex(self) -> bool:
        """Whether a document was written with another schema version (each records its own)."""
        version = nodes.longs(SCHEMA_VERSION_FIELD, schema.SCHEMA_VERSION, schema.SCHEMA_VERSION)
        return self.collection.count(nodes.without(version)) > 0

    def mark_schema_current(self) -> None:
        """Nothing to record: each document carries the schema version it was written with."""

    def close(self) -> None:
        self.client.close()

    # -- searching --------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResult:
        """As the embedded index's :func:`~pylucene_mcp.engine.lucene.search.search`."""
        started = time.perf_counter()
        r = request
        parsed = parse_query(r.text, r.default_operator, word_forms=r.word_forms)
        counted = [
            parse_query(q, r.default_operator, word_forms=r.word_forms) for q in r.named.values()
        ]
        fingerprint = seen = mark = None
        if r.cursor is not None:
            fingerprint = r.owner(self.identity)
            mark, seen = _position(r.cursor, fingerprint)
        filter_strings, facets = self._facet_request(r.parsed_filters, r.facet_limit)
        for n, parsed_count in enumerate(counted):
            facets[f"q{n}"] = {
                "type": "query",
                "q": nodes.local(nodes.portable_query(parsed_count.match_query)),
            }
        for f, (facet, edges) in enumerate(r.ranges):
            for b, (low, high) in enumerate(zip(edges, edges[1:], strict=False)):
                node = nodes.longs(facet.field, low, high - 1)
                facets[f"r{f}_{b}"] = {"type": "query", "q": nodes.local(node)}
        fields = [*HIT_FIELDS, "score"]
        if r.max_passages and not parsed.match_all:
            fields.append(schema.CONTENT)
        body: dict[str, Any] = {
            "query": json.dumps(self.collection.ranked(nodes.portable_query(parsed.match_query))),
            "filter": filter_strings,
            "limit": r.page_size,
            "fields": ",".join(fields),
            "sort": _sort(r.sort, r.sort_order),
            "facet": facets,
            "params": {},
        }
        limit = limit_ms(r.timeout_s)
        body["params"]["shards.info"] = "true"  # which shard failed, when one does
        if limit:
            body["params"]["timeAllowed"] = limit
        if mark is not None:
            body["params"]["cursorMark"] = mark
        else:
            body["offset"] = (r.page - 1) * r.page_size
        answer = self.collection.select(body)
        header = answer.get("responseHeader", {})
        found = answer["response"]
        total = int(found["numFound"])
        partial = bool(header.get("partialResults"))
        if partial and total == 0 and limit:
            raise errors.SearchTimeoutError(
                f"the search found nothing within its time limit ({limit} ms); make the query "
                "cheaper (fewer wildcard or fuzzy terms, a filter) or allow more time "
                "(timeAllowedMs)"
            )
        counts = answer.get("facets", {})
        hits = self._page(found["docs"], parsed, r.max_passages, r.passage_length)
        walk = None
        if fingerprint is not None:
            walked = (seen or 0) + len(found["docs"])
            more = walked < total and bool(found["docs"])
            next_mark = answer.get("nextCursorMark")
            walk = (
                more,
                cursors.encode(fingerprint, f"{walked}|{next_mark}") if next_mark else None,
            )
        data = r.answer(
            documents=Encoded(hits),
            total=total,
            facets={
                dim: [
                    {"value": b["val"], "count": int(b["count"])}
                    for b in counts.get(dim, {}).get("buckets", [])
                ]
                for dim in schema.FACET_FIELDS
            },
            filter_counts=[
                int(counts.get(f"filter{n}", {}).get("count", 0))
                for n in range(len(r.parsed_filters))
            ],
            started=started,
            counted=[int(counts.get(f"q{n}", {}).get("count", 0)) for n in range(len(r.named))],
            ranges_counted=[
                [int(counts.get(f"r{f}_{b}", {}).get("count", 0)) for b in range(len(edges) - 1)]
                for f, (_, edges) in enumerate(r.ranges)
            ],
            walk=walk,
            partial=partial,
        )
        if partial:
            data["partialDetails"] = _partial_details(answer, limit)
        return SearchResult(data)

    def _facet_request(
        self, filters: Sequence[Filter], facet_limit: int
    ) -> tuple[list[str], dict[str, Any]]:
        """The tagged filter strings, and the JSON facets: each dimension without its own
        filters (DrillSideways), and each filter's count over the query alone."""
        tags = [f"f{n}" for n in range(len(filters))]
        queries = [filter_node(flt) for flt in filters]
        strings = []
        for n, flt in enumerate(filters):
            own = [tags[n]]
            if flt.field in schema.FACET_FIELDS and flt.operator in ("eq", "in"):
                own.append(f"dim_{flt.field}")
            strings.append(nodes.local(queries[n], own))
        facets: dict[str, Any] = {}
        for dim in schema.FACET_FIELDS:
            facets[dim] = {
                "type": "terms",
                "field": nodes.FACET_FIELD.get(dim, dim),
                "limit": facet_limit,
                "sort": "count desc",
                "domain": {"excludeTags": f"dim_{dim}"},
            }
        for n, query in enumerate(queries):
            facets[f"filter{n}"] = {
                "type": "query",
                "q": nodes.local(query),
                "domain": {"excludeTags": ",".join(tags)},
            }
        return strings, facets

    def _page(
        self,
        docs: Sequence[Mapping[str, Any]],
        parsed: Any,
        max_passages: int,
        passage_length: int,
    ) -> str:
        """The hits' JSON as the embedded index writes it, with passages of the stored text."""
        if not docs:
            return "[]"
        strings: list[str | None] = []
        numbers: list[int] = []
        for doc in docs:
            row_strings, row_numbers, _ = documents.to_row(_stored_row(doc))
            strings.extend(row_strings)
            numbers.extend(row_numbers)
        scores = [float(doc.get("score", 0.0)) for doc in docs]
        with jvm.java_errors():
            return str(
                context().storedPage(
                    parsed.java if max_passages else None,
                    schema.FILE_PATH,
                    jvm.jarray("String", documents.STRING_SLOTS),
                    jvm.jarray("String", documents.LONG_SLOTS),
                    jvm.jarray("String", strings),
                    jvm.jarray("long", numbers),
                    jvm.jarray("float", scores),
                    max_passages,
                    passage_length,
                )
            )

    facet_counts = request.facet_counts

    # -- one document -----------------------------------------------------------------------

    document_details = info.document_details

    def stored_document(self, file_path: str) -> StoredDocument:
        stored = self.collection.stored(file_path)
        fields: dict[str, Any] = {}
        for name, value in stored.items():
            if name in (schema.CONTENT, schema.PAGE_OFFSETS) or name not in schema.FIELDS:
                continue
            values = value if isinstance(value, list) else [value]
            if name in schema.DATE_FIELDS:
                values = [schema.iso(int(v)) for v in values]
            fields[name] = values[0] if len(values) == 1 else values
        pages = stored.get(schema.PAGE_OFFSETS)
        content = str(stored.get(schema.CONTENT) or "")
        return StoredDocument(
            str(stored[schema.FILE_PATH]), fields, content, str(pages) if pages else None
        )

    def explain(
        self, query: str, file_path: str, *, default_operator: str = "AND"
    ) -> DocumentExplanation:
        """How ``query`` scores the document, from Solr's structured explanation (the same
        tree as Lucene's, with the collection's statistics)."""
        parsed = parse_query(query, default_operator)
        path = str(self.collection.stored(file_path, "file_path")[schema.FILE_PATH])
        node = self.collection.ranked(nodes.portable_query(parsed.match_query))
        tree = self.collection.explanation(node, path)
        return explanation_of(tree, path, query)

    profile_query = profile.profile_query
    explain_miss = miss.explain_miss

    @contextlib.contextmanager
    def probe(self) -> Iterator[Probe]:
        """The collection as the diagnostics ask it; the facet cost, which Solr does not break
        down, is left out of a profile."""
        yield SolrProbe(self.collection)

    # -- vocabulary and statistics ----------------------------------------------------------

    suggest_terms = vocabulary.suggest_terms
    top_terms = vocabulary.top_terms

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

    find_duplicates = vocabulary.find_duplicates

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
                    {
                        "contentHash": bucket["val"],
                        "size": int(bucket["count"]),
                        "documents": [_duplicate(d) for d in listed],
                    }
                )
            )
        return total, groups, int(facets.get("apart", {}).get("count", 0))

    def index_stats(self) -> IndexStats:
        """Counts, size and date ranges of the collection (its size: the leaders' indexes)."""
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
            index_path=self.location,
            schema_version=schema.SCHEMA_VERSION,
            needs_reindex=self.needs_reindex,
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

    # -- writing (the crawler) --------------------------------------------------------------

    @contextlib.contextmanager
    def writer(self) -> Iterator[SolrWriter]:
        """A block of writes, sent when it ends and committed; nothing is sent when it raises.

        Raises:
            RemoteIndexError: when the cluster refuses or no node answers (what the block sent
                before stays; the crawler writes it again on its next pass).
        """
        block = SolrWriter()
        yield block
        self._send(block.commands)
        self.client.post(
            self.client.collection("update"),
            {"commit": {"waitSearcher": True}},
            retry_s=self.settings.write_retry_s,
        )

    def _send(self, commands: Sequence[tuple[str, dict[str, Any]]]) -> None:
        chunk: list[str] = []
        chars = 0
        for verb, body in commands:
            text = json.dumps(body, ensure_ascii=False)
            chunk.append(f'"{verb}":{text}')
            chars += len(text)
            if len(chunk) >= UPDATE_DOCS or chars >= UPDATE_CHARS:
                self._update(chunk)
                chunk, chars = [], 0
        if chunk:
            self._update(chunk)

    def _update(self, chunk: Sequence[str]) -> None:
        # one JSON object whose keys repeat ("add", "delete" …): Solr applies them in order
        payload = ("{" + ",".join(chunk) + "}").encode("utf-8")
        self.client.post(
            self.client.collection("update"),
            params={"failOnVersionConflicts": "false"},
            data=payload,
            retry_s=self.settings.write_retry_s,
        )

    def file_states(self, roots: Sequence[str]) -> dict[str, FileState]:
        prefixes = [nodes.prefix(schema.FILE_PATH, portable.folder_prefix(r)) for r in roots]
        if not prefixes:
            return {}
        return self._states(nodes.any_of(prefixes))

    def file_states_of(self, paths: Iterable[str]) -> dict[str, FileState]:
        found: dict[str, FileState] = {}
        wanted = list(dict.fromkeys(paths))
        for start in range(0, len(wanted), 500):
            terms = [nodes.term(schema.FILE_PATH, p) for p in wanted[start : start + 500]]
            found.update(self._states(nodes.any_of(terms)))
        return found

    def _states(self, node: dict[str, Any]) -> dict[str, FileState]:
        states: dict[str, FileState] = {}
        mark = "*"
        while True:
            answer = self.collection.select(
                {
                    "query": json.dumps(node),
                    "limit": WALK_ROWS,
                    "sort": "file_path asc",
                    "fields": f"file_path,file_size,content_hash,{schema.SEEN_MTIME}",
                    "params": {"cursorMark": mark, "shards.tolerant": "false"},
                }
            )
            for doc in answer["response"]["docs"]:
                states[doc["file_path"]] = FileState(
                    doc.get("file_size"), doc.get(schema.SEEN_MTIME), doc.get("content_hash")
                )
            following = answer.get("nextCursorMark")
            if not following or following == mark:
                return states
            mark = following

    @property
    def refresh_interval_s(self) -> float:
        return self._refresh_interval_s

    def set_refresh_interval(self, seconds: float) -> None:
        self._refresh_interval_s = seconds

    # -- administration ---------------------------------------------------------------------

    def optimize(self, max_segments: int = 1) -> int:
        """Merges each shard's index down to at most ``max_segments``; returns the most segments
        a shard's leader has after.

        Raises:
            InvalidRequestError: for fewer than one segment.
        """
        if max_segments < 1:
            raise errors.InvalidRequestError(f"maxSegments must be 1 or more, got {max_segments}")
        self.client.post(
            self.client.collection("update"),
            params={"optimize": "true", "maxSegments": max_segments, "waitSearcher": "true"},
        )
        return max(
            (int(c.get("segmentCount", 0)) for c in self.collection.leader_cores()), default=0
        )

    def purge(self) -> int:
        """Removes the deleted documents of every shard for good; returns how many there were
        (on the shards' leaders)."""
        deleted = sum(int(c.get("deletedDocs", 0)) for c in self.collection.leader_cores())
        self.client.post(
            self.client.collection("update"),
            params={"commit": "true", "expungeDeletes": "true", "waitSearcher": "true"},
        )
        return deleted

    def refresh(self) -> None:
        """Opens a new searcher on every replica (a soft commit)."""
        self.client.post(
            self.client.collection("update"), params={"softCommit": "true", "commit": "true"}
        )


def _partial_details(answer: Mapping[str, Any], limit_ms: int) -> str:
    """Why an answer is partial: the shards that failed (from ``shards.info``), or the time
    limit."""
    failed = [
        f"{name}: {str(info['error']).splitlines()[0][:200]}"
        for name, info in (answer.get("shards.info") or {}).items()
        if isinstance(info, dict) and info.get("error")
    ]
    if failed:
        return (
            "shards did not answer, their documents are missing ("
            + "; ".join(failed)
            + "); start their nodes, or wait for their replicas to recover"
        )
    return f"the time limit ({limit_ms} ms) ran out: the counts and hits are those found by then"


def _by_count(
    found: list[tuple[str, int, int | None]],
) -> list[tuple[str, int, int | None]]:
    """Most documents first, then in term order (as the embedded index lists them)."""
    return sorted(found, key=lambda t: (-t[1], t[0].encode("utf-8")))


def _duplicate(doc: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {"filePath": doc["file_path"]}
    if "file_size" in doc:
        out["fileSize"] = int(doc["file_size"])
    if "modified_date" in doc:
        out["modifiedDate"] = schema.iso(int(doc["modified_date"]))
    return out


def _iso_or_none(value: Any) -> str | None:
    return schema.iso(int(value)) if isinstance(value, int | float) else None


def _sort(field_name: str, order: str) -> str:
    """Solr's sort: the score or the field, then the file path, so that ties come in one order
    on every shard layout and a cursor never repeats a document. A field's ties are not ordered
    by score: writes move scores, and a cursor mark that held one would repeat or skip
    documents (the embedded index sorts the same way)."""
    if field_name == "_score":
        return "score desc,file_path asc"
    return f"{field_name} {order},file_path asc"


def _position(cursor: str, fingerprint: str) -> tuple[str, int]:
    """Solr's cursor mark that ``cursor`` continues from, and how many hits came before.

    Raises:
        InvalidRequestError: for text that is not a cursor of this search.
    """
    position = cursors.decode(cursor, fingerprint)
    if position is None:
        return "*", 0
    seen, _, mark = position.partition("|")
    if not seen.isdigit() or not mark:
        raise errors.InvalidRequestError(cursors.NOT_OURS)
    return mark, int(seen)


if TYPE_CHECKING:  # mypy checks here that the collection is a whole Backend
    from pylucene_mcp.engine.core.backend import Backend

    def _is_a_backend(solr: SolrBackend) -> Backend:
        return solr
