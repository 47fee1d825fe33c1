"""A real ``pylucene-mcp serve --http`` process for the HTTP tests, and the plain-Python oracle of
which notes hold a word."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
from pathlib import Path


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
