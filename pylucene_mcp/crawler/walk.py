"""Walking the configured directories: include/exclude glob patterns, symlinks followed without
looping, odd entries reported instead of raised."""

from __future__ import annotations

import errno
import fnmatch
import ntpath
import os
import re
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from pylucene_mcp.basics import portable
from pylucene_mcp.basics.errors import ExtractionError, FileVanishedError
from pylucene_mcp.crawler.readers import Owned, above, of_file, principals

DEFAULT_EXTENSIONS = (
    "pdf",
    "docx",
    "doc",
    "xlsx",
    "xls",
    "pptx",
    "ppt",
    "odt",
    "ods",
    "odp",
    "rtf",
    "txt",
    "md",
    "rst",
    "html",
    "htm",
    "xml",
    "eml",
    "mbox",
    "msg",
    "epub",
    # photos and scans: their text is recognised (OCR, crawler/ocr.py) where Tesseract is
    # installed; else they are found by name and metadata and said to need OCR
    "png",
    "jpg",
    "jpeg",
    "tif",
    "tiff",
    "webp",
    "heic",
)
DEFAULT_INCLUDE = tuple(f"*.{ext}" for ext in DEFAULT_EXTENSIONS)
#: Matched against every folder and file name; hidden names (".*") are skipped too.
DEFAULT_EXCLUDE = (
    ".*",
    "node_modules",
    "__pycache__",
    "build",
    "dist",
    "target",
    "out",
    "venv",
    "*.tmp",
    "~$*",
    "*~",
)


#: an escape in a key: ``\\xNN``, a byte of the name
_ESCAPE = re.compile(r"\\x[0-9a-fA-F]{2}")
#: an escape in a Windows key: ``*uDCNN``, a lone surrogate of the name (``*`` is never in one)
_WINDOWS_ESCAPE = re.compile(r"\*u([0-9a-fA-F]{4})")


def index_key(path: str | Path, system: str = portable.SYSTEM) -> str:
    """The ``file_path`` a file is indexed under: its absolute path as text, one-to-one with the
    file's name, so that no file can be given another's key.

    On POSIX a name is bytes: a part of the path (between two ``/``) that is not UTF-8, or that
    holds what reads as an escape (a backslash, ``x`` and two hex digits), is written with its
    odd bytes and its backslashes as ``\\xNN`` (a literal ``rapport-\\xe9.txt`` is then
    ``rapport-\\x5cxe9.txt``, and ``rapport-<0xE9>.txt`` stays ``rapport-\\xe9.txt``). Every
    other part is its text as it is. On Windows a name is UTF-16: a lone surrogate, the one
    thing that is not text, is written ``*uDCNN`` (``*`` may not stand in a Windows name).
    :func:`key_path` is the inverse.
    """
    if system == "win32":
        return "".join(
            f"*u{ord(c):04X}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in ntpath.abspath(path)
        )
    absolute = os.path.abspath(path)
    return "/".join(_key_part(part) for part in os.fsencode(absolute).split(b"/"))


def _key_part(raw: bytes) -> str:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        if "\\" not in text or not _ESCAPE.search(text):
            return text
    return raw.replace(b"\\", b"\\x5c").decode("utf-8", "backslashreplace")


def key_path(key: str, system: str = portable.SYSTEM) -> str:
    """The path of the file whose :func:`index_key` is ``key``, to open it by."""
    if system == "win32":
        return _WINDOWS_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), key)
    parts = []
    for part in key.split("/"):
        if not _ESCAPE.search(part):
            parts.append(os.fsencode(part))
            continue
        raw = bytearray()
        at = 0
        for m in _ESCAPE.finditer(part):
            raw += part[at : m.start()].encode("utf-8")
            raw.append(int(m.group()[2:], 16))
            at = m.end()
        raw += part[at:].encode("utf-8")
        parts.append(bytes(raw))
    return os.fsdecode(b"/".join(parts))


@dataclass(frozen=True)
class FileEntry:
    """A file found by the walk."""

    path: str  # the OS path, to open the file
    key: str  # the index's file_path
    root: str  # the configured directory it was found under
    size: int
    mtime_ms: int
    #: (st_dev, st_ino) of the file the walk checked; (0, 0) where the system did not say
    identity: tuple[int, int] = (0, 0)
    #: who may read it, by its owner, group and mode (crawler/readers.py; None: not known)
    readers: tuple[str, ...] | None = None
    #: reached through a link (its own name or a folder above it): it is elsewhere really
    linked: bool = False


