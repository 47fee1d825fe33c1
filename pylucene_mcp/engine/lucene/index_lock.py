"""Who holds an index's write lock, and how to free a stale one.

Only one process can write an index. The process that opens the writer records itself in the
index folder (``pylucene-mcp.owner``: pid, command, start time), so that a second one, such as
``pylucene-mcp crawl`` beside a running ``serve``, can say which process is in the way and what to
do. Lucene's ``NativeFSLockFactory`` lock goes with the process that held it, so a lock left by a
dead process does not block a new writer; ``unlock`` still removes the file for those who look.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, portable

OWNER_FILE = "pylucene-mcp.owner"
LOCK_FILE = "write.lock"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Owner:
    pid: int
    command: str
    started: str
    #: where the owner takes other processes' writes, and the key it asks of them (a server's
    #: channel, :mod:`pylucene_mcp.service.peers`); None for a writer that takes none
    channel: str | None = None
    key: str | None = None

    @property
    def alive(self) -> bool:
        return portable.pid_alive(self.pid)


def _command() -> str:
    program = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    if program in ("pylucene-mcp", "__main__.py") and len(sys.argv) > 1:
        return f"pylucene-mcp {sys.argv[1]}"
    return f"python {program}" if program not in ("", "-c") else "a Python process"


def record_owner(folder: Path, channel: str | None = None, key: bytes | None = None) -> None:
    """Notes this process as the index's writer, with the ``channel`` where it takes other
    processes' writes and the ``key`` it asks of them (best effort: a read-only folder is
    fine). The record is this user's alone (0600): the key opens the channel."""
    data: dict[str, Any] = {
        "pid": os.getpid(),
        "command": _command(),
        "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
    }
    if channel is not None and key is not None:
        data.update(channel=channel, key=key.hex())
    with contextlib.suppress(OSError):  # a reader never sees half a record
        portable.write_private(folder / OWNER_FILE, json.dumps(data))


def release_owner(folder: Path) -> None:
    """Removes the record when it is this process's."""
    owner = holder(folder)
    if owner is not None and owner.pid == os.getpid():
        (folder / OWNER_FILE).unlink(missing_ok=True)


def holder(folder: Path) -> Owner | None:
    """The process recorded as the index's writer, if any."""
    try:
        data = json.loads((folder / OWNER_FILE).read_text(encoding="utf-8"))
        channel, key = data.get("channel"), data.get("key")
        return Owner(
            int(data["pid"]),
            str(data["command"]),
            str(data["started"]),
            str(channel) if channel else None,
            str(key) if key else None,
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None


def locked_error(folder: Path) -> errors.IndexLockedError:
    """The error for a writer that could not take the lock: who holds it and what to do."""
    owner = holder(folder)
    if owner is not None and owner.alive and owner.pid != os.getpid():
        return errors.IndexLockedError(
            f"the index at {folder} is in use by `{owner.command}` (pid {owner.pid}, since "
            f"{owner.started}); only one process can write it. Let that process do the work "
            "(a running server crawls when the assistant calls startCrawl or "
            "addCrawlableDirectory), or stop it (kill "
            f"{owner.pid}) and run this again. Searching works beside it: "
            "`pylucene-mcp search`, `pylucene-mcp stats`"
        )
    return errors.IndexLockedError(
        f"the index at {folder} is locked by another process; stop the other pylucene-mcp "
        f"process (or the program that opened it), or, if none runs, `pylucene-mcp unlock "
        f"--index {folder}` removes a stale lock"
    )


def unlock(folder: Path) -> str:
    """Removes a lock that no live process holds, and says what it did.

    Raises:
        IndexLockedError: when a live process holds the lock (it names it).
        IndexAccessError: when ``folder`` is not an index.
    """
    folder = folder.expanduser().resolve()
    lock_file = folder / LOCK_FILE
    if not folder.is_dir():
        raise errors.IndexAccessError(f"no index at {folder}")
    if not lock_file.exists():
        return f"the index at {folder} is not locked"
    with jvm.java_errors():
        directory = jvm.jclass("org.apache.lucene.store.FSDirectory").open(
            jvm.jclass("java.nio.file.Paths").get(str(folder), jvm.jarray("String", []))
        )
    try:
        with jvm.java_errors():
            directory.obtainLock(LOCK_FILE).close()
    except errors.IndexLockedError as exc:
        raise locked_error(folder) from exc
    finally:
        directory.close()
    lock_file.unlink(missing_ok=True)
    (folder / OWNER_FILE).unlink(missing_ok=True)
    return f"no process held the lock of {folder}; removed the stale lock file"


#: The names an index folder may hold: Lucene's files (segments, per-segment files, the lock)
#: and this product's record of the writer.
_INDEX_FILES = re.compile(
    r"segments_\w+|pending_segments_\w+|_\w+\.\w+|write\.lock|pylucene-mcp\.owner(\.\w+)?"
)


def wipe(folder: Path) -> None:
    """Removes the index in ``folder`` without opening it (a corrupt index cannot be opened)
    and leaves the folder empty; a folder that holds anything but an index's files, or an
    index a live process writes, is left as it is.

    Raises:
        IndexLockedError: when a live process holds the index.
        InvalidRequestError: when the folder holds other files than an index's.
    """
    if not folder.exists():
        return
    owner = holder(folder)
    if owner is not None and owner.alive:
        raise errors.IndexLockedError(
            f"{folder} is in use by `{owner.command}` (pid {owner.pid}): stop that process first"
        )
    others = sorted(p.name for p in folder.iterdir() if not _INDEX_FILES.fullmatch(p.name))
    if others:
        raise errors.InvalidRequestError(
            f"{folder} holds files that are not an index's ({', '.join(others[:3])}): not "
            "removed; check that this is the index folder you mean"
        )
    for entry in folder.iterdir():
        entry.unlink()


def refusal(path: Path, exc: Exception) -> Exception:
    """Why a writer could not be opened on the index at ``path``, in words a person can act on
    (``exc`` itself when it is none of the known reasons)."""
    error = exc if isinstance(exc, errors.PyLuceneMcpError) else jvm.translate(exc)
    if isinstance(error, errors.IndexLockedError):
        return locked_error(path)
    if isinstance(error, errors.IndexReadOnlyError):
        return errors.IndexReadOnlyError(
            f"the index folder {path} cannot be written ({error}): it can be searched, not changed"
        )
    if isinstance(error, errors.JvmError):
        log.error("could not open the writer of %s", path, exc_info=exc)
    return error or exc
