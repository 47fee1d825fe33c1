"""Several servers on one index: one writes, every one searches.

Claude Desktop, Claude Code and an editor each start a server from the same configuration. The
first to open the index takes its writer (the ``WRITER``); each other opens it read-only (a
``READER``): it searches the writer's commits within ``refresh_interval_s`` and hands its crawler
and admin calls to the writer over the local channel (:mod:`pylucene_mcp.service.peers`), so
that every change (the index, the config file's folders, the crawl) is made once, by one
process. When the writer's process ends, a reader takes the writer over within
:data:`TAKEOVER_POLL_S`, crawls what changed meanwhile and watches the folders. An index folder
that cannot be written (a backup, a read-only mount) is searched ``READ_ONLY``; what would write
answers why not. docs/reliability.md lists what each tool answers in each role.
"""

from __future__ import annotations

import enum
import logging
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.engine.core.backend import Backend
from pylucene_mcp.engine.lucene import index_lock
from pylucene_mcp.service import peers

log = logging.getLogger(__name__)

#: how often a reader looks whether the writer has gone (reading the owner record: cheap)
TAKEOVER_POLL_S = 1.0
#: a reader tries to take the lock itself every this many polls even while the record names a
#: live writer (a pid reused by an unrelated process after the writer died)
TRY_ANYWAY_EVERY = 30
#: how long a reader waits for a new index's first commit (a writer that has just created it)
FIRST_COMMIT_WAIT_S = 10.0
#: how long a reader waits for the channel of a server that has just taken the writer
CHANNEL_WAIT_S = 2.0


class Role(enum.Enum):
    WRITER = "writer"
    READER = "reader"
    READ_ONLY = "read-only"


