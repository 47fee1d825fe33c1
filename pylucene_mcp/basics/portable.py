"""What differs between Linux, macOS and Windows, in one place.

Every other module asks here instead of importing a POSIX-only module or building a path prefix
with ``"/"``. Each function that depends on the platform takes it as an argument (``system``:
``sys.platform``'s ``"linux"``, ``"darwin"``, ``"win32"``) or a path flavour, so that the Windows
and macOS branches run in the tests on Linux, with ``PureWindowsPath`` inputs where a real
Windows folder cannot exist (``tests/test_portable.py``).
"""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any

SYSTEM = sys.platform


# -- folders ---------------------------------------------------------------------------------


def pure_flavour(system: str = SYSTEM) -> type[PurePath]:
    """The path flavour of ``system``."""
    return PureWindowsPath if system == "win32" else PurePosixPath


def separator(system: str = SYSTEM) -> str:
    return "\\" if system == "win32" else "/"


def case_insensitive(system: str = SYSTEM) -> bool:
    """Whether the file systems of ``system`` compare names without case by default (NTFS,
    APFS and HFS+ as macOS formats them); such a disk may still be formatted case-sensitive,
    which :func:`true_case` handles, since it asks the disk."""
    return system in ("win32", "darwin")


def fold(path: str, system: str = SYSTEM) -> str:
    """``path`` as the file system of ``system`` compares it."""
    return path.casefold() if case_insensitive(system) else path


def folder_prefix(folder: str, system: str = SYSTEM) -> str:
    """``folder`` with one trailing separator: the start of the key of every file in it
    (``/a/b`` → ``/a/b/``; ``C:\\`` stays ``C:\\``)."""
    sep = separator(system)
    return folder.rstrip(sep) + sep if folder.rstrip(sep) else folder


def is_under(path: str | PurePath, folder: str | PurePath, system: str = SYSTEM) -> bool:
    """Whether ``path`` is ``folder`` or lies inside it, compared by whole names (``/a/bc`` is
    not in ``/a/b``) and, where the file system does (Windows, macOS), without case. Lexical:
    resolve links first where they matter."""
    flavour = pure_flavour(system)
    inner = flavour(fold(str(path), system))
    outer = flavour(fold(str(folder), system))
    return inner == outer or outer in inner.parents


def true_case(path: str, system: str = SYSTEM) -> str:
    """``path`` (absolute) spelled as the disk spells it, on a system whose disks usually compare
    names without case: ``~/documents`` becomes ``~/Documents`` when that is the folder's name,
    so that a folder given in another case keys its files as the crawl finds them. Each name is
    looked up in its parent's listing; the rest of a path that does not exist stays as given.
    Elsewhere ``path`` is returned unchanged."""
    if not case_insensitive(system):
        return path
    flavour = pure_flavour(system)
    parts = flavour(path).parts
    if not parts:
        return path
    current = parts[0]
    for index, name in enumerate(parts[1:], start=1):
        try:
            names = os.listdir(current)
        except OSError:
            return str(flavour(current, *parts[index:]))
        if name not in names:
            wanted = name.casefold()
            name = next((n for n in sorted(names) if n.casefold() == wanted), name)
        current = str(flavour(current, name))
    return current


def exists_as_named(path: str, system: str = SYSTEM) -> bool:
    """Whether the file ``path`` exists under exactly that name: on a case-insensitive disk,
    ``Report.pdf`` renamed to ``report.pdf`` still "exists" as ``Report.pdf`` for ``os.path``,
    but the index must key it by its new name."""
    if not os.path.exists(path):
        return False
    if not case_insensitive(system):
        return True
    parent, name = os.path.split(path)
    try:
        return name in os.listdir(parent or ".")
    except OSError:
        return True


