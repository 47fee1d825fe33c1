"""The index's vocabulary: terms by prefix (to write precise queries and wildcards), the most
frequent terms of a field, and documents whose text is the same (one content hash). Each is one
call into the shim (``Vocabulary``)."""

from __future__ import annotations

import functools
import itertools
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Protocol

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, portable, schema
from pylucene_mcp.basics.shapes import Shape
from pylucene_mcp.engine.core import analysis, limits
from pylucene_mcp.engine.core.documents import content_hash

SUGGEST_MAX_SCAN = 200_000
TOP_MAX_SCAN = 2_000_000
# documents listed per duplicate group (its size counts them all)
MAX_LISTED = 20


@dataclass(frozen=True)
class TermCount:
    term: str
    doc_freq: int
    total_term_freq: int | None = None


@dataclass(frozen=True)
class TermList:
    """Terms of one field; ``complete`` is false when the scan stopped at its cap."""

    field: str
    terms: tuple[TermCount, ...]
    scanned: int
    complete: bool
    prefix: str | None = None
    warning: str | None = None


class DuplicateFile(Shape):
    """One document of a duplicate group."""

    __slots__ = ()
    file_path: str
    file_size: int | None
    modified_date: str | None


class DuplicateGroup(Shape):
    """Documents with the same text: ``size`` of them, the first ``MAX_LISTED`` by path."""

    __slots__ = ()
    content_hash: str
    size: int
    documents: tuple[DuplicateFile, ...]


@dataclass(frozen=True)
class Duplicates:
    """Groups of documents with the same text, largest first, one page of them."""

    total_groups: int
    groups: tuple[DuplicateGroup, ...]
    page: int
    page_size: int
    has_next_page: bool
    directory: str | None = field(default=None)
    #: documents with no extracted text (scans, images, empty files): not duplicates of each
    #: other, so in no group; counted here
    empty_documents: int = 0


def term_field(name: str) -> str:
    """``name`` if its terms are words one can list.

    Raises:
        UnknownFieldError: for a field the schema does not have (it lists those that work).
        InvalidRequestError: for a date, number or stored-only field, saying what to use.
    """
    listable = [f for f in schema.FIELDS if schema.FIELDS[f].kind in ("text", "keyword")]
    spec = schema.FIELDS.get(name)
    if spec is None or spec.kind == "shadow":
        raise errors.UnknownFieldError(
            f"unknown field '{name}'; terms can be listed for: {', '.join(listable)}",
            name,
            listable,
        )
    if spec.kind in ("long", "date"):
        raise errors.InvalidRequestError(
            f"field '{name}' holds {'dates' if spec.kind == 'date' else 'numbers'}, not words; "
            "getIndexStats gives the date ranges, and a range filter narrows by them"
        )
    if spec.kind not in ("text", "keyword"):
        raise errors.InvalidRequestError(
            f"field '{name}' is stored only and has no terms; terms can be listed for: "
            f"{', '.join(listable)}"
        )
    return name


def normalize_prefix(name: str, prefix: str) -> str:
    """``prefix`` as the index holds the start of a term of ``name``: folded and lowercased
    like the field's text (``Mü`` → ``mu``), lowercased for caseless keyword fields."""
    if schema.FIELDS[name].kind == "keyword":
        return schema.keyword_value(name, prefix)
    with jvm.java_errors(caller_input=True):
        return str(analysis.schema_analyzer().normalize(name, prefix).utf8ToString())


def _limit(limit: int) -> int:
    limits.TERM_LIMIT.check("limit", limit)
    return limit


class Terms(Protocol):
    """An index that lists a field's terms by their documents: every backend.
    ``suggest_terms`` and ``top_terms`` are written once against it and are methods of each
    backend as they are."""

    def term_counts(
        self, name: str, prefix: str | None, limit: int
    ) -> tuple[list[TermCount], int, bool]:
        """The at most ``limit`` terms of field ``name`` with the most documents (starting with
        ``prefix``; None: any, and then with their occurrences), most documents first, ties in
        term order; how many terms were read for them, and whether that was all there are."""


