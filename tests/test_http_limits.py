"""An HTTP server under many, slow or greedy clients (server/guard.py, docs/http.md): connections
beyond the bounds closed at once, a request that trickles cut off, the index searched again when
they are gone, the log kept short; sessions bounded per caller; and every loopback address of
``localhost`` bound, so that no other local user can squat ``[::1]`` on the server's port."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from pylucene_mcp.basics.errors import ConfigError
from pylucene_mcp.server.guard import loopback_sockets
from tests.http_server import HttpServer, write_notes
from tests.waiting import until

pytestmark = pytest.mark.slow

PER_PEER = 6
HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
INITIALIZE = json.dumps(
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "1"},
        },
    }
)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[HttpServer]:
    docs = write_notes(tmp_path_factory.mktemp("docs"), 4)
    running = HttpServer(
        tmp_path_factory.mktemp("home"),
        docs,
        env={
            "PYLUCENE_MCP_HTTP_MAX_CONNECTIONS_PER_PEER": str(PER_PEER),
            "PYLUCENE_MCP_HTTP_REQUEST_TIMEOUT_S": "1",
            "PYLUCENE_MCP_HTTP_MAX_SESSIONS_PER_CALLER": "3",
        },
    )
    yield running
    assert running.stop() == b""


def _port(server: HttpServer) -> int:
    return int(server.url.rsplit(":", 1)[1].split("/", 1)[0])


def _closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1) == b""
    except (BlockingIOError, TimeoutError):
        return False
    except ConnectionError:
        return True


def test_slow_and_surplus_connections_are_closed_and_the_index_answers_after(
    server: HttpServer,
) -> None:
    port = _port(server)
    slow = []
    for _ in range(PER_PEER):  # headers that never end
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
        slow.append(sock)
    surplus = []
    for _ in range(30):  # each closed as soon as it is accepted
        sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        sock.sendall(b"GET / HTTP/1.1\r\n")
        surplus.append(sock)
    for sock in surplus:
        sock.settimeout(10)
        assert _closed_by_server(sock)
    for sock in slow:  # cut off after the request timeout
        sock.settimeout(10)
        assert _closed_by_server(sock)
    for sock in slow + surplus:
        sock.close()
    # the server and its index answer as before
    with requests.Session() as http:
        headers = {**HEADERS, **server.owner}
        answered = http.post(server.url, data=INITIALIZE, headers=headers)
        assert answered.status_code == 200, answered.text
        session = {"mcp-session-id": answered.headers["mcp-session-id"]}
        assert http.delete(server.url, headers={**headers, **session}).status_code in (200, 204)
    # and the log says it a few times, not once for each of the 30
    said = "".join(server.said)
    assert said.count("was closed: ") <= 10, said[-2000:]
    assert "was closed: " in said


def test_a_caller_opens_a_bounded_number_of_sessions(server: HttpServer) -> None:
    headers = {**HEADERS, **server.owner}
    opened = []
    for _ in range(3):
        answer = requests.post(server.url, data=INITIALIZE, headers=headers, timeout=60)
        assert answer.status_code == 200, answer.text
        opened.append(answer.headers["mcp-session-id"])
    refused = requests.post(server.url, data=INITIALIZE, headers=headers, timeout=60)
    assert refused.status_code == 503
    # a session ended makes room for another
    for session in opened:
        ended = requests.delete(
            server.url, headers={**headers, "mcp-session-id": session}, timeout=60
        )
        assert ended.status_code in (200, 204), ended.text
    until(
        lambda: (
            requests.post(server.url, data=INITIALIZE, headers=headers, timeout=60).status_code
            == 200
        ),
        what="a new session after the others ended",
    )


def _ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as probe:
            probe.bind(("::1", 0))
    except OSError:
        return False
    return True


@pytest.mark.skipif(not _ipv6_loopback(), reason="no IPv6 loopback here")
def test_every_loopback_address_is_bound_and_a_squatter_on_ipv6_is_refused(
    tmp_path: Path,
) -> None:
    sockets = loopback_sockets("127.0.0.1", 0)
    assert sockets is not None and len(sockets) == 2
    ports = {s.getsockname()[1] for s in sockets}
    assert len(ports) == 1
    (port,) = ports
    with pytest.raises(OSError):  # no one else gets [::1] at our port
        squat = socket.socket(socket.AF_INET6)
        try:
            squat.bind(("::1", port))
        finally:
            squat.close()
    for s in sockets:
        s.close()
    # a listener there first: the server says so and does not start
    squatter = socket.socket(socket.AF_INET6)
    squatter.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    squatter.bind(("::1", 0))
    squatter.listen()
    taken = squatter.getsockname()[1]
    try:
        with pytest.raises(ConfigError, match=r"\[::1\]"):
            loopback_sockets("127.0.0.1", taken)
        done = subprocess.run(
            [sys.executable, "-m", "pylucene_mcp", "serve", "--http", f"127.0.0.1:{taken}"],
            capture_output=True,
            text=True,
            env={**os.environ, "PYLUCENE_MCP_HOME": str(tmp_path)},
            timeout=60,
        )
        assert done.returncode == 2 and done.stdout == ""
        assert f"[::1]:{taken}" in done.stderr
    finally:
        squatter.close()
