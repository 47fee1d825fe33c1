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

This module holds the searchers and pyserini's other module names; the index reader is
:mod:`~pylucene_mcp.research.pyserini_reader`, what both share
:mod:`~pylucene_mcp.research.pyserini_base`; each is exported here under pyserini's name.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Self

import pylucene_mcp.research.analysis as analysis
from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.analysis import Analyzer, JAnalyzerUtils, get_lucene_analyzer
from pylucene_mcp.research.components import Analyzer as AnalyzerSpec
from pylucene_mcp.research.components import Similarity
from pylucene_mcp.research.index import ResearchIndex, at_least_one
from pylucene_mcp.research.indexer import JacksonObjectMapper, LuceneIndexer
from pylucene_mcp.research.pyserini_base import (
    Document,
    FeedbackNeedsText,
    Fields,
    PyseriniAnswer,
    ScoredDoc,
    anserini_retrieval,
    need_term_vectors,
    open_index,
)
from pylucene_mcp.research.pyserini_reader import LuceneIndexReader

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


class SearcherOverIndex:
    """What pyserini's searchers over a research index share (:class:`LuceneSearcher`, and
    :class:`~pylucene_mcp.research.impact.LuceneImpactSearcher`): the index (opened read-only),
    its reader, its documents, and the Java retrieval over its latest commit, made again when a
    commit or the searcher's settings changed."""

    def __init__(self, index_dir: str | Path | ResearchIndex) -> None:
        self._index, self._owned = open_index(index_dir)
        self.index_dir = str(self._index.path)
        self._fields = Fields(self._index)
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


class LuceneSearcher(SearcherOverIndex):
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
        retrieval = anserini_retrieval(
            self._index, self._fields, reader, self._similarity, self._analyzer
        )
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
        need_term_vectors(self._index, self._fields.contents, "the feedback documents'")

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


if __name__ == "__main__":  # python -m …, as pyserini's ``python -m pyserini.index.lucene``
    from pylucene_mcp.research.indexer import main

    main()
