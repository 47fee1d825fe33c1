"""The crawler's MCP tools: thin adapters over :class:`~pylucene_mcp.service.service.Service`."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass
from typing import Annotated, Any, Literal

import anyio
from mcp.server.mcpserver import Context
from mcp_types import CallToolResult
from pydantic import Field

from pylucene_mcp.basics import schema
from pylucene_mcp.basics.shapes import to_dict

# the crawl's report alone: the crawler itself is imported when a crawl starts, not on the
# server's start-up path
from pylucene_mcp.crawler.report import CrawlReport, DirectoryStats
from pylucene_mcp.engine.core.backend import limits
from pylucene_mcp.server.tools.output import answer, answers, fit_counted
from pylucene_mcp.server.tools.registry import Registry
from pylucene_mcp.service.service import Service


@dataclass(frozen=True)
class VectorsProgress:
    """The embedder's progress (vectors on): documents whose chunks and vectors are current,
    documents waiting for theirs, those that failed, and why it stopped, if it did."""

    embedded: int
    waiting: int
    failed: int
    error: str | None = None
    #: what runs the model (its ONNX Runtime execution provider and threads), once loaded
    runtime: str | None = None
    #: documents embedded a second in this round, and the seconds the waiting ones will take
    per_second: float | None = None
    done_in_s: float | None = None
    #: the least similarity of a search by meaning: the setting, or the model's own
    threshold: float | None = None
    #: true until the embedder's first round has counted the documents
    counting: bool | None = None


@dataclass(frozen=True)
class OcrFailure:
    file_path: str
    reason: str


@dataclass(frozen=True, kw_only=True)
class OcrStatus:
    """Text recognised in scans and photos (docs/crawler.md): whether it runs (``off`` says
    why not and what to install), its languages, the documents and pages done since the start
    and those waiting, the file under way, the last failures with their reason."""

    running: bool
    off: str | None = None
    languages: list[str]
    documents_waiting: int
    pages_waiting: int
    documents_done: int
    pages_done: int
    #: seconds a recognised page took, on average since the start (None: none yet)
    seconds_per_page: float | None = None
    now: str | None = None
    failed: int
    failures: list[OcrFailure]


@dataclass(frozen=True, kw_only=True)
class CrawlerStatus:
    """The crawler's state, its folders and a running crawl's progress."""

    #: QUEUED: a crawl is to begin by itself (the start-up crawl, or an added folder's after
    #: the running one); IDLE and WATCHING only once every crawl asked for has ended
    status: Literal["QUEUED", "IDLE", "CRAWLING", "PAUSED", "WATCHING"]
    directories: list[str]
    processed: int | None = None
    to_extract: int | None = None
    #: True while the files in flight of a stopped crawl are being finished
    stopping: bool | None = None
    #: why the last crawl ended early (no Tika server to be had, a full disk …), until the next
    last_error: str | None = None
    #: why this server cannot crawl at all: the index folder cannot be written
    read_only: str | None = None
    #: the semantic path's embedder (vectors on; docs/semantic.md)
    vectors: VectorsProgress | None = None
    #: OCR of scans and photos, once the crawler has started
    ocr: OcrStatus | None = None


# the watcher's changes getCrawlerStats shows, newest first
RECENT_SHOWN = 20
# stopCrawler answers after at most this long, whether or not the crawl has ended by then
STOP_WAIT_S = 1.0
# how often a crawl followed with a progress token is looked at (a notification goes out only
# when it has moved on)
PROGRESS_EVERY_S = 0.25


def progress_step(report: CrawlReport, in_flight: list[str], running: bool) -> tuple[int, int, str]:
    """The progress of ``report`` as a notification carries it: steps done and steps in all
    (each file to extract, and the last commit), and what a person reads: the phase, the count
    and a file being extracted."""
    total = report.to_extract + 1
    if not running:
        outcome = f"crawl failed: {report.error}" if report.error else "crawl finished"
        counts = f"{report.added} added, {report.updated} updated, {report.deleted} deleted"
        return total, total, f"{outcome}: {counts}, {report.failed} failed"
    if report.to_extract == 0:
        return 0, total, f"listing the files of {len(report.directories)} folder(s)"
    if report.processed >= report.to_extract:
        return report.processed, total, f"committing {report.processed} files to the index"
    now = f"; now {os.path.basename(in_flight[0])}" if in_flight else ""
    return (
        report.processed,
        total,
        f"extracting: {report.processed} of {report.to_extract} files{now}",
    )


@dataclass(frozen=True, kw_only=True)
class CrawlSummary:
    """A crawl's report as the tools give it: the counts over all folders and per folder, the
    failures (up to 200), ISO times and the rates."""

    found: int
    added: int
    updated: int
    deleted: int
    skipped: int
    failed: int
    bytes: int
    directories: list[str]
    full: bool
    started: str
    finished: str | None = None
    to_extract: int
    processed: int
    stopped: bool
    error: str | None = None
    failures: list[dict[str, str]]
    per_directory: dict[str, DirectoryStats]
    duration_s: float
    files_per_s: float
    mb_per_s: float
    #: added and updated
    indexed: int

    @classmethod
    def of(cls, report: CrawlReport) -> CrawlSummary:
        def iso(moment: float | None) -> str | None:
            return None if moment is None else schema.iso(int(moment * 1000))

        counts = {f.name: getattr(report, f.name) for f in dataclasses.fields(DirectoryStats)}
        rates = report.rates()
        return cls(
            **counts,
            directories=list(report.directories),
            full=report.full,
            started=iso(report.started) or "",
            finished=iso(report.finished),
            to_extract=report.to_extract,
            processed=report.processed,
            stopped=report.stopped,
            error=report.error,
            failures=list(report.failures),
            per_directory=dict(report.per_directory),
            duration_s=rates["duration_s"],
            files_per_s=rates["files_per_s"],
            mb_per_s=rates["mb_per_s"],
            indexed=report.added + report.updated,
        )


@dataclass(frozen=True, kw_only=True)
class CrawlStarted(CrawlerStatus):
    """startCrawl's answer: the status, and the report when it waited for the crawl."""

    message: str
    report: CrawlSummary | None = None
    #: failures left out to fit the answer's byte budget
    omitted: dict[str, int] | None = None


