"""pyserini's searcher and index reader over a research index, method for method, so that a
pyserini script runs with its import changed::

    from pylucene_mcp.research import LuceneSearcher, LuceneIndexReader

Retrieval is Anserini's: a query is a bag of its analysed words (each once, boosted by its
count), BM25 (0.9, 0.4) by default, equal scores ordered by the collection id, scores rounded
to four decimals with ties lowered by 1e-6 each, RM3 and Rocchio as Anserini's rerankers. Where
pyserini assumes Anserini's field names, these use the index's own: ``contents`` (else the
first text field) is searched, ``id`` (else the first keyword field) is the collection's id,
``raw`` the raw document when the index has one. Where pyserini's default analyzer is its
English one, ours is the index's analyzer for the field. docs/repl.md, "Coming from pyserini",
lists the differences.
"""

from __future__ import annotations

import importlib
import json
import math
import warnings
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self, TypeVar

import pylucene_mcp.research.analysis as analysis
from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.analysis import Analyzer, JAnalyzerUtils, get_lucene_analyzer
from pylucene_mcp.research.components import Analyzer as AnalyzerSpec
from pylucene_mcp.research.components import Similarity
from pylucene_mcp.research.index import ResearchIndex, at_least_one
from pylucene_mcp.research.indexer import JacksonObjectMapper, LuceneIndexer

#: ``analyzer=`` left out: the index's own analyzer for the field
DEFAULT: Any = object()


_T = TypeVar("_T")


class FeedbackNeedsText(errors.InvalidRequestError, NotImplementedError):
    """A Lucene query searched with RM3 or Rocchio set: the project's error, and pyserini's
    ``NotImplementedError`` for a script that catches that."""


class PyseriniAnswer(UserWarning):
    """Where pyserini answers None (or -1) and a script tests for it, these classes answer the
    same; this warning says why (what our own API would have raised)."""


class NeedsTermVectors(errors.InvalidRequestError, TypeError):
    """Work that reads term vectors asked of a field without them: the project's error, and
    pyserini's ``TypeError`` for a script that catches that."""


def _need_term_vectors(index: ResearchIndex, field: str, whose: str) -> None:
    """Raises NeedsTermVectors when ``field`` has no term vectors, which the work that reads
    ``whose`` term vectors needs."""
    if not index.fields[field].term_vectors:
        raise NeedsTermVectors(
            f"this reads {whose} term vectors, and field {field!r} has none: index it with "
            "FieldSpec.text(analyzer, term_vectors=True)"
        )


def _retrieval(
    index: ResearchIndex, fields: _Fields, reader: Any, similarity: Any, analyzer: Any = None
) -> Any:
    """Anserini's retrieval (``Retrieval``) over ``reader``: ``similarity``, the searched and the
    id field, query texts analysed by ``analyzer`` (None: the index's own)."""
    with jvm.java_errors():
        return jvm.jclass("io.github.pylucenemcp.research.Retrieval")(
            reader,
            similarity,
            index.query_analyzer if analyzer is None else analyzer,
            fields.contents,
            fields.id,
        )


def _as_pyserini(value: _T, why: str) -> _T:
    """``value``, pyserini's answer, with ``why`` as a :class:`PyseriniAnswer` warning."""
    warnings.warn(why, PyseriniAnswer, stacklevel=3)
    return value


class Document:
    """A stored document, as pyserini's ``Document`` reads it."""

    def __init__(self, java: Any, id_field: str, contents_field: str) -> None:
        self._java = java
        self._id = id_field
        self._contents = contents_field

    def docid(self) -> str | None:
        return self.get(self._id)

    def id(self) -> str | None:
        return self.docid()

    def contents(self) -> str | None:
        return self.get(self._contents)

    def raw(self) -> str | None:
        """The stored ``raw`` field, or the contents when the index has no such field."""
        raw = self.get("raw")
        return raw if raw is not None else self.contents()

    def get(self, field: str) -> str | None:
        value = self._java.get(field)
        return None if value is None else str(value)

    def lucene_document(self) -> Any:
        return self._java


