"""Search on the embedded index: one page of hits with DrillSideways facets, sorting, paging and
passages, in one call into the shim under a time limit. :func:`search` runs a
:class:`~pylucene_mcp.engine.core.request.SearchRequest`, which the Python API, the CLI and the MCP
tool each make; the result shapes are in :mod:`pylucene_mcp.engine.core.results`."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.shapes import Encoded
from pylucene_mcp.engine.core import cursors, documents, semantic
from pylucene_mcp.engine.core.filters import (
    LONG_MAX,
    LONG_MIN,
    Filter,
    facet_value,
    filter_query,
)
from pylucene_mcp.engine.core.miss import SemanticMiss
from pylucene_mcp.engine.core.query import context, limit_ms, parse_query
from pylucene_mcp.engine.core.readable import Readable
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.core.results import SearchResult
from pylucene_mcp.engine.core.semantic import Nearest, Ranks
from pylucene_mcp.engine.lucene import vectors
from pylucene_mcp.engine.lucene.info import stored_document
from pylucene_mcp.engine.lucene.queries import visible

if TYPE_CHECKING:
    from pylucene_mcp.engine.lucene.index import LuceneIndex

_HEADER = json.JSONDecoder()


def search(index: LuceneIndex, request: SearchRequest | str, **options: Any) -> SearchResult:
    """Runs ``request`` (a :class:`~pylucene_mcp.engine.core.request.SearchRequest`, or a query
    and a request's options with their Python names: ``index.search("*vertrag", page_size=20)``)
    and returns one page of hits with facets and passages, in one call into the shim under its
    time limit: what was found by then comes back with ``partial_results`` set (counts not done
    in time are left out: a facet query, or the buckets that end a range facet); when nothing
    was found yet (wildcard, fuzzy or regex terms still being expanded), ``SearchTimeoutError``
    says how to make the query cheaper.

    Raises:
        QuerySyntaxError, UnknownFieldError, InvalidFilterError, SearchTimeoutError;
        InvalidRequestError for an option a search does not take (the MCP tool's camelCase
        names included: the message lists the Python ones), a value out of its range, or a
        cursor that is not one of this search.
    """
    started = time.perf_counter()
    r = SearchRequest.of(request, **options)
    fingerprint = after = None
    snapshot = -1
    if r.cursor is not None:  # what a cursor belongs to, and where it continues
        fingerprint = r.owner(index.identity)
        snapshot, after = _position(r.cursor, fingerprint, r.sort)
    try:
        with jvm.java_errors():
            shim = _request(r.text, r.default_operator == "AND", r.word_forms, r.parsed_filters)
            if r.within is not None:
                shim.within(visible(Readable.of(r.within)))
            chunks: Nearest | None = None
            ranks: Ranks | None = None
            if r.mode == "semantic":
                chunks = _semantic(index, r, shim)
            elif r.mode == "hybrid":
                chunks, ranks = _hybrid(index, r, shim)
            shim.sort(_sort(r.sort, r.sort_order))
            shim.page(r.page, r.page_size, after).passages(r.max_passages, r.passage_length)
            if fingerprint is not None:
                shim.walk(snapshot)
            shim.facetLimit(r.facet_limit).timeoutMs(limit_ms(r.timeout_s))
            for counted_text in r.counted_texts:
                shim.countQuery(counted_text)
            for facet, edges in r.ranges:
                shim.countRanges(facet.field, jvm.jarray("long", edges))
            answer_bytes = context().run(index.searchers, index.snapshots, shim)
    except errors.QuerySyntaxError:
        # parsed again on their own: each says what is wrong and what to write instead
        for each in (r.text, *r.counted_texts):
            parse_query(each, r.default_operator, word_forms=r.word_forms)
        raise
    # the shim wrote the hits and facets as the tool returns them: a header, then the hits,
    # which stay JSON text until read; the rest is added here, in SearchResult's order
    raw = memoryview(answer_bytes).tobytes().decode("utf-8")
    answer, end = _HEADER.raw_decode(raw)
    if answer["partial"] and answer["totalHits"] == 0:  # cut before it found anything
        raise errors.SearchTimeoutError(
            f"the search found nothing within its time limit ({r.timeout_s:g} s); " + errors.CHEAPER
        )
    walk = None
    if fingerprint is not None:
        more = answer.get("more", answer["totalHits"] > r.page_size)
        position = f"{answer.get('snapshot', -1)}|{answer.get('last')}"
        walk = (more, cursors.encode(fingerprint, position) if more else None)
    data = r.answer(
        documents=Encoded(raw[end:]),
        total=answer["totalHits"],
        facets=answer["facets"],
        filter_counts=answer["counts"],
        started=started,
        counted=answer.get("counted", ()),
        ranges_counted=answer.get("ranges", ()),
        walk=walk,
        partial=answer["partial"],
    )
    if chunks is not None:
        semantic.with_chunks(lambda path: stored_document(index, path), data, chunks, r, ranks)
    return SearchResult(data)


def _semantic(index: LuceneIndex, r: SearchRequest, shim: Any) -> Nearest:
    """Makes ``shim`` a search of the documents that have a chunk similar enough to the
    request's vector (:func:`_nearest`), each scored by its best chunk's similarity. Returns
    them with their best chunks."""
    hits = _nearest(index, r)
    shim.matching(vectors.paths_scored({hit.path: hit.similarity for hit in hits}))
    return hits


def _hybrid(index: LuceneIndex, r: SearchRequest, shim: Any) -> tuple[Nearest, Ranks]:
    """Makes ``shim`` a search of the documents of the request's words or of its vector: the
    first hundred of each list fused by reciprocal rank come first, in that order, the others
    after them. Returns the semantic documents' best chunks and the lists' ranks."""
    hits = _nearest(index, r)
    ranks = semantic.fuse(search(index, semantic.by_words(r)).documents, hits)
    meant = vectors.paths_scored({hit.path: hit.similarity for hit in hits})
    shim.hybrid(meant, vectors.paths_scored({path: 1 + s for path, s in ranks.fused.items()}))
    return hits, ranks


def semantic_miss(index: LuceneIndex, path: str, request: SearchRequest) -> SemanticMiss:
    """What a semantic search of ``request`` (its vector, threshold and filters) makes of the
    document ``path``: its best chunk's similarity, whether that reaches the threshold, and
    its rank by similarity among the documents the filters allow."""
    store = semantic.refuse_without(index.vectors)
    path = documents.normalize_path(path)
    best = store.best_chunk(request.vector or (), path)
    return semantic.miss(best, path, request, lambda r: _nearest(index, r))


def _nearest(index: LuceneIndex, r: SearchRequest) -> Nearest:
    """The documents with a chunk whose similarity to the request's vector reaches its
    threshold, within what the request's filters (but for facet values chosen by drill-down,
    whose sideways counts need the others) and its reader's view allow, most similar first."""
    store = semantic.refuse_without(index.vectors)
    occur = jvm.jclass("org.apache.lucene.search.BooleanClause$Occur")
    allowed = jvm.jclass("org.apache.lucene.search.BooleanQuery$Builder")()
    limited = False
    for flt in semantic.limiting(r.parsed_filters):
        negative = flt.operator in ("not", "not_in")
        allowed.add(filter_query(flt), occur.MUST_NOT if negative else occur.FILTER)
        limited = True
    if r.within is not None:
        allowed.add(visible(Readable.of(r.within)), occur.FILTER)
        limited = True
    limited = limited or index.visible_to is not None  # a view's hidden documents count not
    within = None
    if limited:
        allowed.add(jvm.jclass("org.apache.lucene.search.MatchAllDocsQuery")(), occur.MUST)
        with index.searcher() as searcher:
            within = vectors.within_paths(searcher, allowed.build())
    return store.nearest(r.vector or (), r.similarity_threshold, within)


