"""End to end: ``pylucene-mcp serve`` as a subprocess over real stdio, and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stdio_peer import ROOT, StdioPeer, handshake, server_env
from tests.waiting import until

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("version", ["2025-11-25", "2025-06-18", "2024-11-05"])
def test_serve_over_stdio_carries_only_json_rpc(
    closed_index_path: Path, tmp_path: Path, version: str
) -> None:
    peer = StdioPeer(closed_index_path, tmp_path)
    try:
        init = handshake(peer, version)
        assert init["result"]["protocolVersion"] == version
        assert "wildcard" in init["result"]["instructions"]
        tools = peer.request("tools/list")["result"]["tools"]
        assert {t["name"] for t in tools} >= {"search", "getDocumentDetails"}
        answer = peer.request(
            "tools/call", {"name": "search", "arguments": {"query": "*vertrag*"}}
        )["result"]
        assert not answer.get("isError"), answer
        assert answer["structuredContent"]["totalHits"] == 3
        error = peer.request("tools/call", {"name": "search", "arguments": {"query": "(a"}})
        assert error["result"]["isError"] is True
    finally:
        rest, stderr = peer.close()
    assert peer.proc.returncode == 0, stderr
    assert rest.strip() == b"", rest  # nothing after the last answer either
    assert len(peer.lines) == 4  # one answer per request, nothing else


def test_cli_search_prints_hits_and_json(closed_index_path: Path, tmp_path: Path) -> None:
    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pylucene_mcp", *args, "--index", str(closed_index_path)],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=server_env(tmp_path),
            check=False,
        )

    result = cli("search", "Mueller", "--filter", "language=de")
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("2 hits")
    assert "[Müller]" in result.stdout
    result = cli("search", "*vertrag", "--json", "--filter", "modified_date=2023-01-01..")
    assert json.loads(result.stdout)["totalHits"] == 2
    result = cli("search", "title:")
    assert result.returncode == 2 and "Try: title" in result.stderr
    result = cli("stats")
    assert json.loads(result.stdout)["documentCount"] == 11


@pytest.mark.anyio
async def test_the_sdk_stdio_client_negotiates_and_searches(
    closed_index_path: Path, tmp_path: Path
) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pylucene_mcp", "serve", "--index", str(closed_index_path)],
        env=server_env(tmp_path),
        cwd=str(ROOT),
    )
    async with Client(params) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "search" in names
        result = await client.call_tool("search", {"query": "Kaese"})
        assert not result.is_error
        assert result.structured_content is not None
        assert result.structured_content["totalHits"] == 2


def test_a_jvm_that_cannot_start_is_explained_to_the_client_stderr_and_log(
    tmp_path: Path,
) -> None:
    fake = tmp_path / "java-home"
    (fake / "lib" / "server").mkdir(parents=True)
    (fake / "release").write_text('JAVA_VERSION="25"\n')
    (fake / "lib" / "server" / "libjvm.so").write_text("not a library")
    home = tmp_path / "home"
    peer = StdioPeer(tmp_path / "index", home, {"PYLUCENE_MCP_JAVA_HOME": str(fake)})
    try:
        handshake(peer, "2025-11-25")
        answer = peer.request("tools/call", {"name": "search", "arguments": {"query": "x"}})
        result = answer["result"]
        assert result["isError"] is True
        text = result["content"][0]["text"]
        assert f"the JVM at {fake} (Java 25) failed to start" in text
        assert "PYLUCENE_MCP_JAVA_HOME" in text
        assert peer.request("tools/list")["result"]["tools"]  # the server is still there
    finally:
        rest, stderr = peer.close()
    assert rest.strip() == b""
    assert "failed to start" in stderr
    assert "failed to start" in (home / "logs" / "pylucene-mcp.log").read_text()


def test_sigterm_while_the_crawl_writes_stops_the_server_cleanly(tmp_path: Path) -> None:
    """An MCP client sends SIGTERM to a server that has not left 2 s after its stdin closed. The
    JVM's own handler had run ``exit`` under the threads still in Java ("terminate called after
    throwing an instance of 'JPypeException'"): the server stops as on Ctrl-C instead, closes the
    index (its lock released, what it committed there) and exits 0."""
    import signal
    import time

    from pylucene_mcp import Index

    folder = tmp_path / "files"
    folder.mkdir()
    for n in range(400):
        (folder / f"note-{n:03}.txt").write_text(f"note {n} about the quarterly figures\n" * 40)
    index_path = tmp_path / "index"
    peer = StdioPeer(index_path, tmp_path / "home")
    handshake(peer, "2025-11-25")
    added = peer.request(
        "tools/call", {"name": "addCrawlableDirectory", "arguments": {"path": str(folder)}}
    )
    assert not added["result"]["isError"], added

    def writing() -> bool:  # the crawl writes: Java threads are busy when the signal comes
        status = peer.request("tools/call", {"name": "getCrawlerStatus", "arguments": {}})
        progress = status["result"]["structuredContent"]
        return progress.get("processed", 0) > 0 or progress.get("status") in ("IDLE", "WATCHING")

    until(writing, 120, "the crawl's first file")
    peer.proc.send_signal(signal.SIGTERM)
    try:  # 30 s was passed once in a few CI runs, at the end of the suite; why is not known yet:
        # the failure below says where the server waited (its threads' stacks) and what it logged
        returncode: int | None = peer.proc.wait(timeout=60)
    except subprocess.TimeoutExpired:  # said with where it waits and what it logged, not left
        returncode = None
        peer.proc.send_signal(signal.SIGUSR1)  # every thread's stack on stderr
        time.sleep(2)
        peer.proc.kill()
        peer.proc.wait(timeout=30)
    for pipe in (peer.proc.stdin, peer.proc.stdout):
        if pipe is not None:
            pipe.close()
    assert peer.proc.stderr is not None
    with peer.proc.stderr:
        stderr = peer.proc.stderr.read().decode()
    logged = tmp_path / "home" / "logs" / "pylucene-mcp.log"
    tail = logged.read_text(errors="replace")[-3000:] if logged.is_file() else "(no log)"
    assert returncode == 0, (returncode, stderr[-6000:], tail)
    assert "terminate called" not in stderr and "Traceback" not in stderr, stderr[-3000:]
    with Index.open(index_path) as index:  # its lock is free; what it committed is there
        assert index.search("quarterly", max_passages=0).total_hits <= 400
