"""What one block of a crawl's or the watcher's writes does to the index: each file's change
(added, updated, skipped), a touched file's mtime recorded in place, a mailbox's messages
written again whole, and every document of the block in one call of the writer."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.crawler.documents import MAILBOX_EXTENSIONS, to_documents
from pylucene_mcp.crawler.extract import Extracted
from pylucene_mcp.crawler.walk import FileEntry
from pylucene_mcp.engine.core.backend import BackendWriter, FileState


def gathered(known: dict[str, FileState]) -> None:
    """Replaces in ``known`` the messages of each mailbox file by the file, with their size and
    mtime (and no text hash: a changed file is rewritten)."""
    sep = portable.separator()
    messages: dict[str, list[str]] = {}
    for key in known:
        parent, _, number = key.rpartition(sep)
        if number.isdigit() and parent.lower().endswith(MAILBOX_EXTENSIONS) and parent not in known:
            messages.setdefault(parent, []).append(key)
    for parent, keys in messages.items():
        if os.path.isdir(parent):  # a folder named *.mbox holds files of its own
            continue
        state = known[keys[0]]
        for key in keys:
            del known[key]
        known[parent] = FileState(state.size, state.mtime_ms, None, state.readers)


def delete_file(writer: BackendWriter, key: str) -> None:
    """Deletes the document(s) of the file ``key``: a mailbox's messages too."""
    writer.delete(key)
    if key.lower().endswith(MAILBOX_EXTENSIONS):
        writer.delete_under(key)


@dataclass
class Written:
    """A file of a block of writes: its change and the documents it adds (none: only touched)."""

    entry: FileEntry
    extracted: Extracted
    change: str
    docs: list[dict[str, Any]]


def write_all(
    writer: BackendWriter,
    files: Sequence[tuple[FileEntry, Extracted, str]],
    old_of: Callable[[str], FileState | None],
    refused: Callable[[FileEntry, errors.PyLuceneMcpError], None],
) -> list[Written]:
    """Writes ``files`` (each with its change) in one block: a skipped file of the same size only
    has its mtime recorded (in place); every other file's documents are (re)written whole (a
    mailbox: all its messages, those it no longer has deleted), all of them in one call of the
    writer (:meth:`~BackendWriter.add_many`: one call into Java per 256 documents). Should the
    index refuse a document, each file is written alone to find which, and ``refused`` hears of
    it. Returns the files written."""
    written: list[Written] = []
    for entry, extracted, change in files:
        old = old_of(entry.key)
        try:
            if change == "skipped" and old is not None and old.size == entry.size:
                writer.touch(entry.key, entry.mtime_ms)
                if regranted(old, entry):
                    writer.set_readers(entry.key, entry.readers or ())
                written.append(Written(entry, extracted, change, []))
                continue
            if extracted.messages is not None:  # a mailbox, which may have had other messages
                delete_file(writer, entry.key)
            written.append(Written(entry, extracted, change, to_documents(entry, extracted)))
        except errors.PyLuceneMcpError as exc:
            refused(entry, exc)
    try:
        writer.add_many([doc for file in written for doc in file.docs])
        return written
    except errors.PyLuceneMcpError:
        pass  # a document the index refuses: which one is found below
    kept = []
    for file in written:  # a document written again replaces itself
        try:
            writer.add_many(file.docs)
        except errors.PyLuceneMcpError as exc:
            refused(file.entry, exc)
            continue
        kept.append(file)
    return kept


def regranted(old: FileState, entry: FileEntry) -> bool:
    """Whether who may read the file changed since the index recorded it."""
    return entry.readers is not None and old.readers != entry.readers


def change_of(old: FileState | None, extracted: Extracted, full: bool) -> str:
    """ADD, UPDATE or SKIP (touched or restored: same text, metadata refreshed)."""
    if old is None:
        return "added"
    if old.content_hash == extracted.content_hash and not full:
        return "skipped"
    return "updated"
