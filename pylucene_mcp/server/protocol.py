"""Every request gets exactly one answer.

Two guards around the MCP SDK's server:

- :func:`serve_stdio`, the stdio transport with a gate in front of the SDK's reader. The SDK drops,
  without an answer, a line that is not JSON, a message it cannot validate, and text with a lone
  UTF-16 surrogate (what a JavaScript client sends for a cut emoji); and when stdin closes it
  cancels the requests it has read but not yet answered. The gate reads each line first: what
  the SDK would drop is answered here (``-32700`` for a line that is not JSON or not UTF-8,
  ``-32600`` for a message that is not JSON-RPC, a tool error or ``-32602`` for lone
  surrogates), and at the end of stdin it holds the stream open until every request it passed on
  has been answered (at most ``drain_s``).
- :class:`UnicodeGuard`, a middleware for any transport: a request with a lone surrogate is
  refused naming where it is. (Arguments a tool does not take, and values its schema refuses,
  are worded here, :func:`unknown_arguments` and :func:`invalid_arguments`, for the server's
  one validation: see :class:`pylucene_mcp.server.app.SearchServer`.)

(A tool's answer goes out as compact JSON, once: see :mod:`pylucene_mcp.server.tools.output`.)
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import signal
import threading
import time
from collections.abc import Iterable, Iterator
from typing import Any, BinaryIO

import anyio
import anyio.to_thread
import mcp_types as types
from mcp.server.context import CallNext, HandlerResult, ServerMiddleware, ServerRequestContext
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from pydantic import ValidationError

log = logging.getLogger(__name__)

_SURROGATE = re.compile("[\ud800-\udfff]")
_ANSWER_ID = re.compile(r'^\{"jsonrpc":"2\.0","id":(-?\d+|"(?:[^"\\]|\\.)*")')
#: the id the gate gives a request whose id the SDK cannot take (a fraction, 1e400, null)
_ALIAS = "pylucene-mcp-id:"
#: how deep a message may nest; MCP's own messages nest a handful of levels
MAX_DEPTH = 64
#: the longest line the gate reads (docs/tools.md): a longer one is refused as soon as this much
#: has come, and the rest of it is read past in pieces, never held
MAX_LINE_BYTES = 4 * 1024 * 1024
_SKIP_PIECE = 1 << 20


def depth_over(value: Any, limit: int) -> bool:
    """Whether ``value`` (a JSON value) nests deeper than ``limit`` (without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > limit:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def lone_surrogate(value: Any, path: str = "") -> str | None:
    """Where in ``value`` (a JSON value) a string holds a lone surrogate, e.g.
    ``arguments.query``; None when nowhere."""
    if isinstance(value, str):
        return path or "the value" if _SURROGATE.search(value) else None
    items: Iterable[tuple[str, Any]]
    if isinstance(value, dict):
        items = ((f"{path}.{k}" if path else str(k), v) for k, v in value.items())
        for key in value:
            if isinstance(key, str) and _SURROGATE.search(key):
                return f"{path}.<a key>" if path else "a key"
    elif isinstance(value, list):
        items = ((f"{path}[{i}]", v) for i, v in enumerate(value))
    else:
        return None
    for where, item in items:
        found = lone_surrogate(item, where)
        if found:
            return found
    return None


def surrogate_message(where: str) -> str:
    return (
        f"{where} holds a lone UTF-16 surrogate (half of an emoji or other character outside "
        "the Basic Multilingual Plane, cut in two); send valid Unicode text: drop or complete "
        "that character"
    )


class UnicodeGuard(ServerMiddleware[Any]):
    """Refuses, before any handler runs, a request whose parameters hold a lone UTF-16
    surrogate: a tool error for a tool call (it names the argument), ``-32602`` otherwise."""

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        where = lone_surrogate(ctx.params or {})
        if ctx.request_id is not None and where is not None:
            if ctx.method != "tools/call":
                raise MCPError(types.INVALID_PARAMS, surrogate_message(where))
            return tool_error(surrogate_message(where.removeprefix("arguments.")))
        return await call_next(ctx)


def unknown_arguments(name: str, arguments: Iterable[str], allowed: Iterable[str]) -> str | None:
    """The tool error for the ``arguments`` that the tool ``name`` does not take (None when it
    takes them all): they would otherwise be ignored."""
    known = set(allowed)
    unknown = sorted(set(arguments) - known)
    if not unknown:
        return None
    return (
        f"{name} takes no argument {', '.join(repr(u) for u in unknown)}; "
        f"its arguments are: {', '.join(sorted(known)) or 'none'}"
    )


def invalid_arguments(name: str, exc: ValidationError) -> str:
    """The SDK's refusal of a tool's arguments in one wording for the model: per argument,
    what it must be and the value given; no library text or links."""
    return f"{name}: " + "; ".join(_wording(e) for e in exc.errors(include_url=False))


def _wording(error: Any) -> str:
    where = ".".join(str(part) for part in error["loc"]) or "the arguments"
    if error["type"] == "missing":
        return f"argument '{where}' is required"
    given = json.dumps(error.get("input"), ensure_ascii=False, default=str)
    if len(given) > 60:
        given = given[:57] + "…"
    message = str(error["msg"]).replace("Input should be", "must be")
    return f"argument '{where}' {message[0].lower()}{message[1:]} (given: {given})"


def tool_error(text: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], is_error=True)


