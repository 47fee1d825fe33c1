"""Indexes built by Anserini (pyserini's indexer, ``IndexCollection``, ``SimpleIndexer``): their
schema read from the index itself, and Anserini's default English analyzer.

Anserini keeps no schema in the index. Its fields are known: ``id`` (one exact term, stored,
with sorted doc values), ``contents`` (analysed, with frequencies, positions with
``-storePositions``, term vectors with ``-storeDocvectors``, stored with ``-storeContents``) and
``raw`` (stored only, with ``-storeRaw``). An index with a keyword ``id`` and an analysed
``contents`` and no schema of ours is taken for one of Anserini's: each keyword field is a
keyword, each analysed field text with Anserini's English analyzer (the analyzer is nowhere in
the index: one indexed with ``-language`` or ``-pretokenized`` needs ``analyzers=``), searched
with BM25 (0.9, 0.4). Indexes from Lucene 9 (Anserini before its Lucene 10 releases) are read
through Lucene's backward codecs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.research.analysis import english
from pylucene_mcp.research.components import FieldSpec, Similarity


def similarity() -> Any:
    """Anserini's searcher's similarity: BM25 with k1 0.9 and b 0.4."""
    return Similarity.bm25(0.9, 0.4)


@dataclass(frozen=True)
class LuceneField:
    """What a Lucene index says of one field: indexed (and how), term vectors, doc values,
    whether its first document stores a value."""

    name: str
    index_options: str  # NONE, DOCS, DOCS_AND_FREQS, DOCS_AND_FREQS_AND_POSITIONS, …
    term_vectors: bool
    doc_values: str  # NONE, SORTED, NUMERIC, …
    stored: bool


@dataclass(frozen=True)
class LuceneIndexInfo:
    """A Lucene index as it is: its live documents, its fields and the Lucene version that
    created it."""

    documents: int
    fields: tuple[LuceneField, ...]
    created_major: int

    def field(self, name: str) -> LuceneField | None:
        return next((f for f in self.fields if f.name == name), None)


def read_info(reader: Any) -> LuceneIndexInfo:
    """The fields of the index ``reader`` reads (merged over its segments)."""
    infos = jvm.jclass("org.apache.lucene.index.FieldInfos").getMergedFieldInfos(reader)
    first = _first_live(reader)
    stored = (
        {str(f.name()) for f in reader.storedFields().document(first).getFields()}
        if first is not None
        else set()
    )
    fields = tuple(
        sorted(
            (
                LuceneField(
                    str(info.name),
                    str(info.getIndexOptions().name()),
                    bool(info.hasTermVectors()),
                    str(info.getDocValuesType().name()),
                    str(info.name) in stored,
                )
                for info in infos
            ),
            key=lambda f: f.name,
        )
    )
    return LuceneIndexInfo(int(reader.numDocs()), fields, _created_major(reader))


def _first_live(reader: Any) -> int | None:
    for leaf in reader.leaves():
        live = leaf.reader().getLiveDocs()
        for doc in range(int(leaf.reader().maxDoc())):
            if live is None or live.get(doc):
                return int(leaf.docBase) + doc
    return None


def _created_major(reader: Any) -> int:
    infos = jvm.jclass("org.apache.lucene.index.SegmentInfos").readCommit(
        reader.directory(), reader.getIndexCommit().getSegmentsFileName()
    )
    return int(infos.getIndexCreatedVersionMajor())


def schema(info: LuceneIndexInfo) -> dict[str, FieldSpec] | None:
    """The research schema of an index Anserini built, read from ``info`` (None: it is not one
    of Anserini's: it has no keyword ``id`` and analysed ``contents``). Stored-only fields
    (``raw``) are left out: a document's stored fields are read whatever the schema says."""
    ids, contents = info.field("id"), info.field("contents")
    if ids is None or ids.index_options != "DOCS":
        return None
    if contents is None or not contents.index_options.startswith("DOCS_AND_FREQS"):
        return None
    fields: dict[str, FieldSpec] = {}
    for field in info.fields:
        if field.index_options == "DOCS":
            ids_kept = field.doc_values in ("SORTED", "BINARY")  # the tie order
            fields[field.name] = FieldSpec.keyword(field.stored, ids_kept)
        elif field.index_options != "NONE":
            fields[field.name] = FieldSpec.text(english(), field.stored, field.term_vectors)
    return fields
