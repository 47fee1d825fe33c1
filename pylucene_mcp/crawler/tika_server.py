"""The Tika server: ``tika-server-standard`` as a supervised child JVM.

``TikaServer`` starts it on first need (on a free loopback port, with its own heap and per-task
timeout), checks its health, restarts it when it died, and stops it after an idle period. Tika's
server forks its own watchdog child, so a parser that hangs or runs out of memory takes down
neither the server nor this process. The jar comes from :mod:`tika_jar`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from pylucene_mcp import jvm
from pylucene_mcp.basics import portable
from pylucene_mcp.basics.config import private_dir, private_temp
from pylucene_mcp.basics.errors import ExtractionError
from pylucene_mcp.crawler import tika_jar

log = logging.getLogger(__name__)


#: Started in place of the server: it stops the server's process tree when this process dies,
#: even by kill -9, or when the server exits (see its docstring).
SUPERVISOR = Path(__file__).with_name("supervisor.py")


CONFIG_PREFIX = "tika-"
_folder: Path | None = None
_folder_lock = threading.Lock()


def config_folder() -> Path:
    """This process's private folder for Tika (``<home>/tmp/tika-<pid>-<random>``, 0700, see
    :func:`~pylucene_mcp.basics.config.private_temp`): its configs, and the temp folder (``spool/``)
    of the Tika server and its workers, where Tika copies the documents it parses.

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
    """Where the Tika server and its workers write their temporary files (java.io.tmpdir)."""
    return config_folder() / "spool"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


#: The worker JVM (the one that parses) beside its heap: the serial collector, whose own
#: structures are small, and the client compiler only, which keep Tika's process tree within
#: its memory target; a smaller heap makes the collector thrash (``bench/crawl.py``; the
#: figures of each choice: docs/performance.md).
WORKER_JVM_ARGS: tuple[str, ...] = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")
#: The watchdog JVM only starts, watches and restarts the worker.
WATCHDOG_JVM_ARGS: tuple[str, ...] = ("-Xmx64m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1")


@dataclass
class TikaSettings:
    heap: str = "384m"
    timeout_s: float = 120.0
    idle_stop_s: float = 300.0
    startup_timeout_s: float = 120.0
    max_file_size_mb: float = 100.0


