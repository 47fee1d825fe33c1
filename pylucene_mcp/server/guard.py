"""What keeps an HTTP server standing under many, slow or greedy clients (docs/http.md).

- **Connections are bounded**, in all and from one address: one more is closed as soon as it is
  accepted. The total is lowered to leave the index at least :data:`RESERVED_DESCRIPTORS` file
  descriptors (the process's soft limit is raised to its hard limit first, where the system
  has one): a flood of connections must not take the descriptors the index needs to commit.
- **A request must arrive whole in time**: its headers and body within
  ``http_request_timeout_s`` of the connection's start (or of the previous answer on a
  kept-alive connection); a sender that trickles is cut off. An idle kept-alive connection is
  closed by uvicorn after a few seconds.
- **Sessions are bounded**, in all and per caller (a token's client, issuer and subject), and
  one idle for ``http_session_idle_s`` is closed (the SDK's session manager does both counts'
  bookkeeping; :func:`limit_sessions` adds the caller's).
- **Every loopback address of ``localhost``** is bound when the server is on loopback
  (:func:`loopback_sockets`): a client that resolves ``localhost`` to ``::1`` must reach this
  server, not another user's listener squatting ``[::1]`` on the same port.
"""

from __future__ import annotations

import asyncio
import collections
import errno
import logging
import socket
import time
from dataclasses import dataclass
from typing import Any

from pylucene_mcp.basics import errors

log = logging.getLogger(__name__)

#: the file descriptors always left to the index, Tika and the logs, whatever the connections
RESERVED_DESCRIPTORS = 512
#: the least number of connections taken, whatever the descriptor limit
MIN_CONNECTIONS = 16


@dataclass(frozen=True)
class Limits:
    """How many connections at once, in all and from one address, and how long a request may
    take to arrive."""

    connections: int
    per_peer: int
    request_timeout_s: float


def descriptor_budget(wanted: int, reserve: int = RESERVED_DESCRIPTORS) -> int:
    """The connections to allow at most: ``wanted``, lowered to leave ``reserve`` descriptors
    under the soft limit (raised to the hard limit first). Unlimited where the system has no
    such limit (Windows)."""
    try:
        import resource
    except ImportError:
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            soft = hard
        except (ValueError, OSError):
            pass
    if soft == resource.RLIM_INFINITY:
        return wanted
    return max(MIN_CONNECTIONS, min(wanted, soft - reserve))


