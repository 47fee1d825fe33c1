"""The index schema: one Lucene document per file.

Bump :data:`SCHEMA_VERSION` whenever a field's indexing changes; the version is written into the
commit user data, and an index with another version must be rebuilt.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Literal, get_args

# 3: keyword fields lowercased; 4: lemma fields content_lemma_en/_de, file_name split into words;
# 5: file_path has sorted doc values (a cursor breaks ties by it); 6: German compounds outside
# the dictionary take their tail's forms in content_lemma_de; 7: joined names (ElementTree.write,
# dhua.sty, file_name, getIndexStats) also give their parts in the content, its twins and titles;
# 8: the content's sentence boundaries kept as doc values (content_sentences); 9: sentences
# continue over wrapped lines, German ordinals and abbreviations, a PDF's lines are joined, and
# an English possessive also stands for its owner (LaTeX's: latex); 10: created_date and
# modified_date are the file's (what a person means), the document's own dates beside them as
# document_created and document_modified
SCHEMA_VERSION = 10

CONTENT = "content"
CONTENT_REVERSED = "content_reversed"
CONTENT_TRANSLIT_DE = "content_translit_de"
CONTENT_LEMMA_EN = "content_lemma_en"
CONTENT_LEMMA_DE = "content_lemma_de"
#: The lemma twins of ``content`` and the language of each one's dictionary. A document gets the
#: field of its language; one whose language is ``unknown`` gets both (docs/relevance.md).
LEMMA_FIELDS = {CONTENT_LEMMA_EN: "en", CONTENT_LEMMA_DE: "de"}
FILE_PATH = "file_path"
FILE_NAME = "file_name"

#: Analyzed and stored; searchable as ``field:word`` in the query.
TEXT_FIELDS = ("file_name", "title", "author", "creator", "subject", "keywords", CONTENT)
#: One exact token each, stored; ``field:value`` in the query, ``eq``/``in``/``not`` filters.
KEYWORD_FIELDS = (FILE_PATH, "language", "file_extension", "file_type", "content_hash", "ocr")
#: The keyword fields whose case means nothing: lowercased when indexed, queried and filtered
#: (``language:DE`` finds ``de``). ``file_path`` keeps its case: paths differ by it.
CASELESS_FIELDS = ("language", "file_extension", "file_type", "content_hash", "ocr")
#: Facet dimensions (sorted-set doc values, counted with DrillSideways).
FacetField = Literal["author", "language", "file_extension", "file_type", "ocr"]
FACET_FIELDS: tuple[FacetField, ...] = get_args(FacetField)
#: LongPoint + doc values + stored: range filters and sorting.
LONG_FIELDS = ("file_size",)
DATE_FIELDS = (
    "created_date",
    "modified_date",
    "indexed_date",
    "file_mtime",
    "document_created",
    "document_modified",
)
#: Where a document's text came from recognition (OCR, crawler/ocr.py), the ``ocr`` field says
#: how far it is; a document without it has the text its file holds. A hit shows ``true`` as the
#: JSON ``true`` (:data:`FLAG_FIELDS`).
OCR = "ocr"
OCR_DONE = "true"  #: its text (or that of its pages without one) was recognised
OCR_PENDING = "pending"  #: waiting for OCR: found by its metadata and its own text only
OCR_NEEDED = "needed"  #: it has pages or an image without text, and no Tesseract is installed
OCR_FAILED = "failed"  #: recognition failed (the crawler's failures say why)
#: Keyword fields whose value ``true`` a hit shows as the JSON ``true``.
FLAG_FIELDS = (OCR,)
#: Indexed shadows of ``content``, never stored.
SHADOW_FIELDS = (CONTENT_REVERSED, CONTENT_TRANSLIT_DE, *LEMMA_FIELDS)
#: Stored only: page boundaries (character offsets into ``content``) of paged formats.
PAGE_OFFSETS = "page_offsets"
#: Internal, doc values only: the mtime the crawler last saw. Written with ``file_mtime``, and
#: updated in place when a file is touched (Lucene updates doc values only of fields that have
#: no points), so a touched file is neither rewritten nor read again.
SEEN_MTIME = "file_mtime_seen"
#: Internal, doc values only: who may read the file, as the crawler recorded it from its owner,
#: group and mode (principals: ``user:NAME``, ``group:NAME``, ``*``; docs/team.md). Updated in place
#: when they change, as ``file_mtime_seen`` is; never shown, searched or filtered on.
FILE_READERS = "file_readers"
#: Internal, doc values only: the content's sentence boundaries, found by ICU when the document is
#: indexed, so that the passages of a search need not find them again (docs/performance.md).
CONTENT_SENTENCES = "content_sentences"


def lemma_fields_of(language: str) -> tuple[str, ...]:
    """The lemma fields a document in ``language`` (an ISO 639-1 code) gets."""
    if language == "unknown":
        return tuple(LEMMA_FIELDS)
    return tuple(field for field, lang in LEMMA_FIELDS.items() if lang == language)


def keyword_value(field: str, value: str) -> str:
    """``value`` as the index holds it in the keyword field ``field``."""
    if field == "file_extension":
        return value.lower().lstrip(".")
    return value.lower() if field in CASELESS_FIELDS else value


SortField = Literal["_score", "modified_date", "created_date", "file_size"]
#: what a search sorts by (the tool's ``sort`` takes exactly these: its type is ``SortField``)
SORT_FIELDS: tuple[SortField, ...] = get_args(SortField)
FilterOperator = Literal["eq", "in", "not", "not_in", "range"]
#: how a filter compares (the tools' ``operator`` takes exactly these: its type is
#: ``FilterOperator``)
FILTER_OPERATORS: tuple[FilterOperator, ...] = get_args(FilterOperator)

FieldKind = Literal["text", "keyword", "long", "date", "shadow", "stored"]


@dataclass(frozen=True)
class FieldSpec:
    """How one field is indexed, and what a query or filter can do with it."""

    name: str
    kind: FieldKind
    stored: bool
    facet: bool
    filter_operators: tuple[str, ...]
    sortable: bool
    description: str


_DESCRIPTIONS = {
    FILE_PATH: "absolute path of the file; the document's unique id",
    FILE_NAME: "the file's name, split into words (Annual_Report-2024.pdf: annual, report …)",
    "title": "document title (from its metadata), analyzed",
    "author": "author(s); analyzed for the query, exact values as a facet",
    "creator": "creating application or person, analyzed",
    "subject": "subject (metadata), analyzed",
    "keywords": "keywords (metadata), analyzed",
    CONTENT: "the full text; the default query field",
    CONTENT_REVERSED: "content with reversed tokens; serves leading wildcards (*vertrag)",
    CONTENT_TRANSLIT_DE: "content with German transliteration (Mueller = Müller)",
    CONTENT_LEMMA_EN: "content of English documents, each word as its lemmas (locks = lock)",
    CONTENT_LEMMA_DE: "content of German documents, each word as its lemmas (Häuser = Haus)",
    "language": "ISO 639-1 code, or 'unknown'",
    "file_extension": "lowercase extension without the dot (pdf, docx …)",
    "file_type": "MIME type",
    "content_hash": "SHA-256 of the normalized text",
    OCR: "where the text is recognised from images (OCR): true (it may hold recognition "
    "errors: search it fuzzily), pending (waiting for OCR), needed (no Tesseract installed), "
    "failed; absent for a document whose file holds its text",
    "file_size": "size in bytes",
    "created_date": "when the file was created (UTC; an e-mail's: when it was sent)",
    "modified_date": "when the file was last changed (UTC; an e-mail's: when it was sent); "
    "what 'my documents from 2024' means",
    "document_created": "the creation date the document's own metadata states (UTC): a "
    "template's or a generator's, often older or newer than the file",
    "document_modified": "the modification date the document's own metadata states (UTC)",
    "indexed_date": "when the document was indexed (UTC)",
    "file_mtime": "the file's modification time on disk (UTC), for change detection",
    PAGE_OFFSETS: "page boundaries of paged formats",
}


def _spec(name: str) -> FieldSpec:
    facet = name in FACET_FIELDS
    if name in LONG_FIELDS or name in DATE_FIELDS:
        kind: FieldKind = "long" if name in LONG_FIELDS else "date"
        return FieldSpec(
            name,
            kind,
            True,
            False,
            ("eq", "in", "not", "not_in", "range"),
            True,
            _DESCRIPTIONS[name],
        )
    if name in KEYWORD_FIELDS:
        ops: tuple[str, ...] = ("eq", "in", "not", "not_in")
        return FieldSpec(name, "keyword", True, facet, ops, False, _DESCRIPTIONS[name])
    if name in TEXT_FIELDS:
        ops = ("eq", "in", "not", "not_in") if facet else ()
        return FieldSpec(name, "text", True, facet, ops, False, _DESCRIPTIONS[name])
    if name in SHADOW_FIELDS:
        return FieldSpec(name, "shadow", False, False, (), False, _DESCRIPTIONS[name])
    return FieldSpec(name, "stored", True, False, (), False, _DESCRIPTIONS[name])


FIELDS: dict[str, FieldSpec] = {
    name: _spec(name)
    for name in (
        *KEYWORD_FIELDS[:1],
        *TEXT_FIELDS,
        *KEYWORD_FIELDS[1:],
        *LONG_FIELDS,
        *DATE_FIELDS,
        *SHADOW_FIELDS,
        PAGE_OFFSETS,
    )
}

FILTERABLE_FIELDS = tuple(name for name, spec in FIELDS.items() if spec.filter_operators)


def iso(millis: int | None) -> str | None:
    """Epoch milliseconds as an ISO-8601 UTC string (seconds precision), or None."""
    if millis is None:
        return None
    stamp = dt.datetime.fromtimestamp(millis / 1000, tz=dt.UTC)
    return stamp.isoformat(timespec="seconds").replace("+00:00", "Z")
