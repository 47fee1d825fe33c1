"""One search of a SolrCloud collection: the request as one JSON request (the portable query, tagged
filters, JSON facets for the DrillSideways counts, the facet queries and range buckets), the
hits' passages found here by the shim's highlighter, the answer built by the core."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, portable, schema
from pylucene_mcp.basics.shapes import Encoded
from pylucene_mcp.engine.core import cursors, documents, semantic
from pylucene_mcp.engine.core.filters import Filter, filter_query
from pylucene_mcp.engine.core.miss import SemanticMiss
from pylucene_mcp.engine.core.query import context, limit_ms, parse_query
from pylucene_mcp.engine.core.readable import Readable
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.core.results import SearchResult
from pylucene_mcp.engine.core.semantic import ChunkHit, Nearest, Ranks
from pylucene_mcp.engine.solr.collection import SolrCollection
from pylucene_mcp.engine.solr.writing import stored_row

if TYPE_CHECKING:
    from pylucene_mcp.engine.core.info import StoredDocument
    from pylucene_mcp.engine.solr.vectors import SolrVectorStore

#: the stored fields a page reads (its hits' fields, their pages and hash)
HIT_FIELDS = (
    "file_path",
    "file_name",
    "title",
    "author",
    "language",
    "file_extension",
    "file_type",
    schema.OCR,
    "file_size",
    *schema.DATE_FIELDS,
    "content_hash",
    schema.PAGE_OFFSETS,
)


def filter_node(flt: Filter) -> dict[str, Any]:
    """The filter's query as portable JSON (for ``not``/``not_in``: all but what it names)."""
    positive = nodes.portable_query(filter_query(flt))
    return nodes.without(positive) if flt.operator in ("not", "not_in") else positive


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


def _readable(within: Readable | Sequence[str]) -> dict[str, Any]:
    """The documents a reader may read: by folders alone, for the collection does not record
    a file's readers (docs/team.md)."""
    folders = Readable.of(within).folders
    readable = [nodes.prefix(schema.FILE_PATH, portable.folder_prefix(f)) for f in folders]
    return nodes.any_of(readable) if readable else nodes.NOTHING


def _similarities(hits: Sequence[ChunkHit]) -> dict[str, float]:
    """Each document's similarity as its score (Lucene's scores are not negative: 0)."""
    return {hit.path: max(0.0, hit.similarity) for hit in hits}


def _zero(node: dict[str, Any]) -> dict[str, Any]:
    """The documents of ``node``, each scored 0."""
    return {"t": "boost", "b": 0.0, "q": {"t": "const", "q": node}}


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


