"""The JVM's class-data archive: Lucene's, ICU's and the shims' classes as the JVM has parsed and
verified them, mapped from one file at the next start instead of read from the jars. Measured on
an index of 100k documents: JVM start, opening the index and a first search 1.4–1.5 s without
it, 0.7–1.2 s with it (docs/performance.md).

A child process writes it (``python -m pylucene_mcp.engine.lucene.class_archive FILE``): it
starts the JVM with ``-XX:ArchiveClassesAtExit=FILE``, writes two documents into an index of
its own in a private temporary folder (``<home>/tmp``), searches it and exits, and the JVM
writes the archive as it exits. FILE is the child's own; :func:`ensure` renames it to the
archive's place (:func:`pylucene_mcp.jvm.class_archive`) only when the child succeeded, so two
processes never write the same file and a half-written archive is never used. The JVM checks
that an archive fits its runtime and class path before it maps it, and starts without it
otherwise.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from pylucene_mcp import jvm
from pylucene_mcp.basics import private

log = logging.getLogger(__name__)

#: a child that has not written the archive in this time is stopped
TIMEOUT_S = 300


def ensure() -> Path | None:
    """Writes the class-data archive of this runtime and class path when there is none yet, by
    a child process. Returns the archive, or None when it could not be written (a runtime
    without class-data sharing, such as a trimmed one)."""
    home = jvm.find_java_home()
    target = jvm.class_archive(home, jvm.class_path())
    failed = target.with_name(target.name + ".failed")  # tried once: this runtime cannot
    for stale in target.parent.glob(target.name + ".*.tmp"):  # a child whose server quit
        with contextlib.suppress(OSError):
            if time.time() - stale.stat().st_mtime > TIMEOUT_S:
                stale.unlink()
    if target.is_file():
        return target
    if failed.exists():
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    mine = target.with_name(f"{target.name}.{os.getpid()}.tmp")
    try:
        done = subprocess.run(
            [sys.executable, "-m", "pylucene_mcp.engine.lucene.class_archive", str(mine)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=TIMEOUT_S,
            check=False,
        )
        if done.returncode == 0 and mine.is_file() and mine.stat().st_size > 0:
            os.replace(mine, target)
            log.info("class-data archive written: %s", target)
            return target
        log.info("no class-data archive (the child ended with %s)", done.returncode)
        failed.touch()
        return None
    except (OSError, subprocess.TimeoutExpired) as exc:
        log.info("no class-data archive: %s", exc)
        return None
    finally:
        mine.unlink(missing_ok=True)


def _write(archive: Path) -> None:
    """The child's work: load the classes that writing and searching load, then exit so that
    the JVM writes them into ``archive``."""
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend

    jvm.start(dump_classes=archive)
    folder = private.private_temp("classes-")  # this user's alone, never the shared temp folder
    try:
        index = EmbeddedBackend.open(folder / "index")
        try:
            with index.writer() as writer:
                writer.add_many(SAMPLE)
            index.search(SearchRequest("*vertr* OR lock~1", default_operator="OR"))
            english = [{"field": "language", "value": "en"}]
            index.search(SearchRequest('"signed contract"', filters=english))
        finally:
            index.close()
    finally:
        shutil.rmtree(folder, ignore_errors=True)


SAMPLE = [
    {"file_path": "/sample/en.txt", "content": "The contract was signed; locks changed.",
     "language": "en", "author": "A", "modified_date": 1_700_000_000_000},
    {"file_path": "/sample/de.txt", "content": "Der Arbeitsvertrag wurde unterschrieben.",
     "language": "de", "author": "B", "modified_date": 1_700_000_000_000},
]  # fmt: skip

if __name__ == "__main__":
    _write(Path(sys.argv[1]))