class ScoredDoc:
    """One hit, as pyserini's ``JScoredDoc``: the collection's id, Lucene's id, the score (a
    plain class with slots: a batch of a thousand hits a query makes many)."""

    __slots__ = ("_reader", "docid", "lucene_docid", "score")

    def __init__(self, docid: str, lucene_docid: int, score: float, reader: Any = None) -> None:
        self.docid = docid
        self.lucene_docid = lucene_docid
        self.score = score
        self._reader = reader  # the index reader the hit was found in

    @property
    def lucene_document(self) -> Any:
        """The stored Lucene ``Document`` (read when asked for)."""
        with jvm.java_errors():
            return self._reader.storedFields().document(self.lucene_docid)

    def _key(self) -> tuple[str, int, float]:
        return self.docid, self.lucene_docid, self.score

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScoredDoc) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"ScoredDoc(docid={self.docid!r}, lucene_docid={self.lucene_docid}, "
            f"score={self.score!r})"
        )


#: pyserini's name of a hit
JScoredDoc = ScoredDoc
#: what pyserini's modules export beside the searcher and the reader
__all__ = [
    "Analyzer", "Document", "JAnalyzerUtils", "JBagOfWordsQueryGenerator", "JScoredDoc",
    "JacksonObjectMapper", "LuceneIndexReader", "LuceneIndexer", "LuceneSearcher",
    "LuceneSimilarities", "PyseriniAnswer", "ScoredDoc", "get_lucene_analyzer",
]  # fmt: skip


class JBagOfWordsQueryGenerator:
    """Anserini's default query generator, a text as the bag of its analysed words: what the
    searcher does; the one ``query_generator`` taken here."""


class LuceneSimilarities:
    """pyserini's similarities by name (Lucene's own classes)."""

    @staticmethod
    def bm25(k1: float = 0.9, b: float = 0.4) -> Any:
        return Similarity.bm25(k1, b)

    @staticmethod
    def qld(mu: float = 1000.0) -> Any:
        return Similarity.lm_dirichlet(mu)


def __getattr__(name: str) -> Any:
    """pyserini's names that start the JVM, given when asked for: ``JString`` (Java's
    ``String``), ``JAnalyzer`` (Lucene's ``Analyzer``) and the ``querybuilder`` module."""
    if name == "JString":
        jvm.start()
        return jvm.jclass("java.lang.String")
    if name == "querybuilder":  # its import starts the JVM
        return importlib.import_module("pylucene_mcp.research.querybuilder")
    if name == "JAnalyzer":
        return analysis.JAnalyzer
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _Fields:
    """Which fields of a research index play pyserini's ``contents``, ``id`` and ``raw``."""

    def __init__(self, index: ResearchIndex) -> None:
        text = [n for n, s in index.fields.items() if s.kind == "text"]
        keyword = [n for n, s in index.fields.items() if s.kind == "keyword"]
        if not text or not keyword:
            raise errors.InvalidRequestError(
                f"the index at {index.path} needs a text field to search and a keyword field "
                f"for the collection's ids; it has {', '.join(index.fields) or 'no fields'}"
            )
        self.contents = "contents" if "contents" in text else text[0]
        self.id = "id" if "id" in keyword else keyword[0]


def _open(index_dir: str | Path | ResearchIndex) -> tuple[ResearchIndex, bool]:
    if isinstance(index_dir, ResearchIndex):
        return index_dir, False
    return ResearchIndex.open(index_dir, read_only=True), True


