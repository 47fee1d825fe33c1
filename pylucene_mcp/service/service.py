"""The service behind every face (MCP tools, CLI, REPL): one lazily opened :class:`Index`, and
the crawler, its Tika server and the watcher that keep it in step with the configured folders.

Opening the index starts the JVM, so the server does it in the background after the MCP
handshake (``warm_up``), or on the first call that needs it, whichever comes first.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.basics.directories import reread_directories
from pylucene_mcp.engine.core import backend as engine
from pylucene_mcp.engine.core.backend import Backend
from pylucene_mcp.service.crawling import Crawls
from pylucene_mcp.service.folders import Folders
from pylucene_mcp.service.places import IndexPlace, place
from pylucene_mcp.service.sharing import Sharing

if TYPE_CHECKING:  # imported when first used: the crawler is not on the server's start-up path
    from pylucene_mcp.service.admin import Admin
    from pylucene_mcp.service.embedding import Embedding

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


#: how long Tika's JVM may take to end when the server quits before it is killed (it holds
#: nothing to save: its spooled copies go with its folder)
QUIT_GRACE_S = 0.2


class Service:
    """Owns the index of one process, and the parts that work on it: its crawls (the crawler,
    Tika, the watcher), its folders, its administration and its semantic path."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        #: where the index is, and what can be done to it unopened (admin's purge and unlock)
        self.place: IndexPlace = place(settings)
        self._index: Backend | None = None
        self._lock = threading.RLock()
        self._timer: threading.Timer | None = None
        self._admin: Admin | None = None
        self._closing = False
        self._asked = False  # a tool has asked for the index (see warm_up)
        #: the crawler, its Tika processes, the watcher and the folders waiting for a crawl
        self.crawls = Crawls(self, self._lock)
        #: the configured folders: added, adopted, removed
        self.folders = Folders(self, self.crawls, self._lock)
        self.sharing = Sharing(on_takeover=self._took_over)
        #: the semantic path (None: vectors off, and nothing of it is imported)
        self.embedding: Embedding | None = None
        if settings.vectors:
            from pylucene_mcp.service.embedding import Embedding

            self.embedding = Embedding(settings, self.index, self.writes)

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
            self.crawls.crawl_on_start()
        except Exception:  # the next startCrawl reports it
            log.exception("the crawl after taking the writer over failed")

    def index_is_open(self) -> bool:
        return self._index is not None

    @property
    def closing(self) -> bool:
        """Whether :meth:`close` has begun."""
        return self._closing

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
        self.crawls.release()
        if self._index is not None:
            self._index.close()
            self._index = None

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
                if self.embedding is not None:
                    self.embedding.start()
                if then_crawl and not self._closing:
                    self.crawls.crawl_on_start()
            except Exception:  # reported again to the first tool call that needs the index
                log.exception("background start of the JVM, index or crawl failed")
            finally:
                self.crawls.start_up_over()

        if then_crawl:  # set even without folders yet: one may be added before it begins
            self.crawls.expect_start_up()

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
                index.search(
                    engine.SearchRequest("*warm* OR up", default_operator="OR", max_passages=1)
                )
        except Exception:  # priming is an optimization; the real search reports real errors
            log.debug("priming search failed", exc_info=True)
        # Everything alive now (modules, the SDK, pydantic models) lives as long as the process:
        # keep it out of the collector's traversals, which otherwise cost each search time.
        gc.collect()
        gc.freeze()

    # -- shutdown -------------------------------------------------------------------------------

    def close(self) -> None:
        """Ends everything, soon: a crawl stops after committing what was extracted (the files
        in flight in Tika are failures of the moment, taken by the next crawl), Tika is killed
        after :data:`QUIT_GRACE_S`, the index is closed. A client that closes stdin gives the
        server about 2 s before it sends SIGTERM."""
        started = time.monotonic()
        self._closing = True
        if self.embedding is not None:
            self.embedding.stop()
        if self._timer is not None:
            self._timer.cancel()
            if self._timer is not threading.current_thread():
                # a start already under way ends first: it would start a crawl on what closes
                self._timer.join(30)
        waited = time.monotonic()
        self.crawls.stop(grace_s=QUIT_GRACE_S)  # outside the lock: the crawl's end takes it
        crawled = time.monotonic()
        with self._lock:
            self._release()
        log.info(
            "closed in %.2f s: the start %.2f s, the crawl's end %.2f s, the rest %.2f s",
            time.monotonic() - started,
            waited - started,
            crawled - waited,
            time.monotonic() - crawled,
        )
