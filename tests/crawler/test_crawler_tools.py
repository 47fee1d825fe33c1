"""The crawler's MCP tools through the SDK's in-memory client, on a real index and Tika."""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from mcp import Client

from pylucene_mcp.basics.config import Settings
from pylucene_mcp.crawler.pipeline import NOT_EXTRACTED, Crawler
from pylucene_mcp.crawler.report import CrawlReport
from pylucene_mcp.server.app import build_server
from pylucene_mcp.server.tools.crawler import progress_step
from pylucene_mcp.service.service import Service
from tests.mcp_client import call, error
from tests.waiting import arrives, until

pytestmark = pytest.mark.anyio


@pytest.fixture
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new home for each test (its own config, index and folders): no test depends on
    another's crawls."""
    folder = tmp_path_factory.mktemp("home")
    (folder / ".pylucene-mcp").mkdir()  # the project's own files, beside the documents
    (folder / ".pylucene-mcp" / "config.yaml").write_text(
        "default_operator: AND\nmy_own_key: keep me\n"
    )
    for name, count in (("alpha", 3), ("beta", 40)):
        docs = folder / name
        docs.mkdir()
        for n in range(count):
            (docs / f"{name}{n:02}.txt").write_text(f"{name} note {n} about kingfishers")
    return folder


@pytest.fixture
def service(home: Path) -> Iterator[Service]:
    settings = Settings(
        index_path=home / ".pylucene-mcp" / "index",
        log_dir=home / ".pylucene-mcp" / "logs",
        config_file=home / ".pylucene-mcp" / "config.yaml",
        debounce_s=0.3,
    )
    svc = Service(settings)
    yield svc
    svc.close()


@pytest.fixture
async def client(service: Service) -> AsyncIterator[Client]:
    async with Client(build_server(service.settings, service)) as connected:
        yield connected


async def configure(client: Client, home: Path, *names: str, crawl: bool = False) -> None:
    """Adds the folders ``names`` of ``home``; with ``crawl``, crawls them and waits."""
    for name in names:
        await call(client, "addCrawlableDirectory", path=str(home / name), crawlNow=False)
    if crawl:
        await call(client, "startCrawl", wait=True)


async def idle(client: Client) -> dict[str, Any]:
    return await arrives(
        lambda: call(client, "getCrawlerStatus"),
        lambda status: status["status"] in ("IDLE", "WATCHING"),
        what="the crawl's end",
    )


async def watching(client: Client) -> dict[str, Any]:
    """The status once the crawler watches its folders: the added folder's crawl may not have
    started yet when the status is first asked (a queued crawl shows IDLE), and the watches are
    set up after the crawl ends."""
    return await arrives(
        lambda: call(client, "getCrawlerStatus"),
        lambda status: status["status"] == "WATCHING",
        what="the crawler watching its folders",
    )


