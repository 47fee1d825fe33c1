"""pyserini's ``LuceneImpactSearcher``: learned sparse retrieval (SPLADE, uniCOIL, DeepImpact) over
an impact index, so that a script runs with its import changed::

    from pylucene_mcp.research import LuceneImpactSearcher

    searcher = LuceneImpactSearcher("indexes/cacm-splade", "queries-splade.jsonl")
    hits = searcher.search("what articles exist on semantic networks", k=10)

A query is its terms' weights: given as a dict (``{"semantic": 120, "network": 87}``), or as a
text that the query encoder turns into one: None splits it at white space and counts each token
(pyserini's ``TokFreqQueryEncoder``), a ``.jsonl``/``.json`` file of pre-encoded queries
(``{"contents": text, "vector": {...}}`` a line: pyserini's ``CachedDataQueryEncoder``) looks its
text up, and any object with ``encode(text) -> dict`` is asked. As pyserini does, a weight is
taken as an integer (its integer part) and a term is kept only where the index has it in fewer
than all of its documents (its idf ``ln(N/df)`` above ``min_idf``, 0). The terms are ORed, each
boosted by its weight; a document scores the sum over its matched terms of its weight (the
term's frequency in the impact index) times the query's, ties by id, scores adjusted as
Anserini's are.

Indexes come from :class:`~pylucene_mcp.research.LuceneIndexer` or
``python -m pylucene_mcp.research.indexer -collection JsonVectorCollection -impact -pretokenized``
(or from Anserini's own indexer: :class:`~pylucene_mcp.research.ResearchIndex` opens Anserini's
indexes read-only).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.components import Similarity
from pylucene_mcp.research.index import ResearchIndex, at_least_one
from pylucene_mcp.research.indexer import _as_int
from pylucene_mcp.research.pyserini import SearcherOverIndex
from pylucene_mcp.research.pyserini_base import ScoredDoc, anserini_retrieval


class QueryEncoder(Protocol):
    """What turns a query's text into its terms' weights."""

    def encode(self, text: str, **kwargs: Any) -> Mapping[str, Any]: ...


class TokFreqQueryEncoder:
    """pyserini's: a text's white-space tokens, each weighted by how often it occurs."""

    def __init__(self, model_name_or_path: str | None = None) -> None:
        if model_name_or_path is not None:
            raise errors.InvalidRequestError(
                "a tokenizer from a model is not to be had here (no model hub): give the "
                "queries' weights, a file of pre-encoded queries, or None for white space"
            )

    def encode(self, text: str, **kwargs: Any) -> dict[str, int]:
        vector: dict[str, int] = {}
        for token in text.strip().split():
            vector[token] = vector.get(token, 0) + 1
        return vector


class CachedDataQueryEncoder:
    """pyserini's: pre-encoded queries, a JSON object a line with ``contents`` (the query's
    text) and ``vector`` (its weights), looked up by the text, spaces around it aside."""

    def __init__(self, model_name_or_path: str | Path) -> None:
        self.vectors: dict[str, Mapping[str, Any]] = {}
        with open(model_name_or_path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, start=1):
                if not line.strip():
                    continue
                try:
                    info = json.loads(line)
                    self.vectors[str(info["contents"]).strip()] = info["vector"]
                except (ValueError, KeyError, TypeError) as exc:
                    raise errors.InvalidRequestError(
                        f"{model_name_or_path}, line {number}: a pre-encoded query is a JSON "
                        f'object with "contents" and "vector" ({exc})'
                    ) from exc

    def encode(self, text: str, **kwargs: Any) -> Mapping[str, Any]:
        try:
            return self.vectors[text.strip()]
        except KeyError:
            raise errors.InvalidRequestError(
                f"the query {text.strip()[:80]!r} is not among the pre-encoded queries"
            ) from None


def encoder_of(given: QueryEncoder | str | Path | None) -> QueryEncoder:
    """The encoder ``given`` names, as pyserini's ``LuceneImpactSearcher`` reads it."""
    if given is None:
        return TokFreqQueryEncoder()
    if isinstance(given, str | Path):
        if os.path.isfile(given) and str(given).endswith((".jsonl", ".json")):
            return CachedDataQueryEncoder(given)
        raise errors.InvalidRequestError(
            f"query_encoder {str(given)!r}: a model's query encoder (SPLADE, uniCOIL) is not to "
            "be had here (no model hub); give a .jsonl file of pre-encoded queries, an object "
            "with encode(text) -> weights, or None (white-space tokens)"
        )
    if not callable(getattr(given, "encode", None)):
        raise errors.InvalidRequestError(
            f"query_encoder is a file, an object with encode(text) -> weights, or None, not "
            f"{given!r}"
        )
    return given