def guarded_protocol(limits: Limits) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol with ``limits`` on connections and on how long a request may
    take to arrive (a class of its own for each server: the counts are the server's)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    open_from: collections.Counter[str] = collections.Counter()

    class Guarded(H11Protocol):
        _peer: str | None = None
        _deadline: asyncio.TimerHandle | None = None
        _armed_for: Any = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            peer = str((transport.get_extra_info("peername") or ("?",))[0])
            if open_from.total() >= limits.connections or open_from[peer] >= limits.per_peer:
                quiet_log.warning(
                    "a connection from %s was closed: %d open (at most %d, %d from one address)",
                    peer,
                    open_from.total(),
                    limits.connections,
                    limits.per_peer,
                )
                transport.abort()
                return
            self._peer = peer
            open_from[peer] += 1
            super().connection_made(transport)
            self._arm()

        def connection_lost(self, exc: Exception | None) -> None:
            if self._peer is None:
                return  # closed in connection_made: never set up
            open_from[self._peer] -= 1
            if open_from[self._peer] <= 0:
                del open_from[self._peer]
            self._peer = None
            self._disarm()
            super().connection_lost(exc)

        def handle_events(self) -> None:
            super().handle_events()
            cycle = self.cycle
            if cycle is not None and cycle is not self._armed_for and not cycle.more_body:
                self._disarm()  # this request arrived whole

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing():
                self._arm()  # the next request on this connection has its own time

        def _arm(self) -> None:
            self._disarm()
            self._armed_for = self.cycle
            self._deadline = self.loop.call_later(limits.request_timeout_s, self._too_slow)

        def _disarm(self) -> None:
            if self._deadline is not None:
                self._deadline.cancel()
                self._deadline = None

        def _too_slow(self) -> None:
            self._deadline = None
            if not self.transport.is_closing():
                quiet_log.warning(
                    "a connection from %s was closed: no whole request within %g s",
                    self._peer,
                    limits.request_timeout_s,
                )
                self.transport.close()

    return Guarded


class _Quiet(logging.LoggerAdapter[logging.Logger]):
    """A logger whose repeated messages (by their format) are written at most a few times a
    minute: a flood of connections must not fill the log."""

    def __init__(self, logger: logging.Logger, per_minute: int = 5) -> None:
        super().__init__(logger, {})
        self.per_minute = per_minute
        self._window: dict[str, tuple[float, int]] = {}

    def log(self, level: int, msg: object, *args: Any, **kwargs: Any) -> None:
        now = time.monotonic()
        key = str(msg)
        started, count = self._window.get(key, (now, 0))
        if now - started >= 60:
            if count > self.per_minute:
                self.logger.log(
                    level, "%d more like this in the last minute: %s", count - self.per_minute, key
                )
            started, count = now, 0
        self._window[key] = (started, count + 1)
        if count < self.per_minute:
            self.logger.log(level, msg, *args, **kwargs)


quiet_log = _Quiet(log)


def loopback_sockets(host: str, port: int) -> list[socket.socket] | None:
    """Listening sockets on every loopback address ``localhost`` may name (127.0.0.1, and
    ``::1`` where the system has IPv6), at one port (a free one for port 0); None for a host
    that is not loopback (uvicorn binds it).

    Raises:
        ConfigError: when another process listens on one of them at ``port``: a client that
            resolves ``localhost`` to it would give that process its requests and token.
    """
    if host not in ("127.0.0.1", "localhost", "::1"):
        return None
    for _ in range(20):  # port 0: a port free on both addresses
        first = _listen(socket.AF_INET, "127.0.0.1", port)
        chosen = first.getsockname()[1]
        try:
            second = _listen(socket.AF_INET6, "::1", chosen)
        except OSError as exc:
            if exc.errno in (errno.EADDRNOTAVAIL, errno.EAFNOSUPPORT, errno.EPROTONOSUPPORT):
                return [first]  # no IPv6 loopback: localhost cannot name ::1
            first.close()
            if port == 0:
                continue
            raise errors.ConfigError(
                f"another process listens on [::1]:{port}: a client that resolves localhost to "
                "::1 would send it its requests and token; stop it, or serve on another port"
            ) from exc
        return [first, second]
    raise errors.ConfigError("no port is free on both 127.0.0.1 and [::1]; name one")


def _listen(family: socket.AddressFamily, address: str, port: int) -> socket.socket:
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:
        if family == socket.AF_INET6:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        if hasattr(socket, "SO_EXCLUSIVEADDRUSE"):  # Windows: no one may bind it beside us
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_EXCLUSIVEADDRUSE, 1)
        else:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((address, port))
        sock.listen(2048)
        sock.setblocking(False)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE and family == socket.AF_INET:
            raise errors.ConfigError(
                f"127.0.0.1:{port} is in use by another process; serve on another port"
            ) from exc
        raise
    return sock


def limit_sessions(manager: Any, per_caller: int) -> None:
    """Makes the SDK's session manager refuse a new session (503, as at its overall limit) to
    a caller that has ``per_caller`` open already (a caller: the token's client, issuer and
    subject, as the SDK binds a session to them)."""
    admit = manager._admit_session

    def admitted(requestor: Any) -> Any:
        if requestor is not None:
            mine = sum(1 for owner in manager._session_owners.values() if owner == requestor)
            if mine >= per_caller:
                quiet_log.warning(
                    "a new session was refused: its caller has %d open (at most %d)",
                    mine,
                    per_caller,
                )
                return None
        return admit(requestor)

    manager._admit_session = admitted
