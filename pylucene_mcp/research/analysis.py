"""pyserini's analysis module (``pyserini.analysis``), name for name, so that a script that
analyses text runs with its import changed::

    from pylucene_mcp.research.analysis import Analyzer, get_lucene_analyzer

    Analyzer(get_lucene_analyzer()).analyze("City buses are running on time.")
    # ['citi', 'buse', 'run', 'time']

``get_lucene_analyzer`` gives Anserini's English analyzer (Porter or Krovetz stemming, each
step optional) or Lucene's analyzer of a language; the analyzers are Lucene's own classes.
``JAnalyzer`` (Lucene's ``Analyzer`` class) and ``JAnalyzerUtils`` are here as pyserini has them.
"""

from __future__ import annotations

import functools
from collections import Counter
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.components import Analyzer as AnalyzerSpec


class AnalysisError(errors.InvalidRequestError, ValueError):
    """An analyzer asked for that is not here: the project's error, and pyserini's
    ``ValueError`` for a script that catches that."""


#: Lucene's analyzer of each language (lucene-analysis-common), by the codes pyserini and
#: set_language take
LANGUAGE_ANALYZERS = {
    "ar": "ar.ArabicAnalyzer",
    "bg": "bg.BulgarianAnalyzer",
    "bn": "bn.BengaliAnalyzer",
    "ca": "ca.CatalanAnalyzer",
    "cz": "cz.CzechAnalyzer",
    "da": "da.DanishAnalyzer",
    "de": "de.GermanAnalyzer",
    "el": "el.GreekAnalyzer",
    "es": "es.SpanishAnalyzer",
    "et": "et.EstonianAnalyzer",
    "eu": "eu.BasqueAnalyzer",
    "fa": "fa.PersianAnalyzer",
    "fi": "fi.FinnishAnalyzer",
    "fr": "fr.FrenchAnalyzer",
    "ga": "ga.IrishAnalyzer",
    "gl": "gl.GalicianAnalyzer",
    "hi": "hi.HindiAnalyzer",
    "hu": "hu.HungarianAnalyzer",
    "hy": "hy.ArmenianAnalyzer",
    "id": "id.IndonesianAnalyzer",
    "it": "it.ItalianAnalyzer",
    "ko": "cjk.CJKAnalyzer",
    "lt": "lt.LithuanianAnalyzer",
    "lv": "lv.LatvianAnalyzer",
    "ne": "ne.NepaliAnalyzer",
    "nl": "nl.DutchAnalyzer",
    "no": "no.NorwegianAnalyzer",
    "pt": "pt.PortugueseAnalyzer",
    "ro": "ro.RomanianAnalyzer",
    "ru": "ru.RussianAnalyzer",
    "sr": "sr.SerbianAnalyzer",
    "sv": "sv.SwedishAnalyzer",
    "ta": "ta.TamilAnalyzer",
    "te": "te.TeluguAnalyzer",
    "th": "th.ThaiAnalyzer",
    "tr": "tr.TurkishAnalyzer",
    "zh": "cjk.CJKAnalyzer",
}
#: Anserini's English stemmers and Lucene's filter for each
_STEMMERS = {"porter": "porterStem", "krovetz": "kStem"}


@functools.cache
def english(stemming: bool = True, stemmer: str = "porter", stopwords: bool = True) -> Any:
    """Anserini's default English analyzer (``DefaultEnglishAnalyzer``): the standard tokenizer,
    English possessives, lower case, Lucene's English stop words, a stemmer (the last two
    optional).

    Raises:
        AnalysisError: for a stemmer Anserini does not have.
    """
    if stemmer not in _STEMMERS:
        raise AnalysisError(
            f"no stemmer {stemmer!r}: Anserini's English analyzer stems with "
            f"{' or '.join(_STEMMERS)}"
        )
    filters = ["englishPossessive", "lowercase"]
    if stopwords:
        filters.append("stop")
    if stemming:
        filters.append(_STEMMERS[stemmer])
    return AnalyzerSpec.custom("standard", filters)


def get_lucene_analyzer(
    language: str = "en",
    stemming: bool = True,
    stemmer: str = "porter",
    stopwords: bool = True,
    huggingFaceTokenizer: str | None = None,  # pyserini's name
) -> Any:
    """A Java ``Analyzer``: Anserini's English analyzer for ``en`` (``stemming``, ``stemmer``
    and ``stopwords`` as pyserini takes them), Lucene's analyzer of another language.

    Raises:
        AnalysisError: for a language without an analyzer here (the message lists those
            with one); a Hugging Face tokenizer, which would be fetched from its hub.
    """
    code = str(language).lower()
    if code == "en":
        return english(bool(stemming), stemmer, bool(stopwords))
    if code == "hgf_tokenizer":
        raise AnalysisError(
            f"a Hugging Face tokenizer ({huggingFaceTokenizer!r}) is not here: pyserini fetches "
            "it from the Hugging Face hub; tokenize with the tokenizers package and index the "
            "tokens pretokenized"
        )
    name = LANGUAGE_ANALYZERS.get(code)
    if name is None:
        raise AnalysisError(
            f"no analyzer of the language {language!r} here; these have one: "
            f"{', '.join(['en', *sorted(LANGUAGE_ANALYZERS)])}"
        )
    with jvm.java_errors():
        return jvm.jclass(f"org.apache.lucene.analysis.{name}")()


def tokens(analyzer: Any, text: str, field: str = "contents") -> list[str]:
    """``text`` as ``analyzer`` makes it into terms (for ``field``)."""
    with jvm.java_errors(caller_input=True):
        found = jvm.jclass("io.github.pylucenemcp.research.Retrieval").tokens(analyzer, field, text)
    return [str(token) for token in found]


class Analyzer:
    """pyserini's wrapper of a Lucene ``Analyzer``: its terms of a text, and their counts."""

    def __init__(self, analyzer: Any) -> None:
        """Raises:
        TypeError: for anything but a Java ``Analyzer`` (as pyserini).
        """
        if not AnalyzerSpec.is_java(analyzer):
            raise TypeError(
                f"Analyzer wraps a Java Analyzer (get_lucene_analyzer()), not {analyzer!r}"
            )
        self.analyzer = analyzer

    def analyze(self, text: str) -> list[str]:
        """The terms of ``text``, in order."""
        return tokens(self.analyzer, text)

    def compute_document_vector(self, text: str) -> dict[str, int]:
        """Each term of ``text`` and how often it occurs."""
        return dict(Counter(self.analyze(text)))


class _AnalyzerUtils:
    """Anserini's ``AnalyzerUtils``, as pyserini's ``JAnalyzerUtils``."""

    @staticmethod
    def analyze(analyzer: Any, text: str) -> Any:
        """The terms of ``text`` as a Java ``List`` of strings."""
        words = jvm.jarray("String", tokens(analyzer, text))
        return jvm.jclass("java.util.ArrayList")(jvm.jclass("java.util.Arrays").asList(words))


JAnalyzerUtils = _AnalyzerUtils()


def __getattr__(name: str) -> Any:
    """``JAnalyzer``: Lucene's ``Analyzer`` class (the JVM starts when it is asked for)."""
    if name == "JAnalyzer":
        jvm.start()
        return jvm.jclass("org.apache.lucene.analysis.Analyzer")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