class SolrSearch:
    """The searches of a :class:`~pylucene_mcp.engine.solr.backend.SolrBackend`: over its
    ``collection``, with cursors that belong to its ``identity``; a semantic search asks
    ``vectors`` for the chunks' store (None: vectors off) and ``stored_document`` for the text
    of a hit's chunk."""

    def __init__(
        self,
        collection: SolrCollection,
        identity: str,
        vectors: Callable[[], SolrVectorStore | None],
        stored_document: Callable[[str], StoredDocument],
    ) -> None:
        self.collection = collection
        self._identity = identity
        self._vectors = vectors
        self._stored_document = stored_document

    def search(self, request: SearchRequest) -> SearchResult:
        """As the embedded index's :func:`~pylucene_mcp.engine.lucene.search.search`."""
        started = time.perf_counter()
        r = request
        # a semantic search has its vector: its text is not parsed (it may not be a query)
        parsed = None
        words: dict[str, Any] | None = None
        if r.mode != "semantic":
            parsed = parse_query(r.text, r.default_operator, word_forms=r.word_forms)
            words = self.collection.ranked(nodes.portable_query(parsed.match_query))
        counted = [
            parse_query(q, r.default_operator, word_forms=r.word_forms) for q in r.named.values()
        ]
        fingerprint = seen = mark = None
        if r.cursor is not None:
            fingerprint = r.owner(self._identity)
            mark, seen = _position(r.cursor, fingerprint)
        filter_strings, facets = self._facet_request(r.parsed_filters, r.facet_limit)
        if r.within is not None:  # untagged: no facet's or filter count's domain drops it
            filter_strings.append(nodes.local(_readable(r.within)))
        for n, parsed_count in enumerate(counted):
            facets[f"q{n}"] = {
                "type": "query",
                "q": nodes.local(nodes.portable_query(parsed_count.match_query)),
            }
        for f, (facet, edges) in enumerate(r.ranges):
            for b, (low, high) in enumerate(zip(edges, edges[1:], strict=False)):
                node = nodes.longs(facet.field, low, high - 1)
                facets[f"r{f}_{b}"] = {"type": "query", "q": nodes.local(node)}
        chunks: Nearest | None = None
        ranks: Ranks | None = None
        if words is None:
            chunks = self._nearest(r)
            query = nodes.paths(schema.FILE_PATH, _similarities(chunks))
        elif r.mode == "hybrid":
            query, chunks, ranks = self._hybrid(r, words)
        else:
            query = words
        highlighted = parsed if r.max_passages and parsed and not parsed.match_all else None
        fields = [*HIT_FIELDS, "score"]
        if highlighted is not None:
            fields.append(schema.CONTENT)
        body: dict[str, Any] = {
            "query": json.dumps(query),
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
        passages = r.max_passages if highlighted is not None else 0
        hits = self._page(found["docs"], highlighted, passages, r.passage_length)
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
            data.update(SearchResult.wire(partial_details=_partial_details(answer, limit)))
        if chunks is not None:
            semantic.with_chunks(self._stored_document, data, chunks, r, ranks)
        return SearchResult(data)

    def _hybrid(
        self, r: SearchRequest, words: dict[str, Any]
    ) -> tuple[dict[str, Any], Nearest, Ranks]:
        """The query of a hybrid search whose words are ``words``: the documents of the words
        or of the request's vector, the first hundred of each list fused by reciprocal rank
        first, in that order (their fused score plus one), the others after them (0). Returns
        it, the semantic documents' best chunks and the lists' ranks."""
        hits = self._nearest(r)
        ranks = semantic.fuse(self.search(semantic.by_words(r)).documents, hits)
        unranked = [words, nodes.paths(schema.FILE_PATH, [hit.path for hit in hits])]
        fused = nodes.paths(schema.FILE_PATH, {p: 1 + s for p, s in ranks.fused.items()})
        clauses = [{"o": "SHOULD", "q": _zero(node)} for node in unranked]
        query = {"t": "bool", "msm": 0, "c": [*clauses, {"o": "SHOULD", "q": fused}]}
        return query, hits, ranks

    def _nearest(self, r: SearchRequest) -> Nearest:
        """The documents with a chunk whose similarity to the request's vector reaches its
        threshold, within what the request's filters (but for facet values chosen by
        drill-down, whose sideways counts need the others) and its reader's folders allow,
        most similar first."""
        store = semantic.refuse_without(self._vectors())
        limits = [nodes.local(filter_node(flt)) for flt in semantic.limiting(r.parsed_filters)]
        if r.within is not None:
            limits.append(nodes.local(_readable(r.within)))
        within = None
        if limits:
            walked = self.collection.walk(nodes.ALL, schema.FILE_PATH, *limits)
            within = [str(doc[schema.FILE_PATH]) for doc in walked]
        return store.nearest(r.vector or (), r.similarity_threshold, within)

    def semantic_miss(self, path: str, request: SearchRequest) -> SemanticMiss:
        """As the embedded index's
        :func:`~pylucene_mcp.engine.lucene.search.semantic_miss`."""
        store = semantic.refuse_without(self._vectors())
        path = documents.normalize_path(path)
        best = store.best_chunk(request.vector or (), path)
        return semantic.miss(best, path, request, self._nearest)

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
            row_strings, row_numbers, _ = documents.to_row(stored_row(doc))
            strings.extend(row_strings)
            numbers.extend(row_numbers)
        scores = [float(doc.get("score", 0.0)) for doc in docs]
        with jvm.java_errors():
            return str(
                context()
                .pages()
                .storedPage(
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