@dataclass(frozen=True)
class TikaState:
    running: bool
    restarts: int


@dataclass(frozen=True)
class RecentChange:
    """A file the watcher brought into the index, or out of it."""

    time: str
    file_path: str
    #: added, updated, skipped, deleted, or "failed: <reason>" …
    change: str


@dataclass(frozen=True, kw_only=True)
class CrawlerStats(CrawlerStatus):
    """The running and the last crawl's reports, the files being processed, the Tika server,
    the watcher's last changes (newest first)."""

    processing_now: list[str]
    tika_server: TikaState
    current: CrawlSummary | None = None
    last: CrawlSummary | None = None
    recent_changes: list[RecentChange] = dataclasses.field(default_factory=list)
    #: failures left out to fit the answer's byte budget
    omitted: dict[str, int] | None = None


@dataclass(frozen=True)
class CrawledFolder:
    path: str
    exists: bool


@dataclass(frozen=True)
class CrawledFolders:
    directories: list[CrawledFolder]
    from_environment: bool
    include: list[str]
    exclude: list[str]


@dataclass(frozen=True)
class FolderAdded:
    directories: list[str]
    crawling: bool
    #: True when its crawl waits for the running one (or for the index to open) and follows it
    queued: bool | None = None


@dataclass(frozen=True)
class FolderRemoved:
    directories: list[str]
    #: false when dropDocuments was false, or a crawled folder that holds it covers them all
    dropped_documents: bool


def fit_failures(data: dict[str, Any]) -> dict[str, Any]:
    """An answer with crawl reports fitted to the byte budget: the reports' failure lists (up
    to 200 kept per crawl) and the watcher's recent changes give up their last entries first;
    ``omitted`` counts them."""

    def lists(answer: dict[str, Any]) -> list[tuple[str, list[Any]]]:
        found = [
            (f"{key}.failures", answer[key]["failures"])
            for key in ("current", "last", "report")
            if isinstance(answer.get(key), dict) and answer[key].get("failures")
        ]
        if answer.get("recentChanges"):
            found.append(("recentChanges", answer["recentChanges"]))
        return found

    return fit_counted(data, lists)


