"""The chunks of an embedded index's documents, with their vectors (docs/semantic.md).

A Lucene index of its own beside the main one (``<index>-vectors``), derived from it: each chunk
is a document with its document's path (``chunk_of``), the content hash it was made from, its
character span in the content and its vector (HNSW, the dot product of unit vectors). The main
index is not touched: with vectors off it stays as it is, and this index can always be made
again from the main index's stored text, so it is kept in step by reconciling (the service's
embedder), never inside the crawl's writes.

A semantic search is two steps: the chunks whose similarity to the query reaches a threshold,
within the documents that the search's filters and the reader's view allow (a pre-filter of the
vector search, :class:`PathScores` of the main index's matching documents), grouped by document
(its best chunk); then the main index's search of those documents, each scored by its
similarity, so that totals, facets, filter counts, sorting and paging are the lexical search's.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pylucene_mcp.engine.core.semantic as shared
from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine.core.semantic import MAX_DOCUMENTS, ChunkHit, Nearest, least_score

log = logging.getLogger(__name__)

OF, HASH, START, END, VECTOR = "chunk_of", "chunk_hash", "chunk_start", "chunk_end", "chunk_vector"
#: whether the graph holds 7-bit vectors (False: full precision, Lucene's default format)
QUANTIZED = True


def folder_of(index_path: Path) -> Path:
    """Where the chunks of the index at ``index_path`` are kept."""
    return index_path.with_name(index_path.name + "-vectors")


class LuceneVectorStore:
    """The chunks of one index, written by one process (the index's writer): a
    :class:`~pylucene_mcp.engine.core.semantic.VectorStore` whose ``within`` is a query of
    its chunks (:func:`within_paths`)."""

    def __init__(self, path: Path, model: str, read_only: bool = False) -> None:
        """Opens the chunks at ``path`` made with ``model``: for writing (those made with another
        model are dropped, to be made again), or ``read_only`` beside the writer's process.

        Raises:
            IndexAccessError: read-only, when the writer has made none yet.
        """
        self.path = path
        self.model = model
        self.read_only = read_only
        self._lock = threading.Lock()
        self._writer: Any = None
        jvm.start()
        if not read_only:
            path.mkdir(parents=True, exist_ok=True)
        with jvm.java_errors():
            self.directory = jvm.jclass("org.apache.lucene.store.FSDirectory").open(
                jvm.jclass("java.nio.file.Paths").get(str(path), jvm.jarray("String", []))
            )
            managers = jvm.jclass("org.apache.lucene.search.SearcherManager")
            if read_only:
                if not jvm.jclass("org.apache.lucene.index.DirectoryReader").indexExists(
                    self.directory
                ):
                    self.directory.close()
                    raise errors.IndexAccessError(
                        f"no vectors in {path} yet: the server that writes the index makes them"
                    )
                self._manager = managers(self.directory, None)
                return
            config_class = jvm.jclass("org.apache.lucene.index.IndexWriterConfig")
            config = config_class()
            config.setOpenMode(config_class.OpenMode.CREATE_OR_APPEND)
            config.setCommitOnClose(False)
            # HNSW graphs of 7-bit vectors, the full-precision ones kept beside them to rescore
            if QUANTIZED:
                near = jvm.jclass("io.github.pylucenemcp.search.NearVectors")
                config.setCodec(near.quantizedCodec())
            self._writer = jvm.jclass("org.apache.lucene.index.IndexWriter")(self.directory, config)
            made_with = self._commit_data().get("model")
            if made_with not in (None, model):
                log.warning(
                    "the vectors in %s were made with %s, not %s: they are made again",
                    path,
                    made_with,
                    model,
                )
                self._writer.deleteAll()
            self._set_model()
            self._writer.commit()
            self._manager = managers(self._writer, None)

    def _commit_data(self) -> dict[str, str]:
        data = self._writer.getLiveCommitData()
        if data is None:
            return {}
        return {str(entry.getKey()): str(entry.getValue()) for entry in data}

    def _set_model(self) -> None:
        self._writer.setLiveCommitData(
            jvm.jclass("java.util.HashMap")({"model": self.model}).entrySet()
        )

    # -- writing ----------------------------------------------------------------------------

    def replace(self, path: str, content_hash: str, chunks: Sequence[Any]) -> None:
        """The chunks of the document ``path`` (made from the content of ``content_hash``): each
        with ``start``, ``end`` and a unit ``vector``. None: the document has no text to embed,
        and one empty chunk records that it was looked at."""
        documents = jvm.jclass("java.util.ArrayList")()
        similarity = jvm.jclass("org.apache.lucene.index.VectorSimilarityFunction").DOT_PRODUCT
        for chunk in chunks or [None]:
            doc = jvm.jclass("org.apache.lucene.document.Document")()
            self._key_fields(doc, path, content_hash)
            if chunk is not None:
                doc.add(jvm.jclass("org.apache.lucene.document.StoredField")(START, chunk.start))
                doc.add(jvm.jclass("org.apache.lucene.document.StoredField")(END, chunk.end))
                vector = jvm.jarray("float", [float(x) for x in chunk.vector])
                doc.add(
                    jvm.jclass("org.apache.lucene.document.KnnFloatVectorField")(
                        VECTOR, vector, similarity
                    )
                )
            documents.add(doc)
        with self._lock, jvm.java_errors():
            self._writable().updateDocuments(self._term(path), documents)

    def _writable(self) -> Any:
        """The writer.

        Raises:
            IndexReadOnlyError: in a reader's process.
        """
        if self._writer is None:
            raise errors.IndexReadOnlyError(
                "the vectors are written by the server that writes the index; this one is "
                "read-only and only searches them"
            )
        return self._writer

    @staticmethod
    def _key_fields(doc: Any, path: str, content_hash: str) -> None:
        store = jvm.jclass("org.apache.lucene.document.Field$Store")
        doc.add(jvm.jclass("org.apache.lucene.document.StringField")(OF, path, store.YES))
        doc.add(
            jvm.jclass("org.apache.lucene.document.SortedDocValuesField")(
                OF, jvm.jclass("org.apache.lucene.util.BytesRef")(path)
            )
        )
        doc.add(jvm.jclass("org.apache.lucene.document.StoredField")(HASH, content_hash))

    @staticmethod
    def _term(path: str) -> Any:
        return jvm.jclass("org.apache.lucene.index.Term")(OF, path)

    def delete(self, paths: Sequence[str]) -> None:
        """Removes the chunks of the documents ``paths``."""
        if not paths:
            return
        with self._lock, jvm.java_errors():
            self._writable().deleteDocuments(
                jvm.jarray("org.apache.lucene.index.Term", [self._term(p) for p in paths])
            )

    def commit(self) -> None:
        """Makes the changes so far durable and searchable."""
        with self._lock, jvm.java_errors():
            self._writable()
            self._set_model()
            self._writer.commit()
            self._manager.maybeRefreshBlocking()

    # -- reading ----------------------------------------------------------------------------

    def states(self) -> dict[str, str]:
        """The content hash each document's chunks were made from, by path."""
        answer = jvm.jclass("io.github.pylucenemcp.index.FileStates")(OF, "", HASH, "", "")
        searcher = self._manager.acquire()
        try:
            with jvm.java_errors():
                raw = answer.under(searcher.getIndexReader(), jvm.jarray("String", [""]))
        finally:
            self._manager.release(searcher)
        rows = json.loads(memoryview(raw).tobytes())
        return {row[0]: row[3] for row in rows}

    def nearest(
        self, vector: Sequence[float], threshold: float, within: Any | None = None
    ) -> Nearest:
        """The documents with a chunk whose cosine similarity to ``vector`` is at least
        ``threshold``, best first (at most :data:`MAX_DOCUMENTS`), each with its best chunk;
        ``within``: a query of this index's chunks that the search is limited to (None: all)."""
        target = jvm.jarray("float", [float(x) for x in vector])
        if self.read_only:
            with jvm.java_errors():
                self._manager.maybeRefresh()  # the writer's last commit
        searcher = self._manager.acquire()
        try:
            with jvm.java_errors():
                least = least_score(threshold)
                walked = searcher.getIndexReader().numDocs() > shared.EXACT_CHUNKS
                if not walked:
                    top = jvm.jclass("io.github.pylucenemcp.search.ExactVectors").bestByKey(
                        searcher, VECTOR, OF, target, least, within, MAX_DOCUMENTS
                    )
                else:
                    top = jvm.jclass("io.github.pylucenemcp.search.NearVectors").bestByKey(
                        searcher,
                        VECTOR,
                        OF,
                        target,
                        least,
                        within,
                        MAX_DOCUMENTS,
                        shared.CANDIDATES,
                    )
                stored = searcher.storedFields()
                fields = jvm.jset([OF, START, END])
                best: dict[str, ChunkHit] = {}
                for hit in top.scoreDocs:
                    doc = stored.document(hit.doc, fields)
                    path = str(doc.get(OF))
                    best[path] = ChunkHit(
                        path,
                        2 * float(hit.score) - 1,
                        int(doc.getField(START).numericValue().intValue()),
                        int(doc.getField(END).numericValue().intValue()),
                    )
        finally:
            self._manager.release(searcher)
        return Nearest(best.values(), approximate=walked)

    def best_chunk(self, vector: Sequence[float], path: str) -> ChunkHit | None:
        """The chunk of the document ``path`` most similar to ``vector`` (None: it has none)."""
        only = jvm.jclass("org.apache.lucene.search.TermQuery")(self._term(path))
        found = self.nearest(vector, -1.0, only)
        return found[0] if found else None

    def close(self) -> None:
        with self._lock, jvm.java_errors():
            self._manager.close()
            if self._writer is not None:
                self._writer.rollback()  # what was not committed is made again by reconciling
            self.directory.close()


def within_paths(main_searcher: Any, query: Any) -> Any:
    """The chunks of the documents of ``main_searcher`` that ``query`` matches: a pre-filter."""
    with jvm.java_errors():
        return jvm.jclass("io.github.pylucenemcp.search.PathScores").matching(
            main_searcher, query, schema.FILE_PATH, OF
        )


def paths_scored(scores: Mapping[str, float]) -> Any:
    """The main index's query of the documents of ``scores`` (path → score), each scored by
    its own (Lucene's scores are not negative: a negative similarity scores 0)."""
    with jvm.java_errors():
        return jvm.jclass("io.github.pylucenemcp.search.PathScores").of(
            schema.FILE_PATH,
            jvm.jarray("String", list(scores)),
            jvm.jarray("float", [max(0.0, score) for score in scores.values()]),
        )


if TYPE_CHECKING:  # mypy checks here that the store is a whole semantic.VectorStore
    from pylucene_mcp.engine.core import semantic

    def _is_a_store(store: LuceneVectorStore) -> semantic.VectorStore:
        return store
