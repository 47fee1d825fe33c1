"""Processes seen from /proc, for the crash and fault tests and bench/crash.py."""

from __future__ import annotations

from pathlib import Path


def tika_processes() -> set[int]:
    """The pids of every running Tika server or worker JVM."""
    found = set()
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if b"tika-server-standard" in cmdline.read_bytes():
                found.add(int(cmdline.parent.name))
        except OSError:
            continue
    return found