def status_fields(svc: Service) -> dict[str, Any]:
    """The fields of :class:`CrawlerStatus` now (and of the answers that extend it); without a
    crawler yet, IDLE (or QUEUED) without opening the index for it."""
    crawler = svc.crawls.started_crawler()
    current = crawler.current if crawler is not None else None
    last = crawler.last if crawler is not None else None
    last_error = last.error if current is None and last is not None else None
    status = crawler.status.value if crawler is not None else "IDLE"
    if status in ("IDLE", "WATCHING") and svc.crawls.pending():
        status = "QUEUED"
    return {
        "status": status,
        "directories": list(svc.settings.directories),
        "processed": current.processed if current is not None else None,
        "to_extract": current.to_extract if current is not None else None,
        "last_error": last_error or None,
        "read_only": svc.sharing.read_only_reason,
        "vectors": None
        if svc.embedding is None
        else VectorsProgress(**vars(svc.embedding.progress)),
        "ocr": None if crawler is None else ocr_status(crawler),
    }


def ocr_status(crawler: Any) -> OcrStatus:
    """What :class:`OcrStatus` says of ``crawler``'s OCR worker (or of its absence)."""
    worker = crawler.ocr
    if worker is None:
        return OcrStatus(
            running=False,
            off=crawler.ocr_off,
            languages=[],
            documents_waiting=0,
            pages_waiting=0,
            documents_done=0,
            pages_done=0,
            failed=0,
            failures=[],
        )
    progress, queue = worker.progress, worker.queue
    settings = worker.ocr.server.settings.ocr
    return OcrStatus(
        running=worker.ocr.server.pid is not None,
        languages=settings.languages.split("+") if settings is not None else [],
        documents_waiting=queue.documents,
        pages_waiting=queue.pages,
        documents_done=progress.documents_done,
        pages_done=progress.pages_done,
        seconds_per_page=round(progress.seconds / progress.pages_done, 2)
        if progress.pages_done
        else None,
        now=progress.now,
        failed=len(queue.failed),
        failures=[OcrFailure(k, r) for k, r in reversed(progress.failures)],
    )


def crawler_status(svc: Service) -> CrawlerStatus:
    """The crawler's state, its folders and a running crawl's progress."""
    return CrawlerStatus(**status_fields(svc))


def _progress_token(ctx: Context) -> Any:
    try:
        meta = ctx.request_context.meta
    except (ValueError, AttributeError):
        return None
    if not meta:
        return None
    return meta.get("progress_token") or meta.get("progressToken")  # a TypedDict


def _in_request(ctx: Context) -> bool:
    """Whether ``ctx`` is a client's request's (a call a reader handed over has none)."""
    try:
        return ctx.request_context is not None
    except ValueError:
        return False


