"""A file's index documents: one, or one per message of a mailbox, with the file's dates as a
person means them beside the document's own."""

from __future__ import annotations

import os
from typing import Any

from pylucene_mcp.basics import portable, schema
from pylucene_mcp.crawler.extract import Extracted
from pylucene_mcp.crawler.walk import FileEntry

#: the types of an e-mail, whose dates are when it was sent (its file's are a copy's)
E_MAIL_TYPES = ("message/rfc822", "application/vnd.ms-outlook")


def to_document(entry: FileEntry, extracted: Extracted) -> dict[str, Any]:
    """The index document of a file: its dates the file's, as a person means them
    (``modified_date`` its modification time; ``created_date`` its creation time where the
    system records one, else the modification time; an e-mail's: when it was sent), and the
    document's own metadata dates beside them (``document_created``, ``document_modified``)."""
    try:
        born = portable.birth_time_ms(os.stat(entry.path))
    except OSError:
        born = None
    created = min(born, entry.mtime_ms) if born else entry.mtime_ms
    modified = entry.mtime_ms
    sent = extracted.created_ms or extracted.modified_ms
    if extracted.file_type in E_MAIL_TYPES and sent:  # an e-mail's date is when it was sent
        created = modified = sent
    recorded = {} if entry.readers is None else {schema.FILE_READERS: list(entry.readers)}
    return {
        **recorded,
        schema.FILE_PATH: entry.key,
        "file_name": os.path.basename(entry.key),
        "file_size": entry.size,
        "file_mtime": entry.mtime_ms,
        "content": extracted.content,
        "content_hash": extracted.content_hash,
        "file_type": extracted.file_type,
        "language": extracted.language,
        "title": extracted.title,
        "author": extracted.author,
        "creator": extracted.creator,
        "subject": extracted.subject,
        "keywords": extracted.keywords,
        "created_date": created,
        "modified_date": modified,
        "document_created": extracted.created_ms,
        "document_modified": extracted.modified_ms,
        schema.PAGE_OFFSETS: extracted.page_offsets,
        schema.OCR: extracted.ocr,
    }


#: the names of a file of many e-mails (extract.MAILBOX_TYPES): each message a document
MAILBOX_EXTENSIONS = (".mbox",)


def to_documents(entry: FileEntry, extracted: Extracted) -> list[dict[str, Any]]:
    """The index documents of a file: one, or one per message of a mailbox (keyed
    :func:`message_key`, named and typed as the file is)."""
    if not extracted.messages:
        return [to_document(entry, extracted)]
    extension = os.path.splitext(entry.key)[1]  # the file's (a message's key has none)
    docs = []
    for number, message in enumerate(extracted.messages, start=1):
        doc = to_document(entry, message)
        doc[schema.FILE_PATH] = message_key(entry.key, number)
        doc["file_extension"] = extension
        docs.append(doc)
    return docs


def message_key(key: str, number: int) -> str:
    """The ``file_path`` of the ``number``-th message (from 1) of the mailbox ``key``."""
    return portable.folder_prefix(key) + str(number)
