"""Several servers on one index, as Claude Desktop, Claude Code and an editor start them: real
server processes over stdio. One writes; the others search and hand it their writes; when it
exits, one of them takes the writing over. And an index folder that cannot be written is
searched, its writes refused with the reason, nothing changed."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.engine.lucene import index_lock
from tests.stdio_peer import ROOT, StdioPeer, handshake, server_env
from tests.waiting import until

pytestmark = pytest.mark.slow


class Server:
    """One ``pylucene-mcp serve`` over stdio, its tools called by name."""

    def __init__(self, index: Path, home: Path, program: list[str] | None = None) -> None:
        self.peer = StdioPeer(index, home, program=program)
        handshake(self.peer, "2025-06-18")

    @property
    def pid(self) -> int:
        return self.peer.proc.pid

    def answer(self, tool: str, **arguments: Any) -> dict[str, Any]:
        reply = self.peer.request("tools/call", {"name": tool, "arguments": arguments}, timeout=120)
        return reply["result"]  # type: ignore[no-any-return]

    def call(self, tool: str, **arguments: Any) -> dict[str, Any]:
        result = self.answer(tool, **arguments)
        assert not result.get("isError"), result
        return result["structuredContent"]  # type: ignore[no-any-return]

    def error(self, tool: str, **arguments: Any) -> str:
        result = self.answer(tool, **arguments)
        assert result.get("isError"), result
        return result["content"][0]["text"]  # type: ignore[no-any-return]

    def hits(self, query: str) -> set[str]:
        found = self.call("search", query=query, pageSize=50)["documents"]
        return {Path(d["filePath"]).name for d in found}

    def close(self) -> str:
        proc = self.peer.proc
        if proc.poll() is None:
            return self.peer.close()[1]
        for pipe in (proc.stdin, proc.stdout, proc.stderr):  # it was killed
            if pipe is not None:
                pipe.close()
        return ""


@pytest.fixture
def place(tmp_path: Path) -> Iterator[dict[str, Path]]:
    folders = {name: tmp_path / name for name in ("docs", "more", "home")}
    for folder in folders.values():
        folder.mkdir()
    (folders["docs"] / "alpha.txt").write_text("The debian release notes.", encoding="utf-8")
    (folders["more"] / "beta.txt").write_text("Another debian text.", encoding="utf-8")
    folders["index"] = tmp_path / "index"
    yield folders


@pytest.fixture
def started(place: dict[str, Path]) -> Iterator[list[Server]]:
    """The servers a test starts (``start``), each closed when it ends."""
    servers: list[Server] = []
    yield servers
    for server in servers:
        server.close()


def start(servers: list[Server], place: dict[str, Path], crawl: bool = False) -> Server:
    """One more server on the place's index; with ``crawl``, it adds the docs folder and
    waits until its file is found."""
    server = Server(place["index"], place["home"])
    servers.append(server)
    if crawl:
        server.call("addCrawlableDirectory", path=str(place["docs"]))
        until(lambda: server.hits("debian") == {"alpha.txt"}, what="the first crawl")
    return server


def owner_pid(index: Path) -> int | None:
    owner = index_lock.holder(index)
    return owner.pid if owner is not None else None


def test_a_second_server_searches_and_hands_its_writes_to_the_first(
    place: dict[str, Path], started: list[Server]
) -> None:
    first = start(started, place, crawl=True)
    second = start(started, place)
    assert second.hits("debian") == {"alpha.txt"}  # it searches the first one's index
    assert owner_pid(place["index"]) == first.pid

    # its crawler calls are the writer's: the writer's crawl, the writer's folders
    status = second.call("getCrawlerStatus")
    assert status["directories"] == [str(place["docs"])]
    added = second.call("addCrawlableDirectory", path=str(place["more"]))
    assert added["directories"] == [str(place["docs"]), str(place["more"])]
    listed = first.call("listCrawlableDirectories")["directories"]
    assert [d["path"] for d in listed] == [str(place["docs"]), str(place["more"])]
    config = (place["home"] / "config.yaml").read_text(encoding="utf-8")
    assert config.count(str(place["more"])) == 1
    # the writer crawls the added folder; the reader sees its commit
    until(lambda: second.hits("debian") == {"alpha.txt", "beta.txt"}, what="the commit")

    # an admin operation runs in the writer, whose status knows it
    operation = second.call("optimizeIndex")
    ids = [op["operationId"] for op in first.call("getIndexAdminStatus")["operations"]]
    assert operation["operationId"] in ids
    assert first.pid != second.pid and owner_pid(place["index"]) == first.pid


def test_the_reader_takes_over_the_writing_when_the_writer_exits(
    place: dict[str, Path], started: list[Server]
) -> None:
    first = start(started, place, crawl=True)
    second = start(started, place)
    assert second.hits("debian") == {"alpha.txt"}
    stderr = first.close()
    assert "Traceback" not in stderr, stderr
    until(lambda: owner_pid(place["index"]) == second.pid, what="the takeover")
    # the new writer watches the folders: a new file is found without a call
    until(lambda: second.call("getCrawlerStatus")["status"] == "WATCHING", what="watches")
    (place["docs"] / "gamma.txt").write_text("A third debian file.", encoding="utf-8")
    until(
        lambda: second.hits("debian") == {"alpha.txt", "gamma.txt"},
        what="the file the watcher saw",
    )
    report = second.call("startCrawl", wait=True)["report"]
    assert report["found"] == 2 and report["failed"] == 0


def test_four_servers_one_writer_and_one_heir_when_it_is_killed(place: dict[str, Path]) -> None:
    (place["home"] / "config.yaml").write_text(
        json.dumps({"directories": [str(place["docs"])]}), encoding="utf-8"
    )
    servers = [Server(place["index"], place["home"])]
    try:
        until(lambda: servers[0].hits("debian") == {"alpha.txt"}, what="the start-up crawl")
        servers += [Server(place["index"], place["home"]) for _ in range(3)]
        for server in servers:
            assert server.hits("debian") == {"alpha.txt"}
        assert owner_pid(place["index"]) == servers[0].pid

        servers[0].peer.proc.send_signal(signal.SIGKILL)  # no goodbye: a crash
        servers[0].peer.proc.wait(30)
        readers = servers[1:]
        until(lambda: owner_pid(place["index"]) in {r.pid for r in readers}, what="a new writer")
        heir = next(r for r in readers if r.pid == owner_pid(place["index"]))
        # the others hand their calls to the heir
        for reader in readers:
            status = reader.call("getCrawlerStatus")
            assert status["directories"] == [str(place["docs"])]
        (place["docs"] / "delta.txt").write_text("Yet another debian page.", encoding="utf-8")
        others = [r for r in readers if r is not heir]
        others[0].call("startCrawl", wait=True)
        for reader in readers:
            until(lambda r=reader: r.hits("debian") == {"alpha.txt", "delta.txt"}, what="all")
        assert owner_pid(place["index"]) == heir.pid  # one heir, and it stays
    finally:
        for server in servers:
            server.close()


HOLD_THE_WRITER = textwrap.dedent(
    """
    import sys
    from pylucene_mcp import Index
    index = Index.open(sys.argv[1], create=False)
    print("holding", flush=True)
    sys.stdin.read()
    index.close()
    """
)


def test_beside_a_writer_that_takes_no_calls_writes_are_refused_and_nothing_changes(
    place: dict[str, Path], started: list[Server]
) -> None:
    start(started, place, crawl=True).close()
    config = (place["home"] / "config.yaml").read_text(encoding="utf-8")
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD_THE_WRITER, str(place["index"])],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=server_env(place["home"]),
    )
    server: Server | None = None
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "holding\n"
        server = Server(place["index"], place["home"])
        assert server.hits("debian") == {"alpha.txt"}
        refused = server.error("addCrawlableDirectory", path=str(place["more"]))
        assert f"pid {holder.pid}" in refused and "retry" in refused
        assert (place["home"] / "config.yaml").read_text(encoding="utf-8") == config
        assert f"pid {holder.pid}" in server.error("startCrawl")
        assert server.call("getCrawlerStatus")["status"] == "IDLE"  # read locally
    finally:
        if server is not None:
            server.close()
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(60)
        assert holder.stdout is not None
        holder.stdout.close()


def _unprivileged() -> list[str]:
    """The command prefix of a process that the file modes bind: root without its
    capabilities (setpriv), or nothing for another user."""
    if os.geteuid() != 0:
        return []
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: no way to drop root's rights")
    return ["setpriv", "--bounding-set=-all", "--inh-caps=-all"]


def _read_only(folder: Path) -> None:
    for path in [folder, *folder.iterdir()]:
        path.chmod(0o500 if path.is_dir() else 0o400)


def test_a_read_only_index_folder_is_searched_and_its_writes_refused(
    place: dict[str, Path], started: list[Server]
) -> None:
    start(started, place, crawl=True).close()
    _read_only(place["index"])
    config = (place["home"] / "config.yaml").read_text(encoding="utf-8")
    before = sorted(p.name for p in place["index"].iterdir())
    prefix = _unprivileged()
    server = Server(
        place["index"], place["home"], program=[*prefix, sys.executable, "-m", "pylucene_mcp"]
    )
    try:
        assert server.hits("debian") == {"alpha.txt"}
        assert server.call("getIndexStats")["documentCount"] == 1
        status = server.call("getCrawlerStatus")
        assert status["status"] == "IDLE" and "cannot be written" in status["readOnly"]
        for tool, arguments in [
            ("startCrawl", {}),
            ("addCrawlableDirectory", {"path": str(place["more"])}),
            ("optimizeIndex", {}),
        ]:
            refused = server.error(tool, **arguments)
            assert "cannot be written" in refused and "index_path" in refused, refused
        assert (place["home"] / "config.yaml").read_text(encoding="utf-8") == config
    finally:
        stderr = server.close()
    assert "Traceback" not in stderr, stderr
    crawl = subprocess.run(
        [*prefix, sys.executable, "-m", "pylucene_mcp", "crawl", str(place["docs"])]
        + ["--index", str(place["index"])],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=server_env(place["home"]),
        check=False,
    )
    assert crawl.returncode != 0
    assert "cannot be written" in crawl.stderr and "Traceback" not in crawl.stderr, crawl.stderr
    assert sorted(p.name for p in place["index"].iterdir()) == before
