"""The crawler's MCP tools: thin adapters over :class:`~pylucene_mcp.service.service.Service`."""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Annotated, Any, Literal, NotRequired

import anyio
from mcp.server.mcpserver import Context
from pydantic import Field
from typing_extensions import TypedDict

from pylucene_mcp.basics.shapes import camel, to_dict
from pylucene_mcp.server.tools.output import answers, fit_counted
from pylucene_mcp.server.tools.registry import Registry
from pylucene_mcp.service.service import Service

if TYPE_CHECKING:  # the crawler is imported when a crawl starts, not on the server's start-up path
    from pylucene_mcp.crawler.pipeline import CrawlReport


class StatusOut(TypedDict):
    status: Literal["IDLE", "CRAWLING", "PAUSED", "WATCHING"]
    directories: list[str]
    processed: NotRequired[int]
    toExtract: NotRequired[int]
    stopping: NotRequired[bool]
    #: why the last crawl ended early (no Tika server to be had, a full disk …), until the next
    lastError: NotRequired[str]


# stopCrawler answers after at most this long, whether or not the crawl has ended by then
STOP_WAIT_S = 1.0


class StartOut(StatusOut):
    message: str
    report: NotRequired[dict[str, Any]]
    omitted: NotRequired[dict[str, int]]  # failures left out to fit the answer's byte budget


class TikaOut(TypedDict):
    running: bool
    restarts: int


class StatsOut(StatusOut):
    current: NotRequired[dict[str, Any]]
    last: NotRequired[dict[str, Any]]
    processingNow: list[str]
    tikaServer: TikaOut
    omitted: NotRequired[dict[str, int]]  # failures left out to fit the answer's byte budget


class DirectoryOut(TypedDict):
    path: str
    exists: bool


class DirectoriesOut(TypedDict):
    directories: list[DirectoryOut]
    fromEnvironment: bool
    include: list[str]
    exclude: list[str]


class AddOut(TypedDict):
    directories: list[str]
    crawling: bool


class RemoveOut(TypedDict):
    directories: list[str]
    droppedDocuments: bool


def _report(report: CrawlReport | None) -> dict[str, Any] | None:
    """A crawl report as the tools return it: camelCase, ISO times, derived figures."""
    if report is None:
        return None
    data: dict[str, Any] = to_dict(report)
    data.update({camel(k): v for k, v in report.rates().items()})
    data["indexed"] = report.added + report.updated
    for key in ("started", "finished"):
        if key in data:
            data[key] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(data[key]))
    return data


def fit_failures(data: dict[str, Any]) -> dict[str, Any]:
    """An answer with crawl reports fitted to the byte budget: the reports' failure lists (up
    to 200 kept per crawl) give up their last entries first; ``omitted`` counts them."""

    def lists(answer: dict[str, Any]) -> list[tuple[str, list[Any]]]:
        return [
            (f"{key}.failures", answer[key]["failures"])
            for key in ("current", "last", "report")
            if isinstance(answer.get(key), dict) and answer[key].get("failures")
        ]

    return fit_counted(data, lists)


def crawler_status(svc: Service) -> StatusOut:
    """The crawler's state, its folders and a running crawl's progress."""
    crawler = svc.crawler()
    current = crawler.current
    data: StatusOut = {
        "status": crawler.status.value,
        "directories": list(svc.settings.directories),
    }
    if current is not None:
        data["processed"] = current.processed
        data["toExtract"] = current.to_extract
    elif crawler.last is not None and crawler.last.error:
        data["lastError"] = crawler.last.error
    return data


def _progress_token(ctx: Context) -> Any:
    try:
        meta = ctx.request_context.meta
    except (ValueError, AttributeError):
        return None
    if not meta:
        return None
    return meta.get("progress_token") or meta.get("progressToken")  # a TypedDict


