"""``crawl`` and ``rebuild``: the index in step with folders from the command line, with its
progress on stderr and a summary (``--json`` for a script)."""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import sys
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.basics.logs import setup_logging
from pylucene_mcp.cli.common import settings_of

if TYPE_CHECKING:
    from rich.progress import ProgressColumn

    from pylucene_mcp.crawler.pipeline import Crawler
    from pylucene_mcp.crawler.report import CrawlReport


def crawl(args: argparse.Namespace) -> int:
    settings = settings_of(args)
    setup_logging(settings.log_dir, stderr_level=logging.ERROR)
    folders = [str(folder.absolute()) for folder in args.directories]
    return _crawl_folders(settings, folders or None, args.full, args.json)


def rebuild(args: argparse.Namespace) -> int:
    """``rebuild``: the index removed without being opened (a corrupt index cannot be), then the
    configured folders crawled into it anew."""
    from pylucene_mcp.service.places import place

    settings = settings_of(args)
    setup_logging(settings.log_dir, stderr_level=logging.ERROR)
    where = place(settings)
    where.clear()
    print(f"{where.location} emptied (removed and created anew)", file=sys.stderr)
    if not settings.directories:
        print(
            "no folders are configured: crawl yours with `pylucene-mcp crawl DIR`",
            file=sys.stderr,
        )
        return 0
    return _crawl_folders(settings, None, True, args.json)


def _crawl_folders(settings: Settings, folders: list[str] | None, full: bool, as_json: bool) -> int:
    """Crawls ``folders``, which become configured ones (as addCrawlableDirectory makes them,
    see ``Service.adopt_directories``), or all the configured folders (None), which also
    removes from the index what none of them covers."""
    from pylucene_mcp.service.service import Service

    service = Service(settings)
    try:
        for folder in folders or ():  # a folder that may not be crawled changes nothing
            service.folders.crawlable(folder)
        service.writable_index()  # an index that cannot be written is said before anything
        if folders is None and not settings.directories:
            raise errors.InvalidRequestError(
                "no folders are configured: give the folders to crawl, e.g. "
                "`pylucene-mcp crawl ~/Documents`"
            )
        chosen = list(settings.directories) if folders is None else service.folders.adopt(folders)
        _fetch_tika()
        crawler = service.crawls.crawler()
        report = _run_with_progress(crawler, chosen, full, reconcile=folders is None)
        if report.full and service.index().needs_reindex:
            service.index().mark_schema_current()
    finally:
        service.close()
    if as_json:  # the words of the crawler tools' answers: camelCase, ISO times
        from pylucene_mcp.basics.shapes import to_dict
        from pylucene_mcp.server.tools.crawler import CrawlSummary

        print(json.dumps(to_dict(CrawlSummary.of(report)), indent=2, ensure_ascii=False))
    else:
        _print_summary(report)
    return 1 if report.failed and not (report.added or report.updated or report.skipped) else 0


def _fetch_tika() -> None:
    """Fetches the Tika server jar before the crawl when it is not here yet, with a progress bar
    on a terminal (the log says the same otherwise)."""
    from pylucene_mcp.crawler import tika_jar

    if tika_jar.find() is not None:
        return
    if not sys.stderr.isatty():
        print("fetching the Tika server jar once (crawling needs it)…", file=sys.stderr)
        tika_jar.ensure()
        return
    from rich.progress import DownloadColumn, TransferSpeedColumn

    with _progress_bar(
        "fetching the Tika server (once)", DownloadColumn(), TransferSpeedColumn()
    ) as update:
        tika_jar.ensure(update)


def _run_with_progress(
    crawler: Crawler, folders: list[str], full: bool, reconcile: bool
) -> CrawlReport:
    if not sys.stderr.isatty():
        last = [0.0]

        def plain(done: int, total: int) -> None:
            now = time.monotonic()
            if done == total or now - last[0] >= 2:
                last[0] = now
                print(f"extracted {done}/{total} files", file=sys.stderr, flush=True)

        return crawler.crawl(folders, full=full, progress=plain, reconcile=reconcile)
    from rich.progress import MofNCompleteColumn, TimeRemainingColumn

    with _progress_bar("extracting", MofNCompleteColumn(), TimeRemainingColumn()) as update:
        return crawler.crawl(folders, full=full, progress=update, reconcile=reconcile)


@contextlib.contextmanager
def _progress_bar(
    description: str, *columns: ProgressColumn
) -> Iterator[Callable[[int, int], None]]:
    """A progress bar on stderr (gone when it ends) with ``columns`` after the bar; yields what
    to call with how much is done of how much."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        *columns,
        transient=True,
        console=Console(stderr=True),
    ) as bar:
        task = bar.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _print_summary(report: CrawlReport) -> None:
    from rich.console import Console
    from rich.table import Table

    data = report.to_dict()
    table = Table(title=f"crawl of {', '.join(data['directories'])}")
    for column in ("found", "added", "updated", "skipped", "deleted", "failed", "MB", "files/s"):
        table.add_column(column, justify="right")
    table.add_row(
        *(str(data[k]) for k in ("found", "added", "updated", "skipped", "deleted", "failed")),
        f"{data['bytes'] / 1e6:.1f}",
        str(data["files_per_s"]),
    )
    console = Console()
    console.print(table)
    for failure in data["failures"][:50]:
        console.print(f"  failed: {failure['path']}: {failure['reason']}", highlight=False)
    if data["stopped"]:
        console.print("the crawl was stopped before the end")
