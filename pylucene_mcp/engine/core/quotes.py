"""Where a quote stands in the index: exactly, as normalized text, or nearly (docs/tools.md,
``locateQuote``). Written once for every backend over what each offers (its search and its
stored documents), as :func:`~pylucene_mcp.engine.core.info.document_details` is.

The candidates come from the index: a search of the quote's longest parts between spaces, each a
phrase, ORed (most of them matching first), among the documents the filters allow, or the one
document asked for. The verdict comes from each candidate's stored text:

- ``exact``: the quote as the document writes it, character for character, as whole words;
- ``normalized``: the same once both are folded (:func:`normalize`): case, diacritics,
  ligatures and other compatibility forms, German without umlauts, quotation marks, dashes,
  whitespace and line breaks, a word hyphenated at a line's end;
- ``near``, only where no candidate holds the quote exactly or normalized: the stretch of the
  document whose words line up with the quote's best (the quote's words vote for where it
  starts), with a similarity (difflib's ratio of the two normalized texts, 0–1: character
  errors such as OCR's cost little) and the words that differ.

Spans are character offsets in the stored text (``content``, as ``getDocumentDetails`` reads
it), so a caller can read the context or the page there.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal, Protocol

from pylucene_mcp.basics import errors
from pylucene_mcp.engine.core import limits
from pylucene_mcp.engine.core.filters import Filter
from pylucene_mcp.engine.core.info import StoredDocument
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.core.results import SearchResult

#: the longest quote taken, in characters (a few sentences)
MAX_QUOTE_CHARS = limits.QUOTE_CHARS.high
#: a quote needs this many letters or digits to be found by its words
MIN_QUOTE_CHARS = 8
#: documents the search of the quote's words gives for a verdict
CANDIDATES = 20
#: words of the quote the search asks for (the longest: the rarer, as a rule)
SEARCHED_WORDS = 32
#: characters of context before and after a match
CONTEXT_CHARS = 80
#: the places a document's matches of its best kind may take in the answer
PER_DOCUMENT = 3

Kind = Literal["exact", "normalized", "near"]
_RANK = {"exact": 0, "normalized": 1, "near": 2}

_QUOTES = "\"'`´‘’‚‛“”„‟«»‹›＂＇"
_DASHES = "-‐‑‒–—―−﹘﹣－"
_SOFT_HYPHEN = "\u00ad"
_WORD = re.compile(r"\w+")
#: what a quote's parts between spaces lose at their ends before they are searched
_EDGES = ".,;:!?()[]{}<>" + _QUOTES + _DASHES


class Searches(Protocol):
    """An index that searches and gives a document as it stored it: every backend."""

    def search(self, request: SearchRequest) -> SearchResult: ...

    def stored_document(self, file_path: str) -> StoredDocument: ...


@dataclasses.dataclass(frozen=True)
class Difference:
    """Words where the quote and the document part: ``quote`` as quoted, ``document`` as the
    document writes them (either empty: a word missing or added)."""

    quote: str
    document: str


@dataclasses.dataclass(frozen=True)
class QuoteMatch:
    """One place a quote stands: the document, its page (paged formats), the characters
    ``start``–``end`` of its stored text, that text as the document writes it, context on
    either side, how it matches, its similarity (1.0 for exact and normalized) and, for a near
    match, the words that differ."""

    file_path: str
    title: str | None
    page: int | None
    start: int
    end: int
    text: str
    match: Kind
    similarity: float
    #: the text before and after the place (the MCP answer leaves them out to fit its budget)
    before: str | None = None
    after: str | None = None
    differences: tuple[Difference, ...] | None = None


@dataclasses.dataclass(frozen=True)
class QuoteLocations:
    """Where a quote stands, best first (exact, then normalized, then near by similarity);
    with none at ``min_similarity`` or above, the ``closest`` places below it and what
    differs there, so that a quote can be corrected rather than repeated. ``candidates``:
    the documents whose text was compared."""

    matches: tuple[QuoteMatch, ...]
    closest: tuple[QuoteMatch, ...] | None
    candidates: int
    min_similarity: float
    #: places left out to fit the MCP answer's budget (the MCP tool's, with their context)
    matches_omitted: int | None = None


# -- normalization ---------------------------------------------------------------------------


def _fold(char: str) -> str:
    """What one character becomes in normalized text: lowercase, without diacritics, its
    compatibility form (ligatures spelled out), quotation marks as ``"``, dashes as ``-``,
    whitespace as one space."""
    if char.isspace():
        return " "
    if char in _QUOTES:
        return '"'
    if char in _DASHES:
        return "-"
    if char == _SOFT_HYPHEN:
        return ""
    if char.isascii():
        return char.lower()
    decomposed = unicodedata.normalize("NFKD", char)
    kept = "".join(c for c in decomposed if not unicodedata.combining(c))
    return kept.casefold()


#: a word broken at a line's end: letter, hyphen, a line break among spaces, letter
_LINE_END_HYPHEN = re.compile(r"(?<=\w)[-\u2010\u2011\u00ad][ \t]*\r?\n\s*(?=\w)")


#: the vowels an umlaut folds to, which German without umlauts writes with an "e" after them
_UMLAUT_BASES = frozenset("aou")


def normalize(text: str) -> tuple[str, list[int]]:
    """``text`` folded as a normalized match compares it, and for each character of the folded
    text the offset in ``text`` of the character it comes from. Runs of whitespace are one
    space; a word hyphenated at a line's end is one word; "ae", "oe" and "ue" fold as "ä",
    "ö" and "ü" do (both sides alike: "blue" is "blu" on either)."""
    joined = {m.start(): m.end() for m in _LINE_END_HYPHEN.finditer(text)}
    out: list[str] = []
    origin: list[int] = []
    i, n = 0, len(text)
    while i < n:
        if i in joined:
            i = joined[i]
            continue
        folded = _fold(text[i])
        if folded == " " and (not out or out[-1] == " "):
            i += 1
            continue
        for c in folded:
            out.append(c)
            origin.append(i)
        # German written without umlauts: "ue" folds as "ü" does (Mueller, Müller: muller)
        if folded in _UMLAUT_BASES and i + 1 < n and text[i + 1] in "eE" and i + 1 not in joined:
            i += 1
        i += 1
    if out and out[-1] == " ":
        out.pop()
        origin.pop()
    return "".join(out), origin


# -- locating --------------------------------------------------------------------------------


def locate_quote(
    index: Searches,
    quote: str,
    *,
    file_path: str | None = None,
    filters: Sequence[Filter | Mapping[str, Any]] = (),
    min_similarity: float = 0.8,
    max_results: int = 5,
    within: Any | None = None,
) -> QuoteLocations:
    """Every place where ``quote`` stands in the index (or in the document ``file_path``, or
    among the documents ``filters`` allow), best first, at most ``max_results``; near matches
    only at ``min_similarity`` or above. ``within``: what a search of a restricted caller is
    trimmed to (the search request's ``within``).

    Raises:
        InvalidRequestError: for a quote too short or too long, a similarity outside 0–1 or a
            result count outside 1–50.
        DocumentNotFoundError: for a ``file_path`` that is not indexed.
        InvalidFilterError, UnknownFieldError: for a filter that is wrong.
    """
    if len(quote) > MAX_QUOTE_CHARS:
        raise errors.InvalidRequestError(
            f"a quote is at most {MAX_QUOTE_CHARS} characters (this one has {len(quote)}): "
            "give its most telling sentence"
        )
    quoted = _Text.of(quote.strip())
    words = [w for w, _, _ in quoted.words]
    if sum(len(w) for w in words) < MIN_QUOTE_CHARS:
        raise errors.InvalidRequestError(
            f"a quote needs at least {MIN_QUOTE_CHARS} letters or digits to be found: give a "
            "few words of it"
        )
    limits.QUOTE_SIMILARITY.check("min_similarity", min_similarity)
    limits.QUOTE_RESULTS.check("max_results", max_results)
    if file_path is not None:  # that document alone, read once
        paths = [file_path]
    else:
        paths = _candidates(index, quoted.written, filters, within)
    read = [_Read.of(index.stored_document(path), quoted) for path in paths]
    found = [place for document in read for place in document.sure(quoted)]
    below: list[QuoteMatch] = []
    if not found:  # only then each document's nearest stretch: the costly part
        for document in read:
            place = document.near(quoted)
            if place is not None:
                (found if place.similarity >= min_similarity else below).append(place)
    found.sort(key=_order)
    below.sort(key=_order)
    return QuoteLocations(
        matches=tuple(found[:max_results]),
        closest=None if found else tuple(below[:3]),
        candidates=len(paths),
        min_similarity=min_similarity,
    )


def _order(match: QuoteMatch) -> tuple[int, float, str, int]:
    return (_RANK[match.match], -match.similarity, match.file_path, match.start)


def _candidates(
    index: Searches,
    quote: str,
    filters: Sequence[Filter | Mapping[str, Any]],
    within: Any | None,
) -> list[str]:
    """The documents whose text is compared: the first :data:`CANDIDATES` of a search of the
    quote's longest parts, ORed."""
    # the quote's parts between spaces, each a phrase, so that the analyzer cuts them as it
    # cut the document ("0.0.8.b" is one token, "don't" one or two as the text's were)
    parts = {p.strip(_EDGES) for p in quote.split()} - {""}
    chosen = sorted(parts, key=lambda w: (-len(w), w))[:SEARCHED_WORDS]
    text = " ".join('"' + re.sub(r'(["\\])', r"\\\1", w) + '"' for w in chosen)
    request = SearchRequest(
        text,
        filters=list(filters),
        default_operator="OR",
        page_size=CANDIDATES,
        max_passages=0,
        word_forms=False,
        within=within,
    )
    return [hit.file_path for hit in index.search(request).documents]


@dataclasses.dataclass(frozen=True)
class _Read:
    """A candidate document as stored, and the stretches of it compared with the quote (only
    those around the quote's longest words are normalized, not a long document whole)."""

    stored: StoredDocument
    title: str | None
    stretches: list[_Text]

    @classmethod
    def of(cls, stored: StoredDocument, quote: _Text) -> _Read:
        title = stored.fields.get("title")
        content = stored.content
        stretches = [_Text.of(content[a:b], a) for a, b in _stretches(content, quote)]
        return cls(stored, str(title) if title else None, stretches)

    def sure(self, quote: _Text) -> list[QuoteMatch]:
        """The places where the quote stands exactly or normalized, whole words only."""
        content = self.stored.content
        places: list[QuoteMatch] = []
        seen: set[int] = set()
        for at in _occurrences(content, quote.written):
            places.append(self._match(at, at + len(quote.written), "exact", 1.0))
            seen.add(at)
        for document in self.stretches:
            for at in _occurrences(document.folded, quote.folded):
                start, end = document.written_span(at, at + len(quote.folded))
                if start not in seen:
                    places.append(self._match(start, end, "normalized", 1.0))
                    seen.add(start)
        return places[:PER_DOCUMENT]

    def near(self, quote: _Text) -> QuoteMatch | None:
        """The stretch most like the quote (None: no word of the quote lines up)."""
        found = [n for n in (_nearest_stretch(d, quote) for d in self.stretches) if n]
        if not found:
            return None
        start, end, similarity, differences = max(found, key=lambda n: n[2])
        return self._match(start, end, "near", similarity, differences)

    def _match(
        self,
        start: int,
        end: int,
        kind: Kind,
        similarity: float,
        differences: tuple[Difference, ...] | None = None,
    ) -> QuoteMatch:
        content = self.stored.content
        return QuoteMatch(
            file_path=self.stored.path,
            title=self.title,
            page=self.stored.page_of(start),
            start=start,
            end=end,
            text=content[start:end],
            before=content[max(0, start - CONTEXT_CHARS) : start],
            after=content[end : end + CONTEXT_CHARS],
            match=kind,
            similarity=round(similarity, 4),
            differences=differences,
        )


#: the quote's longest words whose places in a document mark where to look
ANCHORS = 3
#: the stretches around those places looked at in one document (the first, in its order)
MAX_STRETCHES = 12


def _stretches(content: str, quote: _Text) -> list[tuple[int, int]]:
    """The stretches of ``content`` to compare with the quote: around each place (as lowercase
    text has it) of one of its :data:`ANCHORS` longest words, as far again as the quote is
    long on either side, merged; the whole text when it is short or none of them is in it
    as written (a word the quote spells without its diacritics, say)."""
    reach = 2 * len(quote.written) + 64
    if len(content) <= 4 * reach:
        return [(0, len(content))]
    lowered = content.lower()
    if len(lowered) != len(content):  # a letter whose lowercase is longer: offsets differ
        return [(0, len(content))]
    words = sorted({w for w, _, _ in quote.words}, key=lambda w: (-len(w), w))[:ANCHORS]
    around: list[tuple[int, int]] = []
    for word in words:
        at = lowered.find(word)
        while at >= 0 and len(around) < 4 * MAX_STRETCHES:
            around.append((max(0, at - reach), min(len(content), at + len(word) + reach)))
            at = lowered.find(word, at + 1)
    if not around:
        return [(0, len(content))]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(around):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged[:MAX_STRETCHES]


def _in_word(char: str) -> bool:
    return char.isalnum() or char == "_"


def _occurrences(text: str, part: str) -> list[int]:
    """Where ``part`` stands in ``text`` as whole words (not the "ample" of "example"), the
    first :data:`PER_DOCUMENT`."""
    found: list[int] = []
    at = text.find(part)
    while at >= 0 and len(found) < PER_DOCUMENT:
        end = at + len(part)
        cut_before = at > 0 and _in_word(part[0]) and _in_word(text[at - 1])
        cut_after = end < len(text) and _in_word(part[-1]) and _in_word(text[end])
        if not (cut_before or cut_after):
            found.append(at)
        at = text.find(part, at + 1)
    return found


@dataclasses.dataclass(frozen=True)
class _Text:
    """A text as written, normalized (:func:`normalize`) with each normalized character's
    origin, and the normalized text's words with their spans in it."""

    written: str
    folded: str
    origin: list[int]

    @classmethod
    def of(cls, written: str, offset: int = 0) -> _Text:
        """``written`` normalized; ``offset``: where it starts in a longer text, which its
        spans then count in."""
        folded, origin = normalize(written)
        return cls(written, folded, [offset + o for o in origin], offset)

    #: where ``written`` starts in the text it was cut from
    offset: int = 0

    @property
    def words(self) -> list[tuple[str, int, int]]:
        return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(self.folded)]

    def written_span(self, start: int, end: int) -> tuple[int, int]:
        """The characters of the written text that the normalized ``start``–``end`` come from
        (an "e" folded into the vowel before it, as "ue" into "u", among them)."""
        begin, stop = self.origin[start], self.origin[end - 1] + 1
        after = stop - self.offset
        if (
            self.folded[end - 1] in _UMLAUT_BASES
            and after < len(self.written)
            and self.written[after] in "eE"
        ):
            stop += 1
        return begin, stop

    def written_words(self, words: list[tuple[str, int, int]]) -> str:
        """``words`` (consecutive, of :attr:`words`) as the text writes them."""
        if not words:
            return ""
        start, end = self.written_span(words[0][1], words[-1][2])
        return self.written[start - self.offset : end - self.offset]


