"""addCrawlableDirectory refuses what must never be crawled, answers at once, and a refused or
failed call changes nothing."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from pylucene_mcp import InvalidRequestError
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.crawler.pipeline import Crawler
from pylucene_mcp.crawler.walk import Patterns
from pylucene_mcp.service.service import Service
from tests.waiting import until


@pytest.fixture
def own(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "own"
    folder.mkdir()
    (folder / "config.yaml").write_text("my_key: 1\n")
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(folder))
    return folder


@pytest.fixture
def service(own: Path) -> Iterator[Service]:
    svc = Service(
        Settings(
            index_path=own / "index",
            log_dir=own / "logs",
            config_file=own / "config.yaml",
            debounce_s=0.2,
        )
    )
    yield svc
    svc.close()


def refused(service: Service, own: Path, path: str, reason: str) -> None:
    before = (own / "config.yaml").read_text()
    with pytest.raises(InvalidRequestError, match=reason):
        service.folders.add(path, crawl_now=False)
    assert (own / "config.yaml").read_text() == before
    assert service.settings.directories == ()


@pytest.mark.parametrize(
    "path",
    ["/", "/etc", "/etc/ssl", "/proc", "/sys", "/dev", "/usr/share", "/root", "/home", "/tmp"],
)
def test_system_and_shared_folders_are_refused(service: Service, own: Path, path: str) -> None:
    home = str(Path.home())
    refused(service, own, path, "whole home folder" if path == home else "system or shared")


def test_the_home_folder_itself_is_refused(service: Service, own: Path) -> None:
    refused(service, own, str(Path.home()), "whole home folder")
    refused(service, own, "~", "whole home folder")


def test_odd_paths_are_refused_in_the_products_words(service: Service, own: Path) -> None:
    """A NUL byte and a way into another process's view of the disk: refused with a reason,
    not Python's bare ValueError or PermissionError."""
    refused(service, own, "/etc\u0000", "holds a NUL character")
    refused(service, own, "/home/me/Docs\u0000/x", "holds a NUL character")
    refused(service, own, "/proc/1/root/etc", "system or shared")
    refused(service, own, "/proc/self/root/home", "system or shared")


def test_relative_paths_are_refused(service: Service, own: Path) -> None:
    refused(service, own, ".", "not an absolute path")
    refused(service, own, "Documents", "not an absolute path")


def test_the_projects_own_folders_and_what_holds_them_are_refused(
    service: Service, own: Path, tmp_path: Path
) -> None:
    refused(service, own, str(own), "pylucene-mcp's own files")
    (own / "index").mkdir()
    refused(service, own, str(own / "index"), "pylucene-mcp's own files")
    refused(service, own, str(tmp_path), "pylucene-mcp's own files")  # holds the index


def test_a_link_is_judged_by_where_it_leads(service: Service, own: Path, tmp_path: Path) -> None:
    link = tmp_path / "innocent"
    link.symlink_to("/etc")
    refused(service, own, str(link), r"→ /etc\) is a system or shared folder")


