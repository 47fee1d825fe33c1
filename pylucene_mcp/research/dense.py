"""pyserini's dense searchers over pre-encoded vectors: ``LuceneHnswDenseSearcher`` (Lucene's HNSW
graph) and ``LuceneFlatDenseSearcher`` (every vector read: the exact answer), so that a script
runs with its import changed::

    from pylucene_mcp.research import LuceneHnswDenseSearcher

    searcher = LuceneHnswDenseSearcher("indexes/cacm-minilm", ef_search=100,
                                       encoder="/models/all-MiniLM-L6-v2")
    hits = searcher.search("what articles exist on semantic networks", k=10)

An index is Anserini's dense one: ``python -m pylucene_mcp.research.indexer -collection
JsonDenseVectorCollection -input DIR -index DIR [-M 16] [-efC 100] [-quantize.int8]`` takes
documents as ``{"docid": …, "vector": [floats]}`` (one a line; Anserini's keys), each compared
by dot product (Lucene's score ``(1 + dot) / 2``; give unit vectors for cosine);
``-quantize.int8`` builds the graph over 8-bit scalar-quantized vectors. Either searcher reads
such an index, and the HNSW indexes Anserini builds.

A query is a vector (a list of floats, or pyserini's JSON text of one, ``"[0.1, …]"``), or a
text that ``encoder`` turns into one: a folder of a model (or a known model's name) that the
semantic path runs (:class:`~pylucene_mcp.semantic.encoder.Encoder`, ONNX Runtime), or any object
with ``encode(text) -> vector``. Hits are ordered as Anserini orders them: score, then id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.index import at_least_one
from pylucene_mcp.research.pyserini_base import ScoredDoc

#: Anserini's dense fields
ID, VECTOR = "id", "vector"


class DenseEncoder(Protocol):
    def encode(self, text: str) -> Sequence[float]: ...


class ModelEncoder:
    """A model of the semantic path as a query encoder: a text's unit vector (its query prefix
    first, as the model was trained)."""

    def __init__(self, model: str | Path) -> None:
        from pylucene_mcp.semantic import models
        from pylucene_mcp.semantic.encoder import Encoder

        located = models.locate(str(model))
        self.encoder = Encoder(located.path, located.query_prefix, located.passage_prefix)

    def encode(self, text: str) -> list[float]:
        return [float(x) for x in self.encoder.embed(text)]


def _encoder(given: DenseEncoder | str | Path | None) -> DenseEncoder | None:
    if isinstance(given, str | Path):  # before encode(): a text has one of its own
        return ModelEncoder(given)
    if given is None or callable(getattr(given, "encode", None)):
        return given
    raise errors.InvalidRequestError(
        f"encoder is a model's folder or name, an object with encode(text) -> vector, or None, "
        f"not {given!r}"
    )


class _DenseSearcher:
    """What both searchers share: the index, its reader, the encoder, the searches."""

    #: the graph's candidates a search weighs (0: every vector read)
    _candidates = 0

    def __init__(
        self,
        index_dir: str | Path,
        encoder: DenseEncoder | str | Path | None = None,
        prebuilt_index_name: str | None = None,
    ) -> None:
        if prebuilt_index_name is not None:
            raise errors.InvalidRequestError("prebuilt indexes are not downloaded here")
        self.index_dir = str(index_dir)
        self.prebuilt_index_name = prebuilt_index_name
        self.encoder = _encoder(encoder)
        folder = Path(index_dir).expanduser()
        if not folder.is_dir():
            raise errors.InvalidRequestError(f"{folder} is no index folder")
        with jvm.java_errors():
            directory = jvm.jclass("org.apache.lucene.store.FSDirectory").open(
                jvm.jclass("java.nio.file.Paths").get(str(folder))
            )
            self._reader = jvm.jclass("org.apache.lucene.index.DirectoryReader").open(directory)
            self._java = jvm.jclass("io.github.pylucenemcp.research.DenseVectors")(
                self._reader, VECTOR, ID
            )
        self.dimension = self._dimension()

    def _dimension(self) -> int:
        for leaf in self._reader.leaves():
            info = leaf.reader().getFieldInfos().fieldInfo(VECTOR)
            if info is not None and info.getVectorDimension() > 0:
                return int(info.getVectorDimension())
        raise errors.InvalidRequestError(
            f"{self.index_dir} has no dense vectors in a field {VECTOR!r}: index them with "
            "-collection JsonDenseVectorCollection"
        )

    @property
    def num_docs(self) -> int:
        return int(self._reader.numDocs())

    def _vector(self, query: str | Sequence[float]) -> list[float]:
        if isinstance(query, str):
            if self.encoder is not None:
                vector = list(self.encoder.encode(query))
            else:
                try:
                    vector = json.loads(query)
                except json.JSONDecodeError as exc:
                    raise errors.InvalidRequestError(
                        "without an encoder a query is its vector, as JSON text ('[0.1, ...]') "
                        "or a list of floats; give encoder= a model to search by text"
                    ) from exc
        else:
            vector = list(query)
        if not isinstance(vector, list) or len(vector) != self.dimension:
            raise errors.InvalidRequestError(
                f"a query vector has {self.dimension} numbers (the index's dimension), this one "
                f"has {len(vector) if isinstance(vector, list) else vector!r}"
            )
        try:
            return [float(x) for x in vector]
        except (TypeError, ValueError) as exc:
            raise errors.InvalidRequestError(f"a query vector holds numbers only: {exc}") from exc

    def search(self, q: str | Sequence[float], k: int = 10) -> list[ScoredDoc]:
        """The ``k`` documents nearest ``q`` (a vector, its JSON text, or a text to encode)."""
        return self.batch_search([q], ["q"], k, 1)["q"]

    def batch_search(
        self,
        queries: Sequence[str | Sequence[float]],
        qids: Sequence[str],
        k: int = 10,
        threads: int = 4,
    ) -> dict[str, list[ScoredDoc]]:
        """Each query's ``k`` nearest documents, by its id, searched on ``threads`` threads."""
        at_least_one("k", k)
        at_least_one("threads", threads)
        if isinstance(queries, str) or isinstance(qids, str) or len(queries) != len(qids):
            raise errors.InvalidRequestError("queries and qids are lists, one id for each query")
        flat = [x for query in queries for x in self._vector(query)]
        with jvm.java_errors(caller_input=True):
            answer = self._java.nearest(
                jvm.jarray("float", flat), self.dimension, k, self._candidates, threads
            )
        found = json.loads(memoryview(answer).tobytes())
        return {
            qid: [ScoredDoc(d, n, s, self._reader) for d, n, s in hits]
            for qid, hits in zip(qids, found, strict=True)
        }

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> Any:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LuceneHnswDenseSearcher(_DenseSearcher):
    """pyserini's ``LuceneHnswDenseSearcher``: the best ``k`` of the ``ef_search`` nearest
    vectors the walk of the HNSW graph finds (approximate: its recall is measured in
    docs/repl.md)."""

    def __init__(
        self,
        index_dir: str | Path,
        ef_search: int = 100,
        encoder: DenseEncoder | str | Path | None = None,
        prebuilt_index_name: str | None = None,
        verbose: bool = False,
    ) -> None:
        at_least_one("ef_search", ef_search)
        self._candidates = int(ef_search)
        super().__init__(index_dir, encoder, prebuilt_index_name)


class LuceneFlatDenseSearcher(_DenseSearcher):
    """pyserini's ``LuceneFlatDenseSearcher``: every vector read, the exact nearest ``k``."""
