"""A research index's bulk writes: each row handed to Java in one crossing, and the next batch
built in Python while Java analyses the one before."""

from __future__ import annotations

import concurrent.futures
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors


def joined(values: list[str | None]) -> tuple[str, Any]:
    """``values`` as ``BulkWriter.add`` takes them in one crossing: one text, and each value's
    length in Java's UTF-16 units (-1 for an absent one)."""
    lengths = [
        -1
        if v is None
        else len(v)
        if v.isascii()
        else len(v.encode("utf-16-le", "surrogatepass")) // 2
        for v in values
    ]
    joined = "".join(v for v in values if v is not None)
    try:
        text = jvm.jclass("java.lang.String")(joined)  # converted here: the error is the caller's
    except UnicodeEncodeError as exc:
        raise errors.InvalidRequestError(
            f"a value holds {joined[exc.start : exc.end]!a}, a lone surrogate, which is no text: "
            "decode the source with errors='replace' (or fix it) before adding it"
        ) from None
    return text, jvm.jarray("int", lengths)


class OneAhead:
    """Calls made one at a time on a thread of their own, in order, while the caller goes on:
    a Java call frees the interpreter, so the next batch is built meanwhile. At most one call
    runs; its error is raised by the next ``call`` or on leaving the ``with`` block, which
    waits for it."""

    def __init__(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, "research-bulk")
        self._pending: concurrent.futures.Future[Any] | None = None

    def call(self, function: Any, *args: Any) -> None:
        self._wait()
        self._pending = self._pool.submit(function, *args)

    def _wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def __enter__(self) -> OneAhead:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        try:
            if kind is None:
                self._wait()
            elif self._pending is not None:  # the caller's error wins; the call still ends
                concurrent.futures.wait([self._pending])
        finally:
            self._pool.shutdown()
