"""The crawl: walk → compare with the index → extract in parallel → index in batches → commit.

A crawl compares what is on disk with what the index holds for the same folders:

- ADD: a file the index does not have;
- UPDATE: a file whose size or mtime changed *and* whose extracted text hash changed;
- SKIP: a file whose size and mtime are unchanged, or whose text hash is the same. A touched
  file (same size, same text) is not written again: its new mtime is recorded in place, as a
  doc values update of ``file_mtime_seen``; a file with the same text but another size (metadata
  changed) is rewritten;
- DELETE: a document whose file is gone (orphans).

A mailbox (``.mbox``) is a document per message, keyed ``<file>/<n>`` (the n-th message in the
file; nothing on disk can have that path, the file not being a folder). Its messages carry the
file's size and mtime, so the crawl compares the file as it compares any other
(:func:`~pylucene_mcp.crawler.writes.gathered`) and rewrites all its messages when it changed.

``full=True`` re-extracts every file. Extraction runs on ``workers`` threads with a bounded
number of files in flight, so memory stays bounded; documents are committed every
``batch_size`` files or ``commit_interval_s`` seconds. A file that cannot be extracted is
recorded with its reason and the crawl goes on.
"""

from __future__ import annotations

import collections
import concurrent.futures
import enum
import logging
import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.errors import (
    CrawlerBusyError,
    ExtractionError,
    FileVanishedError,
    WorkerDiedError,
)
from pylucene_mcp.crawler import writes
from pylucene_mcp.crawler.extract import Extracted, Extractor
from pylucene_mcp.crawler.failures import NOT_AGAIN, FailureLog, lasting
from pylucene_mcp.crawler.ocr import OcrWorker
from pylucene_mcp.crawler.report import CrawlReport
from pylucene_mcp.crawler.updates import FileUpdates
from pylucene_mcp.crawler.walk import (
    FileEntry,
    Patterns,
    WalkProblem,
    index_key,
    root_of,
    walk,
)
from pylucene_mcp.engine.core.backend import Backend, FileState

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]


#: how many of the watcher's changes the crawler keeps to show (getCrawlerStats)
RECENT_CHANGES = 50

#: the reason of each file a crawl could not extract because no Tika server was to be had (the
#: crawl's ``error`` says why, once)
NOT_EXTRACTED = "not extracted: no Tika server could be started (the crawl's error says why)"


class Status(enum.StrEnum):
    IDLE = "IDLE"
    CRAWLING = "CRAWLING"
    PAUSED = "PAUSED"
    WATCHING = "WATCHING"


@dataclass(frozen=True)
class CrawlSettings:
    patterns: Patterns = field(default_factory=Patterns)
    workers: int = 2
    batch_size: int = 100
    commit_interval_s: float = 10.0
    bulk_refresh_interval_s: float = 10.0
    #: where the failed files are kept across restarts (None: in memory; crawler/failures.py)
    failures_file: Path | None = None


