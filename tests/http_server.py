"""A real ``pylucene-mcp serve --http`` process for the HTTP tests, and the plain-Python oracle of
which notes hold a word."""

from __future__ import annotations

import contextlib
import os
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client


class HttpServer:
    """``pylucene-mcp serve --http 127.0.0.1:0`` in a process of its own, its stderr read as it
    comes (the address it listens on is said there)."""

    def __init__(
        self,
        home: Path,
        folder: Path,
        origins: str = "",
        at: str = "127.0.0.1:0",
        env: dict[str, str] | None = None,
    ) -> None:
        env = {
            **os.environ,
            "PYLUCENE_MCP_HOME": str(home),
            "PYLUCENE_MCP_DIRECTORIES": str(folder),
            "PYLUCENE_MCP_CRAWL_ON_START": "false",
            "PYLUCENE_MCP_HTTP_ORIGINS": origins,
            **(env or {}),
        }
        command = [sys.executable, "-m", "pylucene_mcp", "serve", "--http", at]
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.said: list[str] = []
        self.listening = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.listening.wait(120), "".join(self.said)
        found = re.search(r"http://\S+/mcp", "".join(self.said))
        assert found is not None
        self.url = found.group(0)
        self.home = home
        owner = home / "http-token"  # without authentication set, the owner's token is needed
        self.owner_token = owner.read_text(encoding="ascii") if owner.exists() else None

    @property
    def owner(self) -> dict[str, str]:
        """The owner's Authorization header (as the user who started the server has it)."""
        assert self.owner_token is not None
        return {"Authorization": f"Bearer {self.owner_token}"}

    def client(self, **options: Any) -> AbstractAsyncContextManager[Client]:
        """The SDK's client, as the owner unless ``options`` say otherwise (``headers``,
        ``auth``)."""
        if not options and self.owner_token is not None:
            options = {"headers": self.owner}
        return authorized(self.url, **options)

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in iter(self.process.stderr.readline, b""):
            self.said.append(line.decode("utf-8", "replace"))
            if "serving MCP over HTTP at" in self.said[-1]:
                self.listening.set()

    def stop(self) -> bytes:
        """Ends the server (as Ctrl-C does); returns what it wrote to stdout."""
        self.process.terminate()
        out, _ = self.process.communicate(timeout=60)
        return out


@contextlib.asynccontextmanager
async def authorized(url: str, **options: Any) -> AsyncIterator[Client]:
    """The SDK's client over its HTTP transport, on an HTTP client of ``options`` (``auth``,
    ``headers``) that the caller owns, so closes."""
    async with create_mcp_http_client(**options) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


def holding(folder: Path, word: str) -> set[str]:
    return {str(p) for p in folder.iterdir() if word in p.read_text(encoding="utf-8").split()}


#: the words of the notes, each note holding some of them (its number's bits)
WORDS = ["kingfisher", "heron", "otter"]


def write_notes(docs: Path, count: int) -> Path:
    """``count`` text notes in ``docs``, note n holding the words of n's bits (or "nothing")."""
    for n in range(count):
        chosen = [w for k, w in enumerate(WORDS) if (n >> k) & 1] or ["nothing"]
        (docs / f"note{n:02}.txt").write_text(f"note {n}: " + " ".join(chosen), encoding="utf-8")
    return docs
