"""MCP over Streamable HTTP (``serve --http``): a real server process, the SDK's own HTTP client,
the tools as over stdio, and the requests a browser elsewhere or an oversized body would send
refused, with nothing written to stdout."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests

from pylucene_mcp.basics.errors import ConfigError
from pylucene_mcp.server.http import MAX_BODY_BYTES, address
from tests.http_server import WORDS, HttpServer, holding, write_notes
from tests.mcp_client import call

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Text files, each with some of the words: the oracle counts them in Python."""
    docs = tmp_path_factory.mktemp("docs")
    return write_notes(docs, 12)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, folder: Path) -> Iterator[HttpServer]:
    running = HttpServer(tmp_path_factory.mktemp("home"), folder, origins="https://app.example")
    yield running
    out = running.stop()
    assert out == b"", out[:200]  # stdout belongs to no one over HTTP either


async def test_the_tools_answer_over_http_with_progress_and_in_two_sessions(
    server: HttpServer, folder: Path
) -> None:
    progress: list[float] = []

    async def on_progress(done: float, total: float | None, message: str | None) -> None:
        progress.append(done)

    async with server.client() as first, server.client() as second:
        tools = (await first.list_tools()).tools
        assert {"search", "startCrawl", "getDocumentDetails", "indexAdmin"} <= {
            t.name for t in tools
        }
        # the MCP Apps come as over stdio: each app a tool points to is read over HTTP
        pointed = {str(t.meta["ui"]["resourceUri"]) for t in tools if t.meta and "ui" in t.meta}
        assert "ui://pylucene-mcp/search-results.html" in pointed
        for uri in pointed:
            (content,) = (await second.read_resource(uri)).contents
            assert content.text.startswith("<!DOCTYPE html>")  # type: ignore[union-attr]
        crawled = await first.call_tool("startCrawl", {"wait": True}, progress_callback=on_progress)
        assert not crawled.is_error, crawled.content
        assert progress, "a crawl that reports progress over stdio reports it over HTTP too"
        for word in WORDS:
            expected = holding(folder, word)
            for client in (first, second):  # each session sees the same index
                found = await call(client, "search", query=word, pageSize=50)
                assert {hit["filePath"] for hit in found["documents"]} == expected
                assert "searchTimeMs" in found  # the owner is told everything


def test_a_foreign_origin_or_host_and_an_oversized_body_are_refused(server: HttpServer) -> None:
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    headers = {
        "Content-Type": "application/json",
        "Accept": "application/json, text/event-stream",
        **server.owner,
    }

    def post(body: str = ping, **extra: str) -> int:
        return requests.post(
            server.url, data=body, headers={**headers, **extra}, timeout=30
        ).status_code

    assert post(Origin="http://evil.example") == 403  # a page elsewhere, through a browser
    assert post(Host="evil.example") == 421  # a name rebound to this machine
    assert post(Origin="https://app.example") not in (403, 421)  # the configured origin passes
    padded = json.dumps(
        {"jsonrpc": "2.0", "id": 2, "method": "ping", "params": {"pad": "x" * MAX_BODY_BYTES}}
    )
    assert post(padded) == 413


def test_on_loopback_without_authentication_only_the_owners_token_is_taken(
    server: HttpServer, tmp_path: Path
) -> None:
    # a loopback port is open to every local account: the token of the user who started the
    # server, in a file no one else may read, is what tells the user's own clients apart
    ping = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "ping"})
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    for extra in ({}, {"Authorization": "Bearer plo_" + "x" * 43}, {"Authorization": "Basic x"}):
        refused = requests.post(server.url, data=ping, headers={**headers, **extra}, timeout=30)
        assert refused.status_code == 401, extra
    assert server.owner_token is not None
    made = Path(server.home / "http-token").stat()
    assert made.st_uid == os.getuid() and made.st_mode & 0o777 == 0o600


@pytest.mark.parametrize(
    ("text", "expected"),
    [("8080", ("127.0.0.1", 8080)), ("0.0.0.0:80", ("0.0.0.0", 80)), ("[::1]:0", ("::1", 0))],
)
def test_an_address_is_host_and_port_with_loopback_by_default(
    text: str, expected: tuple[str, int]
) -> None:
    assert address(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "70000", "::1:80", "[::1]", "host:port"])
def test_a_wrong_address_says_what_one_looks_like(text: str) -> None:
    with pytest.raises(ConfigError, match=r"\[HOST:\]PORT, such as 8080"):
        address(text)


def test_serve_refuses_a_wrong_address_before_it_starts(tmp_path: Path) -> None:
    env: dict[str, Any] = {**os.environ, "PYLUCENE_MCP_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", "serve", "--http", "somewhere"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "http is [HOST:]PORT" in done.stderr
    assert not (tmp_path / "index").exists()
