"""The attacks of a second local user, made for real: run as root, the test crawls real Office
files in a server process (root) while another process runs as ``nobody`` and, before the crawl,
plants what used to take the server over — a Tika config folder with its own ``javaPath`` under
the predictable name for the server's pid, and a link where the JVM's start-up log used to be
written, pointing at a file of root's — then, during the crawl, tries to read every file of the
server's it can reach (its home, the shared temp folder). None of it may work: the planted
script never runs, root's file is unchanged, and the second user reads no copy of a document."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.crawler.files import make_corpus
from tests.stdio_peer import ROOT

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        not hasattr(os, "geteuid") or os.geteuid() != 0,
        reason="switching to a second user needs root (CI runs as root)",
    ),
]

NOBODY = 65534
#: the attacker's interpreter: one that a second user can run (the stdlib alone is needed)
SYSTEM_PYTHON = next(
    (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None
)

SERVER = r"""
import os, sys
from pathlib import Path
print(os.getpid(), flush=True)
sys.stdin.readline()  # the second user has planted its traps
from pylucene_mcp import Index, jvm
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_server import TikaServer, TikaSettings
jvm.start()
index = Index.open(Path(sys.argv[2]))
server = TikaServer(TikaSettings())
try:
    report = Crawler(index, Extractor(server), CrawlSettings(batch_size=5)).crawl([sys.argv[1]])
    print(report.added, report.failed, flush=True)
finally:
    server.close()
    index.close()
"""

ATTACKER = r"""
import json, os, sys, tempfile, time
from pathlib import Path
pid, home, drop, victim, stop = sys.argv[1:6]
shared = Path(tempfile.gettempdir())
# the traps: a Tika config folder under the server's predictable name, and a link
folder = shared / f"pylucene-mcp-tika-{pid}"
folder.mkdir(mode=0o777, exist_ok=True)
evil = Path(drop) / "evil.sh"
evil.write_text(f"#!/bin/sh\ntouch {drop}/pwned\nexec java \"$@\"\n")
evil.chmod(0o755)
for n in range(4):
    (folder / f"tika-config-{n}.xml").write_text(
        f"<properties><server><params><javaPath>{evil}</javaPath></params></server></properties>"
    )
(shared / f"pylucene-mcp-jvm-start-{pid}.log").symlink_to(victim)
print("planted", flush=True)
read = set()
started = time.time() - 1  # what older processes left in the shared folder is not this crawl's
deadline = time.monotonic() + 180
while not Path(stop).exists() and time.monotonic() < deadline:
    for top in (Path(home), shared):
        for root, dirs, files in os.walk(top):
            for name in files:
                path = Path(root) / name
                if "pytest-of" in str(path) or path.is_symlink():
                    continue
                ours = top == Path(home) or any(w in name for w in ("tika", "pylucene", "jvm"))
                if not ours:  # other programs' files in the shared folder are not the server's
                    continue
                try:
                    status = os.stat(path)
                    if status.st_uid == os.getuid() or status.st_mtime < started:
                        continue
                    with open(path, "rb") as handle:
                        if handle.read(4):
                            read.add(str(path))
                except OSError:
                    pass
    time.sleep(0.05)
print(json.dumps(sorted(read)), flush=True)
"""


def _as_nobody() -> None:
    os.setgid(NOBODY)
    os.setuid(NOBODY)


def test_a_second_user_can_neither_take_over_nor_read_a_copy(tmp_path: Path) -> None:
    if SYSTEM_PYTHON is None:
        pytest.fail("no system python3 for the second user (apt-get install python3)")
    base = Path(tempfile.mkdtemp(prefix="second-user-", dir=tempfile.gettempdir()))
    base.chmod(0o755)  # the second user may look around as far as the product lets it
    try:
        home, drop = base / "home", base / "drop"
        home.mkdir(mode=0o755)
        drop.mkdir()
        drop.chmod(0o777)
        victim = base / "victim.txt"
        victim.write_text("root's own file")
        victim.chmod(0o600)
        stop = drop / "stop"
        docs = tmp_path / "docs"
        make_corpus(docs)
        env = {**os.environ, "PYLUCENE_MCP_HOME": str(home), "PYTHONPATH": str(ROOT)}
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(docs), str(home / "index")],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            cwd=ROOT,
        )
        assert server.stdin is not None and server.stdout is not None
        pid = server.stdout.readline().strip()
        attacker = subprocess.Popen(
            [SYSTEM_PYTHON, "-c", ATTACKER, pid, str(home), str(drop), str(victim), str(stop)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            preexec_fn=_as_nobody,  # the second user, for real
            cwd="/",
        )
        assert attacker.stdout is not None
        assert attacker.stdout.readline().strip() == "planted", attacker.stderr
        server.stdin.write("go\n")
        server.stdin.flush()
        added, failed = server.stdout.readline().split()
        assert server.wait(timeout=300) == 0, server.stderr.read() if server.stderr else ""
        time.sleep(0.5)  # one more look of the second user's after the crawl ended
        stop.touch()
        read = json.loads(attacker.stdout.readline())
        attacker.wait(timeout=60)
        for process in (server, attacker):  # their pipes, closed
            process.communicate()
        assert int(added) >= 8 and int(failed) <= 3  # a real crawl of the corpus happened
        assert not (drop / "pwned").exists(), "the planted javaPath ran as root"
        planted = Path(tempfile.gettempdir()) / f"pylucene-mcp-tika-{pid}"
        written = [p.name for p in planted.iterdir() if p.stat().st_uid == os.getuid()]
        assert written == [], f"the server wrote into the second user's folder: {written}"
        assert victim.read_text() == "root's own file", "the planted link was written through"
        assert read == [], f"the second user read: {read[:5]}"
        leftovers = [p.name for p in (home / "tmp").iterdir()] if (home / "tmp").exists() else []
        assert leftovers == [], leftovers
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
        for planted in Path(tempfile.gettempdir()).glob("pylucene-mcp-*"):
            if planted.is_symlink() or planted.owner() == "nobody":
                subprocess.run(["rm", "-rf", str(planted)], check=False)
