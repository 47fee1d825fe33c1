"""A raw JSON-RPC peer of ``pylucene-mcp serve`` over real stdio (tests and benchmarks)."""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]


def server_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYLUCENE_MCP_")}
    env["PYLUCENE_MCP_HOME"] = str(home)
    return env


def cli(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``pylucene-mcp ARGS`` run to its end with ``home`` as its home (and ``env``)."""
    return subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", *args],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env={**server_env(home), **env},
        check=False,
    )


class StdioPeer:
    """A raw JSON-RPC peer: every line the server writes to stdout is kept and checked."""

    def __init__(
        self,
        index_path: Path,
        home: Path,
        extra_env: dict[str, str] | None = None,
        *,
        program: list[str] | None = None,
        cwd: Path = ROOT,
    ) -> None:
        """Spawns ``program`` (default: this Python's ``-m pylucene_mcp``) ``serve``."""
        program = program or [sys.executable, "-m", "pylucene_mcp"]
        self.proc = subprocess.Popen(
            [*program, "serve", "--index", str(index_path)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={**server_env(home), **(extra_env or {})},
        )
        self.lines: list[str] = []
        self._buffer = b""
        self._next_id = 0

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(message) + "\n").encode())
        self.proc.stdin.flush()

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def receive(self, timeout: float = 60) -> dict[str, Any]:
        """The next message the server writes."""
        return self._read_line(timeout)

    def request(
        self, method: str, params: dict[str, Any] | None = None, timeout: float = 60
    ) -> Any:
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
