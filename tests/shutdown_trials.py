"""Closing stdin at a chosen moment of ``pylucene-mcp serve``'s start-up crawl, and what must
hold after (tests/crawler/test_shutdown.py runs a few moments, bench/shutdown.py twenty): the
server exits 0, its stderr and log hold no error or traceback, no Tika process of it is left,
and the index opens with whole documents only."""

from __future__ import annotations

import time
from pathlib import Path

from pylucene_mcp import Index
from tests.stdio_peer import StdioPeer, handshake
from tests.waiting import eventually

FILES = 40


def make_folder(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in range(FILES):
        # HTML: through Tika, whose JVM must end with the server (a text file is read as is)
        text = f"<p>note {n} about guillemots and razorbills</p>\n" * 20
        (folder / f"note{n:02}.html").write_text(text)
    return folder


def processes_of(home: Path) -> list[str]:
    """The command lines of live processes that name ``home`` (the server's Tika children do:
    their configuration lives under it)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if str(home) in command:
            found.append(f"{entry.name}: {command[:200]}")
    return found


def trial(folder: Path, root: Path, delay_s: float) -> tuple[list[str], int, float]:
    """Spawns the server over ``folder``, closes its stdin ``delay_s`` after the handshake (the
    moment is the trial's input), and returns what went wrong (nothing: a clean end), how
    many of the folder's files the index holds, and the seconds from closing stdin to the
    server's exit."""
    home, index_path = root / "home", root / "index"
    peer = StdioPeer(index_path, home, extra_env={"PYLUCENE_MCP_DIRECTORIES": str(folder)})
    handshake(peer, "2025-11-25")
    time.sleep(delay_s)
    closed = time.monotonic()
    _, stderr = peer.close()
    exit_s = time.monotonic() - closed
    problems = []
    if peer.proc.returncode != 0:
        problems.append(f"exit code {peer.proc.returncode}")
    logs = "".join(p.read_text(errors="replace") for p in sorted((home / "logs").glob("*.log*")))
    for line in (stderr + "\n" + logs).splitlines():
        if "Traceback" in line or " ERROR " in line or "Exception" in line:
            problems.append(line[:300])
    # the Tika supervisor ends its JVM when the server is gone
    eventually(lambda: not processes_of(home), 15)
    problems += [f"left running: {p}" for p in processes_of(home)]
    index = Index.open(index_path)
    try:
        hits = index.search("*", page_size=100, max_passages=0).documents
        for hit in hits:
            if not Path(hit.file_path).name.startswith("note"):
                problems.append(f"a document that is no file of the folder: {hit.file_path}")
    finally:
        index.close()
    return problems, len(hits), exit_s
