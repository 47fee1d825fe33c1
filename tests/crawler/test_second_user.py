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
import socket
import subprocess
import sys
import tempfile
import threading
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
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
jvm.start()
index = Index.open(Path(sys.argv[2]))
server = TikaProcess(TikaSettings())
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


def server_process(code: str, home: Path, *args: str) -> subprocess.Popen[str]:
    """``code`` run as the server's user (root here) with its home in ``home``."""
    return subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYLUCENE_MCP_HOME": str(home), "PYTHONPATH": str(ROOT)},
        cwd=ROOT,
    )


def second_user(code: str, *args: str) -> subprocess.Popen[str]:
    """``code`` run by the system's Python as ``nobody``, the second user, for real."""
    if SYSTEM_PYTHON is None:
        pytest.fail("no system python3 for the second user (apt-get install python3)")
    return subprocess.Popen(
        [SYSTEM_PYTHON, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_as_nobody,
        cwd="/",
    )


def test_a_second_user_can_neither_take_over_nor_read_a_copy(tmp_path: Path) -> None:
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
        server = server_process(SERVER, home, str(docs), str(home / "index"))
        assert server.stdin is not None and server.stdout is not None
        pid = server.stdout.readline().strip()
        attacker = second_user(ATTACKER, pid, str(home), str(drop), str(victim), str(stop))
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


PARSER_SERVER = r"""
import json, os, sys
from pathlib import Path
print(os.getpid(), flush=True)
sys.stdin.readline()  # the second user has looked at what listened before
from pylucene_mcp import Index, jvm
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
jvm.start()
index = Index.open(Path(sys.argv[2]))
server = TikaProcess(TikaSettings())
try:
    report = Crawler(index, Extractor(server), CrawlSettings(batch_size=5)).crawl([sys.argv[1]])
    found = {
        n: sorted(Path(h.file_path).name for h in index.search(f"pinword{n:03}").documents)
        for n in range(int(sys.argv[3]))
    }
    print(json.dumps({"added": report.added, "failed": report.failed, "found": found,
                      "restarts": server.restarts}), flush=True)
finally:
    server.close()
    index.close()
"""

PROBER = r"""
import json, os, socket, sys, time
from pathlib import Path
stop = Path(sys.argv[1])

def listening():
    ports = set()
    for table, family in (("/proc/net/tcp", socket.AF_INET), ("/proc/net/tcp6", socket.AF_INET6)):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            fields = line.split()
            if fields[3] == "0A":  # LISTEN
                ports.add((family, int(fields[1].rsplit(":", 1)[1], 16)))
    return ports

before = listening()
print("looked", flush=True)
reached = {}
deadline = time.monotonic() + 240
while not stop.exists() and time.monotonic() < deadline:
    for family, port in listening() - before:
        if str(port) in reached:
            continue
        for family, host in ((socket.AF_INET, "127.0.0.1"), (socket.AF_INET6, "::1")):
            try:
                with socket.socket(family, socket.SOCK_STREAM) as sock:
                    sock.settimeout(2)
                    sock.connect((host, port))
                    sock.sendall(b"GET /version HTTP/1.1\r\nHost: localhost\r\n\r\n")
                    reached[str(port)] = sock.recv(300).decode("latin-1")
                    break
            except OSError:
                pass
    time.sleep(0.05)
print(json.dumps(reached), flush=True)
"""


def _listeners(pid: int) -> set[str]:
    """The listening sockets (TCP, UDP bound, Unix) of ``pid`` and every process below it."""
    import psutil

    found = set()
    try:
        tree = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return found
    for process in tree:
        try:
            for conn in process.net_connections(kind="all"):
                listening = conn.status == psutil.CONN_LISTEN or (
                    conn.type == socket.SOCK_DGRAM and conn.laddr
                )
                if listening:
                    found.add(f"{process.name()} {conn.family.name} {conn.laddr}")
        except psutil.Error:
            continue
    return found


def test_a_second_user_can_neither_reach_nor_replace_the_parser(tmp_path: Path) -> None:
    """Issue: Tika listened on a loopback port that any local user could call (its parsers, its
    documents) or take over when it restarted, and then received every private file the crawl
    sent. Now the parser process has no socket at all: the second user, probing every port that
    starts listening during a crawl, reaches nothing, and the index holds each file's true
    text."""
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    files = 40
    for n in range(files):
        secret = private / f"note{n:03}.html"  # through Tika (a text file is read as it is)
        secret.write_text(f"VICTIMSECRET-{n:03} the bank PIN is {1000 + n}, pinword{n:03}\n" * 50)
        secret.chmod(0o600)
    make_corpus(private / "office")
    base = Path(tempfile.mkdtemp(prefix="second-user-", dir=tempfile.gettempdir()))
    base.chmod(0o755)  # where the second user looks for the sign to stop
    stop = base / "stop"
    server = server_process(
        PARSER_SERVER, tmp_path / "home", str(private), str(tmp_path / "index"), str(files)
    )
    assert server.stdin is not None and server.stdout is not None
    pid = int(server.stdout.readline())
    prober = second_user(PROBER, str(stop))
    assert prober.stdout is not None
    assert prober.stdout.readline().strip() == "looked", prober.stderr
    listeners: set[str] = set()
    done = threading.Event()

    def watch() -> None:  # as the server's own user: what its process tree listens on
        while not done.is_set():
            listeners.update(_listeners(pid))
            time.sleep(0.05)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    try:
        server.stdin.write("go\n")
        server.stdin.flush()
        result = json.loads(server.stdout.readline())
        assert server.wait(timeout=300) == 0, server.stderr.read() if server.stderr else ""
    finally:
        done.set()
        watcher.join(timeout=10)
        stop.touch()
        reached = json.loads(prober.stdout.readline() or "{}")
        prober.wait(timeout=60)
        for process in (server, prober):
            process.communicate()
        subprocess.run(["rm", "-rf", str(base)], check=False)
    assert prober.returncode == 0, "the second user's prober failed"
    assert result["added"] >= files + 8, result  # a real crawl happened
    assert listeners == set(), f"the server's processes listened: {sorted(listeners)}"
    assert reached == {}, f"the second user reached: {reached}"
    # every file's own text was indexed, and nothing else under its name
    assert result["found"] == {str(n): [f"note{n:03}.html"] for n in range(files)}


SWAP_SERVER = r"""
import json, os, sys
from pathlib import Path
from pylucene_mcp import Index, jvm
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
jvm.start()
index = Index.open(Path(sys.argv[2]))
server = TikaProcess(TikaSettings())

def after_the_walk(done, total):
    if done == 0:  # every file checked, none read yet: now the second user acts
        print("walked", flush=True)
        sys.stdin.readline()

try:
    crawler = Crawler(index, Extractor(server), CrawlSettings(batch_size=5))
    report = crawler.crawl([sys.argv[1]], progress=after_the_walk)
    failures = {Path(f["path"]).name: f["reason"] for f in report.failures}
    hits = sorted(Path(h.file_path).name for h in index.search("rootsecret").documents)
    print(json.dumps({"added": report.added, "failures": failures, "hits": hits}), flush=True)
finally:
    server.close()
    index.close()
"""

SWAP = r"""
import os, sys
name, target = sys.argv[1:3]
os.remove(name)
os.symlink(target, name)
"""


def test_a_file_swapped_for_a_link_after_the_walk_is_not_read(tmp_path: Path) -> None:
    """Issue: in a folder the server crawls that another user can write to, that user replaced
    their own file by a link to a private file of the server's user after the walk had checked
    it; the private file's text was indexed under the other user's file name. Now the file that
    is read is the file that was checked."""
    base = Path(tempfile.mkdtemp(prefix="second-user-", dir=tempfile.gettempdir()))
    base.chmod(0o755)
    try:
        shared = base / "shared"  # a folder both may write to (a family or lab share)
        shared.mkdir()
        shared.chmod(0o777)
        for n in range(3):
            (shared / f"mine{n}.txt").write_text(f"the server user's own note {n} about owls")
        notes = shared / "zz-notes.txt"
        notes.write_text("the second user's harmless notes")
        os.chown(notes, NOBODY, NOBODY)
        victim = base / "victim.txt"  # a private file of the server's user, elsewhere
        victim.write_text("ROOTSECRET the server user's private text")
        victim.chmod(0o600)
        server = server_process(
            SWAP_SERVER, tmp_path / "home", str(shared), str(tmp_path / "index")
        )
        assert server.stdin is not None and server.stdout is not None
        assert server.stdout.readline().strip() == "walked", server.stderr
        swapper = second_user(SWAP, str(notes), str(victim))
        _, swap_errors = swapper.communicate(timeout=60)
        assert swapper.returncode == 0, swap_errors
        assert notes.is_symlink()
        server.stdin.write("go\n")
        server.stdin.flush()
        result = json.loads(server.stdout.readline())
        assert server.wait(timeout=300) == 0, server.stderr.read() if server.stderr else ""
        server.communicate()
        assert result["hits"] == [], "the private file was read through the planted link"
        assert "replaced" in result["failures"]["zz-notes.txt"], result
        assert result["added"] == 3, result
    finally:
        subprocess.run(["rm", "-rf", str(base)], check=False)
