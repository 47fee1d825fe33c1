"""A SolrCloud collection as a :class:`~pylucene_mcp.engine.backend.Backend`: the same tools, the
same answers, with the index sharded and replicated over a cluster (docs/scale-out.md).

What runs where:

- A query is parsed and analysed here, by the same parser and analyzers as the embedded index
  (:func:`~pylucene_mcp.engine.query.parse_query`), and sent as the JSON of the Lucene query it
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

import base64
import contextlib
import json
import math
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path, PurePath
from typing import Any, Literal

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, portable, schema
from pylucene_mcp.basics.shapes import Encoded, to_dict
from pylucene_mcp.engine import documents
from pylucene_mcp.engine.counts import RangeFacet, buckets, plan
from pylucene_mcp.engine.filters import Filter, facet_value, filter_query, parse_filters
from pylucene_mcp.engine.index import FileState
from pylucene_mcp.engine.query import context, limit_ms, parse_query, query_text
from pylucene_mcp.engine.results import RangeBucket, SearchResult
from pylucene_mcp.engine.search import (
    DEFAULT_TIMEOUT_S,
    _fingerprint,
    _python_names,
    check_request,
)
from pylucene_mcp.engine.solr import configset
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings

#: the Solr field that counts a facet dimension: the keyword field itself, or for the analysed
#: author its exact values' twin
FACET_FIELD = {"author": "author_facet"}
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
CURSOR_VERSION = "s1"
ALL: dict[str, Any] = {"t": "all"}


def portable_query(query: Any) -> dict[str, Any]:
    """A parsed Lucene query (a Java object) as the portable JSON the plugin takes."""
    with jvm.java_errors():
        text = str(jvm.jclass("io.github.pylucenemcp.portable.PortableQuery").toJson(query))
    found: dict[str, Any] = json.loads(text)
    return found


def local(node: Mapping[str, Any], tags: Sequence[str] = ()) -> str:
    """``node`` as a query string for Solr: the product's parser named, then the JSON (which a
    local-params parser takes literally, as the rest of the string)."""
    tag = f" tag={','.join(tags)}" if tags else ""
    return "{!pylucene" + tag + "}" + json.dumps(node, ensure_ascii=False)


def _term(field: str, value: str) -> dict[str, Any]:
    return {"t": "term", "f": field, "v": value}


def _any(nodes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if len(nodes) == 1:
        return nodes[0]
    return {"t": "bool", "msm": 0, "c": [{"o": "SHOULD", "q": n} for n in nodes]}


def _without(node: dict[str, Any]) -> dict[str, Any]:
    return {
        "t": "bool",
        "msm": 0,
        "c": [{"o": "MUST", "q": ALL}, {"o": "MUST_NOT", "q": node}],
    }


def filter_node(flt: Filter) -> dict[str, Any]:
    """The filter's query as portable JSON (for ``not``/``not_in``: all but what it names)."""
    negative = flt.operator in ("not", "not_in")
    if flt.field in schema.FACET_FIELDS and flt.operator != "range":
        chosen = (flt.value,) if flt.operator in ("eq", "not") else tuple(flt.values or ())
        field = FACET_FIELD.get(flt.field, flt.field)
        values = dict.fromkeys(facet_value(flt, v) for v in chosen)
        positive = _any([_term(field, v) for v in values])
    else:
        positive = portable_query(filter_query(flt))
    return _without(positive) if negative else positive