class _SearcherOverIndex:
    """What pyserini's searchers over a research index share (:class:`LuceneSearcher`, and
    :class:`~pylucene_mcp.research.impact.LuceneImpactSearcher`): the index (opened read-only),
    its reader, its documents, and the Java retrieval over its latest commit, made again when a
    commit or the searcher's settings changed."""

    def __init__(self, index_dir: str | Path | ResearchIndex) -> None:
        self._index, self._owned = _open(index_dir)
        self.index_dir = str(self._index.path)
        self._fields = _Fields(self._index)
        self.index_reader = LuceneIndexReader(self._index)
        self._retrieval: Any = None
        self._reader: Any = None

    @property
    def num_docs(self) -> int:
        return len(self._index)

    def _java(self) -> Any:
        """The Java retrieval over the latest commit (:meth:`_made` makes it)."""
        reader = self._index._searcher(None).getIndexReader()
        if self._retrieval is None or not reader.equals(self._reader):
            self._retrieval, self._reader = self._made(reader), reader
        return self._retrieval

    def _made(self, reader: Any) -> Any:
        """A Java retrieval over ``reader`` with this searcher's settings."""
        raise NotImplementedError

    def doc(self, docid: str | int) -> Document | None:
        """The document with the collection id ``docid`` (a ``str``) or the Lucene id
        ``docid`` (an ``int``); None when there is none."""
        return self.index_reader._document(docid)

    def doc_by_field(self, field: str, q: str) -> Document | None:
        """The first document whose keyword ``field`` is ``q``; None (as pyserini) when there is
        none, or when the index has no such keyword field."""
        return self.index_reader.doc_by_field(field, q)

    def close(self) -> None:
        if self._owned:
            self._index.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class LuceneSearcher(_SearcherOverIndex):
    """pyserini's ``LuceneSearcher`` over a research index (opened read-only)."""

    def __init__(self, index_dir: str | Path | ResearchIndex) -> None:
        super().__init__(index_dir)
        self._similarity = Similarity.bm25(0.9, 0.4)
        # ("rm3" or "rocchio", its settings): the feedback this searcher uses, if any
        self._feedback: tuple[str, tuple[Any, ...]] | None = None
        # the analyzer of query texts (set_analyzer, set_language; None: the index's own)
        self._analyzer: Any = None

    def _made(self, reader: Any) -> Any:
        """Anserini's retrieval with this searcher's similarity, analyzer and feedback."""
        retrieval = _retrieval(self._index, self._fields, reader, self._similarity, self._analyzer)
        with jvm.java_errors():
            if self._feedback is not None:
                kind, settings = self._feedback
                (retrieval.setRm3 if kind == "rm3" else retrieval.setRocchio)(*settings)
        return retrieval

    def search(
        self,
        q: str | Any,
        k: int = 10,
        query_generator: Any = None,
        fields: Mapping[str, float] | None = None,
        strip_segment_id: bool = False,
        remove_dups: bool = False,
    ) -> list[ScoredDoc]:
        """The ``k`` best documents for ``q``: a text (a bag of its words, with RM3 or
        Rocchio when set; with ``fields``, a bag on each of these fields, boosted by its weight)
        or a Lucene ``Query``.

        Raises:
            InvalidRequestError: for a ``query_generator`` other than the bag of words (build
                a Lucene query instead), an unknown field, or a Lucene query with feedback set.
        """
        at_least_one("k", k)
        _bag_of_words_only(query_generator)
        if isinstance(q, str):
            hits = self._batch([q], k, 1, fields)[0]
        else:
            if fields:
                raise errors.InvalidRequestError(
                    "fields go with a text, not a Lucene query (pyserini refuses it too)"
                )
            if self._feedback is not None:
                raise FeedbackNeedsText(
                    "feedback (RM3, Rocchio) needs the query's text, not a Lucene query: "
                    "unset_rm3() or unset_rocchio() first"
                )
            hits = self._query(q, k)
        return _filtered(hits, strip_segment_id, remove_dups)

    def _query(self, query: Any, k: int) -> list[ScoredDoc]:
        """A Lucene query's hits, as a text's are ranked (ties by id, scores adjusted)."""
        if not isinstance(query, jvm.jclass("org.apache.lucene.search.Query")):
            raise errors.InvalidRequestError(f"q is a text or a Lucene Query, not {query!r}")
        retrieval = self._java()
        with jvm.java_errors(caller_input=True):
            answer = retrieval.query(query, k)
        return [
            ScoredDoc(d, n, s, self._reader) for d, n, s in json.loads(memoryview(answer).tobytes())
        ]

    def batch_search(
        self,
        queries: Sequence[str],
        qids: Sequence[str],
        k: int = 10,
        threads: int = 1,
        query_generator: Any = None,
        fields: Mapping[str, float] | None = None,
    ) -> dict[str, list[ScoredDoc]]:
        """Each query's ``k`` best documents, by its id, searched on ``threads`` threads."""
        at_least_one("k", k)
        _bag_of_words_only(query_generator)
        if isinstance(queries, str) or isinstance(qids, str):
            raise errors.InvalidRequestError("queries and qids are lists of strings")
        if len(queries) != len(qids):
            raise errors.InvalidRequestError(
                f"{len(queries)} queries but {len(qids)} qids: give one id for each query"
            )
        at_least_one("threads", threads)
        found = self._batch(list(queries), k, threads, fields)
        return dict(zip(qids, found, strict=True))

    def _batch(
        self, texts: list[str], k: int, threads: int, fields: Mapping[str, float] | None = None
    ) -> list[list[ScoredDoc]]:
        for text in texts:
            if not isinstance(text, str):
                raise errors.InvalidRequestError(f"a query is a text, not {text!r}")
        weights = jvm.jclass("java.util.LinkedHashMap")()
        for name, weight in (fields or {}).items():
            self.index_reader._field(name)
            if isinstance(weight, bool) or not isinstance(weight, int | float):
                raise errors.InvalidRequestError(f"field {name!r}'s weight is a number")
            weights.put(name, jvm.jclass("java.lang.Float")(float(weight)))
        retrieval = self._java()
        with jvm.java_errors(caller_input=True):
            answer = retrieval.batch(jvm.jarray("String", texts), k, threads, weights)
        return [  # the reader the retrieval searched (_java), not another look for a newer one
            [ScoredDoc(d, n, s, self._reader) for d, n, s in hits]
            for hits in json.loads(memoryview(answer).tobytes())
        ]

    def get_feedback_terms(self, q: str) -> dict[str, float] | None:
        """The expansion terms of ``q`` and their weights by the feedback that is set (RM3's or
        Rocchio's, with its settings); None (as pyserini) when neither is."""
        if self._feedback is None:
            return None
        self._need_term_vectors()
        with jvm.java_errors(caller_input=True):
            terms = self._java().feedbackTerms(q)
        return {str(t): float(w) for t, w in dict(terms).items()}

    def set_rm3(
        self,
        fb_terms: int = 10,
        fb_docs: int = 10,
        original_query_weight: float = 0.5,
        debug: bool = False,
        filter_terms: bool = True,
    ) -> None:
        """RM3 feedback from now on (Anserini's ``Rm3Reranker``: the 50 first hits, of which
        ``fb_docs`` give their ``fb_terms`` best terms).

        Raises:
            InvalidRequestError: when the searched field has no term vectors (pyserini's
                TypeError), or for parameters out of range.
        """
        self._need_term_vectors()
        settings = (int(fb_terms), int(fb_docs), float(original_query_weight), bool(filter_terms))
        with jvm.java_errors(caller_input=True):
            self._java().setRm3(*settings)
        self._feedback = ("rm3", settings)

    def _need_term_vectors(self) -> None:
        _need_term_vectors(self._index, self._fields.contents, "the feedback documents'")

    def unset_rm3(self) -> None:
        if self._feedback is not None and self._feedback[0] == "rm3":
            self._feedback = None
        if self._retrieval is not None:
            self._retrieval.unsetRm3()

    def is_using_rm3(self) -> bool:
        return self._feedback is not None and self._feedback[0] == "rm3"

    def set_rocchio(
        self,
        top_fb_terms: int = 10,
        top_fb_docs: int = 10,
        bottom_fb_terms: int = 10,
        bottom_fb_docs: int = 10,
        alpha: float = 1,
        beta: float = 0.75,
        gamma: float = 0,
        debug: bool = False,
        use_negative: bool = False,
    ) -> None:
        """Rocchio feedback from now on, instead of RM3 (Anserini's ``RocchioReranker``: the
        first pass's ``k`` hits, of which the first ``top_fb_docs`` give their mean vector's
        ``top_fb_terms`` best terms, and with ``use_negative`` the last ``bottom_fb_docs``).

        Raises:
            InvalidRequestError: when the searched field has no term vectors, or for
                parameters out of range.
        """
        self._need_term_vectors()
        settings = (
            int(top_fb_terms), int(top_fb_docs), int(bottom_fb_terms), int(bottom_fb_docs),
            float(alpha), float(beta), float(gamma), bool(use_negative),
        )  # fmt: skip
        with jvm.java_errors(caller_input=True):
            self._java().setRocchio(*settings)
        self._feedback = ("rocchio", settings)

    def unset_rocchio(self) -> None:
        if self._feedback is not None and self._feedback[0] == "rocchio":
            self._feedback = None
        if self._retrieval is not None:
            self._retrieval.unsetRocchio()

    def is_using_rocchio(self) -> bool:
        return self._feedback is not None and self._feedback[0] == "rocchio"

    def set_analyzer(self, analyzer: Any) -> None:
        """Query texts are analysed by ``analyzer`` (a Java ``Analyzer``) from now on, instead
        of the index's analyzer for the searched field; None goes back to that.

        Raises:
            InvalidRequestError: for anything but a Java ``Analyzer`` (or None).
        """
        if analyzer is not None and not AnalyzerSpec.is_java(analyzer):
            raise errors.InvalidRequestError(
                f"an analyzer is a Java Analyzer (Analyzer.custom, get_lucene_analyzer), not "
                f"{analyzer!r}"
            )
        self._analyzer = analyzer
        self._retrieval = None

    def set_language(self, language: str) -> None:
        """Query texts are analysed by Lucene's analyzer of ``language`` (an ISO 639-1 code:
        ``en`` is Anserini's English analyzer, ``de`` Lucene's ``GermanAnalyzer``, …), as
        :func:`~pylucene_mcp.research.analysis.get_lucene_analyzer` gives it.

        Raises:
            InvalidRequestError: for a language Lucene has no analyzer of here.
        """
        self.set_analyzer(get_lucene_analyzer(language))

    def set_bm25(self, k1: float = 0.9, b: float = 0.4) -> None:
        self._similarity = Similarity.bm25(k1, b)
        self._retrieval = None

    def set_qld(self, mu: float = 1000.0) -> None:
        self._similarity = Similarity.lm_dirichlet(mu)
        self._retrieval = None

    def get_similarity(self) -> Any:
        return self._similarity

    def batch_doc(self, docids: Sequence[str], threads: int = 1) -> dict[str, Document]:
        found = {docid: self.doc(docid) for docid in docids}
        return {docid: doc for docid, doc in found.items() if doc is not None}