class LuceneImpactSearcher(SearcherOverIndex):
    """pyserini's ``LuceneImpactSearcher`` over an impact index (opened read-only)."""

    def __init__(
        self,
        index_dir: str | Path | ResearchIndex,
        query_encoder: QueryEncoder | str | Path | None = None,
        min_idf: float = 0,
        encoder_type: str = "pytorch",
        prebuilt_index_name: str | None = None,
    ) -> None:
        """Raises:
        InvalidRequestError: for an encoder that is not to be had here (a model's name, or
            ``encoder_type='onnx'``), or a prebuilt index (nothing is downloaded here).
        """
        if encoder_type != "pytorch":
            raise errors.InvalidRequestError(
                f"encoder_type {encoder_type!r}: Anserini's ONNX query encoders need their "
                "models from the network; give the queries' weights or a pre-encoded file"
            )
        if prebuilt_index_name is not None:
            raise errors.InvalidRequestError("prebuilt indexes are not downloaded here")
        self.query_encoder = encoder_of(query_encoder)
        self.encoder_type = encoder_type
        self.min_idf = min_idf
        self.prebuilt_index_name = prebuilt_index_name
        super().__init__(index_dir)

    def _made(self, reader: Any) -> Any:
        """Anserini's retrieval scoring impacts (no analyzer: a query is its weights)."""
        return anserini_retrieval(self._index, self._fields, reader, Similarity.impact())

    def encode(self, query: str) -> Mapping[str, Any]:
        """The weights the query encoder gives ``query``."""
        return self.query_encoder.encode(query)

    def _weights(self, query: str | Mapping[str, Any], reader: Any) -> Any:
        """The query as Anserini's searcher takes it: a Java ``HashMap`` of its terms with an
        idf above ``min_idf`` to their integer weights, put in the encoder's order."""
        if isinstance(query, Mapping):
            weights = query
        elif isinstance(query, str):
            weights = self.encode(query)
        else:
            raise errors.InvalidRequestError(
                f"a query is a text or its terms' weights (a dict), not {query!r}"
            )
        documents = reader.numDocs()
        terms = jvm.jclass("java.util.HashMap")()
        integer = jvm.jclass("java.lang.Integer")
        term = jvm.jclass("org.apache.lucene.index.Term")
        for token, weight in weights.items():
            df = reader.docFreq(term(self._fields.contents, str(token)))
            if df and math.log(documents / df) > self.min_idf:
                terms.put(str(token), integer(_as_int(weight)))
        return terms

    def search(
        self, q: str | Mapping[str, Any], k: int = 10, fields: Mapping[str, float] | None = None
    ) -> list[ScoredDoc]:
        """The ``k`` best documents for ``q`` (a text, encoded; or its weights)."""
        return self.batch_search([q], ["q"], k, 1, fields)["q"]

    def batch_search(
        self,
        queries: Sequence[str | Mapping[str, Any]],
        qids: Sequence[str],
        k: int = 10,
        threads: int = 1,
        fields: Mapping[str, float] | None = None,
    ) -> dict[str, list[ScoredDoc]]:
        """Each query's ``k`` best documents, by its id, searched on ``threads`` threads.

        Raises:
            InvalidRequestError: for ``fields`` (an impact index has one field of weights), or
                queries and ids that do not pair up.
        """
        at_least_one("k", k)
        at_least_one("threads", threads)
        if fields:
            raise errors.InvalidRequestError(
                "an impact index has one field of term weights: search it without fields"
            )
        if isinstance(queries, str) or isinstance(qids, str) or len(queries) != len(qids):
            raise errors.InvalidRequestError("queries and qids are lists, one id for each query")
        retrieval = self._java()
        reader = self._reader
        listed = jvm.jclass("java.util.ArrayList")()
        for query in queries:
            listed.add(self._weights(query, reader))
        with jvm.java_errors(caller_input=True):
            answer = retrieval.weighted(listed, k, threads)
        found = json.loads(memoryview(answer).tobytes())
        return {
            qid: [ScoredDoc(d, n, s, reader) for d, n, s in hits]
            for qid, hits in zip(qids, found, strict=True)
        }