def _windows_system_folders(environ: Mapping[str, str]) -> tuple[list[str], list[str]]:
    drive = environ.get("SystemDrive", "C:")
    windows = environ.get("SystemRoot") or environ.get("windir") or f"{drive}\\Windows"
    trees = [
        windows,
        environ.get("ProgramFiles", f"{drive}\\Program Files"),
        environ.get("ProgramFiles(x86)", f"{drive}\\Program Files (x86)"),
        environ.get("ProgramData", f"{drive}\\ProgramData"),
        f"{drive}\\$Recycle.Bin",
        f"{drive}\\System Volume Information",
        f"{drive}\\Recovery",
        f"{drive}\\PerfLogs",
    ]
    users = f"{drive}\\Users"
    roots = [f"{letter}:\\" for letter in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"]
    roots += [users, f"{users}\\Public", f"{users}\\Default", f"{users}\\All Users"]
    return trees, roots


#: Folders no one keeps documents in, or that hold the system: never crawled, nor any folder in
#: them. /proc and /sys alone made a watcher block for seconds and flood the log.
_POSIX_TREES = (
    "/bin", "/boot", "/dev", "/etc", "/lib", "/lib32", "/lib64", "/libx32", "/proc", "/run",
    "/sbin", "/sys", "/usr",
)  # fmt: skip
_MACOS_TREES = (
    "/System", "/Library", "/Applications", "/private/etc", "/private/var", "/private/tmp",
    "/cores", "/opt/homebrew",
)  # fmt: skip
#: Folders that hold everyone's or everything's files: refused themselves, their subfolders not.
_POSIX_ROOTS = ("/", "/home", "/root", "/var", "/opt", "/srv", "/mnt", "/media", "/tmp")
_MACOS_ROOTS = ("/Users", "/Users/Shared", "/Volumes", "/private")


def system_folders(
    system: str = SYSTEM, environ: Mapping[str, str] | None = None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(trees never crawled, nor anything in them; shared roots refused themselves) of
    ``system``. macOS has the POSIX folders too (its ``/usr``, ``/bin`` …) and its own; Windows
    its own, from the environment where it says where they are (``SystemRoot``,
    ``ProgramFiles`` …)."""
    if system == "win32":
        trees, roots = _windows_system_folders(os.environ if environ is None else environ)
        return tuple(trees), tuple(roots)
    if system == "darwin":
        return _POSIX_TREES + _MACOS_TREES, _POSIX_ROOTS + _MACOS_ROOTS
    return _POSIX_TREES, _POSIX_ROOTS


def cache_home(
    system: str = SYSTEM, environ: Mapping[str, str] | None = None, home: Path | None = None
) -> Path:
    """Where ``system`` keeps a user's caches: ``$XDG_CACHE_HOME`` or ``~/.cache`` (Linux),
    ``~/Library/Caches`` (macOS), ``%LOCALAPPDATA%`` (Windows)."""
    env = os.environ if environ is None else environ
    base = Path.home() if home is None else home
    if system == "win32":
        local = env.get("LOCALAPPDATA")
        return Path(local) if local else base / "AppData" / "Local"
    if system == "darwin":
        return base / "Library" / "Caches"
    xdg = env.get("XDG_CACHE_HOME")
    return Path(xdg) if xdg else base / ".cache"


# -- files -----------------------------------------------------------------------------------


def link_count(st: os.stat_result, path: str) -> int:
    """The number of hard links of the file ``path`` whose (``scandir``) status is ``st``: on
    Windows a directory entry's status says 0 (unknown), so the file itself is asked."""
    if st.st_nlink:
        return st.st_nlink
    try:
        return os.stat(path).st_nlink
    except OSError:
        return 1


def birth_time_ms(st: os.stat_result, system: str = SYSTEM) -> int | None:
    """When the file of status ``st`` was created, where the system records it: ``st_birthtime``
    (macOS, the BSDs, Windows from Python 3.12), ``st_ctime`` on Windows before that (its
    creation time there); None on Linux, whose ``st_ctime`` is the last change of the inode."""
    birth = getattr(st, "st_birthtime", None)
    if birth is None and system == "win32":
        birth = st.st_ctime
    return int(birth * 1000) if birth else None


#: fcntl's F_GETPATH on macOS: the path of an open descriptor
F_GETPATH = 50
_PATH_MAX = 1024


def descriptor_path(
    fd: int, system: str = SYSTEM, fcntl_call: Any = None, kernel32: Any = None
) -> str | None:
    """The path of the file open as ``fd``, as the system sees it now (links resolved), or None
    where the system cannot tell: Linux reads ``/proc/self/fd``, macOS asks ``fcntl(F_GETPATH)``,
    Windows ``GetFinalPathNameByHandleW``. (``fcntl_call`` and ``kernel32`` stand in for the
    system's, for tests.)"""
    try:
        if system == "darwin":
            if fcntl_call is None:
                import fcntl

                fcntl_call = fcntl.fcntl
            raw = fcntl_call(fd, F_GETPATH, bytes(_PATH_MAX))
            return os.fsdecode(bytes(raw).split(b"\0", 1)[0]) or None
        if system == "win32":
            if kernel32 is None:
                import ctypes
                import msvcrt

                kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
                handle = msvcrt.get_osfhandle(fd)  # type: ignore[attr-defined]
            else:
                handle = fd
            return _final_path(kernel32, handle)
        return os.readlink(f"/proc/self/fd/{fd}") if os.path.isdir("/proc/self/fd") else None
    except (OSError, ValueError):
        return None


def _final_path(kernel32: Any, handle: int) -> str | None:
    import ctypes

    buffer = ctypes.create_unicode_buffer(32768)
    length = kernel32.GetFinalPathNameByHandleW(handle, buffer, len(buffer), 0)
    if not 0 < length < len(buffer):
        return None
    path = str(buffer.value)
    if path.startswith("\\\\?\\UNC\\"):
        return "\\\\" + path[8:]
    return path.removeprefix("\\\\?\\")


#: How a full disk reads: POSIX strerror, and the Windows messages of ERROR_DISK_FULL (112) and
#: ERROR_HANDLE_DISK_FULL (39), as Python and Java report them.
DISK_FULL_TEXTS = (
    "No space left on device",
    "There is not enough space on the disk",
    "The disk is full",
)
_WINDOWS_DISK_FULL = (112, 39)


def disk_full(error: BaseException | str | None) -> bool:
    """Whether ``error`` (an exception or its message) says that the disk is full."""
    if error is None:
        return False
    if isinstance(error, OSError) and (
        error.errno == errno.ENOSPC or getattr(error, "winerror", None) in _WINDOWS_DISK_FULL
    ):
        return True
    text = str(error).casefold()
    return any(phrase.casefold() in text for phrase in DISK_FULL_TEXTS)


def write_private(path: Path, text: str) -> None:
    """Replaces ``path`` by a file of ``text`` for this user alone (0600, ``tempfile.mkstemp``'s
    mode), written beside it under a name of its own and renamed over it: a reader sees the old
    file or the new one, never half of one, and two writers never share a half-written file.

    Raises:
        OSError: when it cannot be written (nothing is left behind).
    """
    fd, temporary = tempfile.mkstemp(prefix=f"{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def read_only_file_system(message: str) -> bool:
    """Whether an error message says that the file system is mounted read-only (``EROFS``)."""
    return os.strerror(errno.EROFS).casefold() in message.casefold()


@contextlib.contextmanager
def exclusive(path: Path, timeout_s: float = -1) -> Iterator[None]:
    """Holds the lock file ``path`` for this process alone, on every platform (``filelock``:
    ``fcntl.flock`` on POSIX, ``msvcrt.locking`` on Windows); waits for another holder.

    Raises:
        TimeoutError: when ``timeout_s`` (≥ 0) passes first.
    """
    import filelock

    try:
        with filelock.FileLock(str(path), timeout=timeout_s):
            yield
    except filelock.Timeout as exc:
        raise TimeoutError(f"{path} is held by another process") from exc


# -- processes -------------------------------------------------------------------------------


def pid_alive(pid: int) -> bool:
    """Whether a process ``pid`` runs (``os.kill(pid, 0)`` is no such test on Windows, where it
    raises ``OSError`` for a dead pid and would end a living one's console)."""
    import psutil

    if pid <= 0:
        return False
    try:
        return bool(psutil.pid_exists(pid)) and psutil.Process(pid).status() != "zombie"
    except psutil.Error:
        return False


def descendants(pid: int) -> list[Any]:
    """The process ``pid`` and every process below it (``psutil.Process`` objects), or none."""
    import psutil

    try:
        root = psutil.Process(pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def kill_tree(pid: int, grace_s: float = 2.0, group: bool = False) -> None:
    """Stops the process ``pid`` and every process below it: asks each to terminate, kills
    those alive after ``grace_s``, and repeats for any child started meanwhile (a supervisor
    that was restarting its worker). With ``group``, on POSIX, the process group ``pid`` (a
    session it leads) is swept too, catching a child whose parent died before it was seen."""
    import psutil

    for _ in range(3):
        processes = descendants(pid)
        if group:
            processes += _group_members(pid, processes)
        if not processes:
            break
        for process in processes:
            with contextlib.suppress(psutil.Error):
                process.terminate()
        _, alive = psutil.wait_procs(processes, timeout=grace_s)
        for process in alive:
            with contextlib.suppress(psutil.Error):
                process.kill()
        psutil.wait_procs(alive, timeout=grace_s)


def _group_members(pgid: int, known: list[Any]) -> list[Any]:
    """On POSIX, the processes of the group ``pgid`` that ``known`` does not hold."""
    getpgid = getattr(os, "getpgid", None)
    if getpgid is None:
        return []
    import psutil

    seen = {p.pid for p in known}
    members = []
    for process in psutil.process_iter():
        if process.pid in seen:
            continue
        with contextlib.suppress(psutil.Error, OSError):
            if getpgid(process.pid) == pgid:
                members.append(process)
    return members


def new_session_options(system: str = SYSTEM) -> dict[str, Any]:
    """``subprocess.Popen`` options that detach a child from this process's terminal signals:
    a new session on POSIX, a new process group (Ctrl+C not forwarded) without a console
    window on Windows."""
    if system == "win32":
        group = getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0x00000200)
        return {"creationflags": group | getattr(subprocess, "CREATE_NO_WINDOW", 0x08000000)}
    return {"start_new_session": True}


# -- standard streams ------------------------------------------------------------------------

STD_OUTPUT_HANDLE = -11
STD_ERROR_HANDLE = -12


def rebind_std_output(system: str = SYSTEM, kernel32: Any = None) -> bool:
    """On Windows, points the process's standard output handle (what Java's ``System.out`` and
    any native library write to, which ``os.dup2`` on file descriptor 1 does not change there)
    at standard error, so that nothing but the protocol reaches the client. Returns whether it
    did. POSIX needs nothing more than ``dup2``."""
    if system != "win32":
        return False
    if kernel32 is None:
        import ctypes

        kernel32 = ctypes.windll.kernel32  # type: ignore[attr-defined]
    error = kernel32.GetStdHandle(STD_ERROR_HANDLE)
    return bool(kernel32.SetStdHandle(STD_OUTPUT_HANDLE, error))


#: how much lower than the server's own threads a background thread (the embedder) runs
BACKGROUND_NICENESS = 10


def run_in_background(system: str = SYSTEM) -> bool:
    """Lowers the calling thread's priority by :data:`BACKGROUND_NICENESS`, so that its work
    (and that of the threads it starts) yields the cores to searches; returns whether it could.
    On Linux a thread has its own niceness (its thread id is a process id for
    ``setpriority``); elsewhere that call would lower the whole process: nothing is done."""
    if system != "linux":
        return False
    import threading

    thread = threading.get_native_id()
    try:
        os.setpriority(
            os.PRIO_PROCESS, thread, os.getpriority(os.PRIO_PROCESS, thread) + BACKGROUND_NICENESS
        )
    except OSError:
        return False
    return True
