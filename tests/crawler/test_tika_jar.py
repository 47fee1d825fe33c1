"""Where the Tika server jar comes from: the lookup order, and the one-time fetch with its
checksums, served by a real HTTP server on the loopback address."""

from __future__ import annotations

import hashlib
import http.server
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pylucene_mcp import SetupError
from pylucene_mcp.crawler import tika_jar

PAYLOAD = b"PK\x03\x04 a stand-in for the server jar " * 5000


class _Files(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep pytest's output clean
        pass


@pytest.fixture
def mirror(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A Maven-layout folder served on 127.0.0.1: (base URL, the folder of the jar)."""
    root = tmp_path / "mirror"
    folder = root / "org" / "apache" / "tika" / "tika-server-standard" / "9.9"
    folder.mkdir(parents=True)
    (folder / "tika-server-standard-9.9.jar").write_bytes(PAYLOAD)
    (folder / "tika-server-standard-9.9.jar.sha1").write_text(
        hashlib.sha1(PAYLOAD).hexdigest() + "  tika-server-standard-9.9.jar\n"
    )
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a: _Files(*a, directory=str(root))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", folder
    finally:
        server.shutdown()
        server.server_close()


def release(base: str) -> tika_jar.TikaRelease:
    return tika_jar.TikaRelease(
        version="9.9",
        file="tika-server-standard-9.9.jar",
        url=f"{base}/org/apache/tika/tika-server-standard/9.9/tika-server-standard-9.9.jar",
        size=len(PAYLOAD),
        sha1=hashlib.sha1(PAYLOAD).hexdigest(),
        sha256=hashlib.sha256(PAYLOAD).hexdigest(),
    )


def test_the_recorded_release_is_the_one_gradle_fetched() -> None:
    recorded = tika_jar.TikaRelease.recorded()
    jar = Path(__file__).resolve().parents[2] / "jars" / "tika" / recorded.file
    assert jar.stat().st_size == recorded.size
    assert hashlib.sha256(jar.read_bytes()).hexdigest() == recorded.sha256


def test_a_fetch_keeps_the_jar_when_both_checksums_match(
    mirror: tuple[str, Path], tmp_path: Path
) -> None:
    seen: list[tuple[int, int]] = []
    dest = tmp_path / "cache" / "tika-server-standard-9.9.jar"
    dest.parent.mkdir()
    tika_jar.fetch(release(mirror[0]), dest, lambda done, total: seen.append((done, total)))
    assert dest.read_bytes() == PAYLOAD
    assert seen[-1] == (len(PAYLOAD), len(PAYLOAD))
    assert not dest.with_name(dest.name + ".part").exists()


def test_a_jar_that_differs_from_the_recorded_one_is_deleted(
    mirror: tuple[str, Path], tmp_path: Path
) -> None:
    dest = tmp_path / "tika-server-standard-9.9.jar"
    wrong = replace(release(mirror[0]), sha256="0" * 64)
    with pytest.raises(SetupError, match="not the one this package was built with.*SHA-256"):
        tika_jar.fetch(wrong, dest)
    assert list(tmp_path.iterdir()) == [tmp_path / "mirror"]  # neither the jar nor a .part


def test_a_published_sha1_that_disagrees_is_refused(
    mirror: tuple[str, Path], tmp_path: Path
) -> None:
    (mirror[1] / "tika-server-standard-9.9.jar.sha1").write_text("f" * 40)
    with pytest.raises(SetupError, match="published SHA-1"):
        tika_jar.fetch(release(mirror[0]), tmp_path / "t.jar")
    assert not (tmp_path / "t.jar").exists()


def test_an_unreachable_source_says_how_to_do_without_network(tmp_path: Path) -> None:
    gone = release("http://127.0.0.1:9")  # the discard port: nothing listens
    with pytest.raises(SetupError, match="PYLUCENE_MCP_TIKA_JAR"):
        tika_jar.fetch(gone, tmp_path / "t.jar")
    assert list(tmp_path.iterdir()) == []


def test_a_mirror_replaces_the_recorded_repository(
    mirror: tuple[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_MAVEN_URL", "http://mirror.invalid/maven2/")
    assert release(mirror[0]).source() == (
        "http://mirror.invalid/maven2/org/apache/tika/tika-server-standard/9.9/"
        "tika-server-standard-9.9.jar"
    )


def test_an_explicit_jar_wins_and_a_wrong_one_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    jar = tmp_path / "tika-server-standard-1.0.jar"
    jar.write_bytes(b"x")
    monkeypatch.setenv("PYLUCENE_MCP_TIKA_JAR", str(jar))
    assert tika_jar.find() == jar
    monkeypatch.setenv("PYLUCENE_MCP_TIKA_JAR", str(tmp_path / "missing.jar"))
    with pytest.raises(SetupError, match="missing.jar is not a file"):
        tika_jar.find()
    monkeypatch.delenv("PYLUCENE_MCP_TIKA_JAR")
    monkeypatch.setenv("PYLUCENE_MCP_TIKA_JAR_DIR", str(tmp_path / "empty"))
    with pytest.raises(SetupError, match="holds no tika-server-standard"):
        tika_jar.find()
