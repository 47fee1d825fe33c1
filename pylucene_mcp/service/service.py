"""The service behind every face (MCP tools, CLI, REPL): one lazily opened :class:`Index`, and
the crawler, its Tika server and the watcher that keep it in step with the configured folders.

Opening the index starts the JVM, so the server does it in the background after the MCP
handshake (``warm_up``), or on the first call that needs it, whichever comes first.
"""

from __future__ import annotations

import gc
import hashlib
import logging
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, portable
from pylucene_mcp.basics.config import (
    Settings,
    crawlable_directory,
    directory_path,
    ensure_directories_writable,
    home_dir,
    reread_directories,
    save_directories,
)
from pylucene_mcp.engine.core.backend import Backend, SearchRequest
from pylucene_mcp.service.places import IndexPlace, place
from pylucene_mcp.service.sharing import Sharing

if TYPE_CHECKING:  # imported when first used: the crawler is not on the server's start-up path
    from pylucene_mcp.crawler.pipeline import Crawler
    from pylucene_mcp.crawler.report import CrawlReport
    from pylucene_mcp.crawler.tika_server import TikaServer
    from pylucene_mcp.crawler.walk import Patterns
    from pylucene_mcp.crawler.watch import Watcher
    from pylucene_mcp.service.admin import Admin

log = logging.getLogger(__name__)

#: how long the server runs before it writes the JVM's class-data archive (when there is none)
ARCHIVE_AFTER_S = 30.0


def open_backend(settings: Settings, *, create: bool = True, read_only: bool = False) -> Backend:
    """The index the settings choose (:func:`~pylucene_mcp.service.places.place`), open.

    Raises:
        IndexAccessError, IndexLockedError, IndexCorruptError: see ``Index.open``;
            RemoteIndexError for a cluster that cannot be reached or lacks the collection.
    """
    return place(settings).open(create=create, read_only=read_only)


