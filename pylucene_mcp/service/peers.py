"""The local channel between servers of one index: the writer answers, the readers ask.

Each process that writes an index and serves tools listens on a channel of this machine alone:
a Unix socket in the private home folder (``<home>/run/<digest of the index>.sock``, 0700
folder), or a named pipe on Windows. Its address and a random key, new each time it starts, are
in the index's owner record (``pylucene-mcp.owner``, 0600, see
:mod:`pylucene_mcp.engine.lucene.index_lock`), which only this user can read; a peer proves that it
knows the key before anything it sends is read (``multiprocessing.connection``'s challenge), and
what it sends is JSON, never pickles. A request is a tool's name and arguments; the answer is
the tool's result as the MCP client would get it (:func:`call`).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import os
import secrets
import tempfile
import threading
from collections.abc import Callable
from multiprocessing import AuthenticationError
from multiprocessing.connection import Client, Connection, Listener
from pathlib import Path
from typing import Any

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import home_dir
from pylucene_mcp.basics.private import private_dir

log = logging.getLogger(__name__)

#: a Unix socket's path must fit ``sun_path`` (108 bytes on Linux, 104 on macOS)
MAX_SOCKET_PATH = 100

Handler = Callable[[str, dict[str, Any]], dict[str, Any]]


def address(identity: str, *, system: str = os.name, home: Path | None = None) -> str:
    """Where the writer of the index ``identity`` listens: a named pipe on Windows (``system``
    ``"nt"``), else a Unix socket in ``<home>/run``; for a home folder too deep for a socket's
    path, a socket in this user's folder of the temporary folder."""
    digest = hashlib.sha256(identity.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    if system == "nt":
        return rf"\\.\pipe\pylucene-mcp-{digest}-{secrets.token_hex(8)}"
    folder = (home or home_dir()) / "run"
    path = folder / f"{digest}.sock"
    if len(os.fsencode(path)) > MAX_SOCKET_PATH:
        uid = os.getuid() if hasattr(os, "getuid") else 0
        path = Path(tempfile.gettempdir()) / f"pylucene-mcp-{uid}" / f"{digest}.sock"
    return str(path)


def _family(where: str) -> str:
    return "AF_PIPE" if where.startswith("\\\\.\\pipe\\") else "AF_UNIX"


class Answering:
    """The writer's side: answers each peer's requests with ``handler`` on a thread of its own,
    until :meth:`close`."""

    def __init__(self, where: str, handler: Handler) -> None:
        self.address = where
        self.key = secrets.token_bytes(32)
        self._handler = handler
        self._closed = False
        if _family(where) == "AF_UNIX":
            socket_file = Path(where)
            private_dir(socket_file.parent)
            # a socket left by a writer of this index that died: the index's lock, which this
            # process holds, says that no live process listens there
            socket_file.unlink(missing_ok=True)
        self._listener = Listener(where, family=_family(where), authkey=self.key, backlog=16)
        self._thread = threading.Thread(target=self._accept, name="pylucene-mcp-peers", daemon=True)
        self._thread.start()

    def _accept(self) -> None:
        # it ends with the connection that close() makes, never before: close() would wait
        # for an answer that no one gives
        while True:
            try:
                connection = self._listener.accept()
            except (OSError, EOFError, AuthenticationError) as exc:  # no key, or hung up
                if self._closed:
                    return
                log.info("a peer was refused: %s", exc)
                continue
            if self._closed:
                connection.close()
                return
            threading.Thread(
                target=self._serve, args=(connection,), name="pylucene-mcp-peer", daemon=True
            ).start()

    def _serve(self, connection: Connection) -> None:
        with connection:
            while True:
                try:
                    request = json.loads(connection.recv_bytes())
                except (EOFError, OSError):
                    return
                except ValueError:
                    log.warning("a peer sent something that is not JSON; closing the channel")
                    return
                try:
                    reply = self._handler(str(request["tool"]), dict(request["arguments"]))
                except Exception as exc:  # the peer hears of it as a tool error
                    log.exception("a forwarded call failed")
                    reply = {"error": f"the server that writes the index failed: {exc}"}
                try:
                    connection.send_bytes(json.dumps(reply).encode())
                except OSError:
                    return

    def close(self) -> None:
        """Stops answering (and removes the socket)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):  # wakes accept(): it answers no one after this
            Client(self.address, family=_family(self.address), authkey=self.key).close()
        self._listener.close()
        self._thread.join(5)


class PeerGone(errors.PyLuceneMcpError):
    """The writer's channel cannot be reached (it stopped, or is stopping)."""


def call(where: str, key: bytes, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The answer of the writer at ``where`` to the call ``tool(arguments)``: the
    ``CallToolResult`` as JSON, or ``{"error": text}``.

    Raises:
        PeerGone: when no process answers there, or it stopped before it answered.
    """
    try:
        connection = Client(where, family=_family(where), authkey=key)
    except (OSError, EOFError) as exc:
        raise PeerGone(f"no answer at {where}: {exc}") from exc
    except AuthenticationError as exc:  # the record of a writer that has since gone
        raise PeerGone(f"the peer at {where} refused the key: {exc}") from exc
    with connection:
        try:
            connection.send_bytes(json.dumps({"tool": tool, "arguments": arguments}).encode())
            answer: dict[str, Any] = json.loads(connection.recv_bytes())
        except (OSError, EOFError) as exc:
            raise PeerGone(f"the peer at {where} stopped before it answered") from exc
    return answer
