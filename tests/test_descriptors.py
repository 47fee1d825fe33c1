"""No file descriptor left (a flood of connections, say) while the index writes: the write fails
with a clear error, searches go on, and the next write works once descriptors are free again;
nothing committed is lost. Run in a process of its own: its descriptor limit is lowered."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stdio_peer import ROOT

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="RLIMIT_NOFILE is POSIX")

STARVE = r"""
import json, resource, sys
from pylucene_mcp import Index
from pylucene_mcp.basics import errors
index = Index.open(sys.argv[1])
with index.writer() as w:
    w.add({"file_path": "/d/kept.txt", "content": "the kept words"})
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
outcome = {}
# every new descriptor refused (the lowest free one is above the limit), as when connections
# took them all: the commit fails, and so does opening a new writer after the rollback
resource.setrlimit(resource.RLIMIT_NOFILE, (12, hard))
try:
    with index.writer() as w:
        w.add({"file_path": "/d/lost.txt", "content": "words of the failed block"})
except errors.PyLuceneMcpError as exc:
    outcome["error"] = str(exc)
    outcome["kind"] = type(exc).__name__
outcome["starved_search"] = index.search("kept").total_hits
resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
outcome["search"] = index.search("kept").total_hits
with index.writer() as w:
    w.add({"file_path": "/d/after.txt", "content": "written after"})
outcome["after"] = index.search("written").total_hits
outcome["lost"] = index.search("failed").total_hits
index.close()
print(json.dumps(outcome))
"""


def test_searches_go_on_and_writes_come_back_after_descriptors_ran_out(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", STARVE, str(tmp_path / "index")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    outcome = json.loads(done.stdout.splitlines()[-1])
    assert outcome["kind"] == "IndexAccessError", outcome
    assert "no file descriptor left" in outcome["error"]
    assert outcome["starved_search"] == outcome["search"] == 1  # never "ReferenceManager is closed"
    assert outcome["after"] == 1 and outcome["lost"] == 0