def failures_file(index: Backend) -> Path:
    """Where the crawler keeps the files of ``index`` that failed (crawler/failures.py):
    ``<home>/state/failed-files-<digest of the index's identity>.json``."""
    digest = hashlib.sha256(index.identity.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return home_dir() / "state" / f"failed-files-{digest}.json"


class Service:
    """Owns the index, the crawler and the watcher of one process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        #: where the index is, and what can be done to it unopened (admin's purge and unlock)
        self.place: IndexPlace = place(settings)
        self._index: Backend | None = None
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._crawler: Crawler | None = None
        self._tika: TikaServer | None = None
        self._watcher: Watcher | None = None
        self._admin: Admin | None = None
        self._closing = False
        self._asked = False  # a tool has asked for the index (see warm_up)
        # folders added while the index was opening or a crawl ran: crawled next (add_directory)
        self._queued: list[str] = []
        self._queue_runner: threading.Thread | None = None
        # the start-up crawl (warm_up) has not begun yet
        self._start_up_crawl = threading.Event()
        self.sharing = Sharing(on_takeover=self._took_over)

    # -- the index ------------------------------------------------------------------------------

    def index(self) -> Backend:
        """The open index (opened now if needed).

        Raises:
            JvmError, IndexLockedError, IndexAccessError: when it cannot be opened.
        """
        self._asked = True
        return self._open_index()

    def _open_index(self) -> Backend:
        with self._lock:
            if self._index is None:
                jvm.start(self.settings.max_heap)
                self._index = self.sharing.open(self.settings, open_backend)
            return self._index

    def forward(
        self, tool: str, arguments: dict[str, Any], *, writes: bool
    ) -> dict[str, Any] | None:
        """The answer of the process that writes the index to ``tool(arguments)``, or None
        when this process is to run it (see :meth:`~pylucene_mcp.service.sharing.Sharing.forward`).

        Raises:
            IndexReadOnlyError, IndexLockedError: a call that writes and cannot be made.
        """
        try:
            self.index()
        except errors.IndexAccessError:  # a corrupt index: the tool says so, or repairs it
            return None
        return self.sharing.forward(tool, arguments, writes=writes)

    def writable_index(self) -> Backend:
        """The open index, which this process writes.

        Raises:
            IndexLockedError: when another process writes it (named).
            IndexReadOnlyError: when its folder cannot be written.
        """
        index = self.index()
        if not self.writes():
            raise self.sharing.refusal()
        return index

    def writes(self) -> bool:
        """Whether this process writes the index (false beside another writer, or on a folder
        that cannot be written)."""
        return self.sharing.writes()

    def _took_over(self) -> None:
        """This process writes the index now that its writer has gone: the folders as that
        writer left them in the config file, a crawl of what changed meanwhile, then watches."""
        with self._lock:
            self.settings = reread_directories(self.settings)
        if not self._closing:
            threading.Thread(
                target=self._crawl_after_takeover, name="pylucene-mcp-takeover-crawl", daemon=True
            ).start()

    def _crawl_after_takeover(self) -> None:
        try:
            self.crawl_on_start()
        except Exception:  # the next startCrawl reports it
            log.exception("the crawl after taking the writer over failed")

    def index_is_open(self) -> bool:
        return self._index is not None

    def reset_index(self, wipe: Callable[[], None]) -> None:
        """Closes the index, runs ``wipe`` (e.g. removes its folder) and opens it anew, empty;
        the crawler and watcher are rebuilt on the new index when next used."""
        with self._lock:
            self._release()
            wipe()
        self.index()

    def _release(self) -> None:
        """Stops the watcher and the Tika server, drops the crawler and closes the index (with
        the lock held; a crawl must have ended)."""
        self.sharing.close()
        if self._watcher is not None:
            self._watcher.stop()
            self._watcher = None
        if self._tika is not None:
            self._tika.close()
            self._tika = None
        self._crawler = None
        if self._index is not None:
            self._index.close()
            self._index = None

    def crawling(self) -> bool:
        """Whether a crawl is running (or paused) now."""
        crawler = self._crawler
        return crawler is not None and crawler.current is not None

    def admin(self) -> Admin:
        """The index administration operations of this service."""
        with self._lock:
            if self._admin is None:
                from pylucene_mcp.service.admin import Admin

                self._admin = Admin(self)
            return self._admin

    def warm_up(self, delay_s: float, then_crawl: bool = False) -> None:
        """Opens the index in a background thread after ``delay_s`` seconds; with
        ``then_crawl``, crawls the configured directories and watches them."""

        def run() -> None:
            try:
                index = self._open_index()
                if self._closing:  # closed meanwhile: nothing more to start
                    return
                # a search already waiting warms the code itself: a priming search beside it
                # would only take the cores from it (bench/startup.py; docs/performance.md)
                self._prime(index, search=not self._asked)
                self._archive_later()
                if then_crawl and not self._closing:
                    self.crawl_on_start()
            except Exception:  # reported again to the first tool call that needs the index
                log.exception("background start of the JVM, index or crawl failed")
            finally:
                self._start_up_crawl.clear()

        if then_crawl:  # set even without folders yet: one may be added before it begins
            self._start_up_crawl.set()

        self._timer = threading.Timer(delay_s, run)
        self._timer.daemon = True
        self._timer.name = "pylucene-mcp-warm-up"
        self._timer.start()

    def _archive_later(self) -> None:
        """Once the server has run for :data:`ARCHIVE_AFTER_S`, writes the JVM's class-data
        archive if this runtime and class path have none (once per installation; a child
        process, see :mod:`pylucene_mcp.engine.lucene.class_archive`): later starts reach their
        first search sooner. Not before, so that short-lived servers (a client probing, tests) spawn
        none."""

        def run() -> None:
            if self._closing:
                return
            from pylucene_mcp.engine.lucene import class_archive

            try:
                class_archive.ensure()
            except Exception:  # an optimization: the server runs as well without it
                log.info("no class-data archive", exc_info=True)

        timer = threading.Timer(ARCHIVE_AFTER_S, run)
        timer.daemon = True
        timer.name = "pylucene-mcp-class-archive"
        timer.start()

    @staticmethod
    def _prime(index: Backend, search: bool = True) -> None:
        """One throw-away search (with ``search``), so that the classes and code paths of a
        search (parser, DrillSideways, highlighter) are loaded before the first real one."""
        try:
            if search:
                index.search(SearchRequest("*warm* OR up", default_operator="OR", max_passages=1))
        except Exception:  # priming is an optimization; the real search reports real errors
            log.debug("priming search failed", exc_info=True)
        # Everything alive now (modules, the SDK, pydantic models) lives as long as the process:
        # keep it out of the collector's traversals, which otherwise cost each search time.
        gc.collect()
        gc.freeze()

    # -- the crawler ----------------------------------------------------------------------------

    def crawler(self) -> Crawler:
        """The :class:`~pylucene_mcp.crawler.pipeline.Crawler` (created on first use)."""
        with self._lock:
            if self._crawler is None:
                from pylucene_mcp.crawler.extract import Extractor
                from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
                from pylucene_mcp.crawler.tika_server import TikaServer, TikaSettings

                s = self.settings
                self._tika = TikaServer(
                    TikaSettings(
                        heap=s.tika_heap,
                        timeout_s=s.tika_timeout_s,
                        idle_stop_s=s.tika_idle_s,
                        max_file_size_mb=s.max_file_size_mb,
                        max_content_chars=s.max_content_chars,
                    ),
                    log_dir=s.log_dir,
                )
                index = self.index()
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
            return self._crawler

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
        )

    def tika(self) -> TikaServer:
        self.crawler()
        assert self._tika is not None  # made with the crawler
        return self._tika

    def crawl_on_start(self) -> None:
        """What ``serve`` does once the index is open: reindex everything when the schema
        changed, else crawl incrementally; then watch. Only the process that writes the index
        does (another one's readers hand it their writes, see :meth:`forward`)."""
        index = self.index()
        directories = list(self.settings.directories)
        if not directories or not self.writes():
            return
        full = index.needs_reindex
        if full:
            log.warning("the index was written with another schema version: reindexing all")
        if self.settings.crawl_on_start or full:
            try:
                self.start_crawl(None, full=full)
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
            self._restart_watcher()

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
            index = self.index()
            if full and covers_all and not report.stopped and index.needs_reindex:
                index.mark_schema_current()
            if self.settings.watch and not self._closing:
                self._restart_watcher()

        report = self.crawler().start(
            roots, full=full, progress=progress, on_done=done, reconcile=covers_all
        )
        with self._lock:  # the folders waiting for a crawl that this one covers wait no more
            self._queued = [
                f for f in self._queued if not any(portable.is_under(f, r) for r in roots)
            ]
        return report

    def _restart_watcher(self) -> None:
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

    # -- directories ----------------------------------------------------------------------------

    def add_directory(self, path: str, crawl_now: bool = True) -> list[str]:
        """Adds a folder to the crawled ones (persisted), and crawls it now by default. It
        answers at once: while the index is still opening, or a crawl runs, the folder's crawl
        is queued and starts as soon as it can (:meth:`crawl_queued` says whether it waits).

        Raises:
            InvalidRequestError: when it is not a readable folder.
            ConfigError: when the directories come from the environment.
        """
        ensure_directories_writable(self.settings)
        absolute = self.crawlable(path)
        with self._lock:
            before = self.settings.directories
            if absolute not in before:
                self.settings = save_directories(self.settings, (*before, absolute))
        if crawl_now:
            if self._index is None or self.crawler().current is not None:
                self._queue_crawl(absolute)
                return list(self.settings.directories)
            try:
                self.start_crawl([absolute])
            except errors.CrawlerBusyError:  # a crawl began meanwhile: this one follows it
                self._queue_crawl(absolute)
            except Exception:  # a refused call changes nothing
                with self._lock:
                    self.settings = save_directories(self.settings, before)
                raise
        elif self.settings.watch:
            # watches are set up in the background: the call answers at once
            threading.Thread(
                target=self._restart_watcher, name="pylucene-mcp-watch-setup", daemon=True
            ).start()
        return list(self.settings.directories)

    def crawlable(self, path: str) -> str:
        """``path`` as an absolute folder that may be crawled (see
        :func:`~pylucene_mcp.basics.config.crawlable_directory`), readable by this process.

        Raises:
            InvalidRequestError: saying why not.
        """
        absolute = crawlable_directory(path, self.settings)
        if not os.path.isdir(absolute):
            raise errors.InvalidRequestError(f"{path!r} is not a folder on this machine")
        if not os.access(absolute, os.R_OK | os.X_OK):
            raise errors.InvalidRequestError(f"{path!r} cannot be read by this process")
        return absolute

    def adopt_directories(self, paths: list[str]) -> list[str]:
        """``paths`` as crawled folders, judged as :meth:`add_directory` judges a folder: those
        that no configured folder holds are added to the configuration (saved), so that what
        is crawled from the command line stays, and the server's crawls keep it. Nothing is
        saved when one is refused.

        Raises:
            InvalidRequestError: for a folder that may not be crawled (it says why).
            ConfigError: for a new folder while the folders come from the environment.
        """
        chosen = [self.crawlable(path) for path in paths]
        with self._lock:
            known = self.settings.directories
            new = [
                folder
                for folder in dict.fromkeys(chosen)
                if not any(portable.is_under(folder, d) for d in known)
            ]
            if new:
                if self.settings.directories_from_env:
                    raise errors.ConfigError(
                        f"{new[0]} is not among the folders of PYLUCENE_MCP_DIRECTORIES "
                        f"({', '.join(known) or 'none'}); add it to that variable to crawl it"
                    )
                self.settings = save_directories(self.settings, (*known, *new))
        return chosen

    def crawl_queued(self) -> bool:
        """Whether a folder added by :meth:`add_directory` waits for its crawl."""
        with self._lock:
            return bool(self._queued)

    def crawl_pending(self) -> bool:
        """Whether a crawl is to begin without another call: the start-up crawl before it has
        begun, or the crawl of an added folder that waits for the running one."""
        start_up = self._start_up_crawl.is_set() and bool(self.settings.directories)
        return start_up or self.crawl_queued()

    def _queue_crawl(self, folder: str) -> None:
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
        only with the queue empty (under the lock that :meth:`_queue_crawl` takes)."""
        try:
            self.index()
            crawler = self.crawler()
            while not self._closing:
                crawler.wait(1.0)
                # the start-up crawl reads the folders when it begins, the queued ones too, and
                # takes them out of the queue: it goes first, or they would be crawled twice
                if crawler.current is not None or self._start_up_crawl.is_set():
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

    def remove_directory(self, path: str, drop_documents: bool = True) -> tuple[list[str], bool]:
        """Stops crawling a folder (persisted); drops its documents by default, but for those
        that another configured folder still covers (one that holds it, or one inside it).
        Returns the folders left and whether documents were dropped.

        Raises:
            InvalidRequestError: when it is not a configured directory.
            ConfigError: when the directories come from the environment.
        """
        ensure_directories_writable(self.settings)
        absolute = directory_path(path)
        with self._lock:
            if absolute not in self.settings.directories:
                raise errors.InvalidRequestError(
                    f"{path!r} is not a configured directory; listCrawlableDirectories shows them"
                )
            remaining = tuple(d for d in self.settings.directories if d != absolute)
            self.settings = save_directories(self.settings, remaining)
            if self._watcher is not None:
                self._restart_watcher()
        drop = drop_documents and not any(portable.is_under(absolute, d) for d in remaining)
        if drop:  # the documents of the folders inside it that stay crawled stay too
            inside = [d for d in remaining if portable.is_under(d, absolute)]
            with self.index().writer() as writer:
                writer.delete_under(absolute, keep=inside)
        return list(self.settings.directories), drop

    # -- shutdown -------------------------------------------------------------------------------

    def close(self) -> None:
        self._closing = True
        if self._timer is not None:
            self._timer.cancel()
            if self._timer is not threading.current_thread():
                # a start already under way ends first: it would start a crawl on what closes
                self._timer.join(30)
        if self._crawler is not None:  # outside the lock: the crawl's end takes it
            self._crawler.stop()
            self._crawler.wait(60)
        with self._lock:
            self._release()
