"""Where the Tika server jar comes from: the lookup order, and the one-time fetch with its
checksums, served by a real HTTP server on the loopback address."""

from __future__ import annotations

import hashlib
import http.server
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pylucene_mcp import SetupError
from pylucene_mcp.basics import web
from pylucene_mcp.crawler import tika_jar
from tests.local_http import serving

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
    with serving(server) as port:
        yield f"http://127.0.0.1:{port}", folder


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


# -- HTTPS through the trust configuration -------------------------------------------------


@pytest.fixture
def tls_mirror(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """The mirror over HTTPS, its certificate signed by a certificate authority made for this
    test alone (no trust store on the machine knows it): (base URL, the CA's PEM file)."""
    import ssl

    import trustme

    authority = trustme.CA()
    certificate = authority.issue_cert("127.0.0.1", "localhost")
    root = tmp_path / "tls-mirror"
    folder = root / "org" / "apache" / "tika" / "tika-server-standard" / "9.9"
    folder.mkdir(parents=True)
    (folder / "tika-server-standard-9.9.jar").write_bytes(PAYLOAD)
    (folder / "tika-server-standard-9.9.jar.sha1").write_text(hashlib.sha1(PAYLOAD).hexdigest())
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *a: _Files(*a, directory=str(root))
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(context)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    pem = tmp_path / "test-ca.pem"
    authority.cert_pem.write_to_path(str(pem))
    with serving(server) as port:
        yield f"https://127.0.0.1:{port}", pem


@pytest.fixture
def no_ca_settings(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """An environment as an MCP client spawns the server in: no CA bundle variable at all."""
    for variable in (*web.CA_BUNDLE_VARIABLES, "SSL_CERT_FILE", "SSL_CERT_DIR"):
        monkeypatch.delenv(variable, raising=False)
    return monkeypatch


def test_an_untrusted_certificate_names_the_ways_out(
    tls_mirror: tuple[str, Path], tmp_path: Path, no_ca_settings: pytest.MonkeyPatch
) -> None:
    dest = tmp_path / "t.jar"
    with pytest.raises(SetupError) as caught:
        tika_jar.fetch(release(tls_mirror[0]), dest)
    message = str(caught.value)
    assert "certificate" in message.lower()
    for way_out in ("PYLUCENE_MCP_CA_BUNDLE", "PYLUCENE_MCP_TIKA_JAR", "doctor --fetch-tika"):
        assert way_out in message
    assert not dest.exists() and not dest.with_name("t.jar.part").exists()


@pytest.mark.parametrize(
    "variable",
    [
        # on Linux the system's store is what OpenSSL's default paths name; SSL_CERT_FILE moves
        # it to the file that holds only the test CA (requests' certifi list would not have it)
        "SSL_CERT_FILE",
        # the extra CA bundle, trusted beside the system's certificates
        "PYLUCENE_MCP_CA_BUNDLE",
    ],
)
def test_the_trust_configuration_is_used(
    tls_mirror: tuple[str, Path], tmp_path: Path, no_ca_settings: pytest.MonkeyPatch, variable: str
) -> None:
    no_ca_settings.setenv(variable, str(tls_mirror[1]))
    dest = tmp_path / "t.jar"
    tika_jar.fetch(release(tls_mirror[0]), dest)
    assert dest.read_bytes() == PAYLOAD


def test_an_unreadable_ca_bundle_is_named(
    tls_mirror: tuple[str, Path], tmp_path: Path, no_ca_settings: pytest.MonkeyPatch
) -> None:
    no_ca_settings.setenv("PYLUCENE_MCP_CA_BUNDLE", str(tmp_path / "nowhere.pem"))
    with pytest.raises(SetupError, match="PYLUCENE_MCP_CA_BUNDLE=.*nowhere.pem"):
        tika_jar.fetch(release(tls_mirror[0]), tmp_path / "t.jar")


def test_the_proxy_a_download_goes_through_is_named_without_its_password() -> None:
    url = "https://repo1.maven.org/maven2/x.jar"
    proxied = {"HTTPS_PROXY": "http://me:secret@proxy.corp:3128"}
    assert (
        tika_jar.proxy_used(url, proxied)
        == " through the proxy http://proxy.corp:3128 (HTTPS_PROXY)"
    )
    assert tika_jar.proxy_used(url, {**proxied, "NO_PROXY": "maven.org"}) == ""
    assert tika_jar.proxy_used(url, {"HTTP_PROXY": "http://p:1"}) == ""  # not for https
    assert tika_jar.proxy_used(url, {}) == ""
