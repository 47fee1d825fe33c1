"""How an index's searches see new commits: the near-real-time reopener of a writing index, the
thread that follows another process's commits on a read-only one, and the searchers of a view
(a reader's folders alone)."""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors

log = logging.getLogger(__name__)


def reopener(writer: Any, manager: Any, interval_s: float) -> Any:
    """Started: the thread that refreshes ``manager`` (a ``SearcherManager`` of ``writer``)
    every ``interval_s``, at once when a search waits for a commit; ``close()`` stops it."""
    thread = jvm.jclass("org.apache.lucene.search.ControlledRealTimeReopenThread")(
        writer, manager, interval_s, 0.0
    )
    thread.setName("pylucene-mcp-nrt-reopen")
    thread.setDaemon(True)
    # a writer that closes itself (a full disk) ends the thread quietly: a rollback restarts it
    jvm.jclass("io.github.pylucenemcp.search.QuietOnClose").on(thread)
    thread.start()
    return thread


def follow_commits(manager: Any, interval_s: float, path: Path) -> threading.Event:
    """Started: a thread that opens the commits another process makes to the index at ``path``
    within ``interval_s`` (``manager`` searches it read-only). Setting the returned event stops
    it."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(interval_s):
            try:
                with jvm.java_errors():
                    manager.maybeRefresh()
            except errors.PyLuceneMcpError as exc:  # the next round tries again
                log.info("could not open the latest commit of %s: %s", path, exc)
            except Exception:  # the manager closed under it: nothing more to follow
                if not stop.is_set():
                    log.exception("stopped following the commits of %s", path)
                return

    threading.Thread(target=run, name="pylucene-mcp-follow-commits", daemon=True).start()
    return stop


def visible_searchers(searcher: Any, shown: Any) -> Any:
    """A ``SearcherManager`` of ``searcher``'s reader with only the documents ``shown`` (the
    shim's ``VisibleReader``; a view's). The view's reader owns a reference of its own: closing
    the manager gives it back."""
    with jvm.java_errors():
        reader = searcher.getIndexReader()
        reader.incRef()
        visible = jvm.jclass("io.github.pylucenemcp.index.VisibleReader")(reader, shown)
        return jvm.jclass("org.apache.lucene.search.SearcherManager")(visible, None)