def suggest_terms(index: Terms, name: str, prefix: str = "", limit: int = 20) -> TermList:
    """The terms of field ``name`` that start with ``prefix``, most documents first.

    Raises:
        UnknownFieldError, InvalidRequestError: see :func:`term_field`; a bad limit.
    """
    term_field(name)
    normalized = normalize_prefix(name, prefix)
    found, scanned, complete = index.term_counts(name, normalized, _limit(limit))
    return TermList(
        field=name,
        prefix=normalized,
        terms=tuple(TermCount(t.term, t.doc_freq) for t in found),
        scanned=scanned,
        complete=complete,
        warning=None
        if complete
        else f"more than {SUGGEST_MAX_SCAN} terms start with {normalized!r}: the counts are "
        "from the first of them; give a longer prefix",
    )


#: how many more terms a top list fetches when it leaves the common ones out (the English and
#: German stop lists hold about 260 words, numbers and letters come on top)
COMMON_ROOM = 400


@functools.cache
def common_words() -> frozenset[str]:
    """The stop words of English and German (Lucene's lists), spelled as the index folds them
    (``für`` → ``fur``, ``daß`` → ``dass``)."""
    with jvm.java_errors():
        english = jvm.jclass("org.apache.lucene.analysis.en.EnglishAnalyzer")
        german = jvm.jclass("org.apache.lucene.analysis.de.GermanAnalyzer")
        words = [str(w) for w in english.ENGLISH_STOP_WORDS_SET]
        words += [str(w) for w in german.getDefaultStopSet()]
    return frozenset(_folded(w) for w in words)


def _folded(word: str) -> str:
    """``word`` without accents and case, as the content field's ICU folding writes it."""
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in decomposed if not unicodedata.combining(c))


def is_common(term: str) -> bool:
    """Whether ``term`` tells documents apart poorly whatever the collection: a stop word of
    English or German, a number, a single letter."""
    return len(term) < 2 or term.isdigit() or term in common_words()


def distinctive(terms: Iterable[TermCount], limit: int) -> tuple[TermCount, ...]:
    """The first ``limit`` of ``terms`` that are not :func:`is_common`."""
    return tuple(itertools.islice((t for t in terms if not is_common(t.term)), limit))


def top_terms(index: Terms, name: str, limit: int = 20, skip_common: bool = False) -> TermList:
    """The most frequent terms of field ``name`` (by documents, with total occurrences); with
    ``skip_common``, those that are not :func:`is_common`.

    Raises:
        UnknownFieldError, InvalidRequestError: see :func:`term_field`; a bad limit.
    """
    term_field(name)
    wanted = _limit(limit) + (COMMON_ROOM if skip_common else 0)
    found, scanned, complete = index.term_counts(name, None, wanted)
    return TermList(
        field=name,
        terms=distinctive(found, limit) if skip_common else tuple(found),
        scanned=scanned,
        complete=complete,
        warning=None
        if complete
        else f"field '{name}' has more than {TOP_MAX_SCAN} terms: the top is of the first "
        f"{TOP_MAX_SCAN}; suggestTerms with a prefix looks further",
    )


#: the content hash of a document with no text: such documents are no copies of each other
EMPTY_TEXT_HASH = content_hash("")


class Groups(Protocol):
    """An index that groups its documents by content hash: every backend. ``find_duplicates``
    is written once against it and is a method of each backend as it is."""

    def duplicate_groups(
        self, min_group_size: int, under: str, offset: int, size: int
    ) -> tuple[int, list[DuplicateGroup], int]:
        """The groups of at least ``min_group_size`` documents with the same non-empty text
        among those whose path starts with ``under`` ('': all), largest first, ties by hash:
        how many there are, ``size`` of them from ``offset`` (each with its first
        :data:`MAX_LISTED` documents by path), and how many documents have no text."""


def find_duplicates(
    index: Groups,
    min_group_size: int = 2,
    directory: str | None = None,
    page: int = 1,
    page_size: int = 10,
) -> Duplicates:
    """Groups of documents with the same text (content hash), largest first; with
    ``directory``, only documents below it.

    Raises:
        InvalidRequestError: for a group size below 2 or a bad page.
    """
    limits.GROUP_SIZE.check("min_group_size", min_group_size)
    limits.PAGE.check("page", page)
    limits.GROUP_PAGE_SIZE.check("page_size", page_size)
    under = portable.folder_prefix(directory) if directory else ""
    total, groups, empty = index.duplicate_groups(
        min_group_size, under, (page - 1) * page_size, page_size
    )
    return Duplicates(
        total_groups=total,
        groups=tuple(groups),
        page=page,
        page_size=page_size,
        has_next_page=page * page_size < total,
        empty_documents=empty,
        directory=directory,
    )
