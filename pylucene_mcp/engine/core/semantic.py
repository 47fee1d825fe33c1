"""What a semantic or hybrid search does alike on every backend (docs/semantic.md): the shape of
a chunk found, the filters that limit a vector search, the reciprocal rank fusion of a hybrid
search, what the semantic path says of one document (explainMiss), and the chunk fields a hit
gains. Each backend finds the chunks (its vector store) and runs the search of the documents."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol, TypeVar

from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.shapes import Encoded
from pylucene_mcp.engine.core.filters import Filter
from pylucene_mcp.engine.core.info import StoredDocument
from pylucene_mcp.engine.core.miss import SemanticMiss
from pylucene_mcp.engine.core.passages import Passage
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.core.results import Hit, SearchResult

#: the most documents one vector search keeps (each with its best chunk)
MAX_DOCUMENTS = 1_000
#: a hybrid search fuses the first hundred of each list, by reciprocal rank (k = 60): measured
#: on CACM by bench/semantic.py (docs/semantic.md)
FUSED_DEPTH = 100
RRF_K = 60
#: up to this many chunks a vector search reads every vector (exact, and under about 50 ms on
#: two cores: docs/semantic.md); above it, it walks the store's HNSW graph for
#: :data:`CANDIDATES` chunks, each similarity still exact (rescored in full precision)
EXACT_CHUNKS = 250_000
#: the chunks a walk of the graph finds before they are grouped by document: at a million
#: chunks, 0.985 of the exact top ten documents at a p95 of 58 ms (docs/semantic.md)
CANDIDATES = 6_000


@dataclasses.dataclass(frozen=True)
class ChunkHit:
    """A document's best chunk for a query: its span in the content and its cosine similarity."""

    path: str
    similarity: float
    start: int
    end: int


class Nearest(list[ChunkHit]):
    """What a vector search found: each document with its best chunk, most similar first.
    ``approximate``: found by walking the graph of quantized vectors (a store of more chunks
    than an exact scan reads in time), so that a document the exact scan finds may be missing
    and the count is a lower bound; each similarity is still exact (rescored)."""

    def __init__(self, hits: Iterable[ChunkHit] = (), approximate: bool = False) -> None:
        super().__init__(hits)
        self.approximate = approximate


class VectorStore(Protocol):
    """The chunks of one index's documents with their vectors, as the embedder keeps them and
    a search finds them; ``within`` is the backend's own form of the documents a search may
    find (None: all)."""

    def states(self) -> dict[str, str]: ...

    def replace(self, path: str, content_hash: str, chunks: Sequence[Any]) -> None: ...

    def delete(self, paths: Sequence[str]) -> None: ...

    def commit(self) -> None: ...

    def nearest(
        self, vector: Sequence[float], threshold: float, within: Any | None = None
    ) -> Nearest: ...

    def best_chunk(self, vector: Sequence[float], path: str) -> ChunkHit | None: ...

    def close(self) -> None: ...


Store = TypeVar("Store")


def refuse_without(store: Store | None) -> Store:
    """``store``, or the error that says how to get one (vectors are off)."""
    if store is None:
        raise errors.InvalidRequestError.vectors_off()
    return store


def least_score(threshold: float) -> float:
    """The least score a chunk found must reach for a cosine ``threshold``: Lucene scores a
    dot product of unit vectors as (1 + cosine) / 2."""
    return (1 + threshold) / 2


def limiting(filters: Sequence[Filter]) -> list[Filter]:
    """The filters that limit a vector search: all but the facet values chosen by drill-down,
    whose facet still counts the search's other values (as DrillSideways does for words)."""
    return [
        flt
        for flt in filters
        if not (flt.field in schema.FACET_FIELDS and flt.operator in ("eq", "in"))
    ]


def by_words(r: SearchRequest) -> SearchRequest:
    """A hybrid search's list by words: the first :data:`FUSED_DEPTH` by score, bare."""
    return dataclasses.replace(
        r,
        mode="lexical",
        page=1,
        page_size=FUSED_DEPTH,
        max_passages=0,
        facet_queries=None,
        range_facets=(),
        sort="_score",
        sort_order="desc",
    )


@dataclasses.dataclass(frozen=True)
class Ranks:
    """A hybrid search's lists: each document's lexical rank and score, its semantic rank, and
    its fused score (by path)."""

    lexical: dict[str, tuple[int, float]]
    semantic: dict[str, int]
    fused: dict[str, float]


