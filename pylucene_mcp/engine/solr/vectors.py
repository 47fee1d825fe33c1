"""The chunks of a SolrCloud collection's documents, with their vectors (docs/semantic.md).

A collection of their own beside the documents' (``<collection>-vectors``, on the same
configset, with its shards and replicas), derived from it as the embedded index's
``<index>-vectors`` is: each chunk is a document with its document's path (``chunk_of``), its
character span and its vector (``DenseVectorField``, HNSW, the dot product of unit vectors) in
the field of the model's dimension. A document's first chunk also records the content hash its
chunks were made from and the model (``chunk_model``: what the embedder's reconciling walks). A
chunk's key is its document's path hash, ``!`` and its number, so that a document's chunks share
a shard and a shard can keep each document's best chunk itself (``{!collapse}``).

Up to ``EXACT_CHUNKS`` chunks (:mod:`pylucene_mcp.engine.core.semantic`), a vector search reads
every chunk vector of the documents that the search's filters allow (the plugin's
``vectorsAbove``, exact as the embedded index's ``ExactVectors``; those documents' paths are a
filter that leads, :func:`~pylucene_mcp.engine.solr.nodes.paths`), and keeps those that reach the
threshold: every one, not an approximation. Above, it is Solr's ``knn`` on each shard's HNSW
graph, the filters as its pre-filter, for ``CANDIDATES`` chunks, each document's best kept
(``{!collapse}``, after the walk): an approximation of the documents (``approximate``), whose
similarities stay exact, since Solr's graph holds the vectors in full precision (Solr 9 has no
quantized field).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pylucene_mcp.engine.core.semantic as shared
import pylucene_mcp.engine.solr.configset as configset
import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine.core.semantic import MAX_DOCUMENTS, ChunkHit, Nearest, least_score
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from pylucene_mcp.engine.solr.collection import SolrCollection

OF, HASH, MODEL, START, END = "chunk_of", "chunk_hash", "chunk_model", "chunk_start", "chunk_end"
#: the dimensions the configset has a vector field for (``chunk_vector_<n>``)
DIMENSIONS = (384, 512, 768, 1024)
#: chunks per update request
UPDATE_CHUNKS = 500


def vector_field(dimension: int) -> str:
    """The field of vectors of ``dimension``.

    Raises:
        SetupError: for a dimension the configset has no field for.
    """
    if dimension not in DIMENSIONS:
        raise errors.SetupError(
            f"the embedding model gives vectors of {dimension} numbers; a SolrCloud collection "
            f"keeps vectors of {', '.join(map(str, DIMENSIONS))}: choose a model of one of "
            "these (embedding_model)"
        )
    return f"chunk_vector_{dimension}"


def chunk_key(path: str, number: int) -> str:
    """A chunk's unique key: its document's path hash routes every chunk of it to one shard."""
    digest = hashlib.sha256(path.encode("utf-8")).hexdigest()[:16]
    return f"{digest}!{number:04d}"


class SolrVectorStore:
    """The chunks of one collection: a
    :class:`~pylucene_mcp.engine.core.semantic.VectorStore` whose ``within`` is a list of the
    documents' paths."""

    def __init__(self, settings: SolrSettings, model: str) -> None:
        """Opens the chunks of the collection of ``settings`` made with ``model`` (those made
        with another are made again by the embedder), creating their collection when the
        cluster lacks it.

        Raises:
            RemoteIndexError: when the cluster refuses to create it.
        """
        self.model = model
        main = SolrClient(settings)
        try:
            name = configset.ensure_beside(main, configset.VECTORS_SUFFIX)
        finally:
            main.close()
        self.client = SolrClient(dataclasses.replace(settings, collection=name))
        self.collection = SolrCollection(self.client)
        self._retry_s = settings.write_retry_s

    # -- writing ----------------------------------------------------------------------------

    def replace(self, path: str, content_hash: str, chunks: Sequence[Any]) -> None:
        """The chunks of the document ``path`` (made from the content of ``content_hash``): each
        with ``start``, ``end`` and a unit ``vector``. None: the document has no text to embed,
        and one empty chunk records that it was looked at."""
        commands = [f'"delete":{json.dumps({"query": nodes.local(nodes.term(OF, path))})}']
        for number, chunk in enumerate(chunks or [None]):
            doc: dict[str, Any] = {schema.FILE_PATH: chunk_key(path, number), OF: path}
            if number == 0:
                doc.update({HASH: content_hash, MODEL: self.model})
            if chunk is not None:
                doc.update({START: chunk.start, END: chunk.end})
                doc[vector_field(len(chunk.vector))] = [float(x) for x in chunk.vector]
            commands.append(f'"add":{json.dumps({"doc": doc})}')
        for start in range(0, len(commands), UPDATE_CHUNKS):
            self.client.update(commands[start : start + UPDATE_CHUNKS], self._retry_s)

    def delete(self, paths: Sequence[str]) -> None:
        """Removes the chunks of the documents ``paths``."""
        if paths:
            node = nodes.paths(OF, list(paths))
            delete = f'"delete":{json.dumps({"query": nodes.local(node)})}'
            self.client.update([delete], self._retry_s)

    def commit(self) -> None:
        """Makes the changes so far durable and searchable."""
        self.client.commit(self._retry_s)

    # -- reading ----------------------------------------------------------------------------

    def states(self) -> dict[str, str]:
        """The content hash each document's chunks were made from, by path (chunks made with
        another model: a hash no document has, so that they are made again)."""
        heads = nodes.presence(MODEL, "keyword")
        return {
            str(doc[OF]): str(doc.get(HASH) or "") if doc.get(MODEL) == self.model else "\0"
            for doc in self.collection.walk(heads, f"{OF},{HASH},{MODEL}")
        }

    def nearest(
        self, vector: Sequence[float], threshold: float, within: Sequence[str] | None = None
    ) -> Nearest:
        """The documents with a chunk whose cosine similarity to ``vector`` is at least
        ``threshold``, best first (at most :data:`MAX_DOCUMENTS`), each with its best chunk;
        ``within``: the paths of the documents the search is limited to (None: all)."""
        if within is not None and not within:
            return Nearest()
        field = vector_field(len(vector))
        values = [float(x) for x in vector]
        walked = self.collection.count(nodes.ALL) > shared.EXACT_CHUNKS
        query: str | dict[str, Any]
        if walked:  # each shard walks its graph; the filters below are its pre-filter
            knn = {"f": field, "topK": shared.CANDIDATES, "query": json.dumps(values)}
            query = {"knn": knn}  # the JSON query DSL: Solr's own parser, named
        else:
            exact = {"t": "vectorsAbove", "f": field, "v": values, "min": least_score(threshold)}
            query = json.dumps(exact)
        filters = [f"{{!collapse field={OF}}}"]  # each document's best chunk, on its shard
        if within is not None:
            filters.append(nodes.local(nodes.paths(OF, list(within)), cache=False))
        answer = self.collection.select(
            {
                "query": query,
                "filter": filters,
                "limit": MAX_DOCUMENTS,
                "sort": f"score desc,{OF} asc",
                "fields": f"{OF},{START},{END},score",
                "params": {"shards.tolerant": "false"},
            }
        )
        least = least_score(threshold)
        return Nearest(
            (
                ChunkHit(str(doc[OF]), 2 * float(doc["score"]) - 1, int(doc[START]), int(doc[END]))
                for doc in answer["response"]["docs"]
                if float(doc["score"]) >= least  # the walk's candidates, those that reach it
            ),
            approximate=walked,
        )

    def best_chunk(self, vector: Sequence[float], path: str) -> ChunkHit | None:
        """The chunk of the document ``path`` most similar to ``vector`` (None: it has none)."""
        found = self.nearest(vector, -1.0, [path])
        return found[0] if found else None

    def close(self) -> None:
        self.client.close()


if TYPE_CHECKING:  # mypy checks here that the store is a whole semantic.VectorStore
    from pylucene_mcp.engine.core import semantic

    def _is_a_store(store: SolrVectorStore) -> semantic.VectorStore:
        return store
