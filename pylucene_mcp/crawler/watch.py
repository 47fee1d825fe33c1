"""Live updates: ``watchdog`` follows the crawled directories; events are debounced and coalesced
(five quick saves of one file make one extraction and one commit) and fed to the same pipeline
as a crawl (:meth:`Crawler.process_paths`)."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Sequence
from typing import Any

from pylucene_mcp.crawler.pipeline import Crawler
from pylucene_mcp.crawler.walk import Patterns

log = logging.getLogger(__name__)


class Watcher:
    """Watches ``roots`` and updates the index ``debounce_s`` after a path's last event."""

    def __init__(
        self, crawler: Crawler, roots: Sequence[str], patterns: Patterns, debounce_s: float = 1.0
    ) -> None:
        self.crawler = crawler
        self.roots = list(roots)
        self.patterns = patterns
        self.debounce_s = debounce_s
        self._pending: dict[str, float] = {}
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._observer: Any = None
        self._thread: threading.Thread | None = None
        self.batches = 0
        self.last_outcome: dict[str, str] = {}

    def start(self) -> None:
        from watchdog.events import FileSystemEvent, FileSystemEventHandler
        from watchdog.observers import Observer

        watcher = self

        class Handler(FileSystemEventHandler):
            def on_any_event(self, event: FileSystemEvent) -> None:
                if event.event_type in ("opened", "closed_no_write"):
                    return
                watcher._note(event.src_path)
                dest = getattr(event, "dest_path", "")
                if dest:
                    watcher._note(dest)

        self._observer = Observer()
        for root in self.roots:
            self._observer.schedule(Handler(), root, recursive=True)
        self._observer.daemon = True
        self._observer.start()
        self._thread = threading.Thread(target=self._run, name="pylucene-mcp-watch", daemon=True)
        self._thread.start()
        self.crawler.watching = True
        log.info("watching %s", ", ".join(self.roots))

    def _note(self, path: str | bytes) -> None:
        text = path.decode("utf-8", "surrogateescape") if isinstance(path, bytes) else path
        with self._lock:
            self._pending[text] = time.monotonic()

    def _run(self) -> None:
        while not self._stop.wait(min(0.2, self.debounce_s / 2)):
            now = time.monotonic()
            with self._lock:
                ready = [p for p, t in self._pending.items() if now - t >= self.debounce_s]
                for path in ready:
                    del self._pending[path]
            if ready:
                # Counted before the batch commits, so whoever sees its documents sees it counted.
                self.batches += 1
                try:
                    self.last_outcome = self.crawler.process_paths(
                        sorted(ready), self.roots, self.patterns
                    )
                except Exception:
                    log.exception("updating the index for %d changed paths failed", len(ready))

    def stop(self) -> None:
        self._stop.set()
        self.crawler.watching = False
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
        if self._thread is not None:
            self._thread.join(timeout=30)