@dataclass(frozen=True)
class WalkProblem:
    key: str
    root: str
    reason: str
    #: the file must not stay in the index (it leads outside the configured directories)
    drop: bool = False


def hard_link_reason(links: int) -> str:
    return (
        f"a file with {links} hard links: not indexed, since another of its links may lie "
        "outside the configured directories (index_hard_links: true in config.yaml indexes such "
        "files)"
    )


@dataclass(frozen=True)
class Patterns:
    include: tuple[str, ...] = DEFAULT_INCLUDE
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    #: index regular files with more than one hard link (off: one of them may lie outside)
    hard_links: bool = False
    #: the folders whose readers the configuration names (``readers``): a link is not followed
    #: from one such folder (or from none) into another
    decided: tuple[str, ...] = ()

    def decider(self, path: str) -> str | None:
        """The folder of :attr:`decided` that ``path`` lies in (None: none)."""
        return next((f for f in self.decided if portable.is_under(path, f)), None)

    def crosses(self, path: str | Path) -> bool:
        """Whether ``path`` (reached through a link) really lies where another ``readers``
        folder decides who reads it than where its name lies."""
        if not self.decided:
            return False
        named = os.path.abspath(path)
        return self.decider(named) != self.decider(os.path.realpath(named))

    def excluded(self, name: str) -> bool:
        lowered = name.lower()
        return any(fnmatch.fnmatchcase(lowered, p.lower()) for p in self.exclude)

    def included(self, name: str) -> bool:
        lowered = name.lower()
        return any(fnmatch.fnmatchcase(lowered, p.lower()) for p in self.include) and not (
            self.excluded(name)
        )

    def wants(self, path: str | Path, roots: Sequence[str | Path]) -> bool:
        """Whether a path below one of ``roots`` is crawled (used for watch events)."""
        absolute = os.path.abspath(path)
        for root in roots:
            base = os.path.abspath(root)
            if portable.fold(absolute) == portable.fold(base) or not portable.is_under(
                absolute, base
            ):
                continue
            parts = os.path.relpath(absolute, base).split(os.sep)
            if any(self.excluded(part) for part in parts[:-1]):
                return False
            return self.included(parts[-1])
        return False


def walk(roots: Sequence[str | Path], patterns: Patterns) -> Iterator[FileEntry | WalkProblem]:
    """Every included file under ``roots``, depth first; problems are yielded, not raised.

    Symbolic links are followed only while they lead to a place inside one of ``roots``: the
    crawler reads nothing outside the configured directories.
    """
    allowed = _allowed(roots)
    for root in roots:
        base = os.path.abspath(root)
        if not os.path.isdir(base):
            yield WalkProblem(index_key(base), base, "the directory does not exist")
            continue
        chain = above(os.path.dirname(os.path.realpath(base)))
        through = os.path.realpath(base) != base
        yield from _walk_dir(base, base, patterns, set(), allowed, chain, through)


def _outside(path: str, allowed: tuple[str, ...]) -> bool:
    """Whether ``path``, symbolic links resolved, lies outside every allowed root."""
    return not portable.fold(os.path.realpath(path) + os.sep).startswith(allowed)


def inside(path: str | Path, roots: Sequence[str | Path]) -> bool:
    """Whether ``path``, symbolic links resolved, lies inside one of ``roots``."""
    return not _outside(str(path), _allowed(roots))


def _allowed(roots: Sequence[str | Path]) -> tuple[str, ...]:
    return tuple(portable.fold(portable.folder_prefix(os.path.realpath(r))) for r in roots)


