"""End to end: ``pylucene-mcp serve`` as a subprocess over real stdio, and the CLI."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYLUCENE_MCP_")}
    env["PYLUCENE_MCP_HOME"] = str(home)
    return env


class StdioPeer:
    """A raw JSON-RPC peer: every line the server writes to stdout is kept and checked."""

    def __init__(self, index_path: Path, home: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "pylucene_mcp", "serve", "--index", str(index_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=ROOT,
            env=server_env(home),
        )
        self.lines: list[str] = []
        self._buffer = b""
        self._next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None, timeout: float = 60) -> Any:
        self._next_id += 1
        self.send({"jsonrpc": "2.0", "id": self._next_id, "method": method, "params": params or {}})
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            message = self._read_line(deadline - time.monotonic())
            if message.get("id") == self._next_id:
                return message
        raise TimeoutError(method)

    def _read_line(self, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        selector = selectors.DefaultSelector()
        selector.register(fd, selectors.EVENT_READ)
        while b"\n" not in self._buffer:
            if not selector.select(max(timeout, 0.01)):
                raise TimeoutError("no answer from the server")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise EOFError(self.proc.stderr.read().decode() if self.proc.stderr else "")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        text = line.decode("utf-8")
        self.lines.append(text)
        message = json.loads(text)  # every stdout line must be JSON
        assert message.get("jsonrpc") == "2.0", text
        return message  # type: ignore[no-any-return]

    def close(self) -> tuple[bytes, str]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.proc.wait(timeout=30)
        stderr = self.proc.stderr.read().decode() if self.proc.stderr else ""
        self.proc.stdout.close()
        if self.proc.stderr:
            self.proc.stderr.close()
        return self._buffer + rest, stderr


def handshake(peer: StdioPeer, version: str) -> dict[str, Any]:
    answer = peer.request(
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "test", "version": "0"},
        },
    )
    peer.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return answer  # type: ignore[no-any-return]


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2024-11-05"])
def test_serve_over_stdio_carries_only_json_rpc(
    closed_index_path: Path, tmp_path: Path, version: str
) -> None:
    peer = StdioPeer(closed_index_path, tmp_path)
    try:
        init = handshake(peer, version)
        assert init["result"]["protocolVersion"] == version
        assert "wildcard" in init["result"]["instructions"]
        tools = peer.request("tools/list")["result"]["tools"]
        assert {t["name"] for t in tools} >= {"search", "getDocumentDetails"}
        answer = peer.request(
            "tools/call", {"name": "search", "arguments": {"query": "*vertrag*"}}
        )["result"]
        assert not answer.get("isError"), answer
        assert answer["structuredContent"]["totalHits"] == 3
        error = peer.request("tools/call", {"name": "search", "arguments": {"query": "(a"}})
        assert error["result"]["isError"] is True
    finally:
        rest, stderr = peer.close()
    assert peer.proc.returncode == 0, stderr
    assert rest.strip() == b"", rest  # nothing after the last answer either
    assert len(peer.lines) == 4  # one answer per request, nothing else


def test_cli_search_prints_hits_and_json(closed_index_path: Path, tmp_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pylucene_mcp", *args, "--index", str(closed_index_path)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=server_env(tmp_path),
            check=False,
        )

    result = cli("search", "Mueller", "--filter", "language=de")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("2 hits")
    assert "[Müller]" in result.stdout
    result = cli("search", "*vertrag", "--json", "--filter", "modified_date=2023-01-01..")
    assert json.loads(result.stdout)["totalHits"] == 2
    result = cli("search", "title:")
    assert result.returncode == 2 and "Try: title" in result.stderr
    result = cli("stats")
    assert json.loads(result.stdout)["documentCount"] == 11
