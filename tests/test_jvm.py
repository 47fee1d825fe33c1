"""The JVM boundary: lazy start, Java's stdout kept off fd 1, runtime lookup, error mapping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pylucene_mcp import JvmError, QuerySyntaxError, TooManyClausesError, jvm

ROOT = Path(__file__).resolve().parents[1]


def run_python(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
        env={**os.environ, **env},
        check=False,
    )


def test_importing_the_package_and_server_does_not_start_the_jvm() -> None:
    result = run_python(
        "import jpype, pylucene_mcp, pylucene_mcp.server, pylucene_mcp.cli\n"
        "print(jpype.isJVMStarted())"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False"


def test_java_system_out_never_reaches_stdout() -> None:
    result = run_python(
        "from pylucene_mcp import jvm\n"
        "jvm.start()\n"
        "jvm.jclass('java.lang.System').out.println('from-java')\n"
        "jvm.jclass('java.lang.System').out.flush()\n"
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == ""
    assert "from-java" in result.stderr


def test_a_bad_explicit_java_home_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_JAVA_HOME", str(tmp_path))
    with pytest.raises(JvmError, match="PYLUCENE_MCP_JAVA_HOME"):
        jvm.find_java_home()


def test_java_lookup_skips_an_old_java_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYLUCENE_MCP_JAVA_HOME", raising=False)
    old = Path("/usr/lib/jvm/java-17-openjdk-amd64")
    if not old.is_dir():
        pytest.skip("no Java 17 on this machine")
    monkeypatch.setenv("JAVA_HOME", str(old))
    assert jvm.java_major(jvm.find_java_home()) >= jvm.MIN_JAVA


def test_missing_jars_say_how_to_build_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_JARS", str(tmp_path))
    with pytest.raises(JvmError, match="make jars"):
        jvm.class_path()


def test_java_exceptions_map_to_project_errors() -> None:
    parse_exception = jvm.jclass("org.apache.lucene.queryparser.classic.ParseException")
    too_many = jvm.jclass("org.apache.lucene.search.IndexSearcher$TooManyClauses")
    assert isinstance(jvm.translate(parse_exception("bad")), QuerySyntaxError)
    assert isinstance(jvm.translate(too_many()), TooManyClausesError)
    with pytest.raises(JvmError, match="IllegalStateException"), jvm.java_errors():
        raise jvm.jclass("java.lang.IllegalStateException")("odd")
    assert jvm.translate(ValueError("python")) is None