class Sharing:
    """The role of one service's index among the processes that open it, the channel it
    answers on as the writer, and its watch for the writer's end as a reader."""

    def __init__(self, on_takeover: Callable[[], None]) -> None:
        self._on_takeover = on_takeover
        self._lock = threading.RLock()
        self._index: Any = None
        self._folder = Path()  # the index's folder: where its writer is recorded
        self.role: Role | None = None
        #: why the index cannot be written (``READ_ONLY``)
        self.read_only_reason: str | None = None
        self._handler: peers.Handler | None = None
        self._answering: peers.Answering | None = None
        self._stop = threading.Event()

    # -- opening ----------------------------------------------------------------------------

    def open(self, settings: Settings, opener: Callable[..., Backend]) -> Backend:
        """The index of ``settings``, opened by ``opener(settings, read_only=...)`` as its
        writer, or read-only beside another process's writer or on a folder that cannot be
        written.

        Raises:
            IndexAccessError and its kinds other than the two above.
        """
        with self._lock:
            self._stop = threading.Event()
            self._folder = settings.index_path
            try:
                index = opener(settings)
                self.role = Role.WRITER
            except errors.IndexLockedError:
                index = self._open_beside(settings, opener)
                self.role = Role.READER
                threading.Thread(
                    target=self._watch_writer,
                    args=(self._stop, settings.index_path),
                    name="pylucene-mcp-takeover",
                    daemon=True,
                ).start()
                log.info(
                    "the index is written by %s: this server searches it and hands its writes over",
                    _named(index_lock.holder(settings.index_path)),
                )
            except errors.IndexReadOnlyError as exc:
                index = opener(settings, read_only=True)
                self.role, self.read_only_reason = Role.READ_ONLY, str(exc)
                log.warning("%s; this server searches it read-only", exc)
            self._index = index
            self._answer()
            return index

    @staticmethod
    def _open_beside(settings: Settings, opener: Callable[..., Backend]) -> Backend:
        """The index opened read-only; a writer that has just created it commits it first."""
        deadline = time.monotonic() + FIRST_COMMIT_WAIT_S
        while True:
            try:
                return opener(settings, read_only=True)
            except errors.IndexAccessError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    # -- the writer's side ------------------------------------------------------------------

    def answer(self, handler: peers.Handler) -> None:
        """Answers other processes' calls with ``handler`` whenever this process writes."""
        with self._lock:
            self._handler = handler
            self._answer()

    def _answer(self) -> None:
        index = self._index
        if self.role is not Role.WRITER or self._handler is None or self._answering is not None:
            return
        if index.shared:  # a remote collection: every server writes it itself
            return
        try:
            self._answering = peers.Answering(peers.address(index.identity), self._handler)
        except OSError as exc:  # the others then refuse writes, naming this process
            log.warning("other servers of this index cannot reach this one: %s", exc)
            return
        index_lock.record_owner(self._folder, self._answering.address, self._answering.key)

    # -- the readers' side ------------------------------------------------------------------

    def _watch_writer(self, stop: threading.Event, folder: Path) -> None:
        rounds = 0
        while not stop.wait(TAKEOVER_POLL_S):
            rounds += 1
            owner = index_lock.holder(folder)
            if (
                owner is not None
                and owner.alive
                and owner.pid != os.getpid()
                and rounds % TRY_ANYWAY_EVERY
            ):
                continue
            try:
                if self.take_over():
                    return
            except Exception:  # the next round tries again
                log.exception("taking over the writer failed")

    def take_over(self) -> bool:
        """Takes the writer when no other process holds it. True when this process writes now.

        Raises:
            IndexAccessError: when it can be taken but not opened.
        """
        with self._lock:
            if self.role is Role.WRITER:
                return True
            if self.role is not Role.READER or self._stop.is_set():
                return False
            try:
                self._index.become_writer()
            except errors.IndexLockedError:
                return False
            self.role = Role.WRITER
            self._stop.set()
            log.warning("the index's writer has gone: this server writes the index now")
            self._answer()
        self._on_takeover()
        return True

    def forward(
        self, tool: str, arguments: dict[str, Any], *, writes: bool
    ) -> dict[str, Any] | None:
        """The writer's answer to ``tool(arguments)`` when another process writes the index;
        None when this process is to run it itself (it writes, or the call only reads and the
        writer takes no calls).

        Raises:
            IndexReadOnlyError: for a call that ``writes`` on an index that cannot be written.
            IndexLockedError: for one that writes while a writer that takes no calls (a
                ``pylucene-mcp crawl``) holds the index, or one that does not answer.
        """
        if self.writes():
            return None
        if self.role is Role.READ_ONLY:
            if not writes:
                return None
            raise self.refusal()
        owner = self._writer_record()
        if (owner is None or not owner.alive) and self.take_over():
            return None
        if owner is None or not _answers_calls(owner):
            if not writes:
                return None
            raise errors.IndexLockedError(
                f"the index at {self._folder} is being written by "
                f"{_named(owner)}, which takes no calls from other processes; retry when it "
                "has ended (this server then takes the writing over)"
            )
        try:
            return _call(owner, tool, arguments)
        except peers.PeerGone as exc:
            if self.take_over():
                return None
            raise errors.IndexLockedError(
                f"{_named(owner)} writes the index at {self._folder} but does not answer "
                f"({exc}); retry in a moment"
            ) from exc

    def _writer_record(self) -> index_lock.Owner | None:
        """The writer's record; a server's that has just taken the writer writes its channel
        into it a moment later, which is waited for (up to :data:`CHANNEL_WAIT_S`)."""
        deadline = time.monotonic() + CHANNEL_WAIT_S
        while True:
            owner = index_lock.holder(self._folder)
            starting = (
                owner is not None
                and owner.channel is None
                and owner.alive
                and owner.command.endswith(" serve")
            )
            if not starting or time.monotonic() > deadline:
                return owner
            time.sleep(0.05)

    def writes(self) -> bool:
        """Whether this process writes the index (an index the caller opened and handed to the
        service, without this class, is taken as written here)."""
        return self.role not in (Role.READER, Role.READ_ONLY)

    def refusal(self) -> errors.IndexAccessError:
        """Why this process cannot write the index (it does not)."""
        if self.role is Role.READ_ONLY:
            return errors.IndexReadOnlyError(
                f"{self.read_only_reason}; to crawl into an index, set index_path "
                "(PYLUCENE_MCP_INDEX, or --index) to a folder this user can write"
            )
        return index_lock.locked_error(self._folder)

    def close(self) -> None:
        """Stops answering and watching (the service closes the index)."""
        with self._lock:
            self._stop.set()
            if self._answering is not None:
                self._answering.close()
                self._answering = None
            self._index = None
            self.role = None


def ask_writer(folder: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The answer of the server that writes the index in ``folder`` to ``tool(arguments)``
    (what its MCP client would get), or None when no server with a channel writes it (the
    caller then opens the index itself): the command line asks a running server instead of
    starting a JVM of its own.

    Raises:
        InvalidRequestError: the tool's refusal, in its words.
    """
    owner = index_lock.holder(folder)
    if owner is None or not owner.alive or not _answers_calls(owner):
        return None
    try:
        answer = _call(owner, tool, arguments)
    except peers.PeerGone:
        return None
    if "error" in answer:
        raise errors.InvalidRequestError(str(answer["error"]))
    if answer.get("isError"):
        text = " ".join(str(part.get("text", "")) for part in answer.get("content", []))
        raise errors.InvalidRequestError(text)
    found: dict[str, Any] = answer["structuredContent"]
    return found


def _answers_calls(owner: index_lock.Owner) -> bool:
    """Whether the writer ``owner`` listens on a channel (a server; not a CLI crawl, a script)."""
    return owner.channel is not None and owner.key is not None


def _call(owner: index_lock.Owner, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The answer of the writer ``owner`` on its channel (see :func:`peers.call`).

    Raises:
        PeerGone: when it does not answer.
    """
    assert owner.channel is not None and owner.key is not None  # _answers_calls
    return peers.call(owner.channel, bytes.fromhex(owner.key), tool, arguments)


def _named(owner: index_lock.Owner | None) -> str:
    return f"`{owner.command}` (pid {owner.pid})" if owner is not None else "another process"