async def test_crawler_tools_are_listed_with_honest_annotations(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    assert {"startCrawl", "getCrawlerStats", "removeCrawlableDirectory"} <= set(tools)
    remove = tools["removeCrawlableDirectory"].annotations
    assert remove is not None and remove.destructive_hint and not remove.read_only_hint
    status = tools["getCrawlerStatus"].annotations
    assert status is not None and status.read_only_hint


async def test_the_status_before_any_crawl_makes_no_crawler(
    client: Client, service: Service, home: Path
) -> None:
    """A status asked before any crawl (a client's first look) answers IDLE from what the
    service knows: no crawler (and no Tika behind it) is made for it. (The index is opened:
    whether this process or another writes it decides who answers.)"""
    status = await call(client, "getCrawlerStatus")
    assert status["status"] == "IDLE" and status.get("processed") is None
    assert service.crawls.started_crawler() is None
    await configure(client, home, "alpha", crawl=True)
    assert service.crawls.started_crawler() is not None


async def test_add_crawl_search_and_persist(client: Client, home: Path) -> None:
    added = await call(client, "addCrawlableDirectory", path=str(home / "alpha"))
    assert added["directories"] == [str(home / "alpha")]
    assert (await watching(client))["status"] == "WATCHING"
    found = await call(client, "search", query="kingfishers")
    assert found["totalHits"] == 3
    config = yaml.safe_load((home / ".pylucene-mcp" / "config.yaml").read_text())
    assert config == {
        "default_operator": "AND",
        "my_own_key": "keep me",
        "directories": [str(home / "alpha")],
    }
    listed = await call(client, "listCrawlableDirectories")
    assert listed["directories"] == [{"path": str(home / "alpha"), "exists": True}]
    assert "*.pdf" in listed["include"] and listed["fromEnvironment"] is False


async def test_a_second_crawl_is_refused_and_pause_resume_stop_work(
    client: Client, home: Path
) -> None:
    await configure(client, home, "alpha", "beta")
    started = await call(client, "startCrawl", fullReindex=True)
    assert started["message"] == "crawl started"
    refusal = await error(client, "startCrawl")
    assert "already running" in refusal
    paused = await call(client, "pauseCrawler")
    assert paused["status"] == "PAUSED"
    searching = await call(client, "search", query="kingfishers")  # answers while paused
    assert searching["totalHits"] < 43  # the paused crawl has not indexed everything yet
    resumed = await call(client, "resumeCrawler")
    assert resumed["status"] in ("CRAWLING", "WATCHING", "IDLE")
    await idle(client)
    stats = await call(client, "getCrawlerStats")
    last = stats["last"]
    assert last["found"] == 43 and last["indexed"] == 43 and last["failed"] == 0
    assert set(last["perDirectory"]) == {str(home / "alpha"), str(home / "beta")}
    assert last["filesPerS"] > 0 and "finished" in last
    # the search that found fewer while paused finds them all now (0 above was no pass)
    assert (await call(client, "search", query="kingfishers"))["totalHits"] == 43
    stopped = await call(client, "stopCrawler")
    assert stopped["status"] in ("IDLE", "WATCHING")


async def test_stop_answers_at_once_and_says_whether_the_crawl_is_still_stopping(
    client: Client, home: Path
) -> None:
    many = home / "gamma"  # far more than can be crawled before the stop arrives
    many.mkdir()
    for n in range(300):
        (many / f"gamma{n:03}.txt").write_text(f"gamma note {n} about herons")
    await configure(client, home, "gamma")
    await call(client, "startCrawl", fullReindex=True)
    stopped = await call(client, "stopCrawler")
    # either the crawl ended within the second, or the answer says it is finishing its files
    assert stopped["status"] in ("IDLE", "WATCHING") or stopped.get("stopping") is True
    await idle(client)
    last = (await call(client, "getCrawlerStats"))["last"]
    assert last["stopped"] is True  # a stop that did nothing would have crawled all 300
    assert last["indexed"] < 300
    found = await call(client, "search", query="herons")
    assert found["totalHits"] == last["indexed"]  # what it says it indexed is searchable


async def test_start_crawl_with_a_progress_token_reports_progress(
    client: Client, home: Path
) -> None:
    updates: list[tuple[float, float | None]] = []
    messages: list[str | None] = []

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        updates.append((progress, total))
        messages.append(message)

    await configure(client, home, "alpha", "beta")
    result = await client.call_tool(
        "startCrawl",
        {"fullReindex": True, "directories": [str(home / "beta")], "wait": True},
        progress_callback=on_progress,
    )
    assert not result.is_error, result.content
    data = result.structured_content
    assert data is not None and data["message"] == "crawl finished"
    assert data["report"]["indexed"] == 40 and data["report"]["directories"] == [str(home / "beta")]
    assert updates and updates[-1] == (41, 41)  # 40 files, then the commit
    # one notification per step of progress, each with words a person can follow
    assert all(a != b for a, b in zip(updates, updates[1:], strict=False)), updates
    assert [done for done, _ in updates] == sorted(done for done, _ in updates)
    assert len(updates) <= 41 + 2
    assert all(messages), messages
    assert messages[-1] is not None and messages[-1].startswith("crawl finished: 40 added")


def test_each_step_of_progress_says_its_phase_count_and_file() -> None:
    report = CrawlReport(directories=["/d/a", "/d/b"], full=False, started=0.0)
    assert progress_step(report, [], True) == (0, 1, "listing the files of 2 folder(s)")
    report.to_extract, report.processed = 40, 12
    assert progress_step(report, ["/d/a/x.pdf", "/d/b/y.txt"], True) == (
        12,
        41,
        "extracting: 12 of 40 files; now x.pdf",
    )
    report.processed = 40
    assert progress_step(report, [], True) == (40, 41, "committing 40 files to the index")
    report.added, report.failed = 38, 2
    assert progress_step(report, [], False) == (
        41,
        41,
        "crawl finished: 38 added, 0 updated, 0 deleted, 2 failed",
    )
    report.error = "the disk is full"
    assert progress_step(report, [], False)[2].startswith("crawl failed: the disk is full")


async def test_paths_outside_the_configured_directories_are_refused(
    client: Client, home: Path, tmp_path: Path
) -> None:
    await configure(client, home, "alpha")
    text = await error(client, "startCrawl", directories=["/etc"])
    assert "not inside the configured directories" in text
    alpha = Path((await call(client, "listCrawlableDirectories"))["directories"][0]["path"])
    (alpha / "etc-link").symlink_to("/etc")  # inside lexically, outside in fact
    try:
        text = await error(client, "startCrawl", directories=[str(alpha / "etc-link")])
    finally:
        (alpha / "etc-link").unlink()
    assert "not inside the configured directories" in text
    text = await error(client, "addCrawlableDirectory", path=str(tmp_path / "missing"))
    assert "not a folder" in text
    text = await error(client, "removeCrawlableDirectory", path="/nowhere")
    assert "not a configured directory" in text


async def test_remove_a_directory_drops_its_documents(client: Client, home: Path) -> None:
    await configure(client, home, "alpha", "beta", crawl=True)
    assert (await call(client, "search", query="kingfishers", pageSize=100))["totalHits"] == 43
    removed = await call(client, "removeCrawlableDirectory", path=str(home / "beta"))
    assert removed["directories"] == [str(home / "alpha")]
    found = await call(client, "search", query="kingfishers", pageSize=100)
    assert found["totalHits"] == 3
    assert yaml.safe_load((home / ".pylucene-mcp" / "config.yaml").read_text())["directories"] == [
        str(home / "alpha")
    ]


def test_directories_from_the_environment_are_not_rewritten(tmp_path: Path) -> None:
    from pylucene_mcp.basics import errors

    settings = Settings(
        index_path=tmp_path / "index",
        directories=(str(tmp_path),),
        directories_from_env=True,
        config_file=tmp_path / "config.yaml",
    )
    with pytest.raises(errors.ConfigError, match="PYLUCENE_MCP_DIRECTORIES"):
        Service(settings).folders.add(str(tmp_path), crawl_now=False)
    assert not (tmp_path / "config.yaml").exists()


async def test_a_crawl_with_hundreds_of_failures_reports_within_the_budget(
    client: Client, home: Path
) -> None:
    broken = home / "broken"
    broken.mkdir()
    for n in range(260):  # each a failure with its long path and reason kept (200 at most)
        (broken / f"{n:03}-{'long-name-' * 8}.txt").symlink_to(home / "nowhere" / str(n))
    await configure(client, home, "broken")
    finished = await call(client, "startCrawl", wait=True)
    assert finished["report"]["failed"] == 260
    stats = await call(client, "getCrawlerStats")
    for answer in (finished, stats):
        size = len(json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode())
        assert size <= 10_000, size
    kept = stats["last"]["failures"]
    assert 1 <= len(kept) < 200 and "symbolic link" in kept[0]["reason"]
    assert len(kept) + stats["omitted"]["last.failures"] == 200  # what the crawl keeps


def _closed_port() -> int:
    import socket

    with socket.socket() as probe:  # bound and closed again: nothing listens there now
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_a_crawl_without_a_tika_server_ends_failed_with_the_reason(
    client: Client, home: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No jar here and its download refused: the crawl says it failed, each file counts as
    failed with the reason, the status keeps the error, and no file stays "in work"."""
    from pylucene_mcp.crawler import tika_jar

    monkeypatch.setattr(tika_jar, "_checkout_dir", lambda: None)
    monkeypatch.setattr(tika_jar, "_failed", None)
    downloads: list[str] = []
    real_fetch = tika_jar.fetch
    monkeypatch.setattr(
        tika_jar, "fetch", lambda *args: downloads.append("try") or real_fetch(*args)
    )
    monkeypatch.delenv("PYLUCENE_MCP_TIKA_JAR", raising=False)
    monkeypatch.delenv("PYLUCENE_MCP_TIKA_JAR_DIR", raising=False)
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(home / "empty-home"))
    monkeypatch.setenv("PYLUCENE_MCP_MAVEN_URL", "http://repo.invalid/maven2")
    proxy = f"http://127.0.0.1:{_closed_port()}"  # a proxy that is not there
    for variable in ("http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY", "all_proxy"):
        monkeypatch.delenv(variable, raising=False)
    monkeypatch.setenv("HTTP_PROXY", proxy)
    for note in (home / "alpha").iterdir():  # files that need Tika (a text file does not)
        note.rename(note.with_suffix(".html"))
    await configure(client, home, "alpha")
    result = await client.call_tool("startCrawl", {"wait": True})
    assert result.is_error  # the crawl did not do what was asked
    answer = result.structured_content
    assert answer is not None and answer["message"] == "crawl failed: report.error says why"
    report = answer["report"]
    assert report["failed"] == 3 and report["indexed"] == 0
    assert report["error"].startswith("could not fetch the Tika server jar")
    assert f"through the proxy {proxy} (HTTP_PROXY)" in report["error"]  # the proxy named
    text = result.content[0].text  # type: ignore[union-attr]
    assert text.count("could not fetch") == 1, text  # the reason once
    assert all(f["reason"] == NOT_EXTRACTED for f in report["failures"])
    assert downloads == ["try"]  # one download for the whole crawl, not one per worker
    said = [r for r in caplog.records if "could not fetch" in r.getMessage()]
    assert len(said) == 1 and said[0].exc_info is None, said  # once, without a traceback
    status = await call(client, "getCrawlerStatus")
    assert status["lastError"] == report["error"]
    stats = await call(client, "getCrawlerStats")
    assert stats["processingNow"] == []
    assert stats["last"]["failed"] == 3


async def test_stop_right_after_start_never_fails(client: Client, home: Path) -> None:
    """startCrawl and stopCrawler sent together, again and again: each stop answers with a
    status (it had failed with "cannot join thread before it is started")."""
    await configure(client, home, "beta")
    answers: list[Any] = []

    async def ask(tool: str) -> None:
        answers.append(await client.call_tool(tool, {}))

    for _ in range(15):
        answers.clear()
        async with anyio.create_task_group() as group:
            group.start_soon(ask, "startCrawl")
            group.start_soon(ask, "stopCrawler")
        for answer in answers:
            text = answer.content[0].text
            assert "cannot join" not in text and "internal error" not in text, text
        await idle(client)


def test_a_crawl_already_running_at_start_up_is_no_error(
    service: Service, home: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """A tool may start a crawl before the background start-up reaches its own crawl: the
    start-up leaves the crawl to it, and says nothing worse than that (it logged an ERROR with
    a CrawlerBusyError traceback)."""
    service.folders.add(str(home / "beta"), crawl_now=False)
    running = service.crawls.start_crawl(None)
    with caplog.at_level(logging.INFO):
        service.crawls.crawl_on_start()  # raised CrawlerBusyError before
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text
    assert "left to it" in caplog.text
    assert service.crawls.crawler().wait(120)
    assert running.added == 40 and running.failed == 0


async def test_a_mailboxs_messages_are_found_and_read_through_the_tools(
    client: Client, home: Path
) -> None:
    import mailbox
    from email.message import EmailMessage

    folder = home / "mail"
    folder.mkdir()
    box = mailbox.mbox(folder / "inbox.mbox")
    for subject, body in (
        ("Kaution", "Die Kaution wird am 15. März\nüberwiesen, vgl. Anlage 2."),
        ("Lunch", "Lunch with the kingfishers at noon."),
    ):
        message = EmailMessage()
        message["From"] = "Anna Schmidt <anna@example.com>"
        message["Subject"] = subject
        message.set_content(body)
        box.add(message)
    box.flush()
    box.close()
    await configure(client, home, "mail", crawl=True)
    found = await call(client, "search", query="Kaution")
    (document,) = found["documents"]
    assert document["filePath"] == f"{folder / 'inbox.mbox'}/1"
    assert document["title"] == "Kaution"
    # the sentence goes on over the wrapped line and past the ordinal and the abbreviation
    assert document["passages"][0]["text"] == (
        "Die <em>Kaution</em> wird am 15. März überwiesen, vgl. Anlage 2."
    )
    details = await call(client, "getDocumentDetails", filePath=document["filePath"])
    assert details["content"].startswith("Die Kaution wird am 15. März")


def test_a_folder_added_while_the_index_opens_is_crawled_once(home: Path, tmp_path: Path) -> None:
    """A folder added at a server's start, before its index was open, waited for a crawl of its
    own; the start-up crawl (which reads the folders again) crawled it, and then its own crawl
    did again, every file skipped, so the last crawl's figures said "0 added". Which of the two
    began first is a race: six servers in a row try it."""

    for attempt in range(6):
        folder = tmp_path / f"home{attempt}"
        settings = Settings(
            index_path=folder / "index",
            log_dir=folder / "logs",
            config_file=folder / "config.yaml",
        )
        service = Service(settings)
        try:
            service.warm_up(0.2, then_crawl=True)
            service.folders.add(str(home / "beta"))  # the index is not open yet: it waits
            assert service.crawls.queued()
            crawler = service.crawls.crawler()  # opens the index

            def ended(service: Service = service, crawler: Crawler = crawler) -> bool:
                pending = service.crawls.pending() or crawler.current is not None
                return not pending and crawler.last is not None

            until(ended, 60, "the crawl's end")
            last = crawler.last
            assert last is not None
            assert (attempt, last.added, last.skipped) == (attempt, 40, 0)
        finally:
            service.close()


def test_a_folder_added_without_a_crawl_before_the_start_up_crawl_is_not_crawled(
    service: Service, home: Path
) -> None:
    """addCrawlableDirectory {crawlNow: false} as the first call after the start: the start-up
    crawl, which began after it, crawled the folder all the same (2 of 2)."""
    service.folders.add(str(home / "alpha"), crawl_now=False)  # configured before the start
    service.warm_up(0.5, then_crawl=True)
    service.folders.add(str(home / "beta"), crawl_now=False)  # the first call after it
    until(
        lambda: (
            service.crawls.started_crawler() is not None
            and service.crawls.crawler().last is not None
        )
    )
    assert service.crawls.crawler().wait(120)
    index = service.index()
    assert index.search("alpha", max_passages=0).total_hits == 3
    assert index.search("beta", max_passages=0).total_hits == 0