def _nearest_stretch(
    document: _Text, quote: _Text
) -> tuple[int, int, float, tuple[Difference, ...]] | None:
    """The stretch of ``document`` whose words line up best with the quote's: each occurrence
    of a quote's word votes for where the quote would start there; the best-voted starts are
    aligned word by word (difflib), and the aligned stretch is compared with the quote
    character by character (the similarity)."""
    tokens = document.words
    quoted = quote.words
    words = [w for w, _, _ in quoted]
    if not tokens or not words:
        return None
    wanted: dict[str, list[int]] = {}
    for j, word in enumerate(words):
        wanted.setdefault(word, []).append(j)
    votes: Counter[int] = Counter()
    for k, (token, _, _) in enumerate(tokens):
        for j in wanted.get(token, ()):
            votes[k - j] += 1
    if not votes or max(votes.values()) < max(2, len(words) // 4):
        return None  # too few of the quote's words in their order: not this stretch
    # a start and its neighbours (a word added or missing shifts the rest by one)
    pooled: Counter[int] = Counter()
    for start, count in votes.items():
        for shift in (-2, -1, 0, 1, 2):
            pooled[start + shift] += count
    best: tuple[int, int, float, tuple[Difference, ...]] | None = None
    for start, _ in pooled.most_common(4):
        first = max(0, start - 2)
        window = tokens[first : max(first, start + len(words) + 2)]
        matcher = difflib.SequenceMatcher(None, words, [t for t, _, _ in window], autojunk=False)
        blocks = [b for b in matcher.get_matching_blocks() if b.size]
        if not blocks:
            continue
        # from the first word matched to the last, widened over the quote's words before the
        # first match and after the last that the document has in their place
        lo = max(0, blocks[0].b - blocks[0].a)
        tail = len(words) - blocks[-1].a - blocks[-1].size
        hi = min(len(window), blocks[-1].b + blocks[-1].size + tail)
        part = document.folded[window[lo][1] : window[hi - 1][2]]
        similarity = difflib.SequenceMatcher(None, quote.folded, part, autojunk=False).ratio()
        if best is None or similarity > best[2]:
            begin, end = document.written_span(window[lo][1], window[hi - 1][2])
            best = (begin, end, similarity, _differences(quote, quoted, document, window[lo:hi]))
    return best


def _differences(
    quote: _Text,
    quoted: list[tuple[str, int, int]],
    document: _Text,
    written: list[tuple[str, int, int]],
) -> tuple[Difference, ...]:
    """The words where the quote's ``quoted`` and the document's ``written`` part, as difflib
    aligns them, each as its text writes it."""
    matcher = difflib.SequenceMatcher(
        None, [w for w, _, _ in quoted], [w for w, _, _ in written], autojunk=False
    )
    return tuple(
        Difference(quote.written_words(quoted[i1:i2]), document.written_words(written[j1:j2]))
        for tag, i1, i2, j1, j2 in matcher.get_opcodes()
        if tag != "equal"
    )
