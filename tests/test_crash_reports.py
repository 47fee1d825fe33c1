"""A JVM that crashes writes its report (its command line, environment variables, folder
names) into this user's private ``<home>/crashes`` (0700): never into the working folder, the
shared temp folder or stdout, for the product's own JVM as for Tika's; doctor names the report."""

from __future__ import annotations

import io
import json
import os
import signal
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import psutil
import pytest

from pylucene_mcp.crawler import tika_process
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
from tests.stdio_peer import ROOT, StdioPeer, handshake, server_env
from tests.waiting import until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _shared_reports() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("hs_err_pid*.log")}


def test_the_server_s_jvm_reports_a_crash_in_the_private_folder(tmp_path: Path) -> None:
    home, work = tmp_path / "home", tmp_path / "work"
    work.mkdir()
    shared = _shared_reports()
    peer = StdioPeer(tmp_path / "index", home, cwd=work)
    try:
        handshake(peer, "2025-06-18")
        answer = peer.request("tools/call", {"name": "getIndexStats", "arguments": {}})
        assert not answer["result"].get("isError"), answer  # the JVM runs, the index is open
        os.kill(peer.proc.pid, signal.SIGSEGV)  # a crash, as the JVM's signal handler sees one
        rest, stderr = peer.close()
    finally:
        if peer.proc.poll() is None:
            peer.proc.kill()
    assert peer.proc.returncode != 0
    assert rest.strip() == b"", f"the crash wrote to stdout (the protocol's): {rest[:300]!r}"
    assert "A fatal error has been detected" in stderr
    reports = list((home / "crashes").glob("hs_err_pid*.log"))
    assert [r.name for r in reports] == [f"hs_err_pid{peer.proc.pid}.log"], stderr[-2000:]
    assert stat.S_IMODE((home / "crashes").stat().st_mode) == 0o700
    assert "SIGSEGV" in reports[0].read_text(errors="replace")
    assert list(work.iterdir()) == [] and _shared_reports() == shared
    doctor = subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", "doctor", "--json"],
        cwd=ROOT,
        env={**server_env(home), "PYLUCENE_MCP_INDEX": str(tmp_path / "index")},
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["crash reports"]["status"] == "warning"
    assert reports[0].name in checks["crash reports"]["detail"]
    assert str(home / "crashes") in checks["crash reports"]["detail"]


def test_tika_s_jvm_reports_a_crash_in_the_private_folder_and_is_started_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(home))
    monkeypatch.setattr(tika_process, "_folder", None)
    shared = _shared_reports()
    server = TikaProcess(TikaSettings())
    try:
        body = b"a note about cormorants"
        assert "cormorants" in server.parse("note.txt", io.BytesIO(body), len(body))
        assert server.pid is not None
        java = [p for p in psutil.Process(server.pid).children() if "java" in p.name()]
        assert len(java) == 1
        java[0].send_signal(signal.SIGSEGV)
        until(lambda: any((home / "crashes").glob(f"hs_err_pid{java[0].pid}.log")), 60,
              "the crash report")  # fmt: skip
        until(lambda: not server.healthy(), 30, "the end of the crashed parser process")
        assert server.parse("note.txt", io.BytesIO(body), len(body))  # a new parser process
        assert server.restarts == 1
    finally:
        server.close()
    assert _shared_reports() == shared
    assert not list(Path(os.getcwd()).glob("hs_err_pid*.log"))
