"""Where the Tika server jar comes from.

``tika-server-standard`` is one 76 MB jar: too big to ride in the wheel beside Lucene (PyPI takes
at most 100 MB a file), so an installed package fetches it once, on the first crawl, from the
Maven Central location that Gradle recorded at build time in the package's ``jars/tika.json``,
and keeps it only when its SHA-256 and the SHA-1 published beside it both match what was
recorded then. Looked up in this order:

1. ``PYLUCENE_MCP_TIKA_JAR``: the jar itself (for machines without network access);
2. ``PYLUCENE_MCP_TIKA_JAR_DIR``: a folder holding ``tika-server-standard-*.jar``;
3. a source checkout's ``jars/tika/`` (Gradle fetched it there);
4. ``<home>/tika/`` (``~/.pylucene-mcp/tika/``), where :func:`ensure` fetches it.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import ssl
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from pylucene_mcp import jvm
from pylucene_mcp.basics import config, errors, portable
from pylucene_mcp.basics.config import home_dir
from pylucene_mcp.basics.private import private_dir
from pylucene_mcp.basics.web import open_url, proxy_used

log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]
"""Called with (bytes fetched, bytes in all) while the jar is fetched."""

_CHUNK = 1 << 20


@dataclass(frozen=True)
class TikaRelease:
    """The Tika server jar this build of the package runs with (from ``jars/tika.json``)."""

    version: str
    file: str
    url: str
    size: int
    sha1: str
    sha256: str

    @classmethod
    def recorded(cls) -> TikaRelease:
        """The release that Gradle recorded beside the Lucene jars.

        Raises:
            SetupError: when the record is missing or unreadable.
        """
        path = jvm.jars_dir() / "tika.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            return cls(**{name: data[name] for name in cls.__dataclass_fields__})
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise errors.SetupError(
                f"{path} is missing or unreadable ({exc}); reinstall pylucene-mcp, or set "
                "PYLUCENE_MCP_TIKA_JAR to a tika-server-standard jar"
            ) from exc

    def source(self) -> str:
        """The URL to fetch from: ``PYLUCENE_MCP_MAVEN_URL`` (a mirror of Maven Central's
        layout) replaces the recorded repository."""
        mirror = config.from_environment("maven_url")
        if not mirror:
            return self.url
        marker = "/org/apache/tika/"
        return mirror.rstrip("/") + marker + self.url.split(marker, 1)[1]


def cache_dir() -> Path:
    """Where a fetched jar is kept: ``<home>/tika``."""
    return home_dir() / "tika"


def _checkout_dir() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    return root / "jars" / "tika" if (root / "build.gradle").is_file() else None


def _newest(folder: Path) -> Path | None:
    found = sorted(folder.glob("tika-server-standard-*.jar"))
    return found[-1] if found else None


def find() -> Path | None:
    """The jar to run, or None when it has yet to be fetched.

    Raises:
        SetupError: when ``PYLUCENE_MCP_TIKA_JAR`` or ``PYLUCENE_MCP_TIKA_JAR_DIR`` names no jar.
    """
    explicit = config.from_environment("tika_jar")
    if explicit:
        if not Path(explicit).is_file():
            raise errors.SetupError(f"PYLUCENE_MCP_TIKA_JAR={explicit} is not a file")
        return Path(explicit)
    folder = config.from_environment("tika_jar_dir")
    if folder:
        jar = _newest(Path(folder))
        if jar is None:
            raise errors.SetupError(
                f"PYLUCENE_MCP_TIKA_JAR_DIR={folder} holds no tika-server-standard-*.jar"
            )
        return jar
    checkout = _checkout_dir()
    if checkout is not None and (jar := _newest(checkout)) is not None:
        return jar
    cached = cache_dir() / TikaRelease.recorded().file
    return cached if cached.is_file() else None


PIPE_JAR = "pylucene-mcp-tika.jar"


def pipe_jar() -> Path:
    """The package's own small jar that runs beside the Tika server jar: ``TikaPipe``, Tika
    behind its process's standard input and output (:mod:`~pylucene_mcp.crawler.tika_process`).

    Raises:
        SetupError: when the package lacks it.
    """
    jar = jvm.jars_dir() / "tika" / PIPE_JAR
    if not jar.is_file():
        raise errors.SetupError(
            f"{jar} is missing; build it with `make jars` in a checkout, or reinstall pylucene-mcp"
        )
    return jar


#: after a failed download, how long the same error answers at once instead of a new try (the
#: crawler's workers and restarts would otherwise each download again, one after the other)
RETRY_AFTER_S = 60.0
_failed: tuple[float, errors.SetupError] | None = None


def ensure(progress: Progress | None = None) -> Path:
    """The jar to run, fetched first if need be.

    Raises:
        SetupError: when it cannot be fetched or does not match its checksums (the same error,
            without a new download, for :data:`RETRY_AFTER_S` after a failure).
    """
    global _failed
    jar = find()
    if jar is not None:
        return jar
    if _failed is not None and time.monotonic() - _failed[0] < RETRY_AFTER_S:
        raise _failed[1]
    release = TikaRelease.recorded()
    folder = cache_dir()
    private_dir(folder)
    with portable.exclusive(folder / ".fetch.lock"):
        if _failed is not None and time.monotonic() - _failed[0] < RETRY_AFTER_S:
            raise _failed[1]  # another thread's try failed while this one waited
        dest = folder / release.file
        if not dest.is_file():  # another process may have fetched it while we waited
            try:
                fetch(release, dest, progress)
            except errors.SetupError as exc:
                _failed = (time.monotonic(), exc)
                raise
    _failed = None
    return dest


def _fetch_failed(url: str, release: TikaRelease, exc: BaseException) -> errors.SetupError:
    reason = getattr(exc, "reason", None) or exc
    certificate = isinstance(reason, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY" in str(
        reason
    )
    way_out = (
        "The certificate of the server was not trusted: a network that inspects TLS needs its "
        "CA in the system's trust store, or PYLUCENE_MCP_CA_BUNDLE set to a PEM file of it"
        if certificate
        else "Check the network (or PYLUCENE_MCP_MAVEN_URL for a mirror of Maven Central)"
    )
    return errors.SetupError(
        f"could not fetch the Tika server jar from {url}{proxy_used(url)}: {reason}. Crawling "
        "needs it once. "
        f"{way_out}; or download {release.file} yourself (its SHA-256 is {release.sha256}) "
        "and set PYLUCENE_MCP_TIKA_JAR to its path; `pylucene-mcp doctor --fetch-tika` tries "
        "again and says whether it worked"
    )


def fetch(release: TikaRelease, dest: Path, progress: Progress | None = None) -> None:
    """Downloads ``release`` to ``dest`` (through ``dest.part``), keeping it only when its
    SHA-256 is the recorded one and its SHA-1 the one published beside it.

    Raises:
        SetupError: on a network or certificate error or a checksum mismatch, saying what to
            do; nothing is left at ``dest``.
    """
    url = release.source()
    log.warning(
        "fetching the Tika server %s (%.1f MB) once from %s into %s",
        release.version,
        release.size / 1e6,
        url,
        dest.parent,
    )
    partial = dest.with_name(dest.name + ".part")
    sha1, sha256 = hashlib.sha1(), hashlib.sha256()
    done, step = 0, max(release.size // 10, 1)
    try:
        with open_url(url + ".sha1", 30) as answer:
            published = answer.read(4096).decode("ascii", "replace")
        with open_url(url, 120) as response, open(partial, "wb") as out:
            while chunk := response.read(_CHUNK):
                out.write(chunk)
                sha1.update(chunk)
                sha256.update(chunk)
                if (done + len(chunk)) // step > done // step:
                    log.info("Tika server jar: %d of %d MB", done // 10**6, release.size // 10**6)
                done += len(chunk)
                if progress is not None:
                    progress(done, release.size)
    except (OSError, ValueError) as exc:  # URLError, HTTPError, SSLError, timeouts are OSErrors
        partial.unlink(missing_ok=True)
        raise _fetch_failed(url, release, exc) from exc
    expected_sha1 = published.split()[0].lower() if published.split() else ""
    mismatches = [
        f"{name} {actual} instead of {wanted}"
        for name, actual, wanted in (
            ("SHA-256", sha256.hexdigest(), release.sha256),
            ("SHA-1", sha1.hexdigest(), release.sha1),
            ("published SHA-1", sha1.hexdigest(), expected_sha1),
        )
        if actual != wanted
    ]
    if mismatches:
        partial.unlink(missing_ok=True)
        raise errors.SetupError(
            f"the Tika server jar fetched from {url} is not the one this package was built with "
            f"({'; '.join(mismatches)}); it was deleted. Try again, or set "
            "PYLUCENE_MCP_TIKA_JAR to a verified copy"
        )
    os.chmod(partial, 0o644)
    partial.replace(dest)
    log.warning("Tika server jar verified (SHA-256 %s) and kept as %s", release.sha256, dest)
