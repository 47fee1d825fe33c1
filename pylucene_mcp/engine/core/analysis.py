"""The schema's analyzers (built by the Java shim with Lucene's ``CustomAnalyzer``) and
:func:`analyze`, which shows what a field's analysis makes of a text."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema


@dataclass(frozen=True)
class Token:
    """One token of an analyzed text: the term, and where it came from in the text."""

    term: str
    start: int
    end: int
    position: int


@functools.cache
def schema_analyzer(name_parts: bool = True) -> Any:
    """The per-field ``Analyzer`` of the whole schema (a Java object), as the index analyses
    documents; ``name_parts=False``: as a query's words are analysed (a joined name such as
    ``ElementTree.write`` stays whole instead of also giving its parts; see the shim's
    ``NamePartsFilter``)."""
    analyzers = jvm.jclass("io.github.pylucenemcp.analysis.Analyzers")
    exact = [f for f in schema.KEYWORD_FIELDS if f not in schema.CASELESS_FIELDS]
    return analyzers.perField(
        schema.CONTENT_REVERSED,
        schema.CONTENT_TRANSLIT_DE,
        jvm.jset(exact),
        jvm.jset(schema.CASELESS_FIELDS),
        jvm.jmap(schema.LEMMA_FIELDS),
        schema.FILE_NAME,
        name_parts,
    )


def analyze(text: str, field: str = schema.CONTENT) -> list[Token]:
    """The tokens that ``field``'s analyzer makes of ``text``.

    >>> [t.term for t in analyze("Müller's ﬁnance", "content_translit_de")]  # doctest: +SKIP
    ['muller's', 'finance']
    """
    char_term = jvm.jclass("org.apache.lucene.analysis.tokenattributes.CharTermAttribute")
    offsets = jvm.jclass("org.apache.lucene.analysis.tokenattributes.OffsetAttribute")
    increments = jvm.jclass("org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute")
    tokens: list[Token] = []
    with jvm.java_errors():
        stream = schema_analyzer().tokenStream(field, text)
        try:
            term = stream.addAttribute(char_term)
            offset = stream.addAttribute(offsets)
            increment = stream.addAttribute(increments)
            stream.reset()
            position = -1
            while stream.incrementToken():
                position += increment.getPositionIncrement()
                tokens.append(
                    Token(term.toString(), offset.startOffset(), offset.endOffset(), position)
                )
            stream.end()
        finally:
            stream.close()
    return tokens