class TikaServer:
    """A supervised ``tika-server-standard`` child process on 127.0.0.1."""

    def __init__(self, settings: TikaSettings | None = None, log_dir: Path | None = None) -> None:
        self.settings = settings or TikaSettings()
        self.log_dir = log_dir
        self._lock = threading.Lock()
        self._proc: subprocess.Popen[bytes] | None = None
        self._port = 0
        self._last_used = time.monotonic()
        self._config_file: Path | None = None
        self._idle_thread: threading.Thread | None = None
        self._closed = False
        self.restarts = 0

    @property
    def pid(self) -> int | None:
        """The server process's id, while it runs."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def endpoint(self) -> str:
        """The server's URL, starting or restarting the server when needed.

        Raises:
            ExtractionError: when it does not come up.
        """
        with self._lock:
            if self._closed:
                raise ExtractionError("the Tika server was closed (the server is shutting down)")
            self._last_used = time.monotonic()
            if self._proc is None or self._proc.poll() is not None:
                if self._proc is not None:
                    self.restarts += 1
                    log.warning("Tika server exited (code %s); restarting", self._proc.returncode)
                self._start()
            return f"http://127.0.0.1:{self._port}"

    def touch(self) -> None:
        self._last_used = time.monotonic()

    def wait_ready(self) -> None:
        """Waits until the server answers again (Tika restarts its worker by itself after a
        timeout or crash; a dead server process is started anew)."""
        deadline = time.monotonic() + self.settings.startup_timeout_s
        while time.monotonic() < deadline and not self._closed:
            self.endpoint()
            if self.healthy():
                return
            time.sleep(0.25)

    def healthy(self) -> bool:
        """True when the process runs and answers."""
        import requests

        if self._proc is None or self._proc.poll() is not None:
            return False
        try:
            return requests.get(f"http://127.0.0.1:{self._port}/version", timeout=5).ok
        except requests.RequestException:
            return False

    def _config(self) -> Path:
        if self._config_file is None:
            self._config_file = config_folder() / f"tika-config-{id(self)}.xml"
        java = Path(jvm.find_java_home()) / "bin" / "java"
        config = self._config_file
        timeout_ms = int(self.settings.timeout_s * 1000)
        config.write_text(
            "<properties><server><params>"
            f"<host>127.0.0.1</host><port>{self._port}</port>"
            f"<taskTimeoutMillis>{timeout_ms}</taskTimeoutMillis>"
            f"<minimumTimeoutMillis>{max(1, timeout_ms // 2)}</minimumTimeoutMillis>"
            f"<javaPath>{escape(str(java))}</javaPath>"
            f"<forkedJvmArgs><arg>-Xmx{escape(self.settings.heap)}</arg>"
            + "".join(f"<arg>{escape(a)}</arg>" for a in WORKER_JVM_ARGS)
            + f"<arg>-Djava.io.tmpdir={escape(str(spool_folder()))}</arg>"
            + "<arg>-Djava.awt.headless=true</arg></forkedJvmArgs>"
            "</params></server></properties>",
            encoding="utf-8",
        )
        return config

    def _start(self) -> None:
        import requests

        self._port = _free_port()
        java = Path(jvm.find_java_home()) / "bin" / "java"
        command = [
            sys.executable,
            str(SUPERVISOR),
            str(os.getpid()),
            str(java),
            *WATCHDOG_JVM_ARGS,
            f"-Djava.io.tmpdir={spool_folder()}",
            "-jar",
            str(tika_jar.ensure()),
            "-c",
            str(self._config()),
        ]
        log_file = self._log_file()
        log.info("starting Tika server on port %d", self._port)
        self._proc = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log_file,
            stderr=log_file,
            **portable.new_session_options(),
        )
        if log_file is not subprocess.DEVNULL:
            log_file.close()
        deadline = time.monotonic() + self.settings.startup_timeout_s
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise ExtractionError(
                    f"the Tika server exited at start-up (code {self._proc.returncode}); "
                    f"see {self.log_dir or 'its log'}"
                )
            try:
                if requests.get(f"http://127.0.0.1:{self._port}/version", timeout=2).ok:
                    self._ensure_idle_monitor()
                    return
            except requests.RequestException:
                pass
            time.sleep(0.2)
        self._kill()
        raise ExtractionError("the Tika server did not start within the start-up timeout")

    def _log_file(self) -> Any:
        if self.log_dir is None:
            return subprocess.DEVNULL
        try:
            private_dir(self.log_dir)
            return open(self.log_dir / "tika-server.log", "ab")
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
                    if self._proc is not None and idle > self.settings.idle_stop_s:
                        log.info("stopping the idle Tika server after %.0f s", idle)
                        self._kill()
                        return

        self._idle_thread = threading.Thread(target=watch, name="tika-idle", daemon=True)
        self._idle_thread.start()

    def _kill(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        # the supervisor, the server and its worker at once; on POSIX the session too, where a
        # worker that the server was restarting when it was stopped would otherwise outlive it
        portable.kill_tree(proc.pid, grace_s=5.0, group=True)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=10)

    def stop(self) -> None:
        """Stops the server (it starts again on the next extraction)."""
        with self._lock:
            self._kill()

    def close(self) -> None:
        self._closed = True
        self.stop()
        if self._config_file is not None:
            self._config_file.unlink(missing_ok=True)
            self._config_file = None
        folder = _folder
        if folder is not None and not any(folder.glob("tika-config-*.xml")):
            # no other server of this process uses it: the spooled copies go too
            shutil.rmtree(folder, ignore_errors=True)
