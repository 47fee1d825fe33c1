"""Waiting for a condition instead of sleeping: one helper for every test that must let a
background thread, a watcher or a child process catch up."""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio

T = TypeVar("T")


def eventually(
    condition: Callable[[], object], timeout_s: float = 30.0, step_s: float = 0.05
) -> bool:
    """Polls ``condition`` until it is true or ``timeout_s`` passes; returns whether it held
    (``assert eventually(...)``), checking one last time at the deadline."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(step_s)
    return bool(condition())


def until(
    condition: Callable[[], object], timeout_s: float = 30.0, what: str = "the condition"
) -> None:
    """Waits for ``condition``; fails the test, naming ``what``, when it does not come."""
    assert eventually(condition, timeout_s), f"{what} did not come within {timeout_s:g} s"


def answered(
    ask: Callable[[], T],
    ready: Callable[[T], object],
    timeout_s: float = 60.0,
    what: str = "the answer",
    step_s: float = 0.2,
) -> T:
    """Asks ``ask`` again until ``ready`` holds for its answer; returns that answer, or fails
    the test naming ``what`` (and the last answer) when it does not come within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        answer = ask()
        if ready(answer):
            return answer
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} did not come within {timeout_s:g} s: {answer!r}")
        time.sleep(step_s)


async def arrives(
    ask: Callable[[], Awaitable[T]],
    ready: Callable[[T], object],
    timeout_s: float = 60.0,
    what: str = "the answer",
) -> T:
    """Asks ``ask`` (an MCP call, say) again until ``ready`` holds for its answer, sleeping
    without blocking the event loop in between; returns that answer, or fails the test naming
    ``what`` when it does not come within ``timeout_s``."""
    deadline = time.monotonic() + timeout_s
    while True:
        answer = await ask()
        if ready(answer):
            return answer
        if time.monotonic() >= deadline:
            raise AssertionError(f"{what} did not come within {timeout_s:g} s: {answer!r}")
        await anyio.sleep(0.05)
