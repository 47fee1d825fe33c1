"""The service's folders: adding and removing crawlable folders (checked, saved in the
configuration); a folder added while the index opens or a crawl runs waits in the crawls' queue
(:class:`~pylucene_mcp.service.crawling.Crawls`)."""

from __future__ import annotations

import logging
import os
import threading

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.basics.config import directory_path
from pylucene_mcp.basics.directories import (
    crawlable_directory,
    ensure_directories_writable,
    save_directories,
)
from pylucene_mcp.service.crawling import Crawls
from pylucene_mcp.service.part import Host

log = logging.getLogger(__name__)


class Folders:
    """The configured folders of a :class:`~pylucene_mcp.service.service.Service` (``host``),
    which a change saves in the configuration and crawls (through ``crawls``)."""

    def __init__(self, host: Host, crawls: Crawls, lock: threading.RLock) -> None:
        self._host = host
        self._crawls = crawls
        self._lock = lock

    def add(self, path: str, crawl_now: bool = True) -> list[str]:
        """Adds a folder to the crawled ones (persisted), and crawls it now by default. It
        answers at once: while the index is still opening, or a crawl runs, the folder's crawl
        is queued and starts as soon as it can (:meth:`Crawls.queued` says whether it waits).

        Raises:
            InvalidRequestError: when it is not a readable folder.
            ConfigError: when the directories come from the environment.
        """
        host = self._host
        ensure_directories_writable(host.settings)
        absolute = self.crawlable(path)
        with self._lock:
            before = host.settings.directories
            if absolute not in before:
                host.settings = save_directories(host.settings, (*before, absolute))
        if crawl_now:
            if not host.index_is_open() or self._crawls.crawler().current is not None:
                self._crawls.queue(absolute)
                return list(host.settings.directories)
            try:
                self._crawls.start_crawl([absolute])
            except errors.CrawlerBusyError:  # a crawl began meanwhile: this one follows it
                self._crawls.queue(absolute)
            except Exception:  # a refused call changes nothing
                with self._lock:
                    host.settings = save_directories(host.settings, before)
                raise
        elif host.settings.watch:
            # watches are set up in the background: the call answers at once
            threading.Thread(
                target=self._crawls.restart_watcher, name="pylucene-mcp-watch-setup", daemon=True
            ).start()
        return list(host.settings.directories)

    def crawlable(self, path: str) -> str:
        """``path`` as an absolute folder that may be crawled (see
        :func:`~pylucene_mcp.basics.directories.crawlable_directory`), readable by this process.

        Raises:
            InvalidRequestError: saying why not.
        """
        absolute = crawlable_directory(path, self._host.settings)
        if not os.path.isdir(absolute):
            raise errors.InvalidRequestError(f"{path!r} is not a folder on this machine")
        if not os.access(absolute, os.R_OK | os.X_OK):
            raise errors.InvalidRequestError(f"{path!r} cannot be read by this process")
        return absolute

    def adopt(self, paths: list[str]) -> list[str]:
        """``paths`` as crawled folders, judged as :meth:`add` judges a folder: those
        that no configured folder holds are added to the configuration (saved), so that what
        is crawled from the command line stays, and the server's crawls keep it. Nothing is
        saved when one is refused.

        Raises:
            InvalidRequestError: for a folder that may not be crawled (it says why).
            ConfigError: for a new folder while the folders come from the environment.
        """
        host = self._host
        chosen = [self.crawlable(path) for path in paths]
        with self._lock:
            known = host.settings.directories
            new = [
                folder
                for folder in dict.fromkeys(chosen)
                if not any(portable.is_under(folder, d) for d in known)
            ]
            if new:
                if host.settings.directories_from_env:
                    raise errors.ConfigError(
                        f"{new[0]} is not among the folders of PYLUCENE_MCP_DIRECTORIES "
                        f"({', '.join(known) or 'none'}); add it to that variable to crawl it"
                    )
                host.settings = save_directories(host.settings, (*known, *new))
        return chosen

    def remove(self, path: str, drop_documents: bool = True) -> tuple[list[str], bool]:
        """Stops crawling a folder (persisted); drops its documents by default, but for those
        that another configured folder still covers (one that holds it, or one inside it).
        Returns the folders left and whether documents were dropped.

        Raises:
            InvalidRequestError: when it is not a configured directory.
            ConfigError: when the directories come from the environment.
        """
        host = self._host
        ensure_directories_writable(host.settings)
        absolute = directory_path(path)
        with self._lock:
            if absolute not in host.settings.directories:
                raise errors.InvalidRequestError(
                    f"{path!r} is not a configured directory; listCrawlableDirectories shows them"
                )
            remaining = tuple(d for d in host.settings.directories if d != absolute)
            host.settings = save_directories(host.settings, remaining)
            if self._crawls.watching():
                self._crawls.restart_watcher()
        drop = drop_documents and not any(portable.is_under(absolute, d) for d in remaining)
        if drop:  # the documents of the folders inside it that stay crawled stay too
            inside = [d for d in remaining if portable.is_under(d, absolute)]
            with host.index().writer() as writer:
                writer.delete_under(absolute, keep=inside)
        return list(host.settings.directories), drop
