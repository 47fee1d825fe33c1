"""Quotes drawn from real text, and what an assistant does to them on the way (tests of
locateQuote). Each case knows where its quote truly stands, by how it was drawn; the oracle
of an exact quote is plain Python's search of every document's text."""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Iterator
from typing import Any

#: letters, digits and underscore: what a quote's first and last words are drawn from
WORD = re.compile(r"\w+")
_CURLY = {"'": "’", '"': "“", "-": "–"}
#: German written without umlauts
_TRANSLITERATED = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}


@dataclasses.dataclass(frozen=True)
class Case:
    """A quote (``kind``: as written, or changed as named) of the document ``path``, whose
    true place is ``start``–``end``; ``changed``: the word put in for another (near)."""

    kind: str
    quote: str
    path: str
    start: int
    end: int
    changed: str | None = None


def drawn(docs: list[dict[str, Any]], count: int, seed: int, words: int = 14) -> Iterator[Case]:
    """``count`` quotes of ``words`` words (as spaces part them), each from a random
    document's text, beginning and ending with a word's character, as a person quotes."""
    chance = random.Random(seed)
    made = 0
    while made < count:
        doc = chance.choice(docs)
        spans = [m.span() for m in re.finditer(r"\S+", doc["content"])]
        if len(spans) < words + 2:
            continue
        first = chance.randrange(len(spans) - words)
        start, end = spans[first][0], spans[first + words - 1][1]
        text = doc["content"]
        while start < end and not WORD.match(text[start]):
            start += 1
        while end > start and not WORD.match(text[end - 1]):
            end -= 1
        if len(WORD.findall(text[start:end])) < words // 2:
            continue
        made += 1
        yield Case("exact", doc["content"][start:end], doc["file_path"], start, end)


def variants(case: Case, chance: random.Random) -> Iterator[Case]:
    """What an assistant makes of a quote: its case changed, its line breaks and spaces
    changed, typographic quotation marks and dashes, a ligature, German without its umlauts, a
    word hyphenated at a line's end (each ``normalized``); a word changed (``near``)."""
    q = case.quote

    def as_(kind: str, quote: str, changed: str | None = None) -> Iterator[Case]:
        if quote != q:  # a change that changed nothing leaves the quote exact
            yield dataclasses.replace(case, kind=kind, quote=quote, changed=changed)

    yield from as_("normalized", q.upper() if q.upper() != q else q.lower())
    spaced = re.sub(r"\s+", lambda _: chance.choice(["  ", "\n", " \t "]), q)
    yield from as_("normalized", spaced)
    yield from as_("normalized", "".join(_CURLY.get(c, c) for c in q).replace("fi", "ﬁ"))
    yield from as_("normalized", "".join(_TRANSLITERATED.get(c, c) for c in q))
    long = [m for m in WORD.finditer(q) if len(m.group()) >= 7 and m.group().isalpha()]
    if long:
        word = chance.choice(long)
        cut = word.start() + 3
        yield from as_("normalized", q[:cut] + "-\n" + q[cut:])
    inner = [m for m in WORD.finditer(q) if len(m.group()) >= 4 and m.group().isalpha()][1:-1]
    if inner:
        word = chance.choice(inner)
        other = "zebra" if word.group().lower() != "zebra" else "okapi"
        yield from as_("near", q[: word.start()] + other + q[word.end() :], changed=other)


def places(docs: list[dict[str, Any]], quote: str) -> set[tuple[str, int]]:
    """The oracle of an exact quote: every document and offset where its text stands as whole
    words."""
    pattern = re.compile(rf"(?<!\w){re.escape(quote)}(?!\w)")
    return {(d["file_path"], m.start()) for d in docs for m in pattern.finditer(d["content"])}