def register_crawler(tools: Registry, svc: Service) -> None:
    """Records the crawler tools on ``tools``."""

    @tools.tool("crawler", "Start a crawl", read_only=False, idempotent=False)
    @answers(CrawlStarted)
    async def startCrawl(
        ctx: Context,
        fullReindex: bool = False,
        directories: Annotated[list[str] | None, Field(**limits.CRAWL_FOLDERS.schema())] = None,
        wait: bool = False,
    ) -> dict[str, Any] | CallToolResult:
        """Crawl the configured directories (or some of them) into the index: new files are
        added, changed ones updated, deleted ones removed; unchanged files are skipped unless
        fullReindex. Returns at once; follow it with getCrawlerStatus/getCrawlerStats. With
        wait, or when the request carries a progress token, it reports progress (files done,
        then the commit, each step with a message) and returns the crawl's report when it
        ends."""
        follow = wait or _progress_token(ctx) is not None
        reporting = _in_request(ctx)  # not for a call a reader handed over (no client here)

        def begin() -> CrawlReport:
            report: CrawlReport = svc.crawls.start_crawl(directories, full=fullReindex)
            return report

        report = await anyio.to_thread.run_sync(begin)
        if not follow:
            started: dict[str, Any] = to_dict(
                CrawlStarted(**status_fields(svc), message="crawl started")
            )
            return started
        crawler = svc.crawls.crawler()
        said: tuple[int, int, bool] | None = None
        while True:
            running = crawler.current is report
            done, total, words = progress_step(report, sorted(crawler.in_progress), running)
            if reporting and (done, total, running) != said:  # once per step of progress
                await ctx.report_progress(done, total, words)
                said = (done, total, running)
            if not running:
                break
            await anyio.sleep(PROGRESS_EVERY_S)
        # the reason once, in the report (not again in the message and lastError), and the
        # answer an error: the crawl did not do what was asked
        message = "crawl failed: report.error says why" if report.error else "crawl finished"
        fields = {**status_fields(svc), "last_error": None}
        finished = CrawlStarted(**fields, message=message, report=CrawlSummary.of(report))
        return answer(fit_failures(to_dict(finished)), failed=report.error is not None)

    @tools.tool("crawler", "Pause the crawler", read_only=False)
    @answers(CrawlerStatus)
    def pauseCrawler() -> CrawlerStatus:
        """Pause the running crawl and the live updates (files in flight finish)."""
        svc.crawls.crawler().pause()
        return crawler_status(svc)

    @tools.tool("crawler", "Resume the crawler", read_only=False)
    @answers(CrawlerStatus)
    def resumeCrawler() -> CrawlerStatus:
        """Resume a paused crawl and the live updates."""
        svc.crawls.crawler().resume()
        return crawler_status(svc)

    @tools.tool("crawler", "Stop the crawl", read_only=False)
    @answers(CrawlerStatus)
    def stopCrawler() -> CrawlerStatus:
        """Stop the running crawl after the files in flight; what was done stays indexed.
        Answers within a second: "stopping" means files in flight are still being finished;
        getCrawlerStatus shows IDLE or WATCHING once the crawl has stopped."""
        crawler = svc.crawls.crawler()
        crawler.stop()
        stopped = crawler.wait(STOP_WAIT_S)
        return CrawlerStatus(**status_fields(svc), stopping=None if stopped else True)

    @tools.tool("crawler", "Crawler status", read_only=True)
    @answers(CrawlerStatus)
    def getCrawlerStatus() -> CrawlerStatus:
        """QUEUED (a crawl is about to begin), CRAWLING, PAUSED, IDLE or WATCHING (live updates
        after a crawl; IDLE and WATCHING mean every crawl asked for has ended), and the progress
        of a running crawl."""
        return crawler_status(svc)

    @tools.tool("crawler", "Crawler statistics", read_only=True, app="crawl-dashboard")
    @answers(CrawlerStats)
    def getCrawlerStats() -> dict[str, Any]:
        """Figures of the running and the last crawl: files found, indexed, skipped, deleted,
        failed (with reasons), bytes, files/s, per directory, the files being processed now."""
        crawler = svc.crawls.crawler()
        tika = svc.crawls.tika()
        current, last = crawler.current, crawler.last
        stats = CrawlerStats(
            **status_fields(svc),
            processing_now=sorted(crawler.in_progress)[:20],
            tika_server=TikaState(running=tika.pid is not None, restarts=tika.restarts),
            current=CrawlSummary.of(current) if current is not None else None,
            last=CrawlSummary.of(last) if last is not None else None,
            recent_changes=[
                RecentChange(str(schema.iso(int(at * 1000))), path, what)
                for at, path, what in reversed(crawler.recent)
            ][:RECENT_SHOWN],
        )
        return fit_failures(to_dict(stats))

    @tools.tool("crawler", "List crawled folders", read_only=True)
    @answers(CrawledFolders)
    def listCrawlableDirectories() -> CrawledFolders:
        """The folders the crawler indexes and watches, with the include/exclude patterns."""
        patterns = svc.crawls.patterns()
        return CrawledFolders(
            directories=[CrawledFolder(d, os.path.isdir(d)) for d in svc.settings.directories],
            from_environment=svc.settings.directories_from_env,
            include=list(patterns.include),
            exclude=list(patterns.exclude),
        )

    @tools.tool("crawler", "Add a crawled folder", read_only=False, idempotent=True)
    @answers(FolderAdded)
    def addCrawlableDirectory(
        path: Annotated[str, Field(**limits.PATH_CHARS.schema())], crawlNow: bool = True
    ) -> FolderAdded:
        """Add a folder to the crawled ones (saved in the config file) and, by default, crawl it
        now. Answers at once; while another crawl runs, this folder's crawl follows it (queued)."""
        directories = svc.folders.add(path, crawl_now=crawlNow)
        return FolderAdded(directories, crawlNow, queued=(crawlNow and svc.crawls.queued()) or None)

    @tools.tool("crawler", "Remove a crawled folder", read_only=False, destructive=True)
    @answers(FolderRemoved)
    def removeCrawlableDirectory(
        path: Annotated[str, Field(**limits.PATH_CHARS.schema())], dropDocuments: bool = True
    ) -> FolderRemoved:
        """Stop crawling and watching a folder (saved in the config file); by default also
        remove its documents from the index, but for those another crawled folder still covers
        (droppedDocuments says whether any went)."""
        return FolderRemoved(*svc.folders.remove(path, drop_documents=dropDocuments))
