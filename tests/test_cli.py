"""The command line as a person meets it: doctor, serve started in a terminal, a crawl beside a
running server, unlock. Real processes, real Lucene."""

from __future__ import annotations

import json
import os
import pty
import selectors
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stdio_peer import ROOT, StdioPeer, cli, handshake, server_env
from tests.waiting import until

pytestmark = pytest.mark.slow


def test_doctor_checks_each_part_and_prints_this_installs_client_block(
    closed_index_path: Path, tmp_path: Path
) -> None:
    result = cli(tmp_path, "doctor", "--json", PYLUCENE_MCP_INDEX=str(closed_index_path))
    assert result.returncode == 0, result.stdout + result.stderr
    report = json.loads(result.stdout)
    checks = {c["name"]: c for c in report["checks"]}
    assert set(checks) == {
        "java",
        "jars",
        "config",
        "index",
        "logs",
        "ocr",
        "tika",
        "crash reports",
    }
    assert all(c["status"] == "ok" for c in checks.values()), checks
    assert "languages eng+deu" in checks["ocr"]["detail"]
    assert "Java 2" in checks["java"]["detail"]
    assert "Lucene 10." in checks["jars"]["detail"]
    assert "pylucene-mcp-solr.jar, pylucene-mcp-tika.jar" in checks["jars"]["detail"]
    assert report["claudeCode"].startswith("claude mcp add --scope user --env PYLUCENE_MCP_INDEX=")
    assert "11 documents" in checks["index"]["detail"]
    server = report["clientConfig"]["mcpServers"]["pylucene-mcp"]
    assert Path(server["command"]).is_absolute()
    assert server["env"]["PYLUCENE_MCP_INDEX"] == str(closed_index_path)
    assert (tmp_path / "logs").is_dir()


def test_doctor_says_what_is_wrong_in_plain_words(tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text("workers: [not, a, number\n")
    result = cli(tmp_path, "doctor", PYLUCENE_MCP_JARS=str(tmp_path))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert any(line.strip().startswith("FAIL  config") for line in lines), result.stdout
    assert any(
        line.strip().startswith("FAIL  jars") and "PYLUCENE_MCP_JARS" in line for line in lines
    ), result.stdout
    assert "Fix what FAILED above" in result.stdout
    assert '"mcpServers"' in result.stdout  # the block is printed all the same


def test_doctor_says_how_to_install_tesseract_and_fails_only_when_ocr_is_on(
    tmp_path: Path,
) -> None:
    nowhere = str(tmp_path / "no-tesseract")
    result = cli(tmp_path, "doctor", "--json", PYLUCENE_MCP_TESSERACT_PATH=nowhere)
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["ocr"]["status"] == "warning", checks["ocr"]
    assert "tesseract-ocr-deu" in checks["ocr"]["detail"]
    assert "name and metadata only (ocr: needed)" in checks["ocr"]["detail"]
    result = cli(tmp_path, "doctor", "--json", PYLUCENE_MCP_TESSERACT_PATH=nowhere,
                 PYLUCENE_MCP_OCR="on")  # fmt: skip
    assert result.returncode == 1
    checks = {c["name"]: c for c in json.loads(result.stdout)["checks"]}
    assert checks["ocr"]["status"] == "failed"


def test_serve_in_a_terminal_says_once_on_stderr_that_it_waits(
    closed_index_path: Path, tmp_path: Path
) -> None:
    controller, terminal = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "pylucene_mcp", "serve", "--index", str(closed_index_path)],
        stdin=terminal,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env=server_env(tmp_path),
    )
    os.close(terminal)
    try:
        assert proc.stderr is not None
        selector = selectors.DefaultSelector()
        selector.register(proc.stderr, selectors.EVENT_READ)
        assert selector.select(timeout=60), "nothing on stderr"
        line = proc.stderr.readline().decode()
        assert "waiting for an MCP client on stdin" in line
        assert "pylucene-mcp doctor" in line
    finally:
        proc.terminate()
        out, err = proc.communicate(timeout=60)
        os.close(controller)
    assert out == b""  # stdout stays the protocol's
    assert b"waiting for an MCP client" not in err  # said once


