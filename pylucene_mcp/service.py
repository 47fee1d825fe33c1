"""The service behind every face (MCP tools, CLI, REPL): one lazily opened :class:`Index`.

Opening the index starts the JVM, so the server does it in the background after the MCP
handshake (``warm_up``), or on the first call that needs it, whichever comes first.
"""

from __future__ import annotations

import logging
import threading

from pylucene_mcp import jvm
from pylucene_mcp.config import Settings
from pylucene_mcp.index import Index

log = logging.getLogger(__name__)


class Service:
    """Owns the index for one process."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._index: Index | None = None
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None

    def index(self) -> Index:
        """The open index (opened now if needed).

        Raises:
            JvmError, IndexLockedError, IndexAccessError: when it cannot be opened.
        """
        with self._lock:
            if self._index is None:
                jvm.start(self.settings.max_heap)
                self._index = Index.open(
                    self.settings.index_path, refresh_interval_s=self.settings.refresh_interval_s
                )
            return self._index

    def warm_up(self, delay_s: float) -> None:
        """Opens the index in a background thread after ``delay_s`` seconds."""

        def run() -> None:
            try:
                self.index()
            except Exception:  # reported again to the first tool call that needs the index
                log.exception("background start of the JVM and index failed")

        self._timer = threading.Timer(delay_s, run)
        self._timer.daemon = True
        self._timer.name = "pylucene-mcp-warm-up"
        self._timer.start()

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        with self._lock:
            if self._index is not None:
                self._index.close()
                self._index = None
