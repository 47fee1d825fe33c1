"""pyserini's vectorizers (``pyserini.vectorizer``): documents and queries as SciPy sparse rows
over an index's vocabulary, for a classifier or a clustering::

    from pylucene_mcp.research.vectorizer import BM25Vectorizer, TfidfVectorizer

    vectors = TfidfVectorizer("indexes/cacm", min_df=5).get_vectors(["CACM-0239"], norm=None)

The vocabulary is the searched field's terms in more than ``min_df`` documents, in term order
(column ``i`` is the ``i``-th). A tf-idf weight is the term's count in the document times
ln(documents / df); a BM25 weight is :meth:`LuceneIndexReader.compute_bm25_term_weight`'s (k1
0.9, b 0.4). Rows are scaled to unit length (``norm="l2"``, or ``"l1"``) unless ``norm`` is
None. A query vector counts the query's analysed words (Anserini's English analyzer, as
pyserini's). Needs SciPy (the ``research`` extra).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from pylucene_mcp.basics import errors
from pylucene_mcp.research.pyserini_reader import LuceneIndexReader


def _sparse() -> Any:
    try:
        from scipy import sparse  # type: ignore[import-untyped]
    except ImportError as exc:  # an optional dependency
        raise errors.SetupError(
            "the vectorizers need SciPy: pip install 'pylucene-mcp[research]'"
        ) from exc
    return sparse


class Vectorizer:
    """The vocabulary of an index, and query vectors over it."""

    def __init__(
        self, lucene_index_path: str | Path, min_df: int = 1, verbose: bool = False
    ) -> None:
        self.min_df = int(min_df)
        self.verbose = verbose
        self.index_reader = LuceneIndexReader(lucene_index_path)
        self.num_docs = int(self.index_reader.stats()["documents"])
        terms = list(self.index_reader.terms())
        self.df = {t.term: t.df for t in terms}
        self.vocabulary_ = sorted(t.term for t in terms if t.df > self.min_df)
        self.term_to_index = {term: i for i, term in enumerate(self.vocabulary_)}
        self.vocabulary_size = len(self.vocabulary_)

    def get_query_vector(self, query: str) -> Any:
        """A 1 × vocabulary row: how often each analysed word of ``query`` occurs in it."""
        from pylucene_mcp.research.analysis import get_lucene_analyzer

        columns = [
            self.term_to_index[term]
            for term in self.index_reader.analyze(query, get_lucene_analyzer())
            if term in self.term_to_index
        ]
        return _sparse().csr_matrix(
            ([1] * len(columns), ([0] * len(columns), columns)), shape=(1, self.vocabulary_size)
        )

    def _weight(self, docid: str, term: str, tf: int) -> float:
        raise NotImplementedError

    def get_vectors(self, docids: Sequence[str], norm: str | None = "l2") -> Any:
        """A row for each of ``docids`` (an empty row for an id the index does not have).

        Raises:
            InvalidRequestError: for a norm other than l2, l1 or None.
        """
        if norm not in ("l2", "l1", None):
            raise errors.InvalidRequestError(f"norm is 'l2', 'l1' or None, not {norm!r}")
        rows, columns, data = [], [], []
        for row, docid in enumerate(docids):
            vector = self.index_reader.get_document_vector(docid)
            for term, tf in (vector or {}).items():
                column = self.term_to_index.get(term)
                if column is not None:
                    rows.append(row)
                    columns.append(column)
                    data.append(self._weight(docid, term, tf))
        matrix = _sparse().csr_matrix(
            (data, (rows, columns)), shape=(len(docids), self.vocabulary_size), dtype=float
        )
        if norm is not None:
            matrix = _normalized(matrix, norm)
        return matrix


def _normalized(matrix: Any, norm: str) -> Any:
    """Each row of ``matrix`` divided by its length (l2) or the sum of its magnitudes (l1);
    an empty row stays empty."""
    squared = matrix.multiply(matrix) if norm == "l2" else abs(matrix)
    lengths = squared.sum(axis=1).A1
    if norm == "l2":
        lengths = lengths**0.5
    scale = [1.0 / n if n else 0.0 for n in lengths]
    return _sparse().diags(scale) @ matrix


class TfidfVectorizer(Vectorizer):
    """Rows of tf × ln(documents / df)."""

    def _weight(self, docid: str, term: str, tf: int) -> float:
        return tf * math.log(self.num_docs / self.df[term])


class BM25Vectorizer(Vectorizer):
    """Rows of BM25 (0.9, 0.4) term weights."""

    def _weight(self, docid: str, term: str, tf: int) -> float:
        return self.index_reader.compute_bm25_term_weight(docid, term, analyzer=None)