def fuse(found: Sequence[Hit], hits: Sequence[ChunkHit]) -> Ranks:
    """The reciprocal rank fusion of the hits by words (``found``, as a search answers them)
    and the first :data:`FUSED_DEPTH` of the semantic ones."""
    lexical = {h.file_path: (rank, h.score) for rank, h in enumerate(found, start=1)}
    semantic = {h.path: rank for rank, h in enumerate(hits[:FUSED_DEPTH], start=1)}
    fused: dict[str, float] = {}
    for path, (rank, _) in lexical.items():
        fused[path] = fused.get(path, 0.0) + 1 / (RRF_K + rank)
    for path, rank in semantic.items():
        fused[path] = fused.get(path, 0.0) + 1 / (RRF_K + rank)
    return Ranks(lexical, semantic, fused)


def miss(
    best: ChunkHit | None,
    path: str,
    request: SearchRequest,
    nearest: Callable[[SearchRequest], Nearest],
) -> SemanticMiss:
    """What a semantic search of ``request`` makes of the document ``path`` whose best chunk
    is ``best``: its similarity, whether that reaches the threshold, and its rank among the
    documents the filters allow (``nearest``: the backend's vector search of a request)."""
    threshold = request.similarity_threshold
    if best is None:
        return SemanticMiss(None, None, threshold, None, None)  # no vectors yet: no verdict
    # the documents at least as similar: the rank among them, ties by the search's own order
    floor = best.similarity - 1e-5  # its own chunk is in, whatever the float rounding
    above = nearest(dataclasses.replace(request, similarity_threshold=floor))
    rank = next((n for n, hit in enumerate(above, start=1) if hit.path == path), None)
    return SemanticMiss(
        round(best.similarity, 4),
        (best.start, best.end),
        threshold,
        best.similarity >= threshold,
        rank,
    )


def with_chunks(
    stored_document: Callable[[str], StoredDocument],
    data: dict[str, Any],
    nearest: Nearest,
    r: SearchRequest,
    ranks: Ranks | None = None,
) -> None:
    """Gives each hit of a semantic or hybrid search its similarity, the span of its best
    chunk, and that chunk as its passage (cut to the request's passage length) where the words
    found none; a hybrid search's, its lexical rank and score, its semantic rank and its fused
    score; the answer, ``approximate`` where the vector search walked the graph."""
    documents = data["documents"]
    hits = json.loads(documents) if isinstance(documents, Encoded) else list(documents)
    chunks = {hit.path: hit for hit in nearest}
    order = {path: rank for rank, path in enumerate(chunks, start=1)}
    for hit in hits:
        shown = Hit(hit)  # read lazily: its passages below are the hit's as they are then
        path = shown.file_path
        if ranks is not None:
            if path in ranks.lexical:
                rank, score = ranks.lexical[path]
                hit.update(Hit.wire(lexical_rank=rank, lexical_score=score))
            hit.update(Hit.wire(score=round(ranks.fused.get(path, 0.0), 6)))
        chunk = chunks.get(path)
        if chunk is None:
            continue
        hit.update(
            Hit.wire(
                semantic_rank=order[path],
                similarity=round(chunk.similarity, 4),
                chunk=(chunk.start, chunk.end),
            )
        )
        if r.max_passages > 0 and not shown.passages:
            stored = stored_document(path)
            text = stored.content[chunk.start : chunk.end]
            passage = Passage.wire(
                text=_cut(text, r.passage_length),
                score=round(chunk.similarity, 4),
                matched_terms=(),
                term_coverage=0.0,
                position=round(chunk.start / max(1, len(stored.content)), 4),
                page=stored.page_of(chunk.start) or None,
            )
            hit.update(Hit.wire(passages=[passage]))
    data.update(
        SearchResult.wire(
            documents=hits,  # decoded once here, encoded once by the server
            approximate=nearest.approximate or None,
        )
    )


def _cut(text: str, length: int) -> str:
    """``text`` at most ``length`` characters, cut after a word, with an ellipsis."""
    text = " ".join(text.split())
    if len(text) <= length:
        return text
    cut = text[: length - 1].rsplit(" ", 1)[0]
    return cut + "…"
