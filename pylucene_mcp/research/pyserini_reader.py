"""pyserini's ``LuceneIndexReader`` over a research index, method for method (docs/repl.md)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.components import Similarity
from pylucene_mcp.research.index import ResearchIndex
from pylucene_mcp.research.pyserini_base import (
    DEFAULT,
    Document,
    Fields,
    anserini_retrieval,
    as_pyserini,
    need_term_vectors,
    open_index,
)


@dataclass(frozen=True)
class IndexTerm:
    """A term of the index with its document frequency and collection frequency."""

    term: str
    df: int
    cf: int


@dataclass(frozen=True)
class Posting:
    """A document's entry in a term's postings: Lucene id, term frequency, positions."""

    docid: int
    tf: int
    positions: list[int]


class LuceneIndexReader:
    """pyserini's ``LuceneIndexReader`` over a research index (opened read-only): statistics,
    terms, postings, document vectors, BM25 term weights, the two docid conversions."""

    def __init__(self, index_dir: str | Path | ResearchIndex) -> None:
        self._index, self._owned = open_index(index_dir)
        self._fields = Fields(self._index)

    def _reader(self) -> Any:
        return self._index._searcher(None).getIndexReader()

    def _field(self, field: str | None) -> str:
        name = field or self._fields.contents
        self._index._check_field(name)
        return name

    def analyze(self, text: str, analyzer: Any = None) -> list[str]:
        """``text`` as terms: by ``analyzer`` (a Java ``Analyzer``), else as the searched
        field's analyzer makes them (pyserini: its English analyzer)."""
        if analyzer is None or analyzer is DEFAULT:
            return self._index.terms(text, self._fields.contents)
        with jvm.java_errors(caller_input=True):
            tokens = jvm.jclass("io.github.pylucenemcp.research.Retrieval").tokens(
                analyzer, self._fields.contents, text
            )
        return [str(t) for t in tokens]

    def _terms(self, term: str, analyzer: Any) -> list[str]:
        """``term`` as the index has it: its analysed terms (``[term]`` without analyzer)."""
        return [term] if analyzer is None else self.analyze(term, analyzer)

    def _term(self, term: str, analyzer: Any) -> str | None:
        """``term`` as the index has it: analysed (None when analysis leaves nothing)."""
        tokens = self._terms(term, analyzer)
        if len(tokens) > 1:
            raise errors.InvalidRequestError(
                f"{term!r} is {len(tokens)} terms once analysed ({', '.join(tokens)}): give one "
                "word, or analyzer=None for a term exactly as the index has it"
            )
        return tokens[0] if tokens else None

    def stats(self, field: str | None = None) -> dict[str, int]:
        """``total_terms``, ``documents``, ``non_empty_documents`` and ``unique_terms`` of the
        searched field, over every segment of the index."""
        stats = jvm.jclass("io.github.pylucenemcp.research.ReaderStats")
        with jvm.java_errors():
            answer = stats.stats(self._reader(), self._field(field))
        return {k: int(v) for k, v in json.loads(memoryview(answer).tobytes()).items()}

    def terms(self, field: str | None = None) -> Iterator[IndexTerm]:
        """Every term of the searched field, in term order, with its df and cf."""
        with jvm.java_errors():
            pages = jvm.jclass("io.github.pylucenemcp.research.ReaderStats$TermPages")(
                self._reader(), self._field(field)
            )
        while True:
            with jvm.java_errors():
                page = json.loads(memoryview(pages.next(10_000)).tobytes())
            if not page:
                return
            for term, df, cf in page:
                yield IndexTerm(term, int(df), int(cf))

    def get_term_counts(
        self, term: str, analyzer: Any = DEFAULT, field: str | None = None
    ) -> tuple[int, int | None]:
        """``(df, cf)`` of ``term`` (analysed by the field's analyzer unless ``analyzer`` is
        another, or None for the term as it is). A text that is several terms once analysed
        gives, as pyserini, the documents that have them as a phrase and no cf."""
        name = self._field(field)
        tokens = self._terms(term, analyzer)
        if len(tokens) > 1:
            j = jvm.jclass
            phrase = j("org.apache.lucene.search.PhraseQuery")(name, jvm.jarray("String", tokens))
            with jvm.java_errors():
                return int(self._index._searcher(None).count(phrase)), None
        if not tokens:
            return 0, 0
        analysed = tokens[0]
        t = jvm.jclass("org.apache.lucene.index.Term")(name, analysed)
        with jvm.java_errors():
            reader = self._reader()
            return int(reader.docFreq(t)), int(reader.totalTermFreq(t))

    def get_postings_list(
        self, term: str, analyzer: Any = DEFAULT, field: str | None = None
    ) -> list[Posting] | None:
        """The live documents that have ``term``, with its frequency and positions in each;
        None when no document has it."""
        name = self._field(field)
        analysed = self._term(term, analyzer)
        if analysed is None:
            return None
        stats = jvm.jclass("io.github.pylucenemcp.research.ReaderStats")
        with jvm.java_errors():
            answer = stats.postings(self._reader(), name, analysed)
        if answer is None:
            return None
        return [Posting(d, tf, p) for d, tf, p in json.loads(memoryview(answer).tobytes())]

    def _vector(self, docid: str) -> dict[str, list[Any]] | None:
        lucene = self._lucene_id(str(docid), self._fields.id)
        if lucene is None:
            return as_pyserini(None, f"no document with the id {docid!r}")
        stats = jvm.jclass("io.github.pylucenemcp.research.ReaderStats")
        with jvm.java_errors():
            answer = stats.vector(self._reader(), lucene, self._fields.contents)
        if answer is None:
            raise errors.InvalidRequestError(
                f"field {self._fields.contents!r} has no term vectors: index it with "
                "FieldSpec.text(analyzer, term_vectors=True)"
            )
        return dict(json.loads(memoryview(answer).tobytes()))

    def get_document_vector(self, docid: str) -> dict[str, int] | None:
        """The terms of document ``docid``'s searched field with their frequencies; None (as
        pyserini) when no document has that id."""
        vector = self._vector(docid)
        return None if vector is None else {term: int(tf) for term, (tf, _) in vector.items()}

    def get_term_positions(self, docid: str) -> dict[str, list[int]] | None:
        """The terms of document ``docid``'s searched field with their positions; None (as
        pyserini) when no document has that id."""
        vector = self._vector(docid)
        if vector is None:
            return None
        return {term: list(positions) for term, (_, positions) in vector.items()}

    def _document(self, docid: str | int, field: str | None = None) -> Document | None:
        if isinstance(docid, bool) or not isinstance(docid, str | int):
            raise errors.InvalidRequestError(
                f"a docid is the collection's id (a str) or Lucene's (an int), not {docid!r}"
            )
        if isinstance(docid, int) and field is None:
            lucene: int | None = docid
            reader = self._reader()
            live = jvm.jclass("org.apache.lucene.index.MultiBits").getLiveDocs(reader)
            if not 0 <= docid < int(reader.maxDoc()) or (live is not None and not live.get(docid)):
                return None
        else:
            lucene = self._lucene_id(str(docid), field or self._fields.id)
            if lucene is None:
                return None
        with jvm.java_errors():
            java = self._reader().storedFields().document(lucene)
        return Document(java, self._fields.id, self._fields.contents)

    def _lucene_id(self, value: str, field: str) -> int | None:
        self._index._check_field(field, "keyword")
        j = jvm.jclass
        query = j("org.apache.lucene.search.TermQuery")(
            j("org.apache.lucene.index.Term")(field, value)
        )
        with jvm.java_errors():
            top = self._index._searcher(None).search(query, 1)
        return int(top.scoreDocs[0].doc) if len(top.scoreDocs) else None

    def doc(self, docid: str | int) -> Document | None:
        return self._document(docid)

    def doc_by_field(self, field: str, q: str) -> Document | None:
        """The first document whose keyword ``field`` is ``q``; None (as pyserini) when there is
        none, or when the index has no such keyword field."""
        try:
            return self._document(q, field)
        except (errors.UnknownFieldError, errors.InvalidRequestError) as exc:
            return as_pyserini(None, str(exc))

    def doc_raw(self, docid: str | int) -> str | None:
        document = self._document(docid)
        return None if document is None else document.raw()

    def doc_contents(self, docid: str | int) -> str | None:
        document = self._document(docid)
        return None if document is None else document.contents()

    def compute_bm25_term_weight(
        self,
        docid: str,
        term: str,
        analyzer: Any = DEFAULT,
        k1: float = 0.9,
        b: float = 0.4,
    ) -> float:
        """The BM25 (``k1``, ``b``) score that ``term`` alone gives document ``docid`` (0 when
        the document does not have it), rounded as Anserini's is (``ReaderStats.asAnserini``)."""
        lucene = self._lucene_id(str(docid), self._fields.id)
        if lucene is None:
            raise errors.DocumentNotFoundError(f"no document with the id {docid!r}")
        analysed = self._term(term, analyzer)
        if analysed is None:
            return 0.0
        j = jvm.jclass
        query = j("org.apache.lucene.search.TermQuery")(
            j("org.apache.lucene.index.Term")(self._fields.contents, analysed)
        )
        with jvm.java_errors():
            searcher = self._index._searcher(Similarity.bm25(k1, b))
            score = searcher.explain(query, lucene).getValue().floatValue()
            return float(jvm.jclass("io.github.pylucenemcp.research.ReaderStats").asAnserini(score))

    def compute_query_document_score(
        self, docid: str, query: str, similarity: Any = None
    ) -> float | None:
        """The score that document ``docid`` gets for the text ``query`` (a bag of its analysed
        words, as :meth:`LuceneSearcher.search` ranks it) with ``similarity`` (default: BM25
        0.9, 0.4); 0 when it does not match, None (as pyserini) when no document has that id."""
        lucene = self._lucene_id(str(docid), self._fields.id)
        if lucene is None:
            return as_pyserini(None, f"no document with the id {docid!r}")
        chosen = similarity if similarity is not None else Similarity.bm25(0.9, 0.4)
        retrieval = anserini_retrieval(self._index, self._fields, self._reader(), chosen)
        with jvm.java_errors(caller_input=True):
            return float(retrieval.score(str(query), lucene))

    def dump_documents_BM25(self, file_path: str | Path, k1: float = 0.9, b: float = 0.4) -> int:
        """Writes each document's vector with BM25 (``k1``, ``b``) weights to ``file_path``, a
        JSON line a document in pyserini's vector format (``{"id": …, "vector": {term:
        weight}}``; a term's weight is :meth:`compute_bm25_term_weight`'s). Returns how many.

        Raises:
            InvalidRequestError: when the searched field has no term vectors.
        """
        need_term_vectors(self._index, self._fields.contents, "a dump of the documents'")
        stats = jvm.jclass("io.github.pylucenemcp.research.ReaderStats")
        with jvm.java_errors(caller_input=True):
            searcher = self._index._searcher(Similarity.bm25(k1, b))
            return int(
                stats.dumpWeights(searcher, self._fields.contents, self._fields.id, str(file_path))
            )

    def quantize_weights(
        self, input_file_path: str | Path, output_file_path: str | Path, bits: int = 8
    ) -> None:
        """Writes the vectors of ``input_file_path`` (pyserini's JSON lines) with each weight
        mapped linearly onto the whole numbers 1 to 2**``bits``: the smallest weight of the file
        to 1, the largest to 2**``bits`` (read twice, a line at a time)."""
        low, high = math.inf, -math.inf
        with open(input_file_path, encoding="utf-8") as source:
            for line in source:
                for weight in json.loads(line)["vector"].values():
                    low, high = min(low, weight), max(high, weight)
        span = (high - low) or 1.0
        levels = 2**bits - 1
        with (
            open(input_file_path, encoding="utf-8") as source,
            open(output_file_path, "w", encoding="utf-8") as target,
        ):
            for line in source:
                doc = json.loads(line)
                doc["vector"] = {
                    term: math.floor(levels * (weight - low) / span) + 1
                    for term, weight in doc["vector"].items()
                }
                target.write(json.dumps(doc) + "\n")

    def convert_internal_docid_to_collection_docid(self, docid: int) -> str | None:
        document = self._document(int(docid))
        return None if document is None else document.docid()

    def convert_collection_docid_to_internal_docid(self, docid: str) -> int:
        """Lucene's id of the document ``docid``; -1 (as pyserini) when there is none."""
        lucene = self._lucene_id(str(docid), self._fields.id)
        return as_pyserini(-1, f"no document with the id {docid!r}") if lucene is None else lucene

    def close(self) -> None:
        if self._owned:
            self._index.close()

    def __enter__(self) -> LuceneIndexReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
