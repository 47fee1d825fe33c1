"""Text recognised in scans and photos (OCR): Tesseract, through Tika, off the crawl's path.

The crawl extracts every file with OCR off, so that a scan never holds up the text documents
beside it. A document with pages (or an image) without text of their own
(:func:`~pylucene_mcp.crawler.extract.without_text`) is indexed at once with what it has, its
``ocr`` field ``pending``, and joins the :class:`OcrQueue`. The :class:`OcrWorker`, a thread of
its own, takes the queue once no crawl runs, smallest first, and sends each file to a second
Tika process that runs Tesseract on those pages alone (a page with text keeps it), each within
its page's limit, the document within its own; the recognised text is written at its page and
the document's ``ocr`` becomes ``true``. The queue and the worker's failures are kept in a file,
so a restart resumes where it stopped.

Where no Tesseract is to be had (or OCR is off), such a document is indexed with ``ocr:
needed``, and the log says once what to install (``doctor`` says it too; :mod:`.tesseract` finds
the program and says what to install).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pylucene_mcp.basics import errors, portable, schema
from pylucene_mcp.basics.private import private_dir
from pylucene_mcp.crawler.documents import to_documents
from pylucene_mcp.crawler.extract import Extracted, Extractor
from pylucene_mcp.crawler.walk import FileEntry, key_path
from pylucene_mcp.engine.core.backend import Backend, FileState, SearchRequest

log = logging.getLogger(__name__)


@dataclass
class Waiting:
    """A document waiting for OCR: its file as the crawl indexed it, and how many pages (an
    image: 1) have no text of their own."""

    entry: FileEntry
    pages: int

    def to_json(self) -> dict[str, Any]:
        entry = dataclasses.asdict(self.entry)
        return {**entry, "pages": self.pages}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Waiting:
        readers = data.get("readers")
        entry = FileEntry(
            path=str(data["path"]),
            key=str(data["key"]),
            root=str(data["root"]),
            size=int(data["size"]),
            mtime_ms=int(data["mtime_ms"]),
            identity=(int(data["identity"][0]), int(data["identity"][1])),
            readers=None if readers is None else tuple(str(r) for r in readers),
            linked=bool(data.get("linked")),
        )
        return cls(entry, int(data["pages"]))


class OcrQueue:
    """The documents waiting for OCR by index key, and those whose OCR failed (``key → (size,
    mtime_ms, reason)``); in ``path`` (JSON, this user's alone) when one is given."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._saving = threading.Lock()
        self._waiting: dict[str, Waiting] = {}
        self.failed: dict[str, tuple[int, int, str]] = {}
        if path is None:
            return
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            self._waiting = {w["key"]: Waiting.from_json(w) for w in data.get("waiting", [])}
            self.failed = {str(k): (int(v[0]), int(v[1]), str(v[2])) for k, v in
                           data.get("failed", {}).items()}  # fmt: skip
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError, KeyError, IndexError, AttributeError) as exc:
            log.warning("ignoring the unreadable OCR queue %s: %s", path, exc)

    def add(self, entry: FileEntry, pages: int) -> None:
        self.add_all([(entry, pages)])

    def add_all(self, items: Iterable[tuple[FileEntry, int]]) -> None:
        with self._lock:
            for entry, pages in items:
                self._waiting[entry.key] = Waiting(entry, pages)
                self.failed.pop(entry.key, None)
        self.save()

    def next(self) -> Waiting | None:
        """The document to OCR next: the one with the fewest pages, the smallest of them."""
        with self._lock:
            if not self._waiting:
                return None
            return min(self._waiting.values(), key=lambda w: (w.pages, w.entry.size, w.entry.key))

    def done(self, key: str, failure: tuple[int, int, str] | None = None) -> None:
        with self._lock:
            self._waiting.pop(key, None)
            if failure is not None:
                self.failed[key] = failure
        self.save()

    def forget(self, keys: Iterable[str]) -> None:
        """Takes ``keys`` (and the documents under them: a folder's) out of the queue and the
        failures: their files are gone from the index."""
        gone = {portable.fold(k) for k in keys}
        if not gone:
            return
        prefixes = tuple(portable.folder_prefix(k) for k in gone)
        with self._lock:
            for store in (self._waiting, self.failed):
                for key in list(store):
                    folded = portable.fold(key)
                    if folded in gone or folded.startswith(prefixes):
                        del store[key]
        self.save()

    @property
    def documents(self) -> int:
        return len(self._waiting)

    @property
    def pages(self) -> int:
        with self._lock:
            return sum(w.pages for w in self._waiting.values())

    def save(self) -> None:
        """Writes the queue (atomically, one writer at a time: a later state is never
        overwritten by an earlier one; a failure to write is logged)."""
        if self.path is None:
            return
        with self._saving:
            with self._lock:
                data = {
                    "waiting": [w.to_json() for w in self._waiting.values()],
                    "failed": {k: list(v) for k, v in self.failed.items()},
                }
            try:
                private_dir(self.path.parent)
                portable.write_private(self.path, json.dumps(data))
            except OSError as exc:
                log.warning("cannot write the OCR queue %s: %s", self.path, exc)