def test_a_folder_of_documents_is_added_at_once_and_watched_in_the_background(
    service: Service, own: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    assert service.folders.add(str(docs), crawl_now=False) == [str(docs)]
    assert str(docs) in (own / "config.yaml").read_text()
    assert "my_key: 1" in (own / "config.yaml").read_text()
    until(
        lambda: service.crawls.crawler().watching is not False or service.crawls.watching(),
        30,
        "the watcher",
    )


def test_a_folder_added_while_a_crawl_runs_is_crawled_after_it(
    service: Service, own: Path, tmp_path: Path
) -> None:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        for n in range(30):
            (folder / f"{n}.txt").write_text(f"note {n} of {folder.name}")
    service.index()  # open: the first crawl starts at once
    service.folders.add(str(first))  # crawls in the background: Tika is starting
    assert service.crawls.crawler().current is not None
    assert service.folders.add(str(second)) == [str(first), str(second)]  # no error: queued
    assert service.crawls.queued()
    assert str(second) in (own / "config.yaml").read_text()

    def indexed(name: str) -> int:
        return service.index().search(name, max_passages=0).total_hits

    until(lambda: indexed("second") == 30 and not service.crawls.queued(), 120, "the second crawl")
    assert indexed("first") == 30


def test_a_folder_added_while_the_index_opens_answers_at_once_and_is_crawled(
    service: Service, tmp_path: Path
) -> None:
    docs = tmp_path / "early"
    docs.mkdir()
    (docs / "a.txt").write_text("an early note about puffins")
    assert not service.index_is_open()
    assert service.folders.add(str(docs)) == [str(docs)]  # before the index is open
    until(lambda: service.index().search("puffins").total_hits == 1, 120, "the queued crawl")


def test_a_call_whose_crawl_cannot_start_changes_nothing(
    service: Service, own: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "missing"
    with pytest.raises(InvalidRequestError):
        service.folders.add(str(missing))
    assert service.settings.directories == ()
    assert str(missing) not in (own / "config.yaml").read_text()


def test_the_config_is_written_for_the_user_alone(
    service: Service, own: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    service.folders.add(str(docs), crawl_now=False)
    assert os.stat(own / "config.yaml").st_mode & 0o077 == 0


def test_the_index_and_the_logs_are_created_for_the_user_alone(tmp_path: Path) -> None:
    from pylucene_mcp import Index
    from pylucene_mcp.basics.logs import setup_logging

    home = tmp_path / "new-home"
    index = Index.open(home / "deep" / "index")
    index.close()
    setup_logging(home / "logs")
    try:
        for folder in (home, home / "deep", home / "deep" / "index", home / "logs"):
            assert os.stat(folder).st_mode & 0o077 == 0, folder
        assert os.stat(home / "logs" / "pylucene-mcp.log").st_mode & 0o077 == 0
    finally:
        import logging

        for handler in list(logging.getLogger().handlers):
            logging.getLogger().removeHandler(handler)
            handler.close()


def _paths(crawler: Crawler) -> set[str]:
    return {h.file_path for h in crawler.index.search("*", page_size=100).documents}


@pytest.fixture
def docs_and_secret(tmp_path: Path) -> tuple[Path, Path]:
    """An empty folder of documents, and a secret file outside it."""
    (tmp_path / "outside").mkdir()
    (tmp_path / "docs").mkdir()
    secret = tmp_path / "outside" / "secret.txt"
    secret.write_text("the vault code is albatross")
    return tmp_path / "docs", secret


def test_a_hard_link_to_a_file_outside_is_not_indexed_by_default(
    crawler: Crawler, docs_and_secret: tuple[Path, Path]
) -> None:
    docs, secret = docs_and_secret
    os.link(secret, docs / "looks-harmless.txt")
    (docs / "plain.txt").write_text("a plain note")
    report = crawler.crawl([str(docs)])
    assert _paths(crawler) == {str(docs / "plain.txt")}
    assert any("2 hard links" in f["reason"] for f in report.failures)
    assert not crawler.index.search("albatross").documents

    crawler.settings = replace(crawler.settings, patterns=Patterns(hard_links=True))
    crawler.crawl([str(docs)])
    assert str(docs / "looks-harmless.txt") in _paths(crawler)  # the documented opt-in


def test_a_file_replaced_by_a_link_outside_leaves_the_index(
    crawler: Crawler, docs_and_secret: tuple[Path, Path]
) -> None:
    docs, secret = docs_and_secret
    for name in ("watched.txt", "crawled.txt"):
        (docs / name).write_text("harmless words about gulls")
    crawler.crawl([str(docs)])
    assert len(_paths(crawler)) == 2
    for name in ("watched.txt", "crawled.txt"):
        (docs / name).unlink()
        (docs / name).symlink_to(secret)
    # the watcher's path: one event for the replaced file
    outcome = crawler.process_paths([str(docs / "watched.txt")], [str(docs)], Patterns())
    assert outcome[str(docs / "watched.txt")].startswith("deleted: a link to a place outside")
    assert _paths(crawler) == {str(docs / "crawled.txt")}
    # the crawl's path
    crawler.crawl([str(docs)])
    assert _paths(crawler) == set()
    assert not crawler.index.search("albatross OR gulls", default_operator="OR").documents
