"""Text and metadata extraction through Apache Tika, in a supervised child JVM.

``TikaServer`` starts ``tika-server-standard`` on first need (on a free loopback port, with its
own heap and per-task timeout), checks its health, restarts it when it died, and stops it after an
idle period. Tika's server forks its own watchdog child, so a parser that hangs or runs out of
memory takes down neither the server nor this process. The HTTP side uses the ``tika`` client
package in client-only mode: it downloads nothing; the server jar comes from :mod:`tika_jar`.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import functools
import json
import logging
import os
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote
from xml.sax.saxutils import escape

from pylucene_mcp import errors, jvm
from pylucene_mcp.config import private_dir
from pylucene_mcp.crawler import tika_jar
from pylucene_mcp.crawler.normalize import join_pages, xhtml_to_pages
from pylucene_mcp.documents import content_hash

log = logging.getLogger(__name__)

# The tika client must neither download a server jar nor log to a file of its own.
os.environ.setdefault("TIKA_CLIENT_ONLY", "True")
os.environ.setdefault("TIKA_LOG_FILE", "")

LANGUAGE_MIN_CONFIDENCE = 0.9
LANGUAGE_SAMPLE_CHARS = 20_000


class ExtractionError(errors.PyLuceneMcpError):
    """A file could not be extracted; the message is the reason recorded for it."""


class FileVanishedError(ExtractionError):
    """The file was deleted between the walk and its extraction."""

    def __init__(self) -> None:
        super().__init__("the file vanished before it was read")


# Runs the Tika server under a shell that outlives neither us nor it: when this process dies,
# even by kill -9, the shell kills its process group (the server and the worker it forked)
# within a second, so no 1 GB JVM is left behind; when the server dies, the shell exits too.
# TERM first, then, two seconds later, KILL: a worker that the server was just restarting when
# the TERM came (seen once in 11 kill -9 trials) is started after it, and would outlive it.
_SUPERVISOR = """
parent=$1; shift
"$@" &
server=$!
while kill -0 "$parent" 2>/dev/null && kill -0 "$server" 2>/dev/null; do sleep 1; done
trap '' TERM
kill -TERM 0 2>/dev/null
sleep 2
kill -KILL 0 2>/dev/null
"""


CONFIG_PREFIX = "pylucene-mcp-tika-"


def config_folder() -> Path:
    """This process's folder for Tika configs, ``$TMPDIR/pylucene-mcp-tika-<pid>`` (0700).

    Made the first time; then the folders of processes that are gone (killed before they could
    clean up) are removed, so that they do not pile up.
    """
    folder = Path(tempfile.gettempdir()) / f"{CONFIG_PREFIX}{os.getpid()}"
    if not folder.is_dir():
        for stale in Path(tempfile.gettempdir()).glob(f"{CONFIG_PREFIX}*"):
            suffix = stale.name.removeprefix(CONFIG_PREFIX)
            if not (suffix.isdigit() and _alive(int(suffix))):
                shutil.rmtree(stale, ignore_errors=True)
        folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class TikaSettings:
    heap: str = "1g"
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
            "<arg>-Djava.awt.headless=true</arg></forkedJvmArgs>"
            "</params></server></properties>",
            encoding="utf-8",
        )
        return config

    def _start(self) -> None:
        import requests

        self._port = _free_port()
        java = Path(jvm.find_java_home()) / "bin" / "java"
        command = [
            "/bin/sh",
            "-c",
            _SUPERVISOR,
            "tika-supervisor",
            str(os.getpid()),
            str(java),
            "-Xmx256m",
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
            start_new_session=True,
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
            return open(self.log_dir / "tika-server.log", "ab")  # noqa: SIM115
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
        try:
            os.killpg(proc.pid, 15)
        except OSError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(proc.pid, 9)
            except OSError:
                pass
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
            with contextlib.suppress(OSError):  # other servers of this process may still use it
                self._config_file.parent.rmdir()
            self._config_file = None


@dataclass
class Extracted:
    """What the index needs from one file."""

    content: str
    page_offsets: list[int]
    content_hash: str
    file_type: str
    language: str
    title: str | None = None
    author: list[str] = field(default_factory=list)
    creator: str | None = None
    subject: str | None = None
    keywords: str | None = None
    created_ms: int | None = None
    modified_ms: int | None = None


def _first(meta: dict[str, Any], *keys: str) -> str | None:
    for key in keys:
        value = meta.get(key)
        if isinstance(value, list):
            value = next((v for v in value if str(v).strip()), None)
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


def _all(meta: dict[str, Any], *keys: str) -> list[str]:
    for key in keys:
        value = meta.get(key)
        if value is None:
            continue
        values = value if isinstance(value, list) else [value]
        cleaned = list(dict.fromkeys(str(v).strip() for v in values if str(v).strip()))
        if cleaned:
            return cleaned
    return []


def _date_ms(meta: dict[str, Any], *keys: str) -> int | None:
    text = _first(meta, *keys)
    if not text:
        return None
    try:
        stamp = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    return int(stamp.timestamp() * 1000)


@functools.cache
def _language_identifier() -> Any:
    from py3langid.langid import MODEL_FILE, LanguageIdentifier

    return LanguageIdentifier.from_model_file(MODEL_FILE, norm_probs=True)


def detect_language(text: str) -> str:
    """ISO 639-1 code, or ``unknown`` when the detector is less than 90 % sure."""
    sample = text[:LANGUAGE_SAMPLE_CHARS]
    if sum(c.isalpha() for c in sample) < 20:
        return "unknown"
    code, confidence = _language_identifier().classify(sample)
    if confidence < LANGUAGE_MIN_CONFIDENCE or len(code) != 2:
        return "unknown"
    return str(code)


class Extractor:
    """Extracts files through a :class:`TikaServer`."""

    def __init__(self, server: TikaServer) -> None:
        self.server = server

    def extract(self, path: Path) -> Extracted:
        """Content and metadata of ``path``.

        Raises:
            ExtractionError: with the reason (too large, unreadable, corrupt, encrypted, timeout).
        """
        limit = int(self.server.settings.max_file_size_mb * 1024 * 1024)
        try:
            size = path.stat().st_size
        except FileNotFoundError as exc:
            raise FileVanishedError() from exc
        except OSError as exc:
            raise ExtractionError(f"cannot read the file: {exc.strerror}") from exc
        if size > limit:
            raise ExtractionError(
                f"the file has {size / 1e6:.1f} MB, over the limit of "
                f"{self.server.settings.max_file_size_mb:g} MB (max_file_size_mb)"
            )
        if size == 0:
            return Extracted("", [], content_hash(""), "application/octet-stream", "unknown")
        status, text = self._call(path)
        if status == 422:
            raise ExtractionError(
                "Tika cannot parse the file: it is encrypted, corrupt or not what its name says"
            )
        if status != 200:
            raise ExtractionError(f"Tika answered HTTP {status} for the file")
        try:
            parts = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ExtractionError("Tika's answer was not valid JSON") from exc
        if not parts:
            raise ExtractionError("Tika returned nothing for the file")
        _raise_parse_failure(parts[0])
        return self._build(parts)

    def _call(self, path: Path) -> tuple[int, str]:
        """Tika's HTTP status and body for ``path``."""
        import requests
        from tika import tika as tika_client

        timeout = self.server.settings.timeout_s
        # The name is a hint for type detection; a name that is not UTF-8 is passed escaped.
        name = os.fsencode(path.name).decode("utf-8", "backslashreplace")
        headers = {
            "Accept": "application/json",
            "Content-Disposition": f"attachment; filename*=UTF-8''{quote(name)}",
        }
        aborted = 0
        for attempt in range(1, 4):
            endpoint = self.server.endpoint()
            started = time.monotonic()
            try:
                with open(path, "rb") as handle:
                    status, text = tika_client.callServer(
                        "put",
                        endpoint,
                        "/rmeta/xml",
                        handle,
                        headers,
                        False,
                        requestOptions={"timeout": (10, timeout + 30)},
                    )
            except FileNotFoundError as exc:
                raise FileVanishedError() from exc
            except PermissionError as exc:
                raise ExtractionError(f"cannot read the file: {exc.strerror}") from exc
            except requests.Timeout as exc:
                raise ExtractionError(
                    f"parsing took longer than {timeout:g} s (tika_timeout_s)"
                ) from exc
            except requests.ConnectionError as exc:
                # Refused: Tika's worker is restarting. Aborted: it died under this request,
                # from a timeout, a crash, or a kill; one more try tells a poison file apart.
                refused = "refused" in str(exc).lower()
                elapsed = time.monotonic() - started
                self.server.wait_ready()
                if not refused:
                    aborted += 1
                    if aborted >= 2 or elapsed >= timeout:
                        raise ExtractionError(
                            f"parsing took longer than {timeout:g} s (tika_timeout_s)"
                            if elapsed >= timeout * 0.9
                            else "the file crashed Tika's parser process"
                        ) from exc
                log.info("Tika connection failed on attempt %d (%s); retrying", attempt, exc)
                continue
            finally:
                self.server.touch()
            if status == 503 and attempt < 3:
                self.server.wait_ready()
                continue
            return int(status), str(text)
        raise ExtractionError("the Tika server did not answer after three tries")

    def _build(self, parts: list[dict[str, Any]]) -> Extracted:
        meta = parts[0]
        pages, paged = xhtml_to_pages(str(meta.get("X-TIKA:content") or ""))
        for embedded in parts[1:]:  # attachments, archive members
            more, _ = xhtml_to_pages(str(embedded.get("X-TIKA:content") or ""))
            extra = "\n\n".join(p for p in more if p)
            if extra:
                if paged:
                    pages[-1] = f"{pages[-1]}\n\n{extra}" if pages[-1] else extra
                else:
                    pages.append(extra)
        if not paged:
            pages = ["\n\n".join(p for p in pages if p)]
        content, offsets = join_pages(pages)
        mime = (_first(meta, "Content-Type") or "application/octet-stream").split(";")[0].strip()
        return Extracted(
            content=content,
            page_offsets=offsets if paged else [],
            content_hash=content_hash(content),
            file_type=mime,
            language=detect_language(content),
            title=_first(meta, "dc:title", "title", "pdf:docinfo:title"),
            author=_all(meta, "dc:creator", "meta:author", "Author", "Message-From"),
            creator=_first(
                meta,
                "xmp:CreatorTool",
                "pdf:docinfo:creator_tool",
                "extended-properties:Application",
            ),
            subject=_first(meta, "dc:subject", "cp:subject", "subject", "pdf:docinfo:subject"),
            keywords=_first(meta, "meta:keyword", "pdf:docinfo:keywords", "Keywords"),
            created_ms=_date_ms(meta, "dcterms:created", "meta:creation-date", "Creation-Date"),
            modified_ms=_date_ms(meta, "dcterms:modified", "Last-Modified", "meta:save-date"),
        )


def _raise_parse_failure(meta: dict[str, Any]) -> None:
    """Tika's ``/rmeta`` answers 200 and puts a parser's exception in the metadata."""
    trace = _first(meta, "X-TIKA:EXCEPTION:container_exception")
    if not trace:
        return
    first = trace.strip().splitlines()[0]
    if "EncryptedDocumentException" in trace or "password" in trace.lower():
        raise ExtractionError("the file is encrypted (password protected)")
    if "WriteLimitReached" in trace:
        return  # the text was cut at Tika's write limit: index what came
    detail = first.split(":", 1)[-1].strip()[:200]
    raise ExtractionError(f"the file is corrupt or not what its name says ({detail})")
