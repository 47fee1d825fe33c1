"""Index administration: optimize, purge and unlock, one at a time, in the background.

``Admin.start`` answers at once with an operation whose ``id`` ``Admin.status`` reports on (state,
result or error) for as long as the process runs. An operation is refused while another runs or
while a crawl writes, with a message that says when to retry.
"""

from __future__ import annotations

import itertools
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.engine.core.backend import Backend
from pylucene_mcp.service.places import IndexPlace

log = logging.getLogger(__name__)

Kind = Literal["optimize", "purge", "unlock"]
State = Literal["running", "done", "failed"]


@dataclass
class Operation:
    """One administration operation and, once it ended, its result or error."""

    operation_id: str
    kind: Kind
    state: State
    started: str
    params: dict[str, Any] = field(default_factory=dict)
    finished: str | None = None
    result: dict[str, Any] | None = None
    error: str | None = None


class Crawls(Protocol):
    def running(self) -> bool:
        """Whether a crawl runs (or is paused) now."""
        ...


class Host(Protocol):
    """What the operations need of the service that owns the index."""

    settings: Settings
    place: IndexPlace

    def index(self) -> Backend: ...

    def index_is_open(self) -> bool: ...

    @property
    def crawls(self) -> Crawls: ...

    def reset_index(self, wipe: Callable[[], None]) -> None: ...


def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


class Admin:
    """The administration operations of one service."""

    def __init__(self, service: Host) -> None:
        self._service = service
        self._lock = threading.Lock()
        self._operations: dict[str, Operation] = {}
        self._running: Operation | None = None
        self._ids = itertools.count(1)

    def start(self, kind: Kind, **params: Any) -> Operation:
        """Starts ``kind`` in the background and returns its operation at once.

        Raises:
            AdminBusyError: while another operation or a crawl runs.
        """
        with self._lock:
            if self._running is not None:
                running = self._running
                raise errors.AdminBusyError(
                    f"{running.kind} ({running.operation_id}) is running since {running.started}; "
                    "retry when getIndexAdminStatus says it is done"
                )
            if kind != "unlock" and self._service.crawls.running():
                raise errors.AdminBusyError(
                    f"a crawl is running: {kind} would compete with its writes; retry when "
                    "getCrawlerStatus shows IDLE or WATCHING, or stop it with stopCrawler"
                )
            operation = Operation(f"op-{next(self._ids)}", kind, "running", _now(), params)
            self._operations[operation.operation_id] = operation
            self._running = operation
        thread = threading.Thread(
            target=self._run, args=(operation,), name=f"pylucene-mcp-{kind}", daemon=True
        )
        thread.start()
        return operation

    def status(self, operation_id: str) -> Operation:
        """The operation ``operation_id``.

        Raises:
            InvalidRequestError: for an id this process did not give.
        """
        with self._lock:
            found = self._operations.get(operation_id)
            known = ", ".join(self._operations) or "none yet"
        if found is None:
            raise errors.InvalidRequestError(
                f"no operation {operation_id!r} in this server's run (known: {known}); "
                "operations are kept until the server stops"
            )
        return found

    def operations(self) -> list[Operation]:
        """Every operation of this run, newest first."""
        with self._lock:
            return list(reversed(self._operations.values()))

    def wait(self, operation_id: str, timeout: float = 60.0) -> Operation:
        """Waits for an operation to end (for the CLI and tests)."""
        deadline = time.monotonic() + timeout
        while self.status(operation_id).state == "running" and time.monotonic() < deadline:
            time.sleep(0.02)
        return self.status(operation_id)

    def _run(self, operation: Operation) -> None:
        try:
            operation.result = getattr(self, f"_{operation.kind}")(**operation.params)
            operation.state = "done"
        except errors.PyLuceneMcpError as exc:
            operation.error, operation.state = str(exc), "failed"
        except Exception as exc:  # reported to the caller, logged with its stack
            log.exception("%s failed", operation.kind)
            operation.error, operation.state = f"unexpected error: {exc}", "failed"
        finally:
            operation.finished = _now()
            with self._lock:
                self._running = None

    def _optimize(self, max_segments: int = 1) -> dict[str, Any]:
        index = self._service.index()
        segments = index.optimize(max_segments)
        return {"segments": segments, "documents": len(index)}

    def _purge(self, full: bool = False) -> dict[str, Any]:
        if not full:
            return {"deleted": self._service.index().purge(), "full": False}
        place = self._service.place
        try:
            deleted: int | None = len(self._service.index())
        except errors.IndexCorruptError:
            deleted = None  # not known: the index cannot be read
        # emptied without being opened: a corrupt index cannot be
        self._service.reset_index(place.clear)
        return {"deleted": deleted, "full": True, "recreated": place.location}

    def _unlock(self) -> dict[str, Any]:
        owner = self._service.place.holder()
        if self._service.index_is_open() and owner is not None and owner.pid == os.getpid():
            return {
                "unlocked": False,
                "message": "this server has the index open and holds its lock itself: there "
                "is nothing to unlock",
            }
        unlocked, message = self._service.place.unlock()
        return {"unlocked": unlocked, "message": message}