def _request(text: str, and_: bool, word_forms: bool, filters: Sequence[Filter]) -> Any:
    """The shim's ``SearchRequest`` of ``text`` within ``filters``: each a clause, an exclusion,
    or values of a facet dimension chosen by drill-down (so that its facet still counts the
    other values)."""
    kinds = jvm.jclass("io.github.pylucenemcp.search.FilterKind")
    request = jvm.jclass("io.github.pylucenemcp.search.SearchRequest")(text)
    request.operator(and_, word_forms)
    for flt in filters:
        if flt.field in schema.FACET_FIELDS and flt.operator in ("eq", "in"):
            request.filter(filter_query(flt), kinds.DRILL_DOWN)
            chosen = [flt.value] if flt.operator == "eq" else list(flt.values or ())
            for value in dict.fromkeys(facet_value(flt, v) for v in chosen):
                request.drillDown(flt.field, value)
        else:
            negative = flt.operator in ("not", "not_in")
            request.filter(filter_query(flt), kinds.EXCLUDE if negative else kinds.FILTER)
    return request


#: a number as Java writes a float or a long, and nothing else
_NUMBER = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[Ee][+-]?\d+)?|-?Infinity|NaN"
_SCORE_POSITION = re.compile(rf"(?:{_NUMBER}):.+", re.DOTALL)
_SORT_POSITION = re.compile(r"-?\d+:.+", re.DOTALL)


def _position(cursor: str, fingerprint: str, sort: str) -> tuple[int, str | None]:
    """The snapshot a walk pages through (-1: none yet, or none kept) and the position in the
    results that ``cursor`` continues after (None: the start).

    Raises:
        InvalidRequestError: for text that is not a cursor of this search.
    """
    position = cursors.decode(cursor, fingerprint)
    if position is None:
        return -1, None
    snapshot, _, last = position.partition("|")
    shape = _SCORE_POSITION if sort == "_score" else _SORT_POSITION
    if not re.fullmatch(r"-1|\d+", snapshot) or not shape.fullmatch(last):
        raise errors.InvalidRequestError(cursors.NOT_OURS)
    return int(snapshot), last


def _sort(field_name: str, order: str) -> Any:
    """The Lucene sort: ``field_name`` and then the unique key, the file path, for its ties (no
    score: writes move scores, and a cursor's position that held one would then repeat or skip
    documents, as in Solr's cursorMark); ``_score``: the score and then the file path, on pages
    as in a cursor walk (docs/tools.md: "ties: by file path"), so that a walk sees each document
    once however segments merge between its pages (Lucene's own last tie-break, the document
    number, changes with a merge) and two pages of one search agree with each other."""
    sort_field = jvm.jclass("org.apache.lucene.search.SortField")
    types = jvm.jclass("org.apache.lucene.search.SortField$Type")
    fields = []
    if field_name != "_score":
        primary = sort_field(field_name, types.LONG, order == "desc")
        primary.setMissingValue(
            jvm.jclass("java.lang.Long")(LONG_MIN if order == "desc" else LONG_MAX)
        )
        fields.append(primary)
    else:
        fields.append(sort_field.FIELD_SCORE)
    fields.append(sort_field(schema.FILE_PATH, types.STRING))
    return jvm.jclass("org.apache.lucene.search.Sort")(*fields)
