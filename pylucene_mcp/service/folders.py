"""The service's folders part: adding and removing crawlable folders (checked, saved in the
configuration), and the queue of folders added while the index opens or a crawl runs, crawled
one after the other."""

from __future__ import annotations

import logging
import os
import threading
from typing import TYPE_CHECKING

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.basics.config import directory_path
from pylucene_mcp.basics.directories import (
    crawlable_directory,
    ensure_directories_writable,
    save_directories,
)
from pylucene_mcp.service.crawling import Crawling

if TYPE_CHECKING:  # imported when first used: the crawler is not on the server's start-up path
    pass

log = logging.getLogger(__name__)


class Folders(Crawling):
    """The configured folders of the :class:`~pylucene_mcp.service.service.Service`, which a
    change crawls (through its crawler part)."""

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
        :func:`~pylucene_mcp.basics.directories.crawlable_directory`), readable by this process.

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
