"""The Tika parser process: Apache Tika in a supervised child JVM, reached through its own
standard input and output.

``TikaProcess`` starts it on first need, sends it each file's bytes and reads back Tika's
metadata list (the shape of Tika server's ``/rmeta/xml``), stops it when a parse runs past its
time limit, starts it anew when it died, and stops it after an idle period. The child runs
``TikaPipe`` (the package's ``pylucene-mcp-tika.jar``) beside the ``tika-server-standard`` jar
(:mod:`tika_jar`): it opens no port and no socket, so no other user of the machine can reach
it, stand in for it, or receive a document meant for it (docs/reliability.md). A parser that
hangs, crashes or runs out of memory takes down the child only, never this process.

The frames, big-endian, each opened by :data:`MAGIC`: a request is ``id, name length, name,
body length, body``; an answer ``id, kind, length, payload`` (see ``TikaPipe.java``).
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, BinaryIO

from pylucene_mcp import jvm
from pylucene_mcp.basics import portable
from pylucene_mcp.basics.errors import TikaUnavailableError
from pylucene_mcp.basics.private import jvm_crash_options, private_dir, private_temp
from pylucene_mcp.crawler import tika_jar

log = logging.getLogger(__name__)


#: Started in place of the JVM: it stops the JVM when this process dies, even by kill -9, or
#: when the JVM exits (see its docstring).
SUPERVISOR = Path(__file__).with_name("supervisor.py")
PIPE_CLASS = "io.github.pylucenemcp.tika.TikaPipe"

MAGIC = 0x504C4D54  # "PLMT"
READY = 1
PARSED = 2
_REQUEST = struct.Struct(">iii")  # magic, id, name length
_BODY_LENGTH = struct.Struct(">q")
_ANSWER = struct.Struct(">iiii")  # magic, id, kind, payload length
_CHUNK = 1 << 20


CONFIG_PREFIX = "tika-"
_folder: Path | None = None
_folder_lock = threading.Lock()
#: how many open servers run their JVM with each folder: the last one to close removes it
_users: dict[Path, int] = {}


def folder_users(folder: Path) -> int:
    """How many open servers of this process use ``folder`` (it is removed when none does)."""
    with _folder_lock:
        return _users.get(folder, 0)


def config_folder() -> Path:
    """This process's private folder for Tika (``<home>/tmp/tika-<pid>-<random>``, 0700, see
    :func:`~pylucene_mcp.basics.private.private_temp`), whose ``spool/`` is the parser JVM's
    temp folder, where it copies a large document for the parse.

    Made the first time; then the folders of processes that are gone (killed before they could
    clean up, spooled copies and all) are removed, so that nothing piles up.
    """
    global _folder
    with _folder_lock:
        if _folder is None or not _folder.is_dir():
            _folder = private_temp(f"{CONFIG_PREFIX}{os.getpid()}-")
            (_folder / "spool").mkdir(mode=0o700)
            for stale in _folder.parent.glob(f"{CONFIG_PREFIX}*"):
                pid = stale.name.removeprefix(CONFIG_PREFIX).split("-", 1)[0]
                if not (pid.isdigit() and portable.pid_alive(int(pid))):
                    shutil.rmtree(stale, ignore_errors=True)
        return _folder


def spool_folder() -> Path:
    """Where the parser JVM writes its temporary files (java.io.tmpdir)."""
    return config_folder() / "spool"


#: The parser JVM beside its heap: the serial collector, whose own structures are small, and
#: the client compiler only, which keep its memory within target; a smaller heap makes the
#: collector thrash (``bench/crawl.py``; the figures of each choice: docs/performance.md). A
#: JVM whose heap runs out exits at once (the file in flight is reported, the next one gets a
#: new JVM); the JVM's own messages go to stderr, never into the frames on stdout.
WORKER_JVM_ARGS: tuple[str, ...] = (
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:+ExitOnOutOfMemoryError",
    "-XX:+DisplayVMOutputToStderr",
)


@dataclass
class TikaSettings:
    heap: str = "384m"
    timeout_s: float = 120.0
    idle_stop_s: float = 300.0
    startup_timeout_s: float = 120.0
    max_file_size_mb: float = 100.0
    #: the text kept of one file (its embedded files included); the rest is cut
    max_content_chars: int = 5_000_000
    #: None: no text is recognised in images (not even where Tesseract is installed); else the
    #: process is an OCR one (crawler/ocr.py)
    ocr: OcrSettings | None = None


@dataclass(frozen=True)
class OcrSettings:
    """How an OCR parser process reads images: Tesseract's languages (``eng+deu``), its time
    for one page or image, the DPI a PDF page is rendered at, and the folder of the
    ``tesseract`` program (put first on the process's PATH; None: found on PATH)."""

    languages: str = "eng+deu"
    page_timeout_s: int = 60
    dpi: int = 300
    tesseract_dir: Path | None = None


class TikaDied(Exception):
    """The parser process ended (a crash, a kill, its heap ran out, or it was stopped for
    another file's time limit) while the file was in flight."""


class TikaTimeout(Exception):
    """The parse ran past its time limit; the parser process was stopped."""


class _Request:
    __slots__ = ("answer", "died", "done", "key")

    def __init__(self, key: int) -> None:
        self.key = key
        self.done = threading.Event()
        self.answer = ""
        self.died = False


class _Child:
    """One parser JVM (under its supervisor) and the requests in flight to it."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.proc = proc
        self.ready = threading.Event()
        self.version = ""
        self.ended = False
        self._pending: dict[int, _Request] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._write_lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, name="tika-answers", daemon=True)
        self._reader.start()

    def alive(self) -> bool:
        return not self.ended and self.proc.poll() is None

    def send(self, name: str, body: BinaryIO, size: int) -> _Request:
        """Writes one request; the answer arrives on the returned request.

        Raises:
            TikaDied: when the process is gone.
        """
        encoded = name.encode("utf-8", "surrogateescape")[:4096]
        with self._lock:
            if self.ended:
                raise TikaDied("the parser process has ended")
            request = _Request(next(self._ids))
            self._pending[request.key] = request
        stdin = self.proc.stdin
        assert stdin is not None
        try:
            with self._write_lock:
                stdin.write(_REQUEST.pack(MAGIC, request.key, len(encoded)) + encoded)
                stdin.write(_BODY_LENGTH.pack(size))
                left = size
                while left > 0:
                    chunk = body.read(min(_CHUNK, left))
                    if not chunk:  # shorter than it was: the rest as zeros keeps the frames whole
                        chunk = bytes(min(_CHUNK, left))
                    stdin.write(chunk)
                    left -= len(chunk)
                stdin.flush()
        except (OSError, ValueError) as exc:  # a broken pipe, or a closed one
            self.end()
            raise TikaDied("the parser process has ended") from exc
        return request

    def _read(self) -> None:
        stdout = self.proc.stdout
        assert stdout is not None
        try:
            while True:
                header = _read_exactly(stdout, _ANSWER.size)
                if header is None:
                    return
                magic, key, kind, length = _ANSWER.unpack(header)
                if magic != MAGIC or length < 0:
                    log.error("the Tika parser process wrote something that is no answer; stopped")
                    return
                payload = _read_exactly(stdout, length)
                if payload is None:
                    return
                text = payload.decode("utf-8", "replace")
                if kind == READY:
                    self.version = text
                    self.ready.set()
                    continue
                with self._lock:
                    request = self._pending.pop(key, None)
                if request is not None:
                    request.answer = text
                    request.done.set()
        except (OSError, ValueError):
            return
        finally:
            self.end()
            with contextlib.suppress(OSError, ValueError):
                stdout.close()

    def forget(self, request: _Request) -> None:
        with self._lock:
            self._pending.pop(request.key, None)

    def end(self) -> None:
        """Marks the process gone: every request in flight fails with :class:`TikaDied`."""
        with self._lock:
            self.ended = True
            pending, self._pending = self._pending, {}
        self.ready.set()
        for request in pending.values():
            request.died = True
            request.done.set()


def _read_exactly(stream: IO[bytes], size: int) -> bytes | None:
    """``size`` bytes, or None when the stream ends first."""
    parts = []
    left = size
    while left > 0:
        chunk = stream.read(left)
        if not chunk:
            return None
        parts.append(chunk)
        left -= len(chunk)
    return b"".join(parts)


class TikaProcess:
    """A supervised Tika parser process, reached through its standard input and output."""

    def __init__(self, settings: TikaSettings | None = None, log_dir: Path | None = None) -> None:
        self.settings = settings or TikaSettings()
        self.log_dir = log_dir
        self._lock = threading.Lock()
        self._child: _Child | None = None
        self._last_used = time.monotonic()
        self._idle_thread: threading.Thread | None = None
        self._closed = False
        self._folder: Path | None = None  # the private folder its JVM runs with, once it ran
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        """The parser process's supervisor's id (its process group on POSIX), while it runs."""
        child = self._child
        return child.proc.pid if child is not None and child.alive() else None

    @property
    def version(self) -> str:
        """Tika's version as the running process reports it ("" before it ran)."""
        child = self._child
        return child.version if child is not None else ""

    def start(self) -> None:
        """Starts the parser process now, not on the first file.

        Raises:
            ExtractionError: when it does not come up.
            SetupError: when the Tika jar cannot be had.
        """
        self._running()

    def _running(self) -> _Child:
        with self._lock:
            if self._closed:
                raise TikaUnavailableError(
                    "the Tika server was closed (the server is shutting down)"
                )
            self._last_used = time.monotonic()
            child = self._child
            if child is None or not child.alive():
                if child is not None:
                    self.restarts += 1
                    log.warning(
                        "the Tika parser process exited (code %s); starting it again",
                        child.proc.poll(),
                    )
                    self._kill(child)
                self._child = child = self._start()
            return child

    def parse(self, name: str, body: BinaryIO, size: int) -> str:
        """Tika's metadata list (JSON text) of the ``size`` bytes read from ``body``.

        Raises:
            TikaDied: when the process ended while the file was in flight.
            TikaTimeout: when the parse ran past ``timeout_s`` (the process was stopped).
            TikaUnavailableError: when the process cannot be started.
        """
        child = self._running()
        try:
            request = child.send(name, body, size)
            if not request.done.wait(self.settings.timeout_s):
                child.forget(request)
                log.warning("a parse ran past %g s: stopping the Tika parser process",
                            self.settings.timeout_s)  # fmt: skip
                self._stop_child(child)
                raise TikaTimeout()
        finally:
            self.touch()
        if request.died:
            raise TikaDied("the parser process ended while parsing")
        return request.answer

    def touch(self) -> None:
        self._last_used = time.monotonic()

    def healthy(self) -> bool:
        """True when the process runs and has loaded its parsers."""
        child = self._child
        return child is not None and child.alive() and child.ready.is_set()

    def _command(self) -> list[str]:
        if self._folder is None:
            folder = config_folder()
            with _folder_lock:
                _users[folder] = _users.get(folder, 0) + 1
            self._folder = folder
        java = Path(jvm.find_java_home()) / "bin" / "java"
        class_path = os.pathsep.join([str(tika_jar.ensure()), str(tika_jar.pipe_jar())])
        return [
            sys.executable,
            str(SUPERVISOR),
            str(os.getpid()),
            str(java),
            f"-Xmx{self.settings.heap}",
            *WORKER_JVM_ARGS,
            *jvm_crash_options(),
            f"-Djava.io.tmpdir={self._folder / 'spool'}",
            "-Djava.awt.headless=true",
            "-cp",
            class_path,
            PIPE_CLASS,
            str(max(1, int(self.settings.max_content_chars))),
            *self._ocr_args(),
        ]

    def _ocr_args(self) -> list[str]:
        ocr = self.settings.ocr
        if ocr is None:
            return []
        return [ocr.languages, str(max(1, int(ocr.page_timeout_s))), str(int(ocr.dpi))]

    def _environment(self) -> dict[str, str] | None:
        """The child's environment: this process's; an OCR process's with Tesseract's folder
        first on PATH and Tesseract on one thread (OMP_THREAD_LIMIT=1), so that OCR in the
        background takes one core, never all of them from the searches and the crawl."""
        ocr = self.settings.ocr
        if ocr is None:
            return None
        env = dict(os.environ)
        env["OMP_THREAD_LIMIT"] = "1"
        if ocr.tesseract_dir is not None:
            env["PATH"] = os.pathsep.join([str(ocr.tesseract_dir), env.get("PATH", "")])
        return env

    def _start(self) -> _Child:
        command = self._command()
        log_file = self._log_file()
        log.info("starting the Tika parser process")
        proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=log_file,
            env=self._environment(),
            **portable.new_session_options(),
        )
        if log_file is not subprocess.DEVNULL:
            log_file.close()
        child = _Child(proc)
        if not child.ready.wait(self.settings.startup_timeout_s) or not child.alive():
            code = proc.poll()
            self._kill(child)
            if code is None:
                raise TikaUnavailableError(
                    "the Tika server did not start within the start-up timeout"
                )
            raise TikaUnavailableError(
                f"the Tika server exited at start-up (code {code}); see {self.log_dir or 'its log'}"
            )
        self._ensure_idle_monitor()
        return child

    def _log_file(self) -> Any:
        if self.log_dir is None:
            return subprocess.DEVNULL
        try:
            private_dir(self.log_dir)
            name = "tika-server.log" if self.settings.ocr is None else "tika-ocr.log"
            return open(self.log_dir / name, "ab")
        except OSError:
            return subprocess.DEVNULL

    def _ensure_idle_monitor(self) -> None:
        if self._idle_thread is not None and self._idle_thread.is_alive():
            return

        def watch() -> None:
            while not self._closed:
                time.sleep(min(5.0, max(0.2, self.settings.idle_stop_s / 4)))
                with self._lock:
                    idle = time.monotonic() - self._last_used
                    if self._child is not None and idle > self.settings.idle_stop_s:
                        log.info("stopping the idle Tika parser process after %.0f s", idle)
                        child, self._child = self._child, None
                        self._kill(child)
                        return

        self._idle_thread = threading.Thread(target=watch, name="tika-idle", daemon=True)
        self._idle_thread.start()

    def _stop_child(self, child: _Child) -> None:
        """Stops ``child`` if it is still the running one (not one started after it)."""
        with self._lock:
            if self._child is child:
                self._child = None
        self._kill(child)

    @staticmethod
    def _kill(child: _Child, grace_s: float = 5.0) -> None:
        proc = child.proc
        # the supervisor and the JVM at once; on POSIX the session too
        portable.kill_tree(proc.pid, grace_s=grace_s, group=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)
        with contextlib.suppress(OSError, ValueError):
            if proc.stdin is not None:
                proc.stdin.close()
        child.end()  # the reader sees the end of stdout and closes it

    def stop(self, grace_s: float = 5.0) -> None:
        """Stops the process (it starts again on the next extraction), killing it when it has
        not ended ``grace_s`` after it was asked to."""
        with self._lock:
            child, self._child = self._child, None
        if child is not None:
            self._kill(child, grace_s)

    def close(self, grace_s: float = 5.0) -> None:
        """Stops the process for good: a parse in flight fails at once (TikaUnavailableError,
        a failure of the moment), later ones too. ``grace_s``: as for :meth:`stop` (a server
        that quits gives its JVM a moment only: it holds nothing to save)."""
        self._closed = True
        self.stop(grace_s)
        folder, self._folder = self._folder, None
        if folder is None:
            return
        with _folder_lock:
            _users[folder] -= 1
            last = _users[folder] <= 0
            if last:
                del _users[folder]
        if last:  # no other server of this process uses it: the spooled copies go too
            shutil.rmtree(folder, ignore_errors=True)
