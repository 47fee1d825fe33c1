"""The index holds what the configured folders hold: one policy for the tools, the command line
and the Python API. A crawl of every configured folder removes what none of them covers (a folder
crawled once by hand, a script's documents); removing a folder keeps the documents another
configured folder still covers; the command line's crawl refuses what addCrawlableDirectory
refuses, and the folders it crawls become configured ones."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from pylucene_mcp import Index
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.service.service import Service
from tests.stdio_peer import cli


@pytest.fixture
def place(tmp_path: Path) -> dict[str, Path]:
    folders = {
        "parent": tmp_path / "docs",
        "child": tmp_path / "docs" / "child",
        "other": tmp_path / "other",
        "home": tmp_path / "home",
    }
    for folder in folders.values():
        folder.mkdir(parents=True, exist_ok=True)
    for name in ("parent", "child", "other"):
        for n in range(3):
            (folders[name] / f"{name}{n}.txt").write_text(f"{name} note {n} about petrels")
    return folders


@pytest.fixture
def service(place: dict[str, Path]) -> Iterator[Service]:
    svc = Service(
        Settings(
            index_path=place["home"] / "index",
            log_dir=place["home"] / "logs",
            config_file=place["home"] / "config.yaml",
            watch=False,
        )
    )
    yield svc
    svc.close()


def names(svc: Service) -> set[str]:
    found = svc.index().search("petrels", page_size=100, max_passages=0).documents
    return {Path(d.file_path).name for d in found}


def crawl(svc: Service, directories: list[str] | None = None) -> dict[str, int]:
    report = svc.crawls.start_crawl(directories)
    svc.crawls.crawler().wait(120)
    assert report.error is None
    return {"found": report.found, "added": report.added, "deleted": report.deleted}


def test_a_crawl_of_every_folder_removes_what_none_of_them_covers(
    service: Service, place: dict[str, Path]
) -> None:
    service.folders.adopt([str(place["other"]), str(place["child"])])
    assert crawl(service)["added"] == 6
    # a script writes beside the crawler: a document of no configured folder
    with service.index().writer() as writer:
        writer.add({"file_path": str(place["home"].parent / "loose.txt"), "content": "petrels"})
    service.index().refresh()
    assert "loose.txt" in names(service)
    # a crawl of some of the folders leaves it: it covers only what it crawls
    assert crawl(service, [str(place["other"])])["deleted"] == 0
    assert "loose.txt" in names(service)
    # a crawl of every configured folder removes it, and counts it
    assert crawl(service)["deleted"] == 1
    assert names(service) == {f"{name}{n}.txt" for name in ("other", "child") for n in range(3)}


def test_removing_a_folder_keeps_what_another_configured_folder_covers(
    service: Service, place: dict[str, Path]
) -> None:
    service.folders.adopt([str(place["parent"])])
    service.folders.add(str(place["child"]), crawl_now=False)
    crawl(service)
    everything = {f"{name}{n}.txt" for name in ("parent", "child") for n in range(3)}
    assert names(service) == everything
    # the nested folder goes; its parent still covers its files
    directories, dropped = service.folders.remove(str(place["child"]))
    assert directories == [str(place["parent"])] and dropped is False
    assert names(service) == everything
    # the other way round: the parent goes, the nested folder's files stay
    service.folders.add(str(place["child"]), crawl_now=False)
    directories, dropped = service.folders.remove(str(place["parent"]))
    assert directories == [str(place["child"])] and dropped is True
    assert names(service) == {"child0.txt", "child1.txt", "child2.txt"}


@pytest.mark.slow
def test_the_command_line_crawl_follows_the_same_policy(place: dict[str, Path]) -> None:
    home, index = place["home"], place["home"] / "index"
    refused = cli(home, "crawl", "/etc", "--index", str(index))
    assert refused.returncode != 0 and "/etc" in refused.stderr
    assert "Traceback" not in refused.stderr
    assert not index.exists() or not any(index.glob("segments_*"))
    assert not (home / "config.yaml").exists()  # a refused crawl changes nothing

    crawled = cli(home, "crawl", str(place["other"]), "--index", str(index), "--json")
    assert crawled.returncode == 0, crawled.stderr
    config = yaml.safe_load((home / "config.yaml").read_text(encoding="utf-8"))
    assert config["directories"] == [str(place["other"])]  # it is a crawled folder now

    # a document no folder covers (a script's) goes with the next crawl of every folder
    with Index.open(index) as opened, opened.writer() as writer:
        writer.add({"file_path": "/nowhere/stray.txt", "content": "petrels"})
    again = cli(home, "crawl", "--index", str(index), "--json")
    assert again.returncode == 0, again.stderr
    with Index.open(index, read_only=True) as opened:
        paths = {d.file_path for d in opened.search("petrels", page_size=50).documents}
    assert paths == {str(place["other"] / f"other{n}.txt") for n in range(3)}
