"""The watcher's path through the crawler: the files and folders that changed, brought into the
index in one commit (:meth:`FileUpdates.apply`, which :meth:`Crawler.process_paths
<pylucene_mcp.crawler.pipeline.Crawler.process_paths>` runs), with the same judgement of each
file as a crawl's walk, and a folder whose owner, group or mode changed judged again for who may
read its files."""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.basics.errors import ExtractionError
from pylucene_mcp.crawler import writes
from pylucene_mcp.crawler.documents import MAILBOX_EXTENSIONS
from pylucene_mcp.crawler.extract import Extracted
from pylucene_mcp.crawler.failures import lasting
from pylucene_mcp.crawler.readers import Owned, of_file
from pylucene_mcp.crawler.walk import (
    CROSSES,
    FileEntry,
    Patterns,
    hard_link_reason,
    index_key,
    inside,
    key_path,
    root_of,
)

if TYPE_CHECKING:
    import collections

    from pylucene_mcp.crawler.extract import Extractor
    from pylucene_mcp.crawler.failures import FailureLog
    from pylucene_mcp.crawler.ocr import OcrWorker
    from pylucene_mcp.engine.core.backend import Backend, BackendWriter, FileState

log = logging.getLogger(__name__)


class Crawled(Protocol):
    """What the watcher's path uses of the crawler
    (:class:`~pylucene_mcp.crawler.pipeline.Crawler`): its index and extractor, its record of
    failures, the files reached through links, its OCR worker, its list of recent changes, and
    how it judges and marks a batch's changes."""

    index: Backend
    extractor: Extractor
    failures: FailureLog
    linked: set[str]
    ocr: OcrWorker | None
    recent: collections.deque[tuple[float, str, str]]

    def changes(
        self, ready: Sequence[tuple[FileEntry, Extracted]], known: dict[str, FileState], full: bool
    ) -> list[tuple[FileEntry, Extracted, str]]: ...

    def queue_ocr(self, written: Sequence[writes.Written]) -> None: ...


class FileUpdates:
    """The watcher's changes to one crawler's index; remembers each folder's owner, group and
    mode as it last saw them."""

    def __init__(self, crawler: Crawled) -> None:
        self._crawler = crawler
        #: the owner, group and mode of each folder as the watcher last saw it
        self._folders: dict[str, Owned] = {}

    def apply(
        self, paths: Iterable[str], roots: Sequence[str], patterns: Patterns
    ) -> dict[str, str]:
        """Brings the index in line with ``paths`` (created, changed, deleted or moved files and
        folders) in one commit. Returns what happened to each path."""
        crawler = self._crawler
        paths = list(paths)
        outcome: dict[str, str] = {}
        regranted: dict[str, tuple[str, ...]] = {}
        if crawler.index.records_readers:
            for folder in [p for p in paths if os.path.isdir(p)]:
                regranted.update(self._rejudged(folder, paths))
        known = crawler.index.file_states_of(index_key(p) for p in paths)
        mailboxes = [index_key(p) for p in paths if p.lower().endswith(MAILBOX_EXTENSIONS)]
        if mailboxes:
            known.update(crawler.index.file_states(mailboxes))  # their messages
            writes.gathered(known)
        gone: list[str] = []
        ready: list[tuple[FileEntry, Extracted]] = []
        for path in paths:  # extraction outside the writer: crawl batches need not wait for it
            key = index_key(path)
            if os.path.isdir(path):
                continue  # its files come as events of their own
            if not portable.exists_as_named(path):  # renamed by case counts as gone
                gone.append(key)
                continue
            if not patterns.wants(path, roots):
                continue
            outside = not inside(path, roots)
            if outside or patterns.crosses(path):
                reason = (
                    "a link to a place outside the configured directories" if outside else CROSSES
                )
                if key in known:  # what the file was may stay searchable no longer
                    gone.append(key)
                outcome[key] = f"{'deleted' if key in known else 'skipped'}: {reason}"
                continue
            try:
                st = os.stat(path)
                links = portable.link_count(st, path)
                if links > 1 and not patterns.hard_links:
                    if key in known:
                        gone.append(key)
                    verb = "deleted" if key in known else "skipped"
                    outcome[key] = f"{verb}: {hard_link_reason(links)}"
                    continue
                entry = FileEntry(
                    path,
                    key,
                    root_of(key, roots),
                    st.st_size,
                    st.st_mtime_ns // 1_000_000,
                    (st.st_dev, st.st_ino),
                    of_file(path, st),
                    os.path.realpath(path) != os.path.abspath(path),
                )
                if entry.linked:
                    crawler.linked.add(key)
                ready.append((entry, crawler.extractor.extract(Path(path), entry.identity, roots)))
            except (OSError, ExtractionError) as exc:
                outcome[key] = f"failed: {exc}"
                log.warning("cannot index %s: %s", key, exc)
                if isinstance(exc, ExtractionError) and lasting(exc):
                    crawler.failures.record(key, st.st_size, st.st_mtime_ns // 1_000_000, str(exc))

        def others(writer: BackendWriter) -> None:  # the block's changes besides the files
            for key, readers in regranted.items():
                writer.set_readers(key, readers)
                outcome[key] = "readers changed"
            for key in gone:
                writer.delete(key)
                writer.delete_under(key)
                outcome.setdefault(key, "deleted")

        def refused(entry: FileEntry, exc: errors.PyLuceneMcpError) -> None:
            outcome[entry.key] = f"failed: cannot index: {exc}"

        changes = crawler.changes(ready, known, False)
        written = writes.write_block(crawler.index, changes, known.get, refused, before=others)
        for file in written:
            outcome[file.entry.key] = file.change
        crawler.failures.forget([file.entry.key for file in written])
        crawler.failures.forget(gone)
        crawler.failures.save()
        crawler.queue_ocr(written)
        if crawler.ocr is not None and gone:
            crawler.ocr.queue.forget(gone)
        now = time.time()
        crawler.recent.extend((now, key, what) for key, what in sorted(outcome.items()))
        return outcome

    def _rejudged(self, folder: str, paths: list[str]) -> dict[str, tuple[str, ...]]:
        """The new readers of the indexed files below ``folder`` (and of those reached through
        a link that lie there really) whose owner, group or mode changed since the watcher last
        looked at it (every one, the first time): a folder's ``chmod`` reaches its files within
        the watcher's delay, as a file's own does. A mailbox whose readers changed is appended
        to ``paths`` (its messages are written again)."""
        try:
            now = Owned.of(os.stat(folder), folder)
        except OSError:
            return {}
        if self._folders.get(folder) == now:
            return {}
        self._folders[folder] = now
        crawler = self._crawler
        known = crawler.index.file_states([index_key(folder)])
        real = os.path.realpath(folder)
        linked = [
            k for k in crawler.linked if portable.is_under(os.path.realpath(key_path(k)), real)
        ]
        known.update(crawler.index.file_states_of(linked))
        writes.gathered(known)
        found: dict[str, tuple[str, ...]] = {}
        for key, old in known.items():
            path = key_path(key)
            try:
                readers = of_file(path, os.stat(path))
            except OSError:
                continue  # gone: the walk or its own event deletes it
            if readers is None or readers == old.readers:
                continue
            if old.content_hash is None:  # a mailbox: its messages are written again
                paths.append(path)
            else:
                found[key] = readers
        return found