class Crawler:
    """Runs crawls (one at a time) and single-file updates against one index."""

    def __init__(self, index: Backend, extractor: Extractor, settings: CrawlSettings) -> None:
        self.index = index
        self.extractor = extractor
        self.settings = settings
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._running = False
        self._resume = threading.Event()
        self._resume.set()
        self._stop = threading.Event()
        self.current: CrawlReport | None = None
        self.last: CrawlReport | None = None
        self.in_progress: set[str] = set()
        #: the watcher's last changes, newest last: (epoch seconds, file_path, what happened)
        self.recent: collections.deque[tuple[float, str, str]] = collections.deque(
            maxlen=RECENT_CHANGES
        )
        self.watching = False
        #: the files the walk or the watcher reached through a link (their folders are elsewhere)
        self.linked: set[str] = set()
        self.failures = FailureLog(settings.failures_file)
        #: recognises the text of scans after the crawl (None: no OCR: such documents are
        #: indexed as needing it, and ``ocr_off`` says why, once)
        self.ocr: OcrWorker | None = None
        self.ocr_off = "OCR is off"
        self._said_ocr_off = False
        self._updates = FileUpdates(self)

    # -- control ------------------------------------------------------------------------------

    @property
    def status(self) -> Status:
        if self._running:
            return Status.CRAWLING if self._resume.is_set() else Status.PAUSED
        if not self._resume.is_set():
            return Status.PAUSED
        return Status.WATCHING if self.watching else Status.IDLE

    def start(
        self,
        directories: Sequence[str],
        *,
        full: bool = False,
        progress: Progress | None = None,
        on_done: Callable[[CrawlReport], None] | None = None,
        reconcile: bool = False,
    ) -> CrawlReport:
        """Starts a crawl in the background and returns its live report. With ``reconcile``
        (``directories`` are all the configured folders), the documents that none of them
        covers go too, unless the index is :attr:`~pylucene_mcp.engine.core.backend.Backend.shared`.

        Raises:
            CrawlerBusyError: while another crawl runs.
        """
        report = self._claim(directories, full)

        def run() -> None:
            try:
                self._run(report, progress, reconcile)
            except errors.PyLuceneMcpError as exc:  # the report's error says it to the caller
                log.error("the crawl of %s ended early: %s", ", ".join(report.directories), exc)
            except Exception:
                log.exception("the crawl failed")
            finally:
                if on_done is not None:
                    on_done(report)

        thread = threading.Thread(target=run, name="pylucene-mcp-crawl", daemon=True)
        thread.start()  # started before wait() can see it: joining an unstarted thread raises
        self._thread = thread
        return report

    def crawl(
        self,
        directories: Sequence[str],
        *,
        full: bool = False,
        progress: Progress | None = None,
        reconcile: bool = False,
    ) -> CrawlReport:
        """Runs a crawl in the calling thread and returns its report (``reconcile``: see
        :meth:`start`).

        Raises:
            CrawlerBusyError: while another crawl runs.
        """
        report = self._claim(directories, full)
        self._run(report, progress, reconcile)
        return report

    def _run(self, report: CrawlReport, progress: Progress | None, reconcile: bool) -> None:
        try:
            self._crawl(report, progress, reconcile)
        except errors.PyLuceneMcpError as exc:  # what ended the crawl, for the tools to show
            report.error = str(exc)
            raise
        finally:
            self._release()

    def _claim(self, directories: Sequence[str], full: bool) -> CrawlReport:
        with self._lock:
            if self._running:
                raise CrawlerBusyError(
                    "a crawl is already running; wait for it (getCrawlerStatus) or stop it "
                    "(stopCrawler) first"
                )
            if not directories:
                raise errors.InvalidRequestError(
                    "no directories to crawl; add one with addCrawlableDirectory"
                )
            self._running = True
            self._stop.clear()
            roots = [os.path.abspath(d) for d in directories]
            self.current = CrawlReport(directories=roots, full=full, started=time.time())
            return self.current

    def _release(self) -> None:
        with self._lock:
            self._running = False
            if self.current is not None:
                self.current.finished = time.time()
                self.last = self.current
            self.current = None

    def pause(self) -> None:
        self._resume.clear()

    def resume(self) -> None:
        self._resume.set()

    def stop(self) -> None:
        """Asks the running crawl to stop after the files in flight; they are committed."""
        self._stop.set()
        self._resume.set()

    def wait(self, timeout: float | None = None) -> bool:
        """Waits for a background crawl; True when none is running any more."""
        thread = self._thread
        if thread is not None:
            thread.join(timeout)
        return not self._running

    # -- the crawl ----------------------------------------------------------------------------

    def _crawl(self, report: CrawlReport, progress: Progress | None, reconcile: bool) -> None:
        roots = report.directories
        keyed = [index_key(root) for root in roots]  # as the index holds their files' paths
        known = self.index.file_states(keyed)
        # documents of no configured folder: a folder crawled once by hand, one removed from the
        # configuration while the server was down, a script's writes
        outside = len(self.index) - len(known) if reconcile and not self.index.shared else 0
        writes.gathered(known)
        seen: set[str] = set()
        work: list[FileEntry] = []
        regranted: list[FileEntry] = []  # unchanged but for who may read them
        for item in walk(roots, self.settings.patterns):
            report.count(item.root, "found")
            if isinstance(item, WalkProblem):
                report.fail(item.root, item.key, item.reason)
                if not item.drop:  # a dropped file's document goes with the orphans
                    seen.add(item.key)
                continue
            seen.add(item.key)
            if item.linked:
                self.linked.add(item.key)
            old = known.get(item.key)
            if (
                not report.full
                and old is not None
                and old.size == item.size
                and old.mtime_ms == item.mtime_ms
            ):
                if self.index.records_readers and writes.regranted(old, item):
                    if old.content_hash is None:  # a mailbox's messages: written again
                        work.append(item)
                        continue
                    regranted.append(item)
                report.count(item.root, "skipped")
                continue
            failed = (
                None if report.full else self.failures.known(item.key, item.size, item.mtime_ms)
            )
            if failed is not None:
                report.fail(item.root, item.key, f"{failed} ({NOT_AGAIN})")
                continue
            work.append(item)
        self.failures.keep_only(seen, keyed)
        orphans = [key for key in known if key not in seen]
        report.to_extract = len(work)
        log.info(
            "crawl of %s: %d found, %d to extract, %d with new readers, %d orphans, %d outside "
            "every folder",
            ", ".join(roots),
            report.found,
            len(work),
            len(regranted),
            len(orphans),
            outside,
        )
        bulk = len(work) > self.settings.batch_size
        normal_refresh_s = self.index.refresh_interval_s
        if bulk:
            self.index.set_refresh_interval(self.settings.bulk_refresh_interval_s)
        try:
            if orphans or outside > 0 or regranted:
                with self.index.writer() as writer:
                    for item in regranted:
                        writer.set_readers(item.key, item.readers or ())
                    for key in orphans:
                        writes.delete_file(writer, key)
                        report.count(roots[keyed.index(root_of(key, keyed))], "deleted")
                    if outside > 0:
                        writer.delete_outside(keyed)
                        report.deleted += outside
                if self.ocr is not None and orphans:
                    self.ocr.queue.forget(orphans)
            self._extract_and_index(work, known, report, progress)
        finally:
            self.failures.save()
            if bulk:
                self.index.set_refresh_interval(normal_refresh_s)
            self.index.refresh()
        report.stopped = self._stop.is_set()

    def _extract_and_index(
        self,
        work: list[FileEntry],
        known: dict[str, FileState],
        report: CrawlReport,
        progress: Progress | None,
    ) -> None:
        total = len(work)
        if progress is not None:
            progress(0, total)
        if not work:
            return
        in_flight_limit = max(1, self.settings.workers) * 2
        pending: dict[
            concurrent.futures.Future[tuple[FileEntry, Extracted | ExtractionError]], FileEntry
        ] = {}
        batch: list[tuple[FileEntry, Extracted]] = []
        last_commit = time.monotonic()
        queue = iter(work)
        exhausted = False
        again: list[FileEntry] = []  # in flight when the parser died: retried alone at the end
        try:
            with concurrent.futures.ThreadPoolExecutor(
                max_workers=max(1, self.settings.workers), thread_name_prefix="extract"
            ) as pool:
                while pending or not exhausted:
                    while not exhausted and len(pending) < in_flight_limit:
                        self._resume.wait()
                        if self._stop.is_set():
                            exhausted = True
                            break
                        entry = next(queue, None)
                        if entry is None:
                            exhausted = True
                            break
                        self.in_progress.add(entry.key)
                        pending[pool.submit(self._extract_one, entry, report.directories)] = entry
                    if not pending:
                        break
                    done, _ = concurrent.futures.wait(
                        pending, timeout=1.0, return_when=concurrent.futures.FIRST_COMPLETED
                    )
                    for future in done:
                        entry = pending[future]
                        _, outcome = future.result()  # SetupError: no file can be extracted
                        del pending[future]
                        if isinstance(outcome, WorkerDiedError):  # its own fault or another's
                            again.append(entry)
                            continue
                        self.in_progress.discard(entry.key)
                        self._settle(entry, outcome, known, report, batch, progress, total)
                    due = time.monotonic() - last_commit >= self.settings.commit_interval_s
                    if batch and (len(batch) >= self.settings.batch_size or due):
                        self._index_batch(batch, known, report)
                        batch = []
                        last_commit = time.monotonic()
            # the files in flight when Tika's parser died, each alone now: only one that
            # kills it again is failed, not the good file that was beside a bad one
            while again and not self._stop.is_set():
                entry = again.pop(0)
                log.info("extracting %s again, alone (Tika's parser died under it)", entry.key)
                _, outcome = self._extract_one(entry, report.directories)
                self.in_progress.discard(entry.key)
                self._settle(entry, outcome, known, report, batch, progress, total)
        except errors.SetupError:
            # no Tika to be had: the files in flight and those left are not extracted; each is
            # a failure that points at the crawl's error, which says why once (the caller logs
            # it), and what was extracted before is indexed below
            for entry in [*pending.values(), *again, *queue]:
                report.processed += 1
                report.fail(entry.root, entry.key, NOT_EXTRACTED, quiet=True)
            raise
        finally:
            for entry in [*pending.values(), *again]:  # no longer in work
                self.in_progress.discard(entry.key)
            if batch:
                self._index_batch(batch, known, report)

    def _settle(
        self,
        entry: FileEntry,
        outcome: Extracted | ExtractionError,
        known: dict[str, FileState],
        report: CrawlReport,
        batch: list[tuple[FileEntry, Extracted]],
        progress: Progress | None,
        total: int,
    ) -> None:
        """One file done: a failure recorded (a vanished file's document deleted), or its
        extraction queued for the next batch."""
        report.processed += 1
        if isinstance(outcome, ExtractionError):
            report.fail(entry.root, entry.key, str(outcome))
            if lasting(outcome):
                self.failures.record(entry.key, entry.size, entry.mtime_ms, str(outcome))
            if isinstance(outcome, FileVanishedError) and entry.key in known:
                with self.index.writer() as writer:
                    writes.delete_file(writer, entry.key)
                report.count(entry.root, "deleted")
        else:
            batch.append((entry, outcome))
        if progress is not None:
            progress(report.processed, total)

    def _extract_one(
        self, entry: FileEntry, roots: Sequence[str]
    ) -> tuple[FileEntry, Extracted | ExtractionError]:
        try:
            return entry, self.extractor.extract(Path(entry.path), entry.identity, roots)
        except ExtractionError as exc:
            return entry, exc
        except errors.SetupError:  # no Tika server to be had: no file can be extracted
            raise
        except Exception as exc:  # a bug or an unexpected failure must not end the crawl
            log.exception("extraction of %s failed", entry.key)
            return entry, ExtractionError(f"unexpected error: {exc}")

    def _index_batch(
        self,
        batch: list[tuple[FileEntry, Extracted]],
        known: dict[str, FileState],
        report: CrawlReport,
    ) -> None:
        changes = self.changes(batch, known, report.full)

        refusals: set[str] = set()

        def refused(entry: FileEntry, exc: errors.PyLuceneMcpError) -> None:
            refusals.add(entry.key)
            report.fail(entry.root, entry.key, f"cannot index: {exc}")

        try:
            written = writes.write_block(self.index, changes, known.get, refused)
        except errors.PyLuceneMcpError as exc:
            # the commit failed (a full disk …): none of the batch is in the index, and the
            # report says so instead of counting what the index does not hold
            for entry, _, _ in changes:
                if entry.key not in refusals:
                    report.fail(entry.root, entry.key, f"not committed: {exc}")
            raise
        for file in written:  # counted once the index holds them
            report.count(file.entry.root, file.change, file.entry.size)
        self.failures.forget(file.entry.key for file in written)
        self.queue_ocr(written)

    def changes(
        self, ready: Sequence[tuple[FileEntry, Extracted]], known: dict[str, FileState], full: bool
    ) -> list[tuple[FileEntry, Extracted, str]]:
        """Each of ``ready`` with its change against ``known``, its pages without text marked
        for OCR (:meth:`_mark_ocr`)."""
        changes = []
        for entry, extracted in ready:
            changes.append(
                (entry, extracted, writes.change_of(known.get(entry.key), extracted, full))
            )
            self._mark_ocr(entry, extracted)
        return changes

    def _mark_ocr(self, entry: FileEntry, extracted: Extracted) -> None:
        """Marks a document that has pages (or an image) without text: ``pending`` (it joins
        the OCR queue once written) or, without OCR, ``needed``, said once in the log."""
        if not extracted.ocr_pages or extracted.messages is not None:
            return
        if self.ocr is not None:
            extracted.ocr = schema.OCR_PENDING
            return
        extracted.ocr = schema.OCR_NEEDED
        if not self._said_ocr_off:
            self._said_ocr_off = True
            log.warning(
                "%s has %d page(s) without text, which only OCR can read; it is indexed by its "
                "name and metadata, as such documents are: %s",
                entry.key,
                extracted.ocr_pages,
                self.ocr_off,
            )

    def queue_ocr(self, written: Sequence[writes.Written]) -> None:
        """Queues the written documents whose pages wait for OCR."""
        if self.ocr is not None:
            pending = [f for f in written if f.extracted.ocr == schema.OCR_PENDING]
            self.ocr.add([(f.entry, f.extracted.ocr_pages) for f in pending])

    # -- single files (the watcher: updates.py) ---------------------------------------------

    def process_paths(
        self, paths: Iterable[str], roots: Sequence[str], patterns: Patterns
    ) -> dict[str, str]:
        """Brings the index in line with ``paths`` (created, changed, deleted or moved files and
        folders) in one commit. Returns what happened to each path."""
        self._resume.wait()
        return self._updates.apply(paths, roots, patterns)
