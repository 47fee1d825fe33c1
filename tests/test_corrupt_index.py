"""A corrupt index is recovered with the product. Issue: the message said "reindex it", but
startCrawl and `pylucene-mcp purge --yes --full` failed the same way; only deleting the folder
helped. Now the message names `pylucene-mcp rebuild`, which removes the index without opening it
and crawls the configured folders again; `purge --yes --full` and the admin tool's full purge
work on a corrupt index too; and a folder that is not an index's is never removed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from pylucene_mcp import Index, IndexCorruptError
from tests.stdio_peer import ROOT, server_env
from tests.waiting import arrives

pytestmark = pytest.mark.slow


def corrupt_index(path: Path, docs: int = 30) -> None:
    """An index of ``docs`` documents whose compound segment file is cut in half."""
    index = Index.open(path)
    with index.writer() as w:
        for n in range(docs):
            w.add({"file_path": f"/old/{n}.txt", "content": f"old note {n} about skuas"})
    index.close()
    (segment,) = path.glob("_*.cfs")
    data = segment.read_bytes()
    segment.write_bytes(data[: len(data) // 2])


def run(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", *args],
        cwd=ROOT,
        env=server_env(home),
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_a_corrupt_index_is_named_and_rebuilt_from_the_configured_folders(tmp_path: Path) -> None:
    home, docs = tmp_path / "home", tmp_path / "docs"
    docs.mkdir()
    for n in range(4):
        (docs / f"note{n}.txt").write_text(f"a new note {n} about petrels")
    home.mkdir()
    (home / "config.yaml").write_text(f"directories:\n  - {docs}\n")
    index_path = home / "index"
    corrupt_index(index_path)
    with pytest.raises(IndexCorruptError, match="pylucene-mcp rebuild"):
        Index.open(index_path, read_only=True)
    doctor = json.loads(run(home, "doctor", "--json").stdout)
    (check,) = [c for c in doctor["checks"] if c["name"] == "index"]
    assert check["status"] == "failed" and "pylucene-mcp rebuild" in check["detail"]
    rebuilt = run(home, "rebuild", "--json")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert json.loads(rebuilt.stdout)["added"] == 4
    index = Index.open(index_path, read_only=True)
    try:
        assert index.search("petrels").total_hits == 4 and index.search("skuas").total_hits == 0
    finally:
        index.close()


def test_purge_full_removes_a_corrupt_index_and_leaves_other_folders_alone(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    index_path = tmp_path / "index"
    corrupt_index(index_path)
    purged = run(home, "purge", "--yes", "--full", "--index", str(index_path))
    assert purged.returncode == 0, purged.stderr
    index = Index.open(index_path, read_only=True)
    try:
        assert len(index) == 0
    finally:
        index.close()
    documents = tmp_path / "documents"  # a folder named as the index by mistake
    documents.mkdir()
    (documents / "thesis.docx").write_bytes(b"PK")
    refused = run(home, "purge", "--yes", "--full", "--index", str(documents))
    assert refused.returncode != 0
    assert "not an index's" in refused.stderr and (documents / "thesis.docx").exists()


@pytest.mark.anyio
async def test_the_admin_tool_s_full_purge_recovers_a_corrupt_index(tmp_path: Path) -> None:
    from mcp import Client

    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.server.app import build_server
    from pylucene_mcp.service.service import Service

    index_path = tmp_path / "index"
    corrupt_index(index_path)
    service = Service(Settings(index_path=index_path, crawl_on_start=False))
    try:
        async with Client(build_server(service.settings, service)) as client:
            failed = await client.call_tool("search", {"query": "skuas"})
            assert failed.is_error and "pylucene-mcp rebuild" in failed.content[0].text  # type: ignore[union-attr]
            # a model cannot run a shell: the error names the way through the tools too
            said = failed.content[0].text  # type: ignore[union-attr]
            assert "purgeIndex {confirm: true, fullPurge: true}, then startCrawl" in said
            started = await client.call_tool("purgeIndex", {"confirm": True, "fullPurge": True})
            assert not started.is_error, started.content
            operation = (started.structured_content or {})["operationId"]

            async def state() -> str:
                status = await client.call_tool("getIndexAdminStatus", {"operationId": operation})
                (found,) = (status.structured_content or {})["operations"]
                return str(found["state"])

            ended = await arrives(state, lambda s: s != "running", 10, "the purge's end")
            assert ended == "done"
            found = await client.call_tool("search", {"query": "skuas"})
            assert not found.is_error and (found.structured_content or {})["totalHits"] == 0
    finally:
        service.close()
