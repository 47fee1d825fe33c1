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
from pylucene_mcp.engine.core.backend import Backend, BackendWriter, FileState


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


class Refused(Exception):
    """Files whose documents the index refused, found in a block that is then rolled back (its
    other changes are made again without them: :func:`write_block`)."""

    def __init__(self, files: list[tuple[FileEntry, errors.PyLuceneMcpError]]) -> None:
        super().__init__(f"{len(files)} file(s) refused")
        self.files = files


def write_block(
    index: Backend,
    files: Sequence[tuple[FileEntry, Extracted, str]],
    old_of: Callable[[str], FileState | None],
    refused: Callable[[FileEntry, errors.PyLuceneMcpError], None],
    before: Callable[[BackendWriter], None] | None = None,
) -> list[Written]:
    """Writes ``files`` (each with its change) in one block of ``index`` (after ``before``,
    the block's other changes), and returns the files written. Should the index refuse a file's
    document, the block is rolled back and made again without that file, which ``refused``
    hears of: nothing of a refused file is written, so its documents stay as they were (a
    mailbox written again whole drops its old messages only with its new ones in).

    Raises:
        PyLuceneMcpError: when the commit fails (a full disk …): nothing of the block is in.
    """
    remaining = list(files)
    while True:
        try:
            with index.writer() as writer:
                if before is not None:
                    before(writer)
                return write_all(writer, remaining, old_of)
        except Refused as found:
            gone = set()
            for entry, exc in found.files:
                refused(entry, exc)
                gone.add(entry.key)
            remaining = [file for file in remaining if file[0].key not in gone]


def write_all(
    writer: BackendWriter,
    files: Sequence[tuple[FileEntry, Extracted, str]],
    old_of: Callable[[str], FileState | None],
) -> list[Written]:
    """Writes ``files`` in the block of ``writer``: a skipped file of the same size only has
    its mtime recorded (in place); every other file's documents are (re)written whole (a
    mailbox: all its messages, those it no longer has deleted), all of them in one call of the
    writer (:meth:`~BackendWriter.add_many`: one call into Java per 256 documents).

    Raises:
        Refused: the files whose documents the index refuses (found by writing each alone):
            the block is to be rolled back, and made again without them.
    """
    written: list[Written] = []
    refusals: list[tuple[FileEntry, errors.PyLuceneMcpError]] = []
    for entry, extracted, change in files:
        try:
            written.append(_write(writer, entry, extracted, change, old_of(entry.key)))
        except errors.PyLuceneMcpError as exc:
            refusals.append((entry, exc))
    if not refusals:
        try:
            writer.add_many([doc for file in written for doc in file.docs])
            return written
        except errors.PyLuceneMcpError as exc:
            failed = exc  # a document the index refuses: which one is found below
        for file in written:  # the block is rolled back: what these trials write goes with it
            try:
                writer.add_many(file.docs)
            except errors.PyLuceneMcpError as exc:
                refusals.append((file.entry, exc))
        if not refusals:  # the batch failed, and no file alone: not the documents' fault
            raise failed
    raise Refused(refusals)


def _write(
    writer: BackendWriter,
    entry: FileEntry,
    extracted: Extracted,
    change: str,
    old: FileState | None,
) -> Written:
    """One file's part of a block: a touch, or its documents to add (a mailbox's old messages
    deleted first: the block commits both, or neither)."""
    if change == "skipped" and old is not None and old.size == entry.size:
        writer.touch(entry.key, entry.mtime_ms)
        if regranted(old, entry):
            writer.set_readers(entry.key, entry.readers or ())
        return Written(entry, extracted, change, [])
    if extracted.messages is not None:  # a mailbox, which may have had other messages
        delete_file(writer, entry.key)
    return Written(entry, extracted, change, to_documents(entry, extracted))


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