def _bag_of_words_only(generator: Any) -> None:
    """Raises InvalidRequestError for a query generator other than the bag of words."""
    if generator is not None and not isinstance(generator, JBagOfWordsQueryGenerator):
        raise errors.InvalidRequestError(
            f"the query generator here is the bag of words (JBagOfWordsQueryGenerator), not "
            f"{generator!r}: for another query, search a Lucene Query built with querybuilder"
        )


def _filtered(hits: list[ScoredDoc], strip: bool, dedupe: bool) -> list[ScoredDoc]:
    """pyserini's ``strip_segment_id`` and ``remove_dups``."""
    seen: set[str] = set()
    out = []
    for hit in hits:
        if strip:
            hit = ScoredDoc(hit.docid.split(".")[0], hit.lucene_docid, hit.score, hit._reader)
        if hit.docid in seen:
            continue
        out.append(hit)
        if dedupe:
            seen.add(hit.docid)
    return out


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
        self._index, self._owned = _open(index_dir)
        self._fields = _Fields(self._index)

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
            return _as_pyserini(None, f"no document with the id {docid!r}")
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
            return _as_pyserini(None, str(exc))

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
            return _as_pyserini(None, f"no document with the id {docid!r}")
        chosen = similarity if similarity is not None else Similarity.bm25(0.9, 0.4)
        retrieval = _retrieval(self._index, self._fields, self._reader(), chosen)
        with jvm.java_errors(caller_input=True):
            return float(retrieval.score(str(query), lucene))

    def dump_documents_BM25(self, file_path: str | Path, k1: float = 0.9, b: float = 0.4) -> int:
        """Writes each document's vector with BM25 (``k1``, ``b``) weights to ``file_path``, a
        JSON line a document in pyserini's vector format (``{"id": …, "vector": {term:
        weight}}``; a term's weight is :meth:`compute_bm25_term_weight`'s). Returns how many.

        Raises:
            InvalidRequestError: when the searched field has no term vectors.
        """
        _need_term_vectors(self._index, self._fields.contents, "a dump of the documents'")
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
        return _as_pyserini(-1, f"no document with the id {docid!r}") if lucene is None else lucene

    def close(self) -> None:
        if self._owned:
            self._index.close()

    def __enter__(self) -> LuceneIndexReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":  # python -m …, as pyserini's ``python -m pyserini.index.lucene``
    from pylucene_mcp.research.indexer import main

    main()