def test_serve_from_a_pipe_says_nothing_of_the_kind(
    closed_index_path: Path, tmp_path: Path
) -> None:
    peer = StdioPeer(closed_index_path, tmp_path)
    try:
        handshake(peer, "2025-11-25")
    finally:
        _, stderr = peer.close()
    assert "waiting for an MCP client" not in stderr


def test_a_crawl_beside_a_running_server_names_it_and_unlock_will_not_break_it(
    tmp_path: Path,
) -> None:
    index = tmp_path / "index"
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.txt").write_text("alpha")
    peer = StdioPeer(index, tmp_path / "home")
    try:
        handshake(peer, "2025-11-25")
        owner = index / "pylucene-mcp.owner"
        until(owner.is_file, 60, "the owner file")  # the server opens its index in the background
        crawl = cli(tmp_path / "home", "crawl", str(docs), "--index", str(index))
        assert crawl.returncode == 2
        assert f"in use by `pylucene-mcp serve` (pid {peer.proc.pid}" in crawl.stderr
        assert "startCrawl" in crawl.stderr and f"kill {peer.proc.pid}" in crawl.stderr
        assert "Traceback" not in crawl.stderr
        refused = cli(tmp_path / "home", "unlock", "--index", str(index))
        assert refused.returncode == 2
        assert f"pid {peer.proc.pid}" in refused.stderr
        search = cli(tmp_path / "home", "search", "alpha", "--index", str(index))
        assert search.returncode == 0, search.stderr  # reading works beside the writer
    finally:
        peer.close()
    assert not (index / "pylucene-mcp.owner").exists()  # a clean stop takes its record along
    freed = cli(tmp_path / "home", "unlock", "--index", str(index))
    assert freed.returncode == 0, freed.stderr
    assert "no process held the lock" in freed.stdout
    crawl = cli(tmp_path / "home", "crawl", str(docs), "--index", str(index), "--json")
    assert crawl.returncode == 0, crawl.stderr
    assert json.loads(crawl.stdout)["added"] == 1


def test_the_cli_asks_a_running_server_and_speaks_the_tools_words(tmp_path: Path) -> None:
    docs, home, index = tmp_path / "docs", tmp_path / "home", tmp_path / "index"
    docs.mkdir()
    (docs / "a.txt").write_text("alpha and omega")
    crawl = cli(home, "crawl", str(docs), "--index", str(index), "--json")
    assert crawl.returncode == 0, crawl.stderr
    report = json.loads(crawl.stdout)  # the crawler tools' words: camelCase, ISO times
    assert report["added"] == 1 and report["perDirectory"][str(docs)]["added"] == 1
    assert report["started"].endswith("Z") and "files_per_s" not in report
    no_java = {"PYLUCENE_MCP_JAVA_HOME": str(tmp_path / "no-java")}
    peer = StdioPeer(index, home)
    try:
        handshake(peer, "2025-11-25")
        until(lambda: (index / "pylucene-mcp.owner").is_file(), 60, "the server's writer")
        # no JVM can start here: the answer comes from the running server
        found = cli(home, "search", "omega", "--index", str(index), "--json", **no_java)
        assert found.returncode == 0, found.stderr
        assert json.loads(found.stdout)["totalHits"] == 1
        shown = cli(home, "search", "omega", "--index", str(index), **no_java)
        assert shown.stdout.startswith("1 hits") and "[omega]" in shown.stdout
        stats = cli(home, "stats", "--index", str(index), **no_java)
        assert json.loads(stats.stdout)["documentCount"] == 1
        refused = cli(home, "search", "(a", "--index", str(index), **no_java)
        assert refused.returncode == 2 and "Traceback" not in refused.stderr
    finally:
        peer.close()
    alone = cli(home, "search", "omega", "--index", str(index), **no_java)
    assert alone.returncode != 0 and "PYLUCENE_MCP_JAVA_HOME" in alone.stderr