class SolrWriter:
    """The changes of one block, kept until it ends (see :meth:`SolrBackend.writer`)."""

    def __init__(self) -> None:
        self.commands: list[tuple[str, dict[str, Any]]] = []

    def add(self, doc: Mapping[str, Any]) -> None:
        self.commands.append(("add", {"doc": solr_document(doc)}))

    def delete(self, file_path: str | PurePath) -> None:
        self.commands.append(("delete", {"id": documents.normalize_path(file_path)}))

    def delete_under(self, folder: str) -> None:
        prefix = portable.folder_prefix(folder)
        node = {"t": "prefix", "f": schema.FILE_PATH, "v": prefix, "ranked": False}
        self.commands.append(("delete", {"query": local(node)}))

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
        elif name in (schema.CONTENT, schema.PAGE_OFFSETS):
            out[name] = value
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
    """A SolrCloud collection: everything a :class:`~pylucene_mcp.engine.backend.Backend` offers
    (what Solr cannot give is said where it is left out; docs/scale-out.md)."""

    def __init__(self, settings: SolrSettings, *, refresh_interval_s: float = 1.0) -> None:
        self.settings = settings
        self.client = SolrClient(settings)
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

    @property
    def path(self) -> Path:
        return Path("solr") / self.settings.collection

    @property
    def location(self) -> str:
        """The collection as a person names it: its first node's URL and its name."""
        return f"{self.client.urls[0]}/{self.settings.collection}"

    def _select(self, body: dict[str, Any]) -> dict[str, Any]:
        params = body.setdefault("params", {})
        params.setdefault("shards.tolerant", "true")
        return self.client.post(self.client.collection("select"), body)

    def _count(self, node: Mapping[str, Any], *filters: str) -> int:
        answer = self._select({"query": json.dumps(node), "filter": list(filters), "limit": 0})
        return int(answer["response"]["numFound"])

    def __len__(self) -> int:
        return self._count(ALL)

    @property
    def needs_reindex(self) -> bool:
        """Whether a document was written with another schema version (each records its own)."""
        version = {
            "t": "longRange",
            "f": SCHEMA_VERSION_FIELD,
            "lo": schema.SCHEMA_VERSION,
            "hi": schema.SCHEMA_VERSION,
        }
        return self._count(_without(version)) > 0

    def mark_schema_current(self) -> None:
        """Nothing to record: each document carries the schema version it was written with."""

    def close(self) -> None:
        self.client.close()

    # -- searching --------------------------------------------------------------------------

    def search(
        self,
        query: str,
        *,
        filters: Sequence[Filter | Mapping[str, Any]] = (),
        sort: str = "_score",
        sort_order: Literal["asc", "desc"] = "desc",
        page: int = 1,
        page_size: int = 10,
        default_operator: str = "AND",
        max_passages: int = 3,
        passage_length: int = 200,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        facet_limit: int = 10,
        cursor: str | None = None,
        word_forms: bool = True,
        facet_queries: Mapping[str, str] | None = None,
        range_facets: Sequence[RangeFacet | Mapping[str, Any]] = (),
        **tool_names: Any,
    ) -> SearchResult:
        """As the embedded index's :func:`~pylucene_mcp.engine.search.search`."""
        if tool_names:
            return self.search(query, **_python_names(locals(), {**tool_names}))
        started = time.perf_counter()
        check_request(
            page, page_size, cursor, sort, sort_order, max_passages, passage_length, facet_limit
        )
        named, ranges = plan(facet_queries, range_facets)
        parsed_filters = parse_filters(filters)
        text = query_text(query, default_operator)
        parsed = parse_query(text, default_operator, word_forms=word_forms)
        counted = {
            name: parse_query(q, default_operator, word_forms=word_forms)
            for name, q in named.items()
        }
        fingerprint = seen = mark = None
        if cursor is not None:
            operator = default_operator if word_forms else f"{default_operator}/exact"
            fingerprint = _fingerprint(text, operator, parsed_filters, sort, sort_order)
            mark, seen = _position(cursor, fingerprint)
        filter_strings, facets = self._facet_request(parsed_filters, facet_limit)
        for n, (_, parsed_count) in enumerate(counted.items()):
            facets[f"q{n}"] = {
                "type": "query",
                "q": local(portable_query(parsed_count.match_query)),
            }
        for f, (facet, edges) in enumerate(ranges):
            for b, (low, high) in enumerate(zip(edges, edges[1:], strict=False)):
                node = {"t": "longRange", "f": facet.field, "lo": low, "hi": high - 1}
                facets[f"r{f}_{b}"] = {"type": "query", "q": local(node)}
        fields = [*HIT_FIELDS, "score"]
        if max_passages and not parsed.match_all:
            fields.append(schema.CONTENT)
        body: dict[str, Any] = {
            "query": json.dumps(portable_query(parsed.match_query)),
            "filter": filter_strings,
            "limit": page_size,
            "fields": ",".join(fields),
            "sort": _sort(sort, sort_order),
            "facet": facets,
            "params": {},
        }
        limit = limit_ms(timeout_s)
        if limit:
            body["params"]["timeAllowed"] = limit
        if mark is not None:
            body["params"]["cursorMark"] = mark
        else:
            body["offset"] = (page - 1) * page_size
        answer = self._select(body)
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
        hits = self._page(found["docs"], parsed, max_passages, passage_length)
        total_pages = math.ceil(total / page_size) if total else 0
        data: dict[str, Any] = {
            "documents": Encoded(hits),
            "totalHits": total,
            "page": page,
            "pageSize": page_size,
            "totalPages": total_pages,
            "hasNextPage": page < total_pages,
            "facets": {
                dim: [
                    {"value": b["val"], "count": int(b["count"])}
                    for b in counts.get(dim, {}).get("buckets", [])
                ]
                for dim in schema.FACET_FIELDS
            },
            "activeFilters": [
                {**to_dict(flt), "matchCount": int(counts.get(f"filter{n}", {}).get("count", 0))}
                for n, flt in enumerate(parsed_filters)
            ],
            "searchTimeMs": round((time.perf_counter() - started) * 1000, 2),
        }
        if named:
            data["facetQueries"] = {
                name: int(counts.get(f"q{n}", {}).get("count", 0)) for n, name in enumerate(named)
            }
        if ranges:
            counted_ranges = [
                [int(counts.get(f"r{f}_{b}", {}).get("count", 0)) for b in range(len(edges) - 1)]
                for f, (_, edges) in enumerate(ranges)
            ]
            data["rangeFacets"] = to_dict(buckets(ranges, counted_ranges))
        if fingerprint is not None:
            walked = (seen or 0) + len(found["docs"])
            data["hasNextPage"] = walked < total and bool(found["docs"])
            next_mark = answer.get("nextCursorMark")
            if data["hasNextPage"] and next_mark:
                data["nextCursor"] = _cursor(fingerprint, str(next_mark), walked)
        if partial:
            data["partialResults"] = True
        return SearchResult(data)

    def _facet_request(
        self, filters: Sequence[Filter], facet_limit: int
    ) -> tuple[list[str], dict[str, Any]]:
        """The tagged filter strings, and the JSON facets: each dimension without its own
        filters (DrillSideways), and each filter's count over the query alone."""
        tags = [f"f{n}" for n in range(len(filters))]
        strings = []
        for n, flt in enumerate(filters):
            own = [tags[n]]
            if flt.field in schema.FACET_FIELDS and flt.operator in ("eq", "in"):
                own.append(f"dim_{flt.field}")
            strings.append(local(filter_node(flt), own))
        facets: dict[str, Any] = {}
        for dim in schema.FACET_FIELDS:
            facets[dim] = {
                "type": "terms",
                "field": FACET_FIELD.get(dim, dim),
                "limit": facet_limit,
                "sort": "count desc",
                "domain": {"excludeTags": f"dim_{dim}"},
            }
        for n, flt in enumerate(filters):
            facets[f"filter{n}"] = {
                "type": "query",
                "q": local(filter_node(flt)),
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

    def facet_counts(
        self,
        query: str,
        *,
        filters: Sequence[Filter | Mapping[str, Any]] = (),
        facet_queries: Mapping[str, str] | None = None,
        range_facets: Sequence[RangeFacet | Mapping[str, Any]] = (),
        default_operator: str = "AND",
        word_forms: bool = True,
        timeout_s: float = 0.0,
    ) -> tuple[dict[str, int], dict[str, list[RangeBucket]], bool]:
        result = self.search(
            query,
            filters=filters,
            page_size=1,
            max_passages=0,
            default_operator=default_operator,
            word_forms=word_forms,
            timeout_s=timeout_s,
            facet_queries=facet_queries,
            range_facets=range_facets,
        )
        ranges = {field: list(found) for field, found in (result.range_facets or {}).items()}
        return dict(result.facet_queries or {}), ranges, result.partial_results

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
        )

    def file_states(self, roots: Sequence[str]) -> dict[str, FileState]:
        prefixes = [
            {"t": "prefix", "f": schema.FILE_PATH, "v": portable.folder_prefix(r), "ranked": False}
            for r in roots
        ]
        if not prefixes:
            return {}
        return self._states(_any(prefixes))

    def file_states_of(self, paths: Iterable[str]) -> dict[str, FileState]:
        found: dict[str, FileState] = {}
        wanted = list(dict.fromkeys(paths))
        for start in range(0, len(wanted), 500):
            terms = [_term(schema.FILE_PATH, p) for p in wanted[start : start + 500]]
            found.update(self._states(_any(terms)))
        return found

    def _states(self, node: dict[str, Any]) -> dict[str, FileState]:
        states: dict[str, FileState] = {}
        mark = "*"
        while True:
            answer = self._select(
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

    def refresh(self) -> None:
        """Opens a new searcher on every replica (a soft commit)."""
        self.client.post(
            self.client.collection("update"), params={"softCommit": "true", "commit": "true"}
        )


def _sort(field_name: str, order: str) -> str:
    """Solr's sort: the field (or the score), then the score, then the file path, so that equal
    scores come in one order on every shard layout and a cursor never repeats a document."""
    if field_name == "_score":
        return "score desc,file_path asc"
    return f"{field_name} {order},score desc,file_path asc"


def _cursor(fingerprint: str, mark: str, seen: int) -> str:
    text = f"{CURSOR_VERSION}|{fingerprint}|{seen}|{mark}"
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode().rstrip("=")


def _position(cursor: str, fingerprint: str) -> tuple[str, int]:
    """Solr's cursor mark that ``cursor`` continues from, and how many hits came before.

    Raises:
        InvalidRequestError: for text that is not a cursor of this search.
    """
    if cursor == "*":
        return "*", 0
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        version, owner, seen, mark = base64.urlsafe_b64decode(padded).decode().split("|", 3)
        count = int(seen)
    except ValueError:
        version = owner = mark = ""
        count = 0
    if version == CURSOR_VERSION and owner != fingerprint:
        raise errors.InvalidRequestError(
            "this cursor belongs to another query, filters or sort; keep those as they were, "
            "or start again with cursor '*'"
        )
    if version != CURSOR_VERSION or not mark:
        raise errors.InvalidRequestError(
            "cursor is not one this server gave; start with cursor '*' and pass on each "
            "answer's nextCursor"
        )
    return mark, count
