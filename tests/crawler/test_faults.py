"""Hostile files and failures: each is reported with its reason (or indexed where it can be),
the crawl finishes, and what was indexed stays."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import openpyxl
import pytest

from pylucene_mcp import Index
from pylucene_mcp.basics.errors import WorkerDiedError
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
from tests.crawler.files import make_hostile
from tests.processes import tika_processes
from tests.stdio_peer import ROOT, server_env
from tests.waiting import eventually, until


def reasons(crawler: Crawler) -> dict[str, str]:
    assert crawler.last is not None
    return {Path(f["path"]).name: f["reason"] for f in crawler.last.failures}


def test_hostile_files_are_reported_and_the_crawl_finishes(
    fresh_index: Index, tmp_path: Path
) -> None:
    expected = make_hostile(tmp_path / "hostile")
    (tmp_path / "hostile" / "good.txt").write_text("A perfectly normal file about otters.")
    # a Tika server of its own with a small size limit: the session's server stays as it is
    small = TikaProcess(TikaSettings(max_file_size_mb=0.1), log_dir=tmp_path / "tika-logs")
    crawler = Crawler(fresh_index, Extractor(small), CrawlSettings(batch_size=5))
    try:
        report = crawler.crawl([str(tmp_path / "hostile")])
    finally:
        small.close()
    why = reasons(crawler)
    assert "encrypted" in why["encrypted.pdf"]
    assert "corrupt" in why["corrupt.pdf"]
    assert "over the limit" in why["huge.txt"] and "max_file_size_mb" in why["huge.txt"]
    assert why["pipe.txt"] == "not a regular file"
    assert why["dangling.txt"] == "broken symbolic link"
    assert "loop" in why["back"]
    assert "outside the configured directories" in why["escape.txt"]
    assert "outside the configured directories" in why["escape-dir"]
    assert crawler.index.search("secret").total_hits == 0
    indexed = {Path(h.file_path).name for h in crawler.index.search("*", page_size=100).documents}
    assert indexed == {name for name, what in expected.items() if what == "indexed"} | {"good.txt"}
    lying = crawler.index.search("file_name:lying.pdf").documents[0]
    assert lying.file_type == "text/plain"  # detected from the content, not the name
    assert crawler.index.search("espresso").documents[0].file_path.endswith("caf\\xe9-menu.txt")
    assert crawler.index.search("otters").total_hits == 1
    assert report.failed == len(why) and not report.stopped


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads every file whatever its mode")
def test_an_unreadable_file_is_reported(crawler: Crawler, tmp_path: Path) -> None:
    folder = tmp_path / "locked"
    folder.mkdir()
    secret = folder / "secret.txt"
    secret.write_text("no access")
    secret.chmod(0)
    crawler.crawl([str(folder)])
    assert "permission denied" in reasons(crawler)["secret.txt"]


def test_a_file_deleted_while_queued_is_reported(crawler: Crawler, tmp_path: Path) -> None:
    folder = tmp_path / "vanishing"
    folder.mkdir()
    for n in range(4):
        (folder / f"file{n}.txt").write_text(f"text number {n} about badgers")
    doomed = folder / "file3.txt"

    def delete_before_extraction(done: int, total: int) -> None:
        if done == 0:
            doomed.unlink()

    report = crawler.crawl([str(folder)], progress=delete_before_extraction)
    assert "vanished" in reasons(crawler)["file3.txt"]
    assert report.added == 3 and crawler.index.search("badgers").total_hits == 3


def test_a_parser_timeout_is_reported_and_the_next_file_works(
    fresh_index: Index, tmp_path: Path
) -> None:
    folder = tmp_path / "slow"
    folder.mkdir()
    workbook = openpyxl.Workbook(write_only=True)
    sheet = workbook.create_sheet()
    for n in range(150_000):
        sheet.append([f"cell {n}", n, "some text in a big sheet"])
    workbook.save(str(folder / "a-big.xlsx"))
    (folder / "b-small.txt").write_text("small file about hedgehogs")
    server = TikaProcess(TikaSettings(timeout_s=1.0), log_dir=tmp_path / "logs")
    try:
        crawler = Crawler(fresh_index, Extractor(server), CrawlSettings(workers=1))
        crawler.crawl([str(folder)])
    finally:
        server.close()
    assert "longer than 1 s" in reasons(crawler)["a-big.xlsx"]
    assert fresh_index.search("hedgehogs").total_hits == 1


def test_the_tika_server_killed_mid_crawl_is_restarted(fresh_index: Index, tmp_path: Path) -> None:
    folder = tmp_path / "many"
    folder.mkdir()
    for n in range(30):
        (folder / f"note{n:02}.html").write_text(f"<p>note {n} about the migration of eels</p>")
    server = TikaProcess(TikaSettings(), log_dir=tmp_path / "logs")
    killed: list[int] = []

    def kill_once(done: int, total: int) -> None:
        if done == 5 and not killed and server.pid is not None:
            killed.append(server.pid)
            os.killpg(server.pid, signal.SIGKILL)

    try:
        crawler = Crawler(fresh_index, Extractor(server), CrawlSettings(batch_size=4))
        report = crawler.crawl([str(folder)], progress=kill_once)
        assert killed and server.restarts >= 1
        # the files in flight when it died are extracted again, alone: none is failed
        assert (report.added, report.failed, report.processed) == (30, 0, 30)
        assert not report.stopped
    finally:
        server.close()
    assert fresh_index.search("eels").total_hits == 30


@pytest.mark.slow
def test_kill_9_during_a_crawl_leaves_an_index_that_opens_and_converges(tmp_path: Path) -> None:
    folder = tmp_path / "bulk"
    folder.mkdir()
    for n in range(300):
        (folder / f"doc{n:03}.html").write_text(  # through Tika, whose JVM must die with it
            "<p>" + f"document {n} about lighthouses and tides " * 20 + "</p>"
        )
    index_path = tmp_path / "index"
    env = server_env(tmp_path / "home")
    tika_before = tika_processes()
    command = [
        sys.executable,
        "-m",
        "pylucene_mcp",
        "crawl",
        str(folder),
        "--index",
        str(index_path),
    ]
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        until(
            lambda: (
                proc.poll() is not None
                or (list(index_path.glob("segments_*")) and _count(index_path) >= 20)
            ),
            120,
            "20 documents committed",
        )
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    # its Tika server and worker follow it within seconds
    eventually(lambda: not tika_processes() - tika_before, 15)
    assert not tika_processes() - tika_before, "a Tika JVM outlived the killed crawl"
    partial = _count(index_path)
    assert partial >= 20  # commits made before the kill are there
    (folder / "doc000.html").unlink()  # the folder changes while nobody watches
    finished = subprocess.run(
        command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert finished.returncode == 0, finished.stderr
    index = Index.open(index_path, read_only=True)
    try:
        paths = {h.file_path for h in index.search("*", page_size=100, page=1).documents}
        assert len(index) == 299
        assert str(folder / "doc000.html") not in paths
    finally:
        index.close()


def _count(index_path: Path) -> int:
    try:
        index = Index.open(index_path, read_only=True)
    except Exception:
        return 0
    try:
        return len(index)
    finally:
        index.close()


class _DiesBeside(Extractor):
    """The real extractor, with the fault of a parser that dies: the poison file kills it each
    time it is parsed, and takes down the files that start beside it meanwhile (what a zip bomb
    did to a good document). Records whether each file taken down ran alone when tried again."""

    def __init__(self, server: TikaProcess) -> None:
        super().__init__(server)
        self.lock = threading.Lock()
        self.running = 0
        self.dying = threading.Event()
        self.downed: set[str] = set()
        self.retried_alone: dict[str, bool] = {}

    def extract(self, path: Path, *args: Any) -> Any:
        with self.lock:
            self.running += 1
            alone = self.running == 1
        try:
            if path.name == "a-poison.txt":  # walked first: the others start beside it
                self.dying.set()
                time.sleep(0.3)  # the files that start meanwhile go down with it
                self.dying.clear()
                raise WorkerDiedError("the file crashed Tika's parser process")
            if path.name in self.downed:
                self.retried_alone[path.name] = alone
            elif self.dying.is_set():
                self.downed.add(path.name)
                raise WorkerDiedError("Tika answered HTTP 500 for the file")
            return super().extract(path, *args)
        finally:
            with self.lock:
                self.running -= 1


def test_a_file_beside_one_that_kills_the_parser_is_retried_alone(
    fresh_index: Index, tika: TikaProcess, tmp_path: Path
) -> None:
    folder = tmp_path / "mixed"
    folder.mkdir()
    (folder / "a-poison.txt").write_text("this one kills the parser")
    for n in range(8):
        (folder / f"good{n}.txt").write_text(f"good file {n} about kittiwakes")
    extractor = _DiesBeside(tika)
    crawler = Crawler(fresh_index, extractor, CrawlSettings(batch_size=4, workers=3))
    report = crawler.crawl([str(folder)])
    assert extractor.downed, "no file was in flight beside the poison: the test proves nothing"
    assert extractor.retried_alone == dict.fromkeys(extractor.downed, True)
    assert reasons(crawler) == {"a-poison.txt": "the file crashed Tika's parser process"}
    assert (report.added, report.failed, report.processed) == (8, 1, 9)
    assert fresh_index.search("kittiwakes").total_hits == 8
    assert crawler.in_progress == set()