@dataclass
class OcrProgress:
    """How far OCR is: documents and pages recognised since the start, those waiting, those
    that failed (the last ones with their reason), the one under way."""

    documents_done: int = 0
    pages_done: int = 0
    seconds: float = 0.0
    now: str | None = None
    failures: list[tuple[str, str]] = field(default_factory=list)


#: the failures the progress keeps to show
FAILURES_SHOWN = 20


class OcrWorker:
    """Recognises the text of the queued documents, one at a time, in a thread of its own that
    waits while ``busy()`` (a crawl runs: its text documents come first)."""

    def __init__(
        self,
        index: Backend,
        text: Extractor,
        ocr: Extractor,
        queue: OcrQueue,
        *,
        max_pages: int,
        busy: Callable[[], bool] = lambda: False,
    ) -> None:
        self.index = index
        self.text = text
        self.ocr = ocr
        self.queue = queue
        self.max_pages = max_pages
        self.busy = busy
        self.progress = OcrProgress()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._idle = threading.Event()
        self._idle.set()

    def add(self, items: Sequence[tuple[FileEntry, int]]) -> None:
        """Queues each file with its pages without text (indexed with ``ocr: pending``) and
        wakes the worker."""
        if items:
            self.queue.add_all(items)
            self.start()

    def adopt(self, roots: Sequence[str]) -> int:
        """Queues the documents under ``roots`` indexed as needing OCR (``ocr: needed``: crawled
        while Tesseract was missing or OCR off), their files as the index recorded them (a file
        changed since is crawled again anyway). Returns how many."""
        keys: list[str] = []
        cursor: str | None = "*"
        only = [{"field": schema.OCR, "value": schema.OCR_NEEDED}]
        while cursor is not None:
            page = self.index.search(
                SearchRequest("*", filters=only, page_size=100, max_passages=0, cursor=cursor)
            )
            keys += [hit.file_path for hit in page.documents]
            cursor = page.next_cursor if page.documents else None
        states = self.index.file_states_of(keys)
        items = []
        for key, state in states.items():
            root = next((r for r in roots if portable.is_under(key, r)), None)
            if root is None or state.size is None or state.mtime_ms is None:
                continue
            path = key_path(key)
            try:
                st = os.stat(path)
            except OSError:
                continue  # gone: the next crawl deletes its document
            entry = FileEntry(path, key, root, state.size, state.mtime_ms,
                              (st.st_dev, st.st_ino), state.readers)  # fmt: skip
            items.append((entry, 1))
        self.add(items)
        return len(items)

    def start(self) -> None:
        """Starts the worker thread when it is not running and the queue has work."""
        with self._lock:
            if self._stop.is_set():
                return
            self._idle.clear()
            self._wake.set()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="ocr", daemon=True)
                self._thread.start()

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Waits until the queue is empty (or the worker stopped); True when it is."""
        return self._idle.wait(timeout)

    def close(self, grace_s: float = 5.0) -> None:
        """Stops the worker; the document under way is left in the queue, for the next start."""
        self._stop.set()
        self._wake.set()
        self.ocr.server.close(grace_s)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(30)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.clear()
            if self.busy():
                self._wake.wait(1.0)
                continue
            waiting = self.queue.next()
            if waiting is None:
                self._idle.set()
                self._wake.wait(5.0)
                with self._lock:  # an add after this starts a new thread
                    if not self._wake.is_set() and self.queue.next() is None:
                        self._thread = None
                        return
                continue
            try:
                self._recognise(waiting)
            except errors.TikaUnavailableError as exc:
                if self._stop.is_set():
                    break
                log.warning("OCR waits: %s", exc)
                self._stop.wait(30.0)
            except Exception:  # a bug must not end OCR for every other document
                log.exception("OCR of %s failed", waiting.entry.key)
                self._failed(waiting, "unexpected error (see the log)")
        self._idle.set()

    def _current(self, waiting: Waiting) -> FileState | None:
        """What the index holds of the queued document while its file and the document are
        still those queued (else None: the crawl or the watcher has seen a change, and queues
        the new version when it needs OCR)."""
        entry = waiting.entry
        state = self.index.file_states_of([entry.key]).get(entry.key)
        if state is None or (state.size, state.mtime_ms) != (entry.size, entry.mtime_ms):
            return None
        try:
            st = os.stat(entry.path)
        except OSError:
            return None
        if (st.st_size, st.st_mtime_ns // 1_000_000) != (entry.size, entry.mtime_ms):
            return None
        return state

    def _recognise(self, waiting: Waiting) -> None:
        entry = waiting.entry
        before = self._current(waiting)
        if before is None:
            self.queue.done(entry.key)
            return
        if waiting.pages > self.max_pages:
            self._failed(
                waiting,
                f"{waiting.pages} pages without text, over the limit of {self.max_pages} "
                "(ocr_max_pages)",
            )
            return
        self.progress.now = entry.key
        started = time.monotonic()
        try:
            extracted = self.ocr.extract(Path(entry.path), entry.identity, [entry.root])
        except errors.ExtractionError as exc:
            if isinstance(exc, errors.TikaUnavailableError):
                raise
            self._failed(waiting, str(exc))
            return
        finally:
            self.progress.now = None
        # a PDF whose pages without text held no picture of any (a blank page of a typed
        # document) has only the text its file holds: it says nothing of recognition
        added = extracted.content_hash != before.content_hash
        pdf = extracted.file_type == "application/pdf"
        extracted.ocr = schema.OCR_DONE if added or not pdf else None
        if self._write(waiting, extracted):
            self.progress.documents_done += 1
            self.progress.pages_done += max(extracted.ocr_pages, 1)
            self.progress.seconds += time.monotonic() - started
            log.info(
                "OCR of %s: %d page(s) in %.1f s",
                entry.key,
                extracted.ocr_pages,
                time.monotonic() - started,
            )
        self.queue.done(entry.key)

    def _failed(self, waiting: Waiting, reason: str) -> None:
        """Records why OCR failed and writes the document with ``ocr: failed`` (and the text
        its file holds)."""
        entry = waiting.entry
        log.warning("OCR of %s failed: %s", entry.key, reason)
        self.progress.failures = [*self.progress.failures, (entry.key, reason)][-FAILURES_SHOWN:]
        try:
            extracted = self.text.extract(Path(entry.path), entry.identity, [entry.root])
        except errors.ExtractionError:
            extracted = None
        if extracted is not None:
            extracted.ocr = schema.OCR_FAILED
            self._write(waiting, extracted)
        self.queue.done(entry.key, (entry.size, entry.mtime_ms, reason))

    def _write(self, waiting: Waiting, extracted: Extracted) -> bool:
        """Writes the document when its file is still the one queued, readable by whom the
        index says now (a ``chmod`` since the crawl has changed them in place); True when
        written."""
        state = self._current(waiting)
        if state is None:
            return False
        entry = dataclasses.replace(waiting.entry, readers=state.readers)
        with self.index.writer() as writer:
            for doc in to_documents(entry, extracted):
                writer.add(doc)
        self.index.refresh()
        return True
