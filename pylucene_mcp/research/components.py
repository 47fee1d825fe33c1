"""What a research index is built from: analyzers from specs, similarities, field specs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors

Spec = str | Mapping[str, Mapping[str, str]]


class Analyzer:
    """Analyzers built with Lucene's ``CustomAnalyzer`` from factory names (their SPI names:
    ``standard``, ``lowercase``, ``stop``, ``porterStem``, ``englishPossessive``, …)."""

    @staticmethod
    def custom(
        tokenizer: Spec = "standard",
        filters: Sequence[Spec] = (),
        char_filters: Sequence[Spec] = (),
    ) -> Any:
        """A Java ``Analyzer``. A spec is a name, or ``{name: {param: value}}``.

        Raises:
            InvalidRequestError: for an unknown factory name or a bad parameter.
        """
        with jvm.java_errors(caller_input=True):
            builder = jvm.jclass("org.apache.lucene.analysis.custom.CustomAnalyzer").builder()
            for spec in char_filters:
                builder.addCharFilter(*_factory(spec))
            builder.withTokenizer(*_factory(tokenizer))
            for spec in filters:
                builder.addTokenFilter(*_factory(spec))
            return builder.build()

    @staticmethod
    def product(name: str) -> Any:
        """One of the product's own chains, by the name of its field's kind: ``content``
        (ICU NFKC, folding, ligatures; no stemming), ``reversed`` (content with reversed tokens),
        ``translit_de`` (German transliteration), ``lemma_en`` and ``lemma_de`` (each word as its
        dictionary lemmas: locks → lock, Häuser → haus), ``keyword`` and ``caseless_keyword``.

        Raises:
            InvalidRequestError: for another name.
        """
        chains = {
            "content": "content",
            "reversed": "reversed",
            "translit_de": "translitDe",
            "keyword": "keyword",
            "caseless_keyword": "caselessKeyword",
        }
        lemmas = {"lemma_en": "en", "lemma_de": "de"}
        if name not in chains and name not in lemmas:
            raise errors.InvalidRequestError(
                f"no product chain {name!r}; there are {', '.join([*chains, *lemmas])}"
            )
        analyzers = jvm.jclass("io.github.pylucenemcp.analysis.Analyzers")
        with jvm.java_errors():
            if name in lemmas:
                return analyzers.lemma(lemmas[name])
            return getattr(analyzers, chains[name])()


def _factory(spec: Spec) -> tuple[str, Any]:
    if isinstance(spec, str):
        return spec, jvm.jarray("String", [])
    ((name, params),) = spec.items()
    flat = [str(x) for pair in params.items() for x in pair]
    return name, jvm.jarray("String", flat)


class Similarity:
    """Lucene similarities, chosen per index."""

    @staticmethod
    def bm25(k1: float = 1.2, b: float = 0.75) -> Any:
        return jvm.jclass("org.apache.lucene.search.similarities.BM25Similarity")(k1, b)

    @staticmethod
    def lm_dirichlet(mu: float = 2000.0) -> Any:
        return jvm.jclass("org.apache.lucene.search.similarities.LMDirichletSimilarity")(mu)

    @staticmethod
    def lm_jelinek_mercer(lambda_: float = 0.7) -> Any:
        return jvm.jclass("org.apache.lucene.search.similarities.LMJelinekMercerSimilarity")(
            lambda_
        )

    @staticmethod
    def classic() -> Any:
        return jvm.jclass("org.apache.lucene.search.similarities.ClassicSimilarity")()


@dataclass(frozen=True)
class FieldSpec:
    """One field of a research index: analyzed ``text`` (term vectors on request), one exact
    ``keyword`` (sorted doc values on request) or a ``long`` (points for ranges, numeric doc
    values for sorting); any may be stored."""

    kind: Literal["keyword", "text", "long"]
    stored: bool = True
    analyzer: Any = None
    term_vectors: bool = False
    doc_values: bool = False

    @classmethod
    def keyword(cls, stored: bool = True, doc_values: bool = False) -> FieldSpec:
        return cls("keyword", stored, doc_values=doc_values)

    @classmethod
    def text(
        cls, analyzer: Any = None, stored: bool = False, term_vectors: bool = False
    ) -> FieldSpec:
        return cls("text", stored, analyzer, term_vectors=term_vectors)

    @classmethod
    def long(cls, stored: bool = True, doc_values: bool = True) -> FieldSpec:
        return cls("long", stored, doc_values=doc_values)
