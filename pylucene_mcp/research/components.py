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
        try:
            with jvm.java_errors(caller_input=True):
                builder = jvm.jclass("org.apache.lucene.analysis.custom.CustomAnalyzer").builder()
                for spec in char_filters:
                    builder.addCharFilter(*_factory(spec))
                builder.withTokenizer(*_factory(tokenizer))
                for spec in filters:
                    builder.addTokenFilter(*_factory(spec))
                return builder.build()
        except errors.JvmError as exc:
            cause: Any = exc.java_exception
            if cause is not None and isinstance(
                cause, jvm.jclass("java.io.IOException")
            ):  # a file a factory names: words=, dictionary=, …
                refused = errors.InvalidRequestError(
                    f"an analysis factory could not read its file: {cause.getMessage()}; such "
                    "a file is looked up on the Java class path: build the analyzer in Java "
                    "with CustomAnalyzer.builder(Path) for files of a folder"
                )
                refused.java_exception = cause
                raise refused from None
            raise

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
        known = _PRODUCTS.get(name)
        if known is None:
            analyzers = jvm.jclass("io.github.pylucenemcp.analysis.Analyzers")
            with jvm.java_errors():
                if name in lemmas:
                    known = analyzers.lemma(lemmas[name])
                else:
                    known = getattr(analyzers, chains[name])()
            _PRODUCTS[name] = known
        return known

    @staticmethod
    def is_java(value: Any) -> bool:
        """Whether ``value`` is a Java ``Analyzer`` (one of Lucene's or your own)."""
        return isinstance(value, jvm.jclass("org.apache.lucene.analysis.Analyzer"))

    @staticmethod
    def product_name(analyzer: Any) -> str | None:
        """The name ``analyzer`` has as one of the product's chains (:meth:`product` gives one
        instance a name), or None."""
        for name, known in _PRODUCTS.items():
            if known.equals(analyzer):  # Lucene's analyzers are equal only to themselves
                return name
        return None


# one analyzer for each of the product's chains (an analyzer is thread-safe and reusable)
_PRODUCTS: dict[str, Any] = {}


def _factory(spec: Spec) -> tuple[str, Any]:
    if isinstance(spec, str):
        return spec, jvm.jarray("String", [])
    ((name, params),) = spec.items()
    flat = [str(x) for pair in params.items() for x in pair]
    return name, jvm.jarray("String", flat)


class Similarity:
    """Lucene similarities, chosen per index or per search.

    Raises (each):
        InvalidRequestError: for a parameter Lucene refuses (``bm25(k1=-1)``) or one that is not
            a number.
    """

    @staticmethod
    def bm25(k1: float = 1.2, b: float = 0.75) -> Any:
        return _similarity("BM25Similarity", k1=k1, b=b)

    @staticmethod
    def lm_dirichlet(mu: float = 2000.0) -> Any:
        return _similarity("LMDirichletSimilarity", mu=mu)

    @staticmethod
    def lm_jelinek_mercer(lambda_: float = 0.7) -> Any:
        return _similarity("LMJelinekMercerSimilarity", **{"lambda": lambda_})

    @staticmethod
    def classic() -> Any:
        return _similarity("ClassicSimilarity")

    @staticmethod
    def impact() -> Any:
        """Learned sparse retrieval's (Anserini's impact indexes): a match scores the term's
        frequency in the document (its quantized weight) times the query term's boost."""
        return jvm.jclass("io.github.pylucenemcp.research.ImpactSimilarity")()


def _similarity(name: str, **params: Any) -> Any:
    for param, value in params.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise errors.InvalidRequestError(f"{param} of {name} must be a number, not {value!r}")
    java = jvm.jclass(f"org.apache.lucene.search.similarities.{name}")
    with jvm.java_errors(caller_input=True):
        return java(*[float(v) for v in params.values()])


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
    #: what analyses a query's text for this field (None: ``analyzer``, as it analyses the
    #: documents); Anserini's ``-pretokenized`` splits documents at white space and leaves the
    #: queries to the searcher's English analyzer
    query_analyzer: Any = None

    @classmethod
    def keyword(cls, stored: bool = True, doc_values: bool = False) -> FieldSpec:
        return cls("keyword", stored, doc_values=doc_values)

    @classmethod
    def text(
        cls,
        analyzer: Any = None,
        stored: bool = False,
        term_vectors: bool = False,
        query_analyzer: Any = None,
    ) -> FieldSpec:
        """An analyzed field; ``analyzer`` is a Java ``Analyzer`` (:meth:`Analyzer.custom`,
        :meth:`Analyzer.product`, or one of your own), None for Lucene's ``StandardAnalyzer``;
        ``query_analyzer``, one for the texts of queries where they are analysed otherwise
        (None: ``analyzer``).

        Raises:
            InvalidRequestError: for anything else (a name such as ``"english"``).
        """
        for given in (analyzer, query_analyzer):
            if given is not None and not Analyzer.is_java(given):
                raise errors.InvalidRequestError(
                    f"FieldSpec.text takes a Java Analyzer, not {given!r}: build one with "
                    "Analyzer.custom('standard', ['lowercase', 'porterStem']) or "
                    "Analyzer.product('content'), or leave it out for Lucene's StandardAnalyzer"
                )
        return cls(
            "text", stored, analyzer, term_vectors=term_vectors, query_analyzer=query_analyzer
        )

    @classmethod
    def long(cls, stored: bool = True, doc_values: bool = True) -> FieldSpec:
        return cls("long", stored, doc_values=doc_values)
