"""Text and metadata extraction through Apache Tika: ``Extractor`` opens a file once, checks
what it opened, sends its bytes to the supervised Tika parser process (:mod:`tika_process`) and
maps what comes back (text, pages, metadata, language) onto the schema.
"""

from __future__ import annotations

import codecs
import functools
import io
import json
import logging
import mimetypes
import os
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from pylucene_mcp.basics.errors import ExtractionError, TikaUnavailableError, WorkerDiedError
from pylucene_mcp.crawler.normalize import join_pages, normalize_text, xhtml_to_pages
from pylucene_mcp.crawler.tika_process import TikaDied, TikaProcess, TikaTimeout
from pylucene_mcp.crawler.walk import open_checked
from pylucene_mcp.engine.core.backend import content_hash, to_epoch_millis

log = logging.getLogger(__name__)

#: Tika's mark on a document whose text was cut at the write limit (max_content_chars)
WRITE_LIMIT_KEY = "X-TIKA:EXCEPTION:write_limit_reached"

LANGUAGE_MIN_CONFIDENCE = 0.9
LANGUAGE_SAMPLE_CHARS = 20_000


@dataclass
class Extracted:
    """What the index needs from one file."""

    content: str
    page_offsets: list[int]
    content_hash: str
    file_type: str
    language: str
    title: str | None = None
    author: list[str] = field(default_factory=list)
    creator: str | None = None
    subject: str | None = None
    keywords: str | None = None
    created_ms: int | None = None
    modified_ms: int | None = None
    #: the text was cut at max_content_chars
    truncated: bool = False
    #: a mailbox's messages, each with its attachments, in the file's order (None: a file of one
    #: document); the file's own content is then empty, and its hash is that of the messages'
    messages: list[Extracted] | None = None
    #: the pages (an image: 1) without text of their own, whose text only OCR can read; after
    #: an OCR parse: the pages whose text was recognised
    ocr_pages: int = 0
    #: the document's ``ocr`` field (schema.OCR_DONE, _PENDING, _NEEDED, _FAILED; None: none)
    ocr: str | None = None


