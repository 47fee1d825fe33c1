"""The service's crawls: the crawler and its Tika processes made on first use, the start-up
crawl, a crawl of the configured folders (or some of them), the folders waiting for theirs, and
the watcher that follows them. An object of its own (:class:`Crawls`), which asks the service
only what :class:`~pylucene_mcp.service.part.Host` declares."""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.basics.config import Settings, directory_path, home_dir
from pylucene_mcp.engine.core.backend import Backend
from pylucene_mcp.service.part import Host

if TYPE_CHECKING:  # imported when first used: the crawler is not on the server's start-up path
    from pylucene_mcp.crawler.pipeline import Crawler
    from pylucene_mcp.crawler.report import CrawlReport
    from pylucene_mcp.crawler.tika_process import OcrSettings, TikaProcess
    from pylucene_mcp.crawler.walk import Patterns
    from pylucene_mcp.crawler.watch import Watcher

log = logging.getLogger(__name__)


def failures_file(index: Backend) -> Path:
    """Where the crawler keeps the files of ``index`` that failed (crawler/failures.py):
    ``<home>/state/failed-files-<digest of the index's identity>.json``."""
    digest = hashlib.sha256(index.identity.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return home_dir() / "state" / f"failed-files-{digest}.json"


def ocr_queue_file(index: Backend) -> Path:
    """Where the crawler keeps the documents of ``index`` waiting for OCR (crawler/ocr.py)."""
    failed = failures_file(index)
    return failed.with_name(failed.name.replace("failed-files", "ocr-queue"))


class Crawls:
    """The crawler, its Tika processes, the watcher and the queue of folders waiting for their
    crawl, of one :class:`~pylucene_mcp.service.service.Service` (``host``). ``lock`` is the
    service's: a crawler is made on the index that the service opens under it."""

    def __init__(self, host: Host, lock: threading.RLock) -> None:
        self._host = host
        self._lock = lock
        self._crawler: Crawler | None = None
        self._tika: TikaProcess | None = None
        self._watcher: Watcher | None = None
        # folders added while the index was opening or a crawl ran: crawled next (queue)
        self._queued: list[str] = []
        self._queue_runner: threading.Thread | None = None
        # the start-up crawl (expect_start_up) has not begun yet
        self._start_up = threading.Event()
        #: the folders the start-up crawl crawls (None: every configured one)
        self._start_folders: tuple[str, ...] | None = None

    @property
    def settings(self) -> Settings:
        return self._host.settings

    def crawler(self) -> Crawler:
        """The :class:`~pylucene_mcp.crawler.pipeline.Crawler` (created on first use)."""
        with self._lock:
            if self._crawler is None:
                from pylucene_mcp.crawler.extract import Extractor
                from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings

                s = self.settings
                self._tika = self._tika_server(s.tika_timeout_s)
                index = self._host.index()
                self._crawler = Crawler(
                    index,
                    Extractor(self._tika),
                    CrawlSettings(
                        patterns=self.patterns(),
                        workers=s.workers,
                        batch_size=s.batch_size,
                        commit_interval_s=s.commit_interval_s,
                        bulk_refresh_interval_s=s.bulk_refresh_interval_s,
                        failures_file=failures_file(index),
                    ),
                )
                self._set_up_ocr(self._crawler)
            return self._crawler

    def _set_up_ocr(self, crawler: Crawler) -> None:
        """Gives ``crawler`` its OCR worker where Tesseract is to be had (the setting ``ocr``),
        with a Tika process of its own; resumes the queue a former run left."""
        from pylucene_mcp.crawler import ocr, tesseract
        from pylucene_mcp.crawler.extract import Extractor
        from pylucene_mcp.crawler.tika_process import OcrSettings

        s = self.settings
        found = tesseract.availability(s.ocr, s.ocr_languages, s.tesseract_path)
        if not found.on:
            crawler.ocr_off = str(found.reason)
            (log.error if s.ocr == "on" else log.info)("no OCR: %s", found.reason)
            return
        program = Path(str(found.program))
        languages = "+".join(found.languages)
        server = self._tika_server(
            s.ocr_timeout_s, OcrSettings(languages, s.ocr_page_timeout_s, s.ocr_dpi, program.parent)
        )
        assert self._tika is not None
        crawler.ocr = ocr.OcrWorker(
            crawler.index,
            Extractor(self._tika),
            Extractor(server),
            ocr.OcrQueue(ocr_queue_file(crawler.index)),
            max_pages=s.ocr_max_pages,
            busy=lambda: crawler.current is not None,
        )
        log.info("OCR with %s in %s", program, "+".join(found.languages))
        if crawler.ocr.queue.documents:
            crawler.ocr.start()
        worker, roots = crawler.ocr, list(s.directories)

        def adopt() -> None:  # the scans indexed while OCR was not to be had
            try:
                if adopted := worker.adopt(roots):
                    log.info("%d document(s) indexed as needing OCR are queued for it", adopted)
            except errors.PyLuceneMcpError as exc:
                log.warning("cannot queue the documents that need OCR: %s", exc)

        threading.Thread(target=adopt, name="ocr-adopt", daemon=True).start()

    def _tika_server(self, timeout_s: float, ocr: OcrSettings | None = None) -> TikaProcess:
        """A Tika parser process with the settings' heap, limits and log folder: the crawl's,
        or (``ocr``) the one that reads scans."""
        from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings

        s = self.settings
        settings = TikaSettings(
            heap=s.tika_heap,
            timeout_s=timeout_s,
            idle_stop_s=s.tika_idle_s,
            max_file_size_mb=s.max_file_size_mb,
            max_content_chars=s.max_content_chars,
            ocr=ocr,
        )
        return TikaProcess(settings, log_dir=s.log_dir)

    def started_crawler(self) -> Crawler | None:
        """The crawler if one has been made (None: no crawl or watch has been asked for yet, so
        none runs): what a status answers from without opening the index or starting Java."""
        with self._lock:
            return self._crawler

    def patterns(self) -> Patterns:
        from pylucene_mcp.crawler.walk import DEFAULT_EXCLUDE, DEFAULT_INCLUDE, Patterns

        return Patterns(
            include=self.settings.include or DEFAULT_INCLUDE,
            exclude=self.settings.exclude or DEFAULT_EXCLUDE,
            hard_links=self.settings.index_hard_links,
            decided=tuple(self.settings.readers),
        )

    def tika(self) -> TikaProcess:
        self.crawler()
        assert self._tika is not None  # made with the crawler
        return self._tika

    def crawl_on_start(self) -> None:
        """What ``serve`` does once the index is open: reindex everything when the schema
        changed, else crawl incrementally; then watch. Only the process that writes the index
        does (another one's readers hand it their writes, see
        :meth:`~pylucene_mcp.service.service.Service.forward`)."""
        index = self._host.index()
        with self._lock:
            chosen, self._start_folders = self._start_folders, None
            directories = [
                d
                for d in self.settings.directories
                if chosen is None or d in chosen or d in self._queued
            ]
        if not directories or not self._host.writes():
            return
        full = index.needs_reindex
        if full:
            log.warning("the index was written with another schema version: reindexing all")
        if full:  # every document must be written again
            directories = list(self.settings.directories)
        if self.settings.crawl_on_start or full:
            try:
                self.start_crawl(directories, full=full)
            except errors.CrawlerBusyError:
                # a tool started a crawl before the start-up got here (addCrawlableDirectory,
                # startCrawl): that crawl runs, and watches when it ends; nothing went wrong
                if full:
                    log.warning(
                        "a crawl is already running: the full reindex that the schema change "
                        "needs runs at the next start (or call startCrawl with fullReindex)"
                    )
                else:
                    log.info("a crawl is already running: the start-up crawl is left to it")
        elif self.settings.watch:
            self.restart_watcher()

    def check_inside(self, path: str) -> str:
        """``path`` as an absolute folder inside the configured directories, symbolic links
        resolved (a link inside them to a place outside does not count as inside).

        Raises:
            InvalidRequestError: for a path outside them.
        """
        from pylucene_mcp.crawler.walk import inside

        absolute = directory_path(path)
        for root in self.settings.directories:
            if portable.is_under(absolute, root) and inside(absolute, [root]):
                return absolute
        raise errors.InvalidRequestError(
            f"{path!r} is not inside the configured directories "
            f"({', '.join(self.settings.directories) or 'none'}); add it with "
            "addCrawlableDirectory first"
        )

    def start_crawl(
        self, directories: list[str] | None, *, full: bool = False, progress: Any = None
    ) -> CrawlReport:
        """Starts a background crawl of ``directories`` (default: all configured) and watches
        them when it ends. Returns the live report.

        Raises:
            CrawlerBusyError, InvalidRequestError.
        """
        roots = (
            [self.check_inside(d) for d in directories]
            if directories
            else list(self.settings.directories)
        )
        covers_all = set(roots) >= set(self.settings.directories)

        def done(report: Any) -> None:
            index = self._host.index()
            if full and covers_all and not report.stopped and index.needs_reindex:
                index.mark_schema_current()
            if self.settings.watch and not self._host.closing:
                self.restart_watcher()

        report = self.crawler().start(
            roots, full=full, progress=progress, on_done=done, reconcile=covers_all
        )
        with self._lock:  # the folders waiting for a crawl that this one covers wait no more
            self._queued = [
                f for f in self._queued if not any(portable.is_under(f, r) for r in roots)
            ]
        return report

    def restart_watcher(self) -> None:
        """Watches the configured folders that exist (again: the folders changed)."""
        from pylucene_mcp.crawler.watch import Watcher

        with self._lock:
            if self._watcher is not None:
                self._watcher.stop()
                self._watcher = None
            roots = [d for d in self.settings.directories if os.path.isdir(d)]
            if roots:
                self._watcher = Watcher(
                    self.crawler(), roots, self.patterns(), self.settings.debounce_s
                )
                self._watcher.start()

    # -- the folders waiting for their crawl, and the start-up crawl ---------------------------

    def expect_start_up(self) -> None:
        """The start-up crawl is to come: of the folders configured now, not of one a call adds
        meanwhile with ``crawlNow`` false (a call that crawls queues its folder)."""
        self._start_folders = tuple(self.settings.directories)
        self._start_up.set()

    def start_up_over(self) -> None:
        """The start-up crawl has begun, or will not."""
        self._start_up.clear()

    def queued(self) -> bool:
        """Whether a folder added by :meth:`queue` waits for its crawl."""
        with self._lock:
            return bool(self._queued)

    def pending(self) -> bool:
        """Whether a crawl is to begin without another call: the start-up crawl before it has
        begun, or the crawl of an added folder that waits for the running one."""
        start_up = self._start_up.is_set() and bool(self.settings.directories)
        return start_up or self.queued()

    def queue(self, folder: str) -> None:
        """Crawls ``folder`` once the index is open and no crawl runs (one background thread
        for all that wait; the folders queued meanwhile go into the same crawl)."""
        with self._lock:
            if folder not in self._queued:
                self._queued.append(folder)
            if self._queue_runner is not None and self._queue_runner.is_alive():
                return
            self._queue_runner = threading.Thread(
                target=self._run_queued, name="pylucene-mcp-queued-crawl", daemon=True
            )
            self._queue_runner.start()

    def _run_queued(self) -> None:
        """Crawls the queued folders as soon as no crawl runs; a folder leaves the queue only
        when its crawl has begun (so the status says QUEUED until then), and the runner ends
        only with the queue empty (under the lock that :meth:`queue` takes)."""
        try:
            self._host.index()
            crawler = self.crawler()
            while not self._host.closing:
                crawler.wait(1.0)
                # the start-up crawl reads the folders when it begins, the queued ones too, and
                # takes them out of the queue: it goes first, or they would be crawled twice
                if crawler.current is not None or self._start_up.is_set():
                    continue
                with self._lock:
                    folders = [f for f in self._queued if f in self.settings.directories]
                    if not folders:
                        self._queued = []
                        self._queue_runner = None
                        return
                try:
                    self.start_crawl(folders)
                except errors.CrawlerBusyError:  # another crawl won the race: after it, then
                    continue
                with self._lock:
                    self._queued = [f for f in self._queued if f not in folders]
        except Exception:  # reported again by the next call that needs the index or crawler
            log.exception("the crawl of the added folders could not start")
            with self._lock:
                self._queued = []
                self._queue_runner = None

    # -- the end --------------------------------------------------------------------------------

    def running(self) -> bool:
        """Whether a crawl is running (or paused) now."""
        crawler = self._crawler
        return crawler is not None and crawler.current is not None

    def watching(self) -> bool:
        """Whether the watcher follows the folders."""
        return self._watcher is not None

    def stop(self, grace_s: float) -> None:
        """Stops a crawl after committing what was extracted (the files in flight in Tika are
        failures of the moment, taken by the next crawl; Tika is killed after ``grace_s``), and
        waits for its end (outside the lock: the crawl's end takes it)."""
        crawler = self._crawler
        if crawler is None:
            return
        if crawler.ocr is not None:  # the page under way is done at the next start
            crawler.ocr.close(grace_s=grace_s)
        crawler.stop()
        if self._tika is not None:  # the files in flight fail at once, for the next crawl
            self._tika.close(grace_s=grace_s)
        crawler.wait(60)

    def release(self) -> None:
        """Stops the watcher and the Tika processes and drops the crawler (with the lock held; a
        crawl must have ended): the next use makes them again, on the index open then."""
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        if self._tika is not None:
            self._tika.close()
            self._tika = None
        if self._crawler is not None and self._crawler.ocr is not None:
            self._crawler.ocr.close()
        self._crawler = None