def register_crawler(tools: Registry, svc: Service) -> None:
    """Records the crawler tools on ``tools``."""

    def status() -> StatusOut:
        return crawler_status(svc)

    @tools.tool("crawler", "Start a crawl", read_only=False, idempotent=False)
    @answers(StartOut)
    async def startCrawl(
        ctx: Context,
        fullReindex: bool = False,
        directories: Annotated[list[str] | None, Field(max_length=100)] = None,
        wait: bool = False,
    ) -> StartOut:
        """Crawl the configured directories (or some of them) into the index: new files are
        added, changed ones updated, deleted ones removed; unchanged files are skipped unless
        fullReindex. Returns at once; follow it with getCrawlerStatus/getCrawlerStats. With
        wait, or when the request carries a progress token, it reports progress (files done /
        total) and returns the crawl's report when it ends."""
        follow = wait or _progress_token(ctx) is not None

        def begin() -> CrawlReport:
            report: CrawlReport = svc.start_crawl(directories, full=fullReindex)
            return report

        report = await anyio.to_thread.run_sync(begin)
        if not follow:
            return {**status(), "message": "crawl started"}  # type: ignore[typeddict-item]
        crawler = svc.crawler()
        while crawler.current is report:
            await ctx.report_progress(report.processed, max(report.to_extract, 1))
            await anyio.sleep(0.25)
        await ctx.report_progress(report.processed, max(report.to_extract, 1))
        message = f"crawl failed: {report.error}" if report.error else "crawl finished"
        finished = {**status(), "message": message, "report": _report(report) or {}}
        return fit_failures(finished)  # type: ignore[return-value]

    @tools.tool("crawler", "Pause the crawler", read_only=False)
    @answers(StatusOut)
    def pauseCrawler() -> StatusOut:
        """Pause the running crawl and the live updates (files in flight finish)."""
        svc.crawler().pause()
        return status()

    @tools.tool("crawler", "Resume the crawler", read_only=False)
    @answers(StatusOut)
    def resumeCrawler() -> StatusOut:
        """Resume a paused crawl and the live updates."""
        svc.crawler().resume()
        return status()

    @tools.tool("crawler", "Stop the crawl", read_only=False)
    @answers(StatusOut)
    def stopCrawler() -> StatusOut:
        """Stop the running crawl after the files in flight; what was done stays indexed.
        Answers within a second: "stopping" means files in flight are still being finished;
        getCrawlerStatus shows IDLE or WATCHING once the crawl has stopped."""
        crawler = svc.crawler()
        crawler.stop()
        stopped = crawler.wait(STOP_WAIT_S)
        data = status()
        if not stopped:
            data["stopping"] = True
        return data

    @tools.tool("crawler", "Crawler status", read_only=True)
    @answers(StatusOut)
    def getCrawlerStatus() -> StatusOut:
        """IDLE, CRAWLING, PAUSED or WATCHING (live updates after a crawl), and the progress
        of a running crawl."""
        return status()

    @tools.tool("crawler", "Crawler statistics", read_only=True)
    @answers(StatsOut)
    def getCrawlerStats() -> StatsOut:
        """Figures of the running and the last crawl: files found, indexed, skipped, deleted,
        failed (with reasons), bytes, files/s, per directory, the files being processed now."""
        crawler = svc.crawler()
        tika = svc.tika()
        stats: dict[str, Any] = {
            **status(),
            "processingNow": sorted(crawler.in_progress)[:20],
            "tikaServer": {"running": tika.pid is not None, "restarts": tika.restarts},
        }
        for key, report in (("current", crawler.current), ("last", crawler.last)):
            if report is not None:
                stats[key] = _report(report)
        return fit_failures(stats)  # type: ignore[return-value]

    @tools.tool("crawler", "List crawled folders", read_only=True)
    @answers(DirectoriesOut)
    def listCrawlableDirectories() -> DirectoriesOut:
        """The folders the crawler indexes and watches, with the include/exclude patterns."""
        patterns = svc.patterns()
        return {
            "directories": [
                {"path": d, "exists": os.path.isdir(d)} for d in svc.settings.directories
            ],
            "fromEnvironment": svc.settings.directories_from_env,
            "include": list(patterns.include),
            "exclude": list(patterns.exclude),
        }

    @tools.tool("crawler", "Add a crawled folder", read_only=False, idempotent=True)
    @answers(AddOut)
    def addCrawlableDirectory(
        path: Annotated[str, Field(min_length=1, max_length=4096)], crawlNow: bool = True
    ) -> AddOut:
        """Add a folder to the crawled ones (saved in the config file) and, by default, crawl it
        now."""
        directories = svc.add_directory(path, crawl_now=crawlNow)
        return {"directories": directories, "crawling": crawlNow}

    @tools.tool("crawler", "Remove a crawled folder", read_only=False, destructive=True)
    @answers(RemoveOut)
    def removeCrawlableDirectory(
        path: Annotated[str, Field(min_length=1, max_length=4096)], dropDocuments: bool = True
    ) -> RemoveOut:
        """Stop crawling and watching a folder (saved in the config file); by default also
        remove its documents from the index."""
        directories = svc.remove_directory(path, drop_documents=dropDocuments)
        return {"directories": directories, "droppedDocuments": dropDocuments}
