"""Credentials written into a Solr node's URL (``https://user:password@host/solr``) appear
nowhere: not in doctor's report, a tool's error (which reaches the model), the log or stderr;
and ``solr_verify`` (off, or a CA bundle) wins over ``REQUESTS_CA_BUNDLE``/``CURL_CA_BUNDLE``."""

from __future__ import annotations

import http.server
import json
import logging
import socket
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from urllib3.exceptions import InsecureRequestWarning

from pylucene_mcp.basics.errors import RemoteIndexError
from pylucene_mcp.basics.redact import RedactingFilter, redact, split_credentials
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from tests.local_http import serving
from tests.stdio_peer import ROOT, StdioPeer, handshake, server_env

SECRET = "s3cret-Pa55"


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_a_url_s_credentials_move_to_the_settings_and_out_of_every_text() -> None:
    url = f"https://anna:{SECRET}@solr.example:8983/solr"
    settings = SolrSettings(urls=(url, "https://other.example/solr"))
    assert settings.urls == ("https://solr.example:8983/solr", "https://other.example/solr")
    assert (settings.username, settings.password) == ("anna", SECRET)
    assert split_credentials("http://a%40b:p%3Aw@h/solr") == ("http://h/solr", "a@b", "p:w")
    assert redact(f"failed: {url} and ftp://x:y@z/") == (
        "failed: https://***@solr.example:8983/solr and ftp://***@z/"
    )
    assert SECRET not in str(RemoteIndexError(f"cannot reach {url}"))


def test_the_client_s_errors_and_logs_never_show_the_password(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.handler.addFilter(RedactingFilter())
    url = f"http://anna:{SECRET}@127.0.0.1:{_closed_port()}/solr"
    client = SolrClient(SolrSettings(urls=(url,), timeout_s=2))
    try:
        with caplog.at_level(logging.DEBUG), pytest.raises(RemoteIndexError) as refused:
            client.get("admin/collections", {"action": "CLUSTERSTATUS"})
        logging.getLogger("test").warning("the node %s is down", url)  # one that names it
    finally:
        client.close()
    assert SECRET not in str(refused.value) and "127.0.0.1" in str(refused.value)
    assert SECRET not in caplog.text and "***@127.0.0.1" in caplog.text


@pytest.mark.slow
def test_doctor_the_cli_and_a_tool_error_never_show_the_password(tmp_path: Path) -> None:
    home = tmp_path / "home"
    url = f"http://anna:{SECRET}@127.0.0.1:{_closed_port()}/solr"
    env = {
        **server_env(home),
        "PYLUCENE_MCP_BACKEND": "solr",
        "PYLUCENE_MCP_SOLR_URLS": url,
        "PYLUCENE_MCP_SOLR_TIMEOUT_S": "2",
    }
    said = []
    for command in (["doctor", "--json"], ["doctor"], ["search", "lease"], ["stats"]):
        done = subprocess.run(
            [sys.executable, "-m", "pylucene_mcp", *command],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
        said.append(done.stdout + done.stderr)
    assert "127.0.0.1" in said[0]  # doctor did report on the cluster
    peer = StdioPeer(
        tmp_path / "index", home, {k: v for k, v in env.items() if "SOLR" in k or "BACKEND" in k}
    )
    try:
        handshake(peer, "2025-06-18")
        answer = peer.request("tools/call", {"name": "search", "arguments": {"query": "lease"}})
        said.append(json.dumps(answer))
        assert answer["result"]["isError"] is True
    finally:
        rest, stderr = peer.close()
    said += [rest.decode(), stderr]
    logs = home / "logs" / "pylucene-mcp.log"
    said.append(logs.read_text() if logs.exists() else "")
    leaked = [text[:200] for text in said if SECRET in text]
    assert leaked == [], leaked


@pytest.fixture
def https_node(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A local HTTPS server with a self-signed certificate that answers every GET as a Solr
    node would (its URL, and the certificate as the CA bundle that signed it)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", str(key),
         "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True,
        capture_output=True,
    )  # fmt: skip

    class Answer(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b'{"responseHeader":{"status":0},"ok":true}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Answer)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    with serving(server) as port:
        yield f"https://127.0.0.1:{port}/solr", cert


@pytest.mark.parametrize("variable", ["REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE"])
def test_solr_verify_wins_over_the_ca_bundle_variables(
    https_node: tuple[str, Path], monkeypatch: pytest.MonkeyPatch, variable: str
) -> None:
    url, cert = https_node
    monkeypatch.setenv(variable, str(cert.parent / "no-such-bundle.pem"))
    off = SolrClient(SolrSettings(urls=(url,), verify=False, timeout_s=5))
    try:
        with pytest.warns(InsecureRequestWarning):  # no check made, as solr_verify: false says
            assert off.get("admin/info/system")["ok"] is True
    finally:
        off.close()
    bundle = SolrClient(SolrSettings(urls=(url,), verify=str(cert), timeout_s=5))
    try:  # the bundle that signed the node's certificate
        assert bundle.get("admin/info/system")["ok"] is True
    finally:
        bundle.close()
