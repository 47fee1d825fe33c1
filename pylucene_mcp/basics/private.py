"""This user's private folders and files: made for this user alone (0700), refused where another
user made them first; the JVMs' crash reports, the key that signs cursors, and temporary
folders, none of them in a shared place."""

from __future__ import annotations

import os
import secrets
import tempfile
import threading
import time
from pathlib import Path

from pylucene_mcp.basics.config import home_dir
from pylucene_mcp.basics.errors import ConfigError


def private_dir(path: Path) -> Path:
    """Creates ``path`` and any missing parents for this user alone (0700): the index holds the
    full text of files that may be private. Existing folders keep their mode, but ``path``
    itself must be this user's (and, a link, lead to a folder of this user's): one that another
    user made first (in a shared place such as the temporary folder) is refused.

    Raises:
        ConfigError: when ``path`` or what it links to is another user's.
    """
    missing = [p for p in (path, *path.parents) if not p.exists()]
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=0o700)
        except FileExistsError:
            pass
    _check_own(path)
    return path


def _check_own(path: Path) -> None:
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return  # Windows: its folders' owners are access control lists' business
    try:
        owners = {os.lstat(path).st_uid, os.stat(path).st_uid}
    except OSError:
        return  # not made (a read-only place): whoever writes into it says why
    if owners != {getuid()}:
        raise ConfigError(
            f"{path} belongs to another user (or is another user's link); pylucene-mcp keeps "
            "this user's private files there: remove it, or point PYLUCENE_MCP_HOME elsewhere"
        )


def crash_dir() -> Path:
    """Where every JVM the product starts (its own, the class-data archive's, Tika's) writes a
    crash report (``hs_err_pid<pid>.log``) and a compiler's replay file: ``<home>/crashes``, this
    user's alone (0700). Such a report holds the command line, the environment and folder names;
    left to the JVM it would go to the working folder or the shared temp folder."""
    return private_dir(home_dir() / "crashes")


def jvm_crash_options() -> list[str]:
    """The options that send a JVM's crash report and replay file into :func:`crash_dir`."""
    folder = crash_dir()
    return [
        f"-XX:ErrorFile={folder / 'hs_err_pid%p.log'}",
        f"-XX:ReplayDataFile={folder / 'replay_pid%p.log'}",
    ]


_KEY_BYTES = 32
_keys: dict[Path, bytes] = {}
_keys_lock = threading.Lock()


def cursor_key() -> bytes:
    """This user's key for signing cursors (:mod:`pylucene_mcp.engine.core.cursors`):
    ``<home>/cursor.key``, 32 random bytes readable by this user alone, made on first use and
    shared by every server of the user (a cursor from one is good in another). Where the home
    cannot be written, a key for this process alone."""
    path = home_dir() / "cursor.key"
    with _keys_lock:
        key = _keys.get(path)
        if key is None:
            key = _keys[path] = _read_or_make_key(path)
        return key


def _read_or_make_key(path: Path) -> bytes:
    try:
        private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    except FileExistsError:
        for _ in range(50):  # another process may be writing it this moment
            try:
                key = path.read_bytes()
            except OSError:
                break
            if len(key) == _KEY_BYTES:
                return key
            time.sleep(0.02)
        return secrets.token_bytes(_KEY_BYTES)
    except OSError:
        return secrets.token_bytes(_KEY_BYTES)
    key = secrets.token_bytes(_KEY_BYTES)
    with os.fdopen(fd, "wb") as handle:
        handle.write(key)
    return key


def private_temp(prefix: str) -> Path:
    """A new folder for this user alone: ``<home>/tmp/<prefix><random>``, made by
    ``tempfile.mkdtemp`` (0700, a name no one can guess, never one that already exists), in a
    parent that must be a folder of this user's. Nothing of the product's goes to the shared
    temp folder, where another local user can plant a folder or a link before we get there.

    Raises:
        ConfigError: when ``<home>/tmp`` is a link or belongs to someone else.
    """
    base = private_dir(home_dir() / "tmp")
    status = os.lstat(base)
    getuid = getattr(os, "getuid", None)
    if os.path.islink(base) or (getuid is not None and status.st_uid != getuid()):
        raise ConfigError(
            f"{base} is a link or belongs to another user; remove it (the product keeps its "
            "temporary files there, for this user alone)"
        )
    return Path(tempfile.mkdtemp(prefix=prefix, dir=base))
