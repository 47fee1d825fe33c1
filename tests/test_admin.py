"""Index administration: optimize, purge and unlock as background operations, one at a time,
refused during a crawl; the tools ask for confirmation; unlock refuses while a live process holds
the lock and frees it once that process was killed; the CLI does the same on its own."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from mcp import Client

from pylucene_mcp import AdminBusyError
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.server.app import build_server
from pylucene_mcp.service.admin import Operation
from pylucene_mcp.service.service import Service
from tests.mcp_client import call, error
from tests.stdio_peer import ROOT, server_env
from tests.waiting import arrives


@pytest.fixture
def service(tmp_path: Path) -> Iterator[Service]:
    svc = Service(
        Settings(
            index_path=tmp_path / "own" / "index",
            log_dir=tmp_path / "own" / "logs",
            config_file=tmp_path / "own" / "config.yaml",
        )
    )
    for batch in range(4):  # four commits: four segments to merge
        with svc.index().writer() as w:
            for n in range(25):
                w.add({"file_path": f"/d/{batch}-{n}.txt", "content": f"note {n} about ibis"})
    with svc.index().writer() as w:
        w.delete("/d/0-0.txt")
    yield svc
    svc.close()


def test_optimize_merges_into_one_segment_in_the_background(service: Service) -> None:
    admin = service.admin()
    operation = admin.start("optimize", max_segments=1)
    assert operation.state in ("running", "done")
    done = admin.wait(operation.operation_id)
    assert done.state == "done" and done.result == {"segments": 1, "documents": 99}
    with service.index().searcher() as searcher:
        assert int(searcher.getIndexReader().numDeletedDocs()) == 0


def test_purge_and_full_purge(service: Service) -> None:
    admin = service.admin()
    done = admin.wait(admin.start("purge", full=False).operation_id)
    assert done.result == {"deleted": 99, "full": False}
    assert len(service.index()) == 0
    with service.index().writer() as w:
        w.add({"file_path": "/d/again.txt", "content": "ibis again"})
    full = admin.wait(admin.start("purge", full=True).operation_id)
    assert full.state == "done" and full.result is not None and full.result["deleted"] == 1
    assert len(service.index()) == 0 and service.index().path.is_dir()
    with service.index().writer() as w:  # the new index works
        w.add({"file_path": "/d/new.txt", "content": "fresh start"})
    assert len(service.index()) == 1


def test_one_operation_at_a_time_and_none_during_a_crawl(service: Service, tmp_path: Path) -> None:
    admin = service.admin()
    # an operation in the slot (set directly: a real one may end before the second call)
    admin._running = Operation("op-0", "optimize", "running", "2026-11-30T00:00:00Z")
    with pytest.raises(AdminBusyError, match=r"optimize \(op-0\) is running since"):
        admin.start("purge")
    admin._running = None
    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(40):
        (docs / f"{n}.txt").write_text(f"text {n}")
    service.folders.add(str(docs))  # the crawl starts Tika: it runs for a while
    assert service.crawls.running()
    with pytest.raises(AdminBusyError, match="a crawl is running"):
        admin.start("optimize")
    service.crawls.crawler().wait(120)


def test_unlock_when_the_server_holds_the_index_says_there_is_nothing_to_do(
    service: Service,
) -> None:
    admin = service.admin()
    done = admin.wait(admin.start("unlock").operation_id)
    assert done.result is not None and done.result["unlocked"] is False
    assert "holds its lock itself" in done.result["message"]


def test_unlock_refuses_a_live_holder_and_frees_a_dead_ones_lock(tmp_path: Path) -> None:
    index = tmp_path / "index"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from pylucene_mcp import Index\n"
            "Index.open(sys.argv[1])\n"
            "print('open', flush=True)\n"
            "time.sleep(300)\n",
            str(index),
        ],
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        env=server_env(tmp_path / "home"),
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
    svc = Service(Settings(index_path=index, log_dir=tmp_path / "logs"))
    try:
        admin = svc.admin()
        refused = admin.wait(admin.start("unlock").operation_id)
        assert refused.state == "failed" and refused.error is not None
        assert f"pid {holder.pid}" in refused.error
        holder.send_signal(signal.SIGKILL)
        holder.wait()
        holder.stdout.close()
        assert (index / "write.lock").exists()  # a killed writer leaves its lock file
        freed = admin.wait(admin.start("unlock").operation_id)
        assert freed.state == "done" and freed.result is not None and freed.result["unlocked"]
        assert len(svc.index()) == 0  # and the index opens for writing
    finally:
        svc.close()
        if holder.poll() is None:
            os.kill(holder.pid, signal.SIGKILL)


@pytest.fixture
async def client(service: Service) -> AsyncIterator[Client]:
    async with Client(build_server(service.settings, service)) as connected:
        yield connected


@pytest.mark.anyio
async def test_the_tools_confirm_report_and_refuse(client: Client, service: Service) -> None:
    assert "confirm: true" in await error(client, "purgeIndex")
    assert "confirm: true" in await error(client, "unlockIndex")
    started = await call(client, "optimizeIndex")
    assert started["operationId"] == "op-1" and started["kind"] == "optimize"
    status = await arrives(
        lambda: call(client, "getIndexAdminStatus", operationId="op-1"),
        lambda answer: answer["operations"][0]["state"] != "running",
        what="the optimization's end",
    )
    assert status["operations"][0]["result"] == {"segments": 1, "documents": 99}
    assert "no operation 'op-9'" in await error(client, "getIndexAdminStatus", operationId="op-9")
    tools = {t.name: t for t in (await client.list_tools()).tools}
    purge = tools["purgeIndex"].annotations
    assert purge is not None and purge.destructive_hint and not purge.read_only_hint


def test_the_cli_optimizes_and_purges(tmp_path: Path) -> None:
    from pylucene_mcp import Index

    index = Index.open(tmp_path / "index")
    for n in range(3):
        with index.writer() as w:
            w.add({"file_path": f"/d/{n}.txt", "content": "ibis"})
    index.close()

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pylucene_mcp", *args, "--index", str(tmp_path / "index")],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=ROOT,
            env=server_env(tmp_path / "home"),
            check=False,
        )

    assert cli("optimize").stdout.strip() == "3 documents in 1 segment(s)"
    refused = cli("purge")
    assert refused.returncode == 2 and "--yes" in refused.stderr
    assert cli("purge", "--yes", "--full").stdout.startswith("deleted 3 documents;")
    assert cli("stats").returncode == 0
