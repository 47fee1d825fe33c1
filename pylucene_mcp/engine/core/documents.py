"""Documents: how a mapping of schema fields becomes a Lucene ``Document`` (derived fields,
keyword case, facets, points, doc values), the content hash, and date values.

Engine level: used by :mod:`pylucene_mcp.engine.lucene.index` to write and by the crawler for
the content hash; it knows the schema and calls Java through :mod:`pylucene_mcp.jvm`.
"""

from __future__ import annotations

import bisect
import datetime as dt
import hashlib
import mimetypes
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.text import INVISIBLE, visible

ALL_FIELDS = set(schema.FIELDS)


def content_hash(text: str) -> str:
    """SHA-256 of normalized text: what decides that a file "really changed"."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def normalize_path(path: str | PurePath) -> str:
    """A file path as the index keys it.

    Raises:
        InvalidRequestError: for an empty one.
    """
    text = str(path)
    if not text:
        raise errors.InvalidRequestError("file_path must not be empty")
    return str(PurePath(text))


def to_epoch_millis(value: object, field: str, *, end_of_day: bool = False) -> int:
    """A date as epoch milliseconds (UTC).

    Accepts ``datetime``, ``date``, epoch milliseconds, and text as the query syntax takes it
    (``2024-01-01``, ``2024-01-01T10:30:00Z``, an offset, or nine or more digits of epoch
    milliseconds). A date alone is its first millisecond, or its last with ``end_of_day``.

    Raises:
        ValueError: naming the accepted forms.
    """
    if isinstance(value, bool):
        raise ValueError(f"field '{field}': {value!r} is not a date")
    if isinstance(value, int | float):
        return int(value)
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo else value.replace(tzinfo=dt.UTC)
        return int(aware.timestamp() * 1000)
    if isinstance(value, dt.date):
        start = dt.datetime(value.year, value.month, value.day, tzinfo=dt.UTC)
        millis = int(start.timestamp() * 1000)
        return millis + 86_400_000 - 1 if end_of_day else millis
    if isinstance(value, str):
        # One parser for date text everywhere: the query syntax's (DateValues in the shim).
        date_values = jvm.jclass("io.github.pylucenemcp.queryparser.DateValues")
        try:
            with jvm.java_errors(caller_input=True):
                return int(date_values.parse(value, end_of_day))
        except errors.InvalidRequestError as exc:
            raise ValueError(f"field '{field}': {exc}") from None
    raise ValueError(
        f"field '{field}': {value!r} is not a date; use 2024-01-01, 2024-01-01T10:30:00Z "
        "or epoch milliseconds"
    )


#: The string fields of a row, in the order the shim's ``SchemaWriter`` takes them: several
#: values of one field joined by :data:`SEPARATOR`; the last slot names the row's lemma fields.
LEMMA_SLOT = "_lemma_fields"
STRING_SLOTS = (
    schema.FILE_PATH,
    *schema.TEXT_FIELDS,
    *schema.KEYWORD_FIELDS[1:],
    schema.PAGE_OFFSETS,
    LEMMA_SLOT,
    schema.FILE_READERS,
)
LONG_SLOTS = (*schema.LONG_FIELDS, *schema.DATE_FIELDS)
SEPARATOR = "\x1f"
NONE = -(2**63)  # Long.MIN_VALUE: a number slot without a value


def _kept(content: str, pages: Any) -> tuple[str, list[int] | None]:
    """``content`` as the index keeps a text (without the invisible characters a query drops,
    :func:`~pylucene_mcp.basics.text.visible`: the crawler's text has none already), and its
    page offsets moved back by the characters removed before each."""
    kept = visible(content)
    if not pages:
        return kept, None
    gone = [m.start() for m in INVISIBLE.finditer(content)] if len(kept) < len(content) else []
    return kept, [int(p) - bisect.bisect_left(gone, int(p)) for p in pages]


def to_row(doc: Mapping[str, Any]) -> tuple[list[str | None], list[int], str]:
    """The row of ``doc`` (a mapping of schema fields) as the shim's ``SchemaWriter`` takes it:
    its string slots, its number slots, and its normalized path.

    Fills in what can be derived: file name, extension, MIME type, content hash, language
    ``unknown``, the indexing time, the lemma fields of its language.

    Raises:
        UnknownFieldError, InvalidRequestError: for a field or value the schema refuses.
    """
    unknown = set(doc) - ALL_FIELDS - {schema.FILE_READERS}
    if unknown:
        name = sorted(unknown)[0]
        raise errors.UnknownFieldError(
            f"unknown field '{name}'; documents take: "
            + ", ".join(sorted(ALL_FIELDS - set(schema.SHADOW_FIELDS))),
            name,
            sorted(ALL_FIELDS),
        )
    for shadow in schema.SHADOW_FIELDS:
        if shadow in doc:
            raise errors.InvalidRequestError(f"'{shadow}' is derived from content; do not set it")
    if not doc.get(schema.FILE_PATH):
        raise errors.InvalidRequestError("a document needs a file_path (its unique id)")
    values = dict(doc)
    path = normalize_path(values[schema.FILE_PATH])
    values[schema.FILE_PATH] = path
    pure = PurePath(path)
    values.setdefault("file_name", pure.name)
    extension = values.get("file_extension") or pure.suffix.lstrip(".")
    values["file_extension"] = str(extension).lower().lstrip(".")
    if not values.get("file_type"):
        guessed = mimetypes.guess_type(pure.name)[0]
        values["file_type"] = guessed or "application/octet-stream"
    content, pages = _kept(str(values.get(schema.CONTENT) or ""), values.get(schema.PAGE_OFFSETS))
    values[schema.CONTENT] = content
    values[schema.PAGE_OFFSETS] = pages
    for name in schema.TEXT_FIELDS:
        if name != schema.CONTENT and values.get(name) is not None:
            values[name] = [visible(v) for v in _as_list(values[name])]
    values.setdefault("content_hash", content_hash(content))
    values.setdefault("language", "unknown")
    values["indexed_date"] = values.get("indexed_date") or int(time.time() * 1000)
    language = schema.keyword_value("language", str(values["language"]))
    values[LEMMA_SLOT] = ",".join(schema.lemma_fields_of(language))
    pages = values.get(schema.PAGE_OFFSETS)
    values[schema.PAGE_OFFSETS] = ",".join(str(int(p)) for p in pages) if pages else None
    strings: list[str | None] = []
    for name in STRING_SLOTS:
        if name in (schema.CONTENT, LEMMA_SLOT, schema.PAGE_OFFSETS):
            strings.append(values[name])
            continue
        found = _as_list(values.get(name))
        if name in schema.KEYWORD_FIELDS:
            found = [schema.keyword_value(name, v) for v in found]
        strings.append(SEPARATOR.join(v.replace(SEPARATOR, " ") for v in found) or None)
    numbers = []
    for name in LONG_SLOTS:
        raw = values.get(name)
        if raw is None:
            numbers.append(NONE)
            continue
        try:
            numbers.append(to_epoch_millis(raw, name) if name in schema.DATE_FIELDS else int(raw))
        except (TypeError, ValueError) as exc:
            raise errors.InvalidRequestError(str(exc)) from exc
    return strings, numbers, path


def make_facets_config() -> Any:
    """The ``FacetsConfig`` of the schema: sorted-set facets, ``author`` multi-valued."""
    config = jvm.jclass("org.apache.lucene.facet.FacetsConfig")()
    config.setMultiValued("author", True)
    return config


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple | set):
        return [str(v) for v in value if v is not None and str(v) != ""]
    return [str(value)]


@dataclass(frozen=True)
class FileState:
    """What the index holds for a file, as a crawl compares it with the disk: size, the mtime
    last seen (updated in place by :meth:`Writer.touch`), content hash and readers (updated in
    place by :meth:`Writer.set_readers`), each None when not recorded."""

    size: int | None
    mtime_ms: int | None
    content_hash: str | None
    readers: tuple[str, ...] | None = None