_SHALLOW_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*[,}]')


def _shallow_id(text: str) -> Any:
    """The id of a message too deep to parse, when it stands before anything nests (as
    ``{"jsonrpc":"2.0","id":7,"method":…,"params":…}`` has it): a string or an integer."""
    nesting = min((i for i in (text.find("{", 1), text.find("[")) if i >= 0), default=len(text))
    found = _SHALLOW_ID.search(text, 0, nesting)
    return json.loads(found.group(1)) if found else None


def _float_id_as_written(text: str, *where: str) -> str:
    """The JSON text of the id of the message ``text`` (or of the value at the keys ``where``,
    such as a cancellation's ``params``, ``requestId``), a number that is no integer (``1.5``,
    ``1.0``, ``1e400``), as the client wrote it."""
    value = json.loads(text, parse_float=str)
    for key in where or ("id",):
        value = value[key]
    return str(value)


def _plain_id(message: Any) -> Any:
    """The message's id when it is one the SDK takes (a string or an integer), else None."""
    request_id = message.get("id") if isinstance(message, dict) else None
    plain = isinstance(request_id, str | int) and not isinstance(request_id, bool)
    return request_id if plain else None


def _error(request_id: Any, code: int, message: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


class _Wire:
    """The protocol's stdout, and the requests passed to the SDK that await an answer."""

    def __init__(self, out: BinaryIO) -> None:
        self._out = out
        self._lock = threading.Lock()
        self.pending: set[Any] = set()
        #: alias → the id as the client wrote it (JSON text), for ids the SDK cannot take
        self.aliases: dict[str, str] = {}
        #: the id as written → its newest alias (a cancellation names the client's id)
        self.latest: dict[str, str] = {}
        self._next_alias = 0

    def alias(self, written: str) -> str:
        """A string id for the SDK that stands for ``written`` (the client's id, JSON text).

        Every string id a client sends that starts as an alias does is itself given an alias
        (see :meth:`_GuardedStdin._admit`), so the SDK never sees a client's id that could be
        one of these, and each answer goes back under the id of the request it answers."""
        with self._lock:
            self._next_alias += 1
            alias = f"{_ALIAS}{self._next_alias}"
            self.aliases[alias] = written
            self.latest[written] = alias
        return alias

    def send(self, message: dict[str, Any]) -> None:
        self.write(json.dumps(message, ensure_ascii=False, separators=(",", ":")) + "\n")

    def write(self, text: str) -> None:
        match = _ANSWER_ID.match(text)
        if match:
            answered = json.loads(match.group(1))
            self.pending.discard(answered)
            written = self.aliases.pop(answered, None) if isinstance(answered, str) else None
            if written is not None:  # the client's own id back in place of the alias
                with self._lock:
                    if self.latest.get(written) == answered:
                        del self.latest[written]
                text = text[: match.start(1)] + written + text[match.end(1) :]
        data = text.encode("utf-8", errors="replace")
        with self._lock:
            self._out.write(data)
            self._out.flush()


class _GuardedStdout:
    """What the SDK's writer writes to: one JSON-RPC message a call."""

    def __init__(self, wire: _Wire) -> None:
        self._wire = wire

    async def write(self, text: str) -> None:
        self._wire.write(text)

    async def flush(self) -> None:
        pass


class _GuardedStdin:
    """The lines the SDK reads: those it can handle; the others are answered here."""

    def __init__(self, source: BinaryIO, wire: _Wire, drain_s: float) -> None:
        self._source = source
        self._wire = wire
        self._drain_s = drain_s

    def __aiter__(self) -> _GuardedStdin:
        return self

    async def __anext__(self) -> str:
        while True:
            raw = await anyio.to_thread.run_sync(
                self._source.readline, MAX_LINE_BYTES + 1, abandon_on_cancel=True
            )
            if not raw:
                await self._drain()
                raise StopAsyncIteration
            if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
                self._refuse_long(raw)
                await anyio.to_thread.run_sync(self._skip_line, abandon_on_cancel=True)
                continue
            line = self._admit(raw)
            if line is not None:
                return line

    def _refuse_long(self, start: bytes) -> None:
        """Answers a line longer than :data:`MAX_LINE_BYTES` at once, from its start."""
        text = start[:4096].decode("utf-8", "replace")
        self._wire.send(
            _error(
                _shallow_id(text),
                types.INVALID_REQUEST,
                f"Invalid Request: the message is longer than {MAX_LINE_BYTES // (1024 * 1024)} "
                "MB, the most this server reads; send a shorter one (a search needs a few KB)",
            )
        )

    def _skip_line(self) -> None:
        """Reads past the rest of the current line, a piece at a time."""
        while True:
            piece = self._source.readline(_SKIP_PIECE)
            if not piece or piece.endswith(b"\n"):
                return

    async def _drain(self) -> None:
        deadline = time.monotonic() + self._drain_s
        while self._wire.pending and time.monotonic() < deadline:
            await anyio.sleep(0.02)
        if self._wire.pending:
            log.warning(
                "stdin closed; no answer within %.0f s to %s", self._drain_s, self._wire.pending
            )

    def _admit(self, raw: bytes) -> str | None:
        """The line to pass to the SDK, or None when it was answered (or is blank)."""
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self._wire.send(
                _error(
                    None,
                    types.PARSE_ERROR,
                    f"Parse error: the line is not UTF-8 ({exc.reason} at byte {exc.start})",
                )
            )
            return None
        if not text.strip():
            return None
        try:
            message = json.loads(text)
        except json.JSONDecodeError as exc:
            self._wire.send(
                _error(None, types.PARSE_ERROR, f"Parse error: {exc.msg} at column {exc.colno}")
            )
            return None
        except RecursionError:  # deeper than Python's parser goes: the id from the text
            message = None
        if message is None or depth_over(message, MAX_DEPTH):
            refusal = _error(
                _plain_id(message) if message is not None else _shallow_id(text),
                types.INVALID_REQUEST,
                f"Invalid Request: the message nests deeper than {MAX_DEPTH} levels",
            )
            if isinstance(message, dict) and isinstance(message.get("id"), float):
                # an id the SDK never sees, written back as the client wrote it (1.5, 1e400)
                refusal["id"] = self._wire.alias(_float_id_as_written(text))
            self._wire.send(refusal)
            return None
        if not isinstance(message, dict):
            self._wire.send(
                _error(
                    None,
                    types.INVALID_REQUEST,
                    "Invalid Request: send one JSON-RPC object a line (no batches)",
                )
            )
            return None
        request_id = message.get("id")
        if "method" in message and "id" in message:
            if isinstance(request_id, bool) or not isinstance(request_id, str | int | float | None):
                self._wire.send(
                    _error(
                        None,
                        types.INVALID_REQUEST,
                        "Invalid Request: an id is a string, a number or null, not "
                        + json.dumps(request_id)[:40],
                    )
                )
                return None
            aliased = isinstance(request_id, str) and request_id.startswith(_ALIAS)
            if request_id is None or isinstance(request_id, float) or aliased:
                # the SDK takes only strings and integers: it gets an alias, the answer the id
                # as written (1.5, 1.0, 1e400, null); a client's string that looks like an
                # alias gets one too, so that no alias ever equals a client's id
                if aliased:
                    written = json.dumps(request_id, ensure_ascii=False)
                else:
                    written = "null" if request_id is None else _float_id_as_written(text)
                request_id = message["id"] = self._wire.alias(written)
                text = json.dumps(message, ensure_ascii=False)
        is_request = "method" in message and request_id is not None
        where = lone_surrogate(message)
        if where is not None:
            if not is_request:
                log.warning("dropped a message with a lone surrogate in %s", where)
            elif message.get("method") == "tools/call":
                text_error = surrogate_message(where.removeprefix("params.arguments."))
                result = tool_error(text_error).model_dump(by_alias=True, exclude_none=True)
                self._wire.send({"jsonrpc": "2.0", "id": request_id, "result": result})
            else:
                self._wire.send(_error(request_id, types.INVALID_PARAMS, surrogate_message(where)))
            return None
        try:
            types.jsonrpc_message_adapter.validate_python(message, by_name=False)
        except ValueError as exc:
            reason = str(exc).splitlines()[0]
            self._wire.send(
                _error(_plain_id(message), types.INVALID_REQUEST, f"Invalid Request: {reason}")
            )
            return None
        if is_request:
            self._wire.pending.add(request_id)
        elif message.get("method") == "notifications/cancelled":
            params = message.get("params") or {}
            cancelled = params.get("requestId")
            if isinstance(cancelled, float | str) and not isinstance(cancelled, bool):
                written = (
                    _float_id_as_written(text, "params", "requestId")
                    if isinstance(cancelled, float)
                    else json.dumps(cancelled, ensure_ascii=False)
                )
                alias = self._wire.latest.get(written)
                if alias is not None:  # the request the client means, under its alias
                    params["requestId"] = cancelled = alias
                    text = json.dumps(message, ensure_ascii=False)
            self._wire.pending.discard(cancelled)
        return text


async def serve_stdio(server: MCPServer, drain_s: float = 60.0) -> None:
    """Runs ``server`` on the process's stdin and stdout through the gate.

    While it runs, file descriptor 0 reads the null device and 1 writes to stderr, so nothing
    else in the process (a library, a child) can read the protocol's input or write into it (on
    Windows ``serve`` has pointed the standard output handle at stderr before Java could start,
    see :func:`~pylucene_mcp.basics.portable.rebind_std_output`).
    """
    wire_in = os.dup(0)
    wire_out = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    source = os.fdopen(wire_in, "rb")
    wire = _Wire(os.fdopen(wire_out, "wb"))
    stdin = _GuardedStdin(source, wire, drain_s)
    stdout = _GuardedStdout(wire)
    with anyio.CancelScope() as scope, _stopped_by_signals(scope):
        async with stdio_server(stdin=stdin, stdout=stdout) as (read_stream, write_stream):  # type: ignore[arg-type]
            lowlevel = server._lowlevel_server  # MCPServer.run_stdio_async does the same
            await lowlevel.run(read_stream, write_stream, lowlevel.create_initialization_options())


#: the signals that end a stdio server as its client's goodbye: SIGTERM (an MCP client's way
#: to end a server that did not leave when its stdin closed) and SIGHUP (its terminal closed)
STOP_SIGNALS = ("SIGTERM", "SIGHUP")


@contextlib.contextmanager
def _stopped_by_signals(scope: anyio.CancelScope) -> Iterator[None]:
    """Within it, :data:`STOP_SIGNALS` cancel ``scope``: the server stops serving, and its caller
    closes the index as after stdin closes (the JVM leaves these signals alone, ``-Xrs``; its
    own handler ran ``exit`` under the threads still in Java: "terminate called after throwing
    an instance of 'JPypeException'"). After it, while the index closes, they are ignored."""
    names = [name for name in STOP_SIGNALS if hasattr(signal, name)]  # Windows: no SIGHUP
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread sets handlers (the tests' servers run in others)
        return
    loop = asyncio.get_running_loop()

    def stop(signum: int, frame: object) -> None:
        log.info("signal %d: stopping", signum)
        loop.call_soon_threadsafe(scope.cancel)

    for name in names:
        signal.signal(getattr(signal, name), stop)
    try:
        yield
    finally:
        for name in names:
            signal.signal(getattr(signal, name), signal.SIG_IGN)
