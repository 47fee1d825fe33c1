"""The researcher's Lucene: indexes with a schema of your own, analyzers from specs, similarities,
bag-of-words batch search, TREC topics and qrels, and evaluation with ``ir-measures``.

    >>> from pylucene_mcp.research import Analyzer, FieldSpec, ResearchIndex, Similarity
    >>> english = Analyzer.custom("standard", ["englishPossessive", "lowercase", "stop",
    ...                                        "porterStem"])                 # doctest: +SKIP
    >>> index = ResearchIndex.create("/tmp/cacm", {"id": FieldSpec.keyword(),
    ...     "contents": FieldSpec.text(english)}, Similarity.bm25(0.9, 0.4))   # doctest: +SKIP

This sits beside the product's own document schema (``pylucene_mcp.engine.lucene.index``), which the
crawler and the MCP tools keep using; every wrapper has a ``java`` attribute for what it does
not cover.

Its parts: :mod:`.components` (:class:`Analyzer`, :class:`Similarity`, :class:`FieldSpec`),
:mod:`.index` (:class:`ResearchIndex` and its results), :mod:`.schema` (the schema an index
keeps), :mod:`.pyserini` (pyserini's :class:`LuceneSearcher` and :class:`LuceneIndexReader` over
a research index), :mod:`.impact` (pyserini's :class:`LuceneImpactSearcher`: learned sparse
retrieval over an impact index), :mod:`.dense` (pyserini's :class:`LuceneHnswDenseSearcher` and
:class:`LuceneFlatDenseSearcher` over pre-encoded vectors), :mod:`.trec` (topics, qrels, runs,
:func:`evaluate`), and pyserini's :mod:`.fusion` and :mod:`.trectools` (``TrecRun``, reciprocal
rank fusion and the others).
"""

from pylucene_mcp.research.components import Analyzer, FieldSpec, Similarity, Spec
from pylucene_mcp.research.dense import LuceneFlatDenseSearcher, LuceneHnswDenseSearcher
from pylucene_mcp.research.impact import LuceneImpactSearcher
from pylucene_mcp.research.index import ResearchIndex
from pylucene_mcp.research.indexer import LuceneIndexer
from pylucene_mcp.research.pyserini import (
    Document,
    LuceneIndexReader,
    LuceneSearcher,
    PyseriniAnswer,
)
from pylucene_mcp.research.results import ResearchHit, ResearchResults
from pylucene_mcp.research.trec import evaluate, html_text, read_qrels, read_topics, write_run

__all__ = [
    "Analyzer",
    "Document",
    "FieldSpec",
    "LuceneFlatDenseSearcher",
    "LuceneHnswDenseSearcher",
    "LuceneImpactSearcher",
    "LuceneIndexReader",
    "LuceneIndexer",
    "LuceneSearcher",
    "PyseriniAnswer",
    "ResearchHit",
    "ResearchIndex",
    "ResearchResults",
    "Similarity",
    "Spec",
    "evaluate",
    "html_text",
    "read_qrels",
    "read_topics",
    "write_run",
]
