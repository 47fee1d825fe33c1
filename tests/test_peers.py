"""The local channel between the servers of one index: only a peer with the key is heard, what
it sends is JSON, and the Windows and long-path addresses are what they should be."""

from __future__ import annotations

import os
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.service import peers


def test_the_address_is_a_socket_in_the_private_home_or_a_named_pipe(tmp_path: Path) -> None:
    posix = peers.address("/data/index", system="posix", home=tmp_path)
    assert posix == str(tmp_path / "run" / f"{Path(posix).name}")
    assert posix.endswith(".sock")
    # the same index, the same socket; another index, another one
    assert peers.address("/data/index", system="posix", home=tmp_path) == posix
    assert peers.address("/data/other", system="posix", home=tmp_path) != posix
    pipe = peers.address("C:\\Users\\a\\index", system="nt", home=tmp_path)
    assert pipe.startswith("\\\\.\\pipe\\pylucene-mcp-")
    assert peers._family(pipe) == "AF_PIPE" and peers._family(posix) == "AF_UNIX"
    deep = tmp_path / ("d" * 120)
    fallback = peers.address("/data/index", system="posix", home=deep)
    assert len(os.fsencode(fallback)) <= peers.MAX_SOCKET_PATH + 40
    assert not fallback.startswith(str(deep))


def test_a_peer_with_the_key_is_answered_and_one_without_is_not(tmp_path: Path) -> None:
    heard: list[tuple[str, dict[str, Any]]] = []

    def handler(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        heard.append((tool, arguments))
        return {"content": [{"type": "text", "text": f"{tool} done"}], "isError": False}

    where = peers.address(str(tmp_path / "index"), system=os.name, home=tmp_path)
    answering = peers.Answering(where, handler)
    try:
        folder = Path(where).parent
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700  # this user's alone
        answer = peers.call(where, answering.key, "startCrawl", {"wait": True})
        assert answer["content"][0]["text"] == "startCrawl done"
        assert heard == [("startCrawl", {"wait": True})]
        with pytest.raises(peers.PeerGone):
            peers.call(where, b"x" * 32, "purgeIndex", {"confirm": True})
        assert heard == [("startCrawl", {"wait": True})]  # the stranger was never heard
        # several peers at once, each answered
        answers: list[dict[str, Any]] = []
        threads = [
            threading.Thread(
                target=lambda n=n: answers.append(peers.call(where, answering.key, f"tool{n}", {}))
            )
            for n in range(4)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(30)
        assert sorted(a["content"][0]["text"] for a in answers) == [
            f"tool{n} done" for n in range(4)
        ]
    finally:
        answering.close()
    with pytest.raises(peers.PeerGone):  # nobody listens after close
        peers.call(where, answering.key, "startCrawl", {})


def test_a_handler_that_fails_answers_an_error_and_the_channel_goes_on(tmp_path: Path) -> None:
    def handler(tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        if tool == "boom":
            raise RuntimeError("exploded")
        return {"ok": tool}

    where = peers.address(str(tmp_path / "index"), system=os.name, home=tmp_path)
    answering = peers.Answering(where, handler)
    try:
        assert "exploded" in peers.call(where, answering.key, "boom", {})["error"]
        assert peers.call(where, answering.key, "fine", {}) == {"ok": "fine"}
    finally:
        answering.close()


def test_a_stale_socket_of_a_dead_writer_is_replaced(tmp_path: Path) -> None:
    where = peers.address(str(tmp_path / "index"), system=os.name, home=tmp_path)
    Path(where).parent.mkdir(mode=0o700)
    Path(where).write_text("left behind")
    answering = peers.Answering(where, lambda tool, arguments: {"ok": tool})
    try:
        assert peers.call(where, answering.key, "x", {}) == {"ok": "x"}
    finally:
        answering.close()


def test_closing_right_after_a_call_never_hangs(tmp_path: Path) -> None:
    """close() wakes the accept loop with a connection of its own; a loop that had looked at
    the closed flag before that connection came had left close() waiting (1 in ~30 closes)."""
    for n in range(150):
        where = peers.address(str(tmp_path / f"index{n}"), system=os.name, home=tmp_path)
        answering = peers.Answering(where, lambda tool, arguments: {"ok": tool})
        assert peers.call(where, answering.key, "x", {}) == {"ok": "x"}
        closing = threading.Thread(target=answering.close, daemon=True)
        closing.start()
        closing.join(10)
        assert not closing.is_alive(), f"close() hung after {n} closes"