def _walk_dir(
    folder: str,
    root: str,
    patterns: Patterns,
    seen: set[tuple[int, int]],
    allowed: tuple[str, ...],
    chain: tuple[Owned, ...],
    through: bool = False,
) -> Iterator[FileEntry | WalkProblem]:
    """The files below ``folder``; ``chain``: the owners and modes of the folders above it
    (where they really are); ``through``: ``folder`` was reached through a link."""
    try:
        info = os.stat(folder)
    except OSError as exc:
        yield WalkProblem(index_key(folder), root, f"cannot read the folder: {exc.strerror}")
        return
    identity = (info.st_dev, info.st_ino)
    if identity in seen:
        yield WalkProblem(
            index_key(folder), root, "symbolic link loop: the folder is already being walked"
        )
        return
    seen = seen | {identity}
    chain = (*chain, Owned.of(info, folder))
    try:
        with os.scandir(folder) as entries:
            listing = sorted(entries, key=lambda e: e.name)
    except OSError as exc:
        yield WalkProblem(index_key(folder), root, f"cannot list the folder: {exc.strerror}")
        return
    for entry in listing:
        name = entry.name
        if patterns.excluded(name):
            continue
        try:
            is_dir = entry.is_dir(follow_symlinks=True)
        except OSError:
            is_dir = False
        if entry.is_symlink() and _outside(entry.path, allowed):
            if is_dir or patterns.included(name):
                yield WalkProblem(
                    index_key(entry.path),
                    root,
                    "symbolic link to a place outside the configured directories (not followed)",
                    drop=True,
                )
            continue
        if (through or entry.is_symlink()) and patterns.crosses(entry.path):
            if is_dir or patterns.included(name):
                yield WalkProblem(index_key(entry.path), root, CROSSES, drop=True)
            continue
        linked = entry.is_symlink()
        if is_dir:
            # a linked folder's files are judged below the folders of the link's target
            inner = above(os.path.dirname(os.path.realpath(entry.path))) if linked else chain
            yield from _walk_dir(
                entry.path, root, patterns, seen, allowed, inner, through or linked
            )
            continue
        if not patterns.included(name):
            continue
        try:
            st = entry.stat(follow_symlinks=True)
        except FileNotFoundError:
            yield WalkProblem(index_key(entry.path), root, "broken symbolic link")
            continue
        except OSError as exc:
            yield WalkProblem(index_key(entry.path), root, f"cannot read the file: {exc.strerror}")
            continue
        if not stat.S_ISREG(st.st_mode):
            yield WalkProblem(index_key(entry.path), root, "not a regular file")
            continue
        links = portable.link_count(st, entry.path)  # 0 from a Windows directory entry
        if links > 1 and not patterns.hard_links:
            yield WalkProblem(index_key(entry.path), root, hard_link_reason(links), True)
            continue
        if not os.access(entry.path, os.R_OK):
            yield WalkProblem(
                index_key(entry.path), root, "cannot read the file: permission denied"
            )
            continue
        yield FileEntry(
            entry.path,
            index_key(entry.path),
            root,
            st.st_size,
            st.st_mtime_ns // 1_000_000,
            (st.st_dev, st.st_ino),
            of_file(entry.path, st) if linked else principals(Owned.of(st, entry.path), chain),
            through or linked,
        )


#: Why a link is not followed: its readers would be another folder's than its target's.
CROSSES = (
    "a link into a folder whose readers the configuration names otherwise (readers): not "
    "followed, its target is read where it lies"
)
#: Why a file is not read: what is at its name now is not the file the walk checked.
REPLACED = (
    "the file was replaced while the crawl ran (it is now another file, or a link to one): not "
    "read; the next crawl looks at it again"
)
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)  # the last name must not be a link: a link is resolved first
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO put in the file's place must not block the open
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def open_checked(
    path: str | Path, identity: tuple[int, int] | None = None, roots: Sequence[str | Path] = ()
) -> BinaryIO:
    """``path`` opened for reading, once: the file read is the file that was checked, whatever
    another user does to the folder meanwhile.

    Links in the path are resolved first (and the result must lie inside ``roots``, when they
    are given); the resolved name is opened without following a link; then the opened
    descriptor is checked: a regular file, the file the walk saw (``identity``: its device and
    inode) and, where the system can tell the path of a descriptor, still inside ``roots``.
    The caller reads the bytes from the descriptor and never opens the name again.

    Raises:
        FileVanishedError: when nothing is there any more.
        ExtractionError: when it is not the file checked, not a regular file, or unreadable.
    """
    allowed = _allowed(roots) if roots else ()
    real = os.path.realpath(path)
    if allowed and _outside(real, allowed):
        raise ExtractionError(REPLACED)
    try:
        fd = os.open(real, _OPEN_FLAGS)
    except FileNotFoundError as exc:
        raise FileVanishedError() from exc
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # made a link after it was resolved
            raise ExtractionError(REPLACED) from exc
        raise ExtractionError(
            f"cannot read the file: {(exc.strerror or str(exc)).lower()}"
        ) from exc
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise ExtractionError("not a regular file")
        if identity and any(identity) and (st.st_dev, st.st_ino) != tuple(identity):
            raise ExtractionError(REPLACED)
        where = portable.descriptor_path(fd)
        if allowed and where is not None and os.path.isabs(where) and _outside(where, allowed):
            raise ExtractionError(REPLACED)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def root_of(key: str, roots: Sequence[str]) -> str:
    """The one of ``roots`` that holds ``key`` (the first, where none does)."""
    for root in roots:
        if portable.is_under(key, root):
            return root
    return roots[0] if roots else ""
