"""Runs the Tika server so that it outlives neither the process that wanted it nor itself.

    python supervisor.py <pid to outlive> <command …>

:class:`~pylucene_mcp.crawler.tika_process.TikaProcess` starts this script (by its path, with the
same Python) instead of the parser JVM itself. It starts ``command`` on its own standard input
and output (the pipes the package talks to the JVM through), lets go of its copies of them (so
that the package sees the end of the output as soon as the JVM ends), and polls, twice a second,
whether the process ``pid`` and the server still run. When either is gone (the package's process
died, even by ``kill -9``, or the server exited) it stops the server's whole process tree:
terminate, then, two seconds later, kill, and again for a worker that Tika's watchdog was
restarting meanwhile. So no Tika JVM is left behind, on POSIX as on Windows (``psutil``; no
shell, no process groups needed).

It loads :mod:`pylucene_mcp.basics.portable` from its file rather than importing the
package, whose import would start far more than a supervisor needs (about 12 MB instead of 30).
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType

POLL_S = 0.5


def _portable() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "basics" / "portable.py"
    spec = importlib.util.spec_from_file_location("_pylucene_mcp_portable", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv: list[str]) -> int:
    if len(argv) < 3 or not argv[1].isdigit():
        print("usage: supervisor.py <pid to outlive> <command …>", file=sys.stderr)
        return 2
    portable = _portable()
    parent = int(argv[1])
    server = subprocess.Popen(argv[2:])  # stdin and stdout: the package's pipes
    with open(os.devnull, "r+b") as nothing:
        os.dup2(nothing.fileno(), 0)
        os.dup2(nothing.fileno(), 1)
    try:
        while server.poll() is None and portable.pid_alive(parent):
            time.sleep(POLL_S)
    finally:
        portable.kill_tree(server.pid, grace_s=2.0)
    return server.returncode if server.returncode is not None else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