def test_the_cli_s_hints_are_for_a_shell(tmp_path: Path) -> None:
    missing = cli(tmp_path, "search", "x", "--index", str(tmp_path / "none"))
    assert missing.returncode == 2
    assert "pylucene-mcp crawl DIR" in missing.stderr and "--index" in missing.stderr
    a_file = tmp_path / "notes.txt"
    a_file.write_text("not an index")
    wrong = cli(tmp_path, "search", "x", "--index", str(a_file))
    assert wrong.returncode == 2 and "is a file, not an index's folder" in wrong.stderr


def test_a_query_that_begins_with_a_minus_is_the_query(tmp_path: Path) -> None:
    """`pylucene-mcp search -debian` was taken for an option (only `-- -debian` worked)."""
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "debian.txt").write_text("the debian handbook")
    (docs / "other.txt").write_text("the other handbook")
    home = tmp_path / "home"  # the product's files apart from the documents
    home.mkdir()
    index = str(home / "index")
    crawled = cli(home, "crawl", str(docs), "--index", index)
    assert crawled.returncode == 0, crawled.stderr
    for argv in (["-debian"], ["-debian", "--json"], ["--json", "--", "-debian"]):
        found = cli(home, "search", "--index", index, "--json", *argv)
        assert found.returncode == 0, found.stderr
        paths = [hit["filePath"] for hit in json.loads(found.stdout)["documents"]]
        assert paths == [str(docs / "other.txt")], argv


def test_a_size_range_filter_is_numbers_as_the_tool_takes_it() -> None:
    """The CLI's --json had echoed a size range's ends as strings where MCP gives numbers."""
    from pylucene_mcp.cli import parse_filter

    assert parse_filter("file_size=1000..2000") == {
        "field": "file_size",
        "operator": "range",
        "from": 1000,
        "to": 2000,
    }
    assert parse_filter("file_size=..5")["from"] is None
    assert parse_filter("modified_date=2024-01-01..")["from"] == "2024-01-01"


def test_quote_says_where_a_quote_stands_from_the_index_and_from_a_running_server(
    tmp_path: Path,
) -> None:
    docs, home, index = tmp_path / "docs", tmp_path / "home", tmp_path / "index"
    docs.mkdir()
    text = "The tenant may terminate the lease with three months’ written notice."
    (docs / "lease.txt").write_text(text)
    assert cli(home, "crawl", str(docs), "--index", str(index)).returncode == 0
    asked = "the tenant may terminate the lease with three months' written notice"
    alone = cli(home, "quote", asked, "--index", str(index), "--json")
    assert alone.returncode == 0, alone.stderr
    place = json.loads(alone.stdout)["matches"][0]
    assert (place["match"], place["start"], place["text"]) == ("normalized", 0, text[:-1])
    near = cli(
        home, "quote", "The tenant may end the lease with three months", "--index", str(index)
    )
    assert near.returncode == 0 and near.stdout.startswith("near 0.")
    assert "quoted 'end', written 'terminate'" in near.stdout
    nowhere = cli(home, "quote", "ships unload grain at the harbour", "--index", str(index))
    assert nowhere.returncode == 1
    no_java = {"PYLUCENE_MCP_JAVA_HOME": str(tmp_path / "no-java")}
    peer = StdioPeer(index, home)
    try:
        handshake(peer, "2025-11-25")
        until(lambda: (index / "pylucene-mcp.owner").is_file(), 60, "the server's writer")
        served = cli(home, "quote", asked, "--index", str(index), "--json", **no_java)
        assert served.returncode == 0, served.stderr
        assert json.loads(served.stdout)["matches"][0] == place
    finally:
        peer.close()
