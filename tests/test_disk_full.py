"""A full disk: the writer says "no space left on device" with the index's path, rolls back,
keeps every committed document, and the index opens afterwards. Runs on a 6 MB tmpfs in a
private mount namespace (needs unshare and root, or user namespaces)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.stdio_peer import ROOT

pytestmark = pytest.mark.slow

FILL = r"""
import json, secrets, sys
from pylucene_mcp import DiskFullError, Index
path = sys.argv[1]
index = Index.open(path)
with index.writer() as w:
    w.add({"file_path": "/d/kept.txt", "content": "the kept words"})
error = None
for n in range(500):
    words = " ".join(secrets.token_hex(6) for _ in range(20000))
    try:
        with index.writer() as w:
            w.add({"file_path": f"/d/{n}.txt", "content": words})
    except DiskFullError as exc:
        error = str(exc)
        break
committed = len(index)
try:
    with index.writer() as w:  # the writer works again once the block is rolled back
        w.delete("/d/0.txt")
    after_delete = len(index)
except DiskFullError:
    after_delete = None
index.close()
reopened = Index.open(path)
print(json.dumps({"error": error, "committed": committed, "after_delete": after_delete,
                  "reopened": len(reopened), "kept": reopened.search("kept").total_hits}))
reopened.close()
"""


def _in_small_disk(tmp_path: Path, *command: str) -> subprocess.CompletedProcess[str]:
    disk = tmp_path / "disk"
    disk.mkdir()
    unshare = ["unshare", "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        unshare[1:1] = ["--user", "--map-root-user"]
    script = f'mount -t tmpfs -o size=6m tmpfs "{disk}" && exec "$@"'
    return subprocess.run(
        [*unshare, "sh", "-c", script, "small-disk", *command],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        check=False,
    )


@pytest.fixture
def small_disk_works(tmp_path: Path) -> None:
    if shutil.which("unshare") is None:
        pytest.skip("no unshare")
    probe = _in_small_disk(tmp_path, "true")
    if probe.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {probe.stderr.strip()}")
    (tmp_path / "disk").rmdir()


def test_a_full_disk_is_named_and_loses_nothing_committed(
    small_disk_works: None, tmp_path: Path
) -> None:
    index = tmp_path / "disk" / "index"
    result = _in_small_disk(tmp_path, sys.executable, "-c", FILL, str(index))
    assert result.returncode == 0, result.stderr[-3000:]
    facts = json.loads(result.stdout.strip().splitlines()[-1])
    assert facts["error"] is not None, "the disk never filled"
    assert facts["error"].startswith("no space left on device while writing the index at")
    assert str(index) in facts["error"]
    assert "everything committed before is kept" in facts["error"]
    assert facts["kept"] == 1
    assert facts["committed"] >= 2  # kept.txt and at least one large document
    assert facts["after_delete"] == facts["committed"] - 1  # the writer works again
    assert facts["reopened"] == facts["after_delete"]
    assert "AlreadyClosedException" not in result.stdout + result.stderr


def test_the_cli_reports_a_full_disk_in_its_json(small_disk_works: None, tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    import secrets

    for n in range(60):
        (docs / f"{n}.txt").write_text(" ".join(secrets.token_hex(6) for _ in range(20000)))
    index = tmp_path / "disk" / "index"
    result = _in_small_disk(
        tmp_path,
        sys.executable,
        "-m",
        "pylucene_mcp",
        "crawl",
        str(docs),
        "--index",
        str(index),
        "--json",
    )
    out = json.loads(result.stdout)  # the error, or the report (indented): one JSON value
    if "error" in out:  # the commit of a batch failed: the crawl says why, in JSON
        assert result.returncode == 2
        assert "no space left on device" in out["error"]
    else:  # each failed file is reported with the reason
        reasons = " ".join(f["reason"] for f in out["failures"])
        assert out["failed"] > 0 and "no space left on device" in reasons


CRAWL = r"""
import json, sys
from pylucene_mcp import DiskFullError, Index, jvm
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
docs, path = sys.argv[1:3]
jvm.start()
index = Index.open(path)
server = TikaProcess(TikaSettings())
crawler = Crawler(index, Extractor(server), CrawlSettings(batch_size=5))
error = None
try:
    crawler.crawl([docs])
except DiskFullError as exc:
    error = str(exc)
report = crawler.last
held = len(index)
server.close()
index.close()
print(json.dumps({"error": error, "added": report.added, "updated": report.updated,
                  "failed": report.failed, "found": report.found, "held": held}))
"""


def test_the_crawl_counts_what_the_index_holds_after_a_full_disk(
    small_disk_works: None, tmp_path: Path
) -> None:
    """A batch whose commit fails is no "added": the report had said added 166 while the index
    held 66. Its files count as failed, with the reason."""
    import secrets

    docs = tmp_path / "docs"
    docs.mkdir()
    for n in range(60):
        (docs / f"{n:02}.txt").write_text(" ".join(secrets.token_hex(6) for _ in range(20000)))
    result = _in_small_disk(
        tmp_path, sys.executable, "-c", CRAWL, str(docs), str(tmp_path / "disk" / "index")
    )
    assert result.returncode == 0, result.stderr[-3000:]
    facts = json.loads(result.stdout.strip().splitlines()[-1])
    assert facts["error"] is not None and "no space left on device" in facts["error"]
    assert facts["added"] + facts["updated"] == facts["held"]
    assert facts["held"] + facts["failed"] <= facts["found"] == 60