def _first(meta: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = meta.get(key)
        if isinstance(value, list):
            value = next((v for v in value if str(v).strip()), None)
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


def _once(value: str) -> str:
    """``value`` without the repetition Tika gives a field filled from two sources: an ODT file
    with both creator fields has the author "Anna Schmidt, Anna Schmidt" (which would split the
    author facet). Only a whole repeated run is taken out: "Schmidt, Anna" stays."""
    parts = value.split(", ")
    for size in range(1, len(parts) // 2 + 1):
        if len(parts) % size == 0 and parts == parts[:size] * (len(parts) // size):
            return ", ".join(parts[:size])
    return value


#: a sender as e-mail writes one: a name, then the address in angle brackets
_NAMED_ADDRESS = re.compile(r'^\s*"?(?P<name>[^"<>]*?)"?\s*<[^<>@\s]+@[^<>\s]+>\s*$')


def _person(value: str) -> str:
    """An author as a person is named: an e-mail's "Anna Schmidt <anna@example.com>" is "Anna
    Schmidt", as her documents name her (the author facet had listed her twice); a bare address,
    or one with no name, stays as it is."""
    match = _NAMED_ADDRESS.match(value)
    name = match.group("name").strip() if match else ""
    return name or value


def _all(meta: dict[str, Any], *keys: str) -> list[str]:
    for key in keys:
        value = meta.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        cleaned = list(dict.fromkeys(_once(str(v).strip()) for v in values if str(v).strip()))
        if cleaned:
            return cleaned
    return []


def _date_ms(meta: dict[str, Any], *keys: str) -> int | None:
    """The first of ``keys`` that ``meta`` has, read as a date by the one parser of date text
    (the query syntax's; a time without a zone is UTC), or None when it is no date."""
    text = _first(meta, *keys)
    if not text:
        return None
    try:
        return to_epoch_millis(text, keys[0])
    except ValueError:
        return None


@functools.cache
def _language_identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> str:
    """ISO 639-1 code, or ``unknown`` when the detector is less than 90 % sure."""
    sample = text[:LANGUAGE_SAMPLE_CHARS]
    if sum(c.isalpha() for c in sample) < 20:
        return "unknown"
    code, confidence = _language_identifier().classify(sample)
    if confidence < LANGUAGE_MIN_CONFIDENCE or len(code) != 2:
        return "unknown"
    return str(code)


class Extractor:
    """Extracts files through a :class:`TikaProcess`."""

    def __init__(self, server: TikaProcess) -> None:
        self.server = server

    def extract(
        self,
        path: Path,
        identity: tuple[int, int] | None = None,
        roots: Sequence[str | Path] = (),
    ) -> Extracted:
        """Content and metadata of ``path``: the file opened once, checked through what was
        opened (see :func:`~pylucene_mcp.crawler.walk.open_checked`: the file the walk saw, as
        ``identity``, inside ``roots``) and handed to Tika as bytes, never by its name.

        Raises:
            ExtractionError: with the reason (too large, unreadable, replaced, corrupt,
                encrypted, timeout).
        """
        with open_checked(path, identity, roots) as handle:
            return self.extract_file(handle, path.name)

    def extract_file(self, handle: BinaryIO, name: str) -> Extracted:
        """Content and metadata of the open regular file ``handle`` (``name``: a hint for type
        detection).

        Raises:
            ExtractionError: with the reason (too large, corrupt, encrypted, timeout).
        """
        limit = int(self.server.settings.max_file_size_mb * 1024 * 1024)
        size = os.fstat(handle.fileno()).st_size
        if size > limit:
            raise ExtractionError(
                f"the file has {size / 1e6:.1f} MB, over the limit of "
                f"{self.server.settings.max_file_size_mb:g} MB (max_file_size_mb)"
            )
        if size == 0:  # nothing to read: its name says what it is
            named = text_type(name) or mimetypes.guess_type(name)[0] or "application/octet-stream"
            return Extracted("", [], content_hash(""), named, "unknown")
        as_text = read_as_text(handle, name, self.server.settings.max_content_chars)
        if as_text is not None:
            return as_text
        handle.seek(0)
        if is_mailbox(handle, name):
            return self._mailbox_file(handle, name)
        text = self._call(handle, name, size)
        try:
            parts = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ExtractionError("Tika's answer was not valid JSON") from exc
        if not parts:
            raise ExtractionError("Tika returned nothing for the file")
        _raise_parse_failure(parts[0])
        encoding = str(_first(parts[0], "Content-Encoding") or "").upper()
        kind = text_type(name)
        if kind is not None and encoding in ("ISO-8859-1", "WINDOWS-1252"):
            # Tika's guess for a Windows text writes its quotes, dashes and € as U+FFFD: its
            # bytes are read as Windows-1252 here (which is what ISO-8859-1 text really is)
            handle.seek(0)
            limit = self.server.settings.max_content_chars
            text = handle.read(limit + 1).decode("cp1252", "replace")
            return _text([text], name, kind, limit, len(text) > limit)
        extracted = self._build(parts)
        if any(_first(part, WRITE_LIMIT_KEY) == "true" for part in parts):
            extracted.truncated = True
            _say_cut(name, self.server.settings.max_content_chars)
        return extracted

    def _mailbox_file(self, handle: BinaryIO, name: str) -> Extracted:
        """A mailbox read message by message, each parsed by Tika as the e-mail it is: a
        mailbox of any size costs time, never more memory than its largest message (Tika ran
        out of heap on an 11 MB mbox of 100,000 messages whole). A message Tika cannot read
        is left out and logged; the text limit counts the whole file, and the messages after
        it are left out, as the log says."""
        limit = self.server.settings.max_content_chars
        messages: list[Extracted] = []
        chars, skipped, cut = 0, 0, False
        for number, raw in enumerate(mailbox_messages(handle), start=1):
            if chars >= limit:
                cut = True
                break
            try:
                parts = json.loads(self._call(io.BytesIO(raw), "message.eml", len(raw)))
                if not parts:
                    raise ExtractionError("Tika returned nothing for it")
                _raise_parse_failure(parts[0])
            except (WorkerDiedError, TikaUnavailableError):
                raise  # the whole file is tried again
            except (ExtractionError, json.JSONDecodeError) as exc:
                skipped += 1
                log.warning("message %d of the mailbox %s is left out: %s", number, name, exc)
                continue
            message = self._build(parts)
            chars += len(message.content)
            messages.append(message)
        if skipped:
            log.warning("%d message(s) of the mailbox %s could not be read", skipped, name)
        extracted = _mailbox({"Content-Type": MAILBOX_TYPES[0]}, messages)
        if cut:
            extracted.truncated = True
            _say_cut(name, limit)
        return extracted

    def _call(self, handle: BinaryIO, name: str, size: int) -> str:
        """Tika's answer (JSON text) for the file: tried again once when the parser process
        died under it, alone or beside another file (one more try tells a poison file apart)."""
        # The name is a hint for type detection; a name that is not UTF-8 is passed escaped.
        hint = os.fsencode(name).decode("utf-8", "backslashreplace")
        timeout = self.server.settings.timeout_s
        for attempt in range(1, 3):
            handle.seek(0)
            try:
                return self.server.parse(hint, handle, size)
            except TikaTimeout as exc:
                raise ExtractionError(
                    f"parsing took longer than {timeout:g} s (tika_timeout_s)"
                ) from exc
            except TikaDied as exc:
                if attempt == 2:
                    raise WorkerDiedError("the file crashed Tika's parser process") from exc
                log.info("Tika's parser process ended under %s; trying once more", name)
        raise AssertionError("unreachable")

    def _build(self, parts: list[dict[str, Any]]) -> Extracted:
        meta = parts[0]
        if _first(meta, "Content-Type") in MAILBOX_TYPES:
            return _mailbox(meta, [self._build(message) for message in _messages(parts[1:])])
        pages, paged = xhtml_to_pages(str(meta.get("X-TIKA:content") or ""))
        for embedded in parts[1:]:  # attachments, archive members
            more, _ = xhtml_to_pages(str(embedded.get("X-TIKA:content") or ""))
            extra = "\n\n".join(p for p in more if p)
            if extra:
                if paged:
                    pages[-1] = f"{pages[-1]}\n\n{extra}" if pages[-1] else extra
                else:
                    pages.append(extra)
        if not paged:
            pages = ["\n\n".join(p for p in pages if p)]
        content, offsets = join_pages(pages)
        mime = (_first(meta, "Content-Type") or "application/octet-stream").split(";")[0].strip()
        return Extracted(
            ocr_pages=without_text(meta, mime, recognized=self.server.settings.ocr is not None),
            content=content,
            page_offsets=offsets if paged else [],
            content_hash=content_hash(content),
            file_type=mime,
            language=detect_language(content),
            title=_first(meta, "dc:title", "title", "pdf:docinfo:title"),
            author=list(
                dict.fromkeys(
                    _person(a)
                    for a in _all(meta, "dc:creator", "meta:author", "Author", "Message-From")
                )
            ),
            creator=_first(
                meta,
                "xmp:CreatorTool",
                "pdf:docinfo:creator_tool",
                "extended-properties:Application",
            ),
            subject=_first(meta, "dc:subject", "cp:subject", "subject", "pdf:docinfo:subject"),
            keywords=_first(meta, "meta:keyword", "pdf:docinfo:keywords", "Keywords"),
            created_ms=_date_ms(meta, "dcterms:created", "meta:creation-date", "Creation-Date"),
            modified_ms=_date_ms(meta, "dcterms:modified", "Last-Modified", "meta:save-date"),
        )


#: the image types whose text Tesseract reads (through Tika's ImageMagick-free path: those Java's
#: image readers or Tesseract itself open)
OCR_IMAGE_TYPES = frozenset(
    {"image/png", "image/jpeg", "image/tiff", "image/webp", "image/heic", "image/heif",
     "image/bmp", "image/gif", "image/jp2"}
)  # fmt: skip
#: a PDF page with fewer characters than this has no text of its own (Tika's ``auto`` OCR
#: strategy draws the line at the same count)
PAGE_TEXT_MIN_CHARS = 10


def without_text(meta: dict[str, Any], mime: str, *, recognized: bool) -> int:
    """How many pages of the document Tika described in ``meta`` only OCR can read: a PDF's
    pages with fewer than :data:`PAGE_TEXT_MIN_CHARS` characters (``pdf:charsPerPage``), an
    image's one. ``recognized`` (an OCR parse): the pages whose text was recognised
    (``pdf:ocrPageCount``; an image's one when Tesseract read it)."""
    if mime in OCR_IMAGE_TYPES:
        if not recognized:
            return 1
        parsers = meta.get("X-TIKA:Parsed-By-Full-Set") or meta.get("X-TIKA:Parsed-By") or []
        return int(any("TesseractOCRParser" in str(p) for p in _listed(parsers)))
    if mime != "application/pdf":
        return 0
    if recognized:
        return _count(meta.get("pdf:ocrPageCount"))
    return sum(
        _count(chars) < PAGE_TEXT_MIN_CHARS for chars in _listed(meta.get("pdf:charsPerPage"))
    )


def _listed(value: Any) -> list[Any]:
    if value is None:
        return []
    return value if isinstance(value, list) else [value]


def _count(value: Any) -> int:
    """A count Tika gives as a number's text (the first of a list of them); 0 for none."""
    try:
        return int(str(value[0] if isinstance(value, list) else value))
    except (ValueError, IndexError):
        return 0


#: the types of a file of many e-mails, each indexed as a document of its own
MAILBOX_TYPES = ("application/mbox",)
# a line that begins with "From " is written ">From " in a mailbox ("mboxrd": ">>From" for ">From")
_QUOTED_FROM = re.compile(r"^>(>*From )", re.MULTILINE)


#: where a message of a mailbox begins: a line that starts with "From " (the others are quoted
#: ">From "), as Tika's mbox parser has it
_ENVELOPE = b"From "


def is_mailbox(handle: BinaryIO, name: str) -> bool:
    """Whether the file open at ``handle`` (at its start; left there) is an mbox mailbox: it
    begins with an envelope line ("From <sender> <date>") and is named ``*.mbox`` or has no
    other known kind of name."""
    first = handle.readline(1000)
    handle.seek(0)
    if not first.startswith(_ENVELOPE):
        return False
    suffix = os.path.splitext(name)[1].lower()
    return suffix in ("", ".mbox", ".mbx") and re.match(rb"From \S+ +\S", first) is not None


def mailbox_messages(handle: BinaryIO) -> Iterator[bytes]:
    """The messages of the mbox open at ``handle``, in order, each without its envelope line,
    read line by line: one message in memory at a time."""
    lines: list[bytes] = []
    started = False
    for line in handle:
        if line.startswith(_ENVELOPE):
            if started:
                yield b"".join(lines)
            lines, started = [], True
            continue
        if started:
            lines.append(line)
    if started:
        yield b"".join(lines)


def _messages(parts: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """Tika's parts of a mailbox's messages grouped by message, each message's own part first:
    a part's ``X-TIKA:embedded_id_path`` starts with its message's id (``/3``, ``/3/4``)."""
    groups: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    for part in parts:  # Tika may give an attachment before its message
        ids = (_first(part, "X-TIKA:embedded_id_path") or "").strip("/").split("/")
        groups.setdefault(ids[0], []).append((len(ids), part))
    order = sorted(groups, key=lambda i: (not i.isdigit(), int(i) if i.isdigit() else 0, i))
    return [[part for _, part in sorted(groups[i], key=lambda d: d[0])] for i in order]


def _mailbox(meta: dict[str, Any], messages: list[Extracted]) -> Extracted:
    """A mailbox file: its messages, their quoted "From " lines as they were written."""
    for message in messages:
        message.content = _QUOTED_FROM.sub(r"\1", message.content)
        message.content_hash = content_hash(message.content)
    return Extracted(
        content="",
        page_offsets=[],
        content_hash=content_hash("\n".join(m.content_hash for m in messages)),
        file_type=str(_first(meta, "Content-Type")),
        language="unknown",
        messages=messages,
    )


#: Names that say "text": such a file whose bytes are UTF-8 is that text, with this type; no
#: parser guesses its encoding (Tika read "§4.1" in a UTF-8 file as the Thai "ยง4.1") or its
#: format (a "|" table as CSV, a man page as a PSF font, HTML snippets as a web page).
TEXT_TYPES = {
    "txt": "text/plain",
    "text": "text/plain",
    "md": "text/markdown",
    "markdown": "text/markdown",
    "rst": "text/x-rst",
    "log": "text/x-log",
}
_PIECE = 1 << 20


def _say_cut(name: str, max_chars: int) -> None:
    log.warning(
        "%s: only its first %d characters of text are kept (max_content_chars)", name, max_chars
    )


def text_type(name: str) -> str | None:
    """The type of a file whose name says text (:data:`TEXT_TYPES`), else None."""
    return TEXT_TYPES.get(name.rsplit(".", 1)[-1].lower()) if "." in name else None


def read_as_text(handle: BinaryIO, name: str, max_chars: int) -> Extracted | None:
    """The file as its own text, when its name says text (:data:`TEXT_TYPES`) and its bytes are
    UTF-8 (a byte-order mark dropped) without a NUL; else None (Tika reads it, guessing another
    encoding). At most ``max_chars`` characters are kept."""
    mime = text_type(name)
    if mime is None:
        return None
    decoder = codecs.getincrementaldecoder("utf-8-sig")("strict")
    parts: list[str] = []
    kept = 0
    truncated = False
    try:
        while piece := handle.read(_PIECE):
            if b"\0" in piece:
                return None
            parts.append(decoder.decode(piece))
            kept += len(parts[-1])
            if kept > max_chars:
                truncated = True
                break
        else:
            parts.append(decoder.decode(b"", final=True))
    except UnicodeDecodeError:
        return None
    return _text(parts, name, mime, max_chars, truncated)


def _text(parts: list[str], name: str, mime: str, max_chars: int, truncated: bool) -> Extracted:
    """A text file's extraction: its ``parts`` joined and cut at ``max_chars``."""
    content = normalize_text("".join(parts)[:max_chars])
    if truncated:
        _say_cut(name, max_chars)
    return Extracted(
        content=content,
        page_offsets=[],
        content_hash=content_hash(content),
        file_type=mime,
        language=detect_language(content),
        truncated=truncated,
    )


def _raise_parse_failure(meta: dict[str, Any]) -> None:
    """Tika's ``/rmeta`` answers 200 and puts a parser's exception in the metadata."""
    trace = _first(meta, "X-TIKA:EXCEPTION:container_exception")
    if not trace:
        return
    first = trace.strip().splitlines()[0]
    if "EncryptedDocumentException" in trace or "password" in trace.lower():
        raise ExtractionError("the file is encrypted (password protected)")
    if "WriteLimitReached" in trace:
        return  # the text was cut at Tika's write limit: index what came
    detail = first.split(":", 1)[-1].strip()[:200]
    raise ExtractionError(f"the file is corrupt or not what its name says ({detail})")
