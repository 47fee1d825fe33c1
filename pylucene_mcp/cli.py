"""The command line: ``pylucene-mcp serve | search | crawl | stats | doctor | unlock | optimize |
purge``.

``serve`` speaks MCP on stdin/stdout and nothing else may write there; the other commands print
their results on stdout for people (``--json`` for scripts).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import re
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pylucene_mcp import __version__
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.basics.logs import setup_logging

if TYPE_CHECKING:
    from rich.console import Console

    from pylucene_mcp.crawler.pipeline import Crawler
    from pylucene_mcp.crawler.report import CrawlReport

log = logging.getLogger(__name__)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pylucene-mcp", description="Apache Lucene full-text search as an MCP server and CLI."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the MCP tools over stdio (or HTTP)")
    serve.add_argument("--index", type=Path, help="index folder (default ~/.pylucene-mcp/index)")
    serve.add_argument(
        "--http",
        metavar="[HOST:]PORT",
        help="serve MCP over Streamable HTTP at http://HOST:PORT/mcp instead of stdio "
        "(HOST 127.0.0.1 unless given; PYLUCENE_MCP_HTTP)",
    )
    serve.add_argument(
        "--warm-up-delay",
        type=float,
        default=0.5,
        help="seconds after start-up before the JVM and index open in the background",
    )

    search = commands.add_parser("search", help="search the index and print the hits")
    search.add_argument("query", help="Lucene query, e.g. '\"signed contract\"~3 OR *vertrag*'")
    search.add_argument("--index", type=Path)
    search.add_argument("--json", action="store_true", help="print the MCP tool's JSON")
    search.add_argument(
        "--filter",
        action="append",
        default=[],
        metavar="FIELD=VALUE",
        help="filter, repeatable: language=de, file_extension=pdf,docx (in), "
        "modified_date=2024-01-01..2024-12-31 (range), author!=Bob (not)",
    )
    search.add_argument(
        "--sort", default="_score", choices=["_score", "modified_date", "created_date", "file_size"]
    )
    search.add_argument("--order", default="desc", choices=["asc", "desc"])
    search.add_argument("--page", type=int, default=1)
    search.add_argument("--page-size", type=int, default=10)
    search.add_argument("--operator", choices=["AND", "OR"], help="default operator")

    quote = commands.add_parser(
        "quote", help="where a quote stands in the documents: exactly, normalized or nearly"
    )
    quote.add_argument("quote", help="the words as quoted: a few words to a few sentences")
    quote.add_argument("--index", type=Path)
    quote.add_argument("--json", action="store_true", help="print the MCP tool's JSON")
    quote.add_argument("--file", help="only in this document (its path as indexed)")
    quote.add_argument(
        "--filter", action="append", default=[], metavar="FIELD=VALUE", help="as search's"
    )
    quote.add_argument("--min-similarity", type=float, default=0.8)
    quote.add_argument("--max-results", type=int, default=5)

    crawl = commands.add_parser("crawl", help="crawl folders into the index, then exit")
    crawl.add_argument(
        "directories",
        nargs="*",
        type=Path,
        metavar="DIR",
        help="folders to crawl, which become crawled folders (saved in config.yaml); none: "
        "every configured folder, and what none of them covers leaves the index",
    )
    crawl.add_argument("--index", type=Path)
    crawl.add_argument("--full", action="store_true", help="re-extract every file")
    crawl.add_argument("--json", action="store_true", help="print the report as JSON")

    rebuild = commands.add_parser(
        "rebuild",
        help="remove the index (a corrupt one too) and crawl the configured folders into it anew",
    )
    rebuild.add_argument("--index", type=Path)
    rebuild.add_argument("--json", action="store_true", help="print the crawl's report as JSON")

    stats = commands.add_parser("stats", help="print index statistics as JSON")
    stats.add_argument("--index", type=Path)

    doctor = commands.add_parser(
        "doctor",
        help="check Java, the jars, the index, Tika, the config and the logs; "
        "print the Claude Desktop configuration for this installation",
    )
    doctor.add_argument("--json", action="store_true", help="print the checks as JSON")
    doctor.add_argument(
        "--fetch-tika",
        action="store_true",
        help="fetch and verify the Tika server jar now if missing (else the first crawl does)",
    )

    unlock = commands.add_parser(
        "unlock", help="remove an index lock that no running process holds"
    )
    unlock.add_argument("--index", type=Path)

    optimize = commands.add_parser("optimize", help="merge the index into fewer segments")
    optimize.add_argument("--index", type=Path)
    optimize.add_argument("--max-segments", type=int, default=1)

    purge = commands.add_parser("purge", help="delete every document of the index")
    purge.add_argument("--index", type=Path)
    purge.add_argument("--yes", action="store_true", help="yes, delete every document")
    purge.add_argument(
        "--full", action="store_true", help="also remove the index folder and recreate it empty"
    )

    solr = commands.add_parser(
        "solr", help="the SolrCloud backend: set up its collection, list its plugin's jars"
    )
    solr_commands = solr.add_subparsers(dest="solr_command", required=True)
    init = solr_commands.add_parser(
        "init",
        help="upload the configset and create or update the collection (idempotent); the "
        "cluster is solr_urls (PYLUCENE_MCP_SOLR_URLS), the collection solr_collection",
    )
    init.add_argument("--shards", type=int, default=2)
    init.add_argument("--replicas", type=int, default=2)
    init.add_argument("--index", type=Path, help=argparse.SUPPRESS)
    solr_commands.add_parser(
        "plugin", help="print the jars every Solr node needs on its class path (its lib folder)"
    )

    token = commands.add_parser(
        "token",
        help="make a static token for the HTTP server (printed once; the tokens file keeps its "
        "SHA-256 with the subject, scopes and groups)",
    )
    token.add_argument("--subject", required=True, help="who the token is for, e.g. dora")
    token.add_argument(
        "--scopes", required=True, help="comma-separated: search, crawl, admin (docs/team.md)"
    )
    token.add_argument("--groups", default="", help="comma-separated groups of the subject")
    token.add_argument(
        "--days", type=float, default=90, help="how long it is taken (default 90, at most 366)"
    )
    token.add_argument(
        "--file",
        type=Path,
        help="the tokens file (default: tokens_file, PYLUCENE_MCP_TOKENS_FILE, else "
        "~/.pylucene-mcp/tokens.yaml)",
    )
    return parser


def parse_filter(text: str) -> dict[str, object]:
    """``field=value``, ``field=a,b`` (in), ``field!=value`` (not), ``field=from..to`` (range).

    Raises:
        InvalidFilterError: for text of none of these forms.
    """
    match = re.fullmatch(r"\s*([A-Za-z_]+)\s*(!?=)\s*(.*)", text)
    if not match:
        raise errors.InvalidFilterError(f"--filter {text!r}: use FIELD=VALUE, e.g. language=de")
    name, op, value = match.groups()
    negate = op == "!="
    if ".." in value and not negate:
        ends: list[object] = [end.strip() or None for end in value.split("..", 1)]
        if name in schema.LONG_FIELDS:  # bytes are numbers, as the MCP tool takes and echoes
            ends = [int(e) if isinstance(e, str) and e.isdigit() else e for e in ends]
        return {"field": name, "operator": "range", "from": ends[0], "to": ends[1]}
    if "," in value:
        values = [v for v in value.split(",") if v]
        return {"field": name, "operator": "not_in" if negate else "in", "values": values}
    return {"field": name, "operator": "not" if negate else "eq", "value": value}


def _settings(args: argparse.Namespace) -> Settings:
    settings = Settings.load()
    return settings.with_index(args.index) if args.index else settings


def _serve(args: argparse.Namespace) -> int:
    try:
        settings = _settings(args)
        if args.http:
            settings = settings.model_copy(update={"http": args.http})
        access = sockets = None
        if settings.http:
            from pylucene_mcp.server.auth import access as http_access
            from pylucene_mcp.server.guard import loopback_sockets
            from pylucene_mcp.server.http import address

            host, port = address(settings.http)
            access = http_access(settings, host, port)
            sockets = loopback_sockets(host, port)  # a squatter on [::1] is said before start
    except errors.PyLuceneMcpError as exc:  # before anything starts: said, not logged
        print(f"error: {exc}", file=sys.stderr)
        return 2
    setup_logging(settings.log_dir)
    _stacks_on_sigusr1()
    from pylucene_mcp.basics import portable
    from pylucene_mcp.server.app import build_server
    from pylucene_mcp.service.service import Service

    # before Java can start: on Windows its System.out writes to the standard output handle,
    # which the protocol's fd 1 keeps (serve_stdio takes it) but no one else may write to
    portable.rebind_std_output()
    service = Service(settings)
    server = build_server(settings, service, access)
    service.warm_up(args.warm_up_delay, then_crawl=True)
    if settings.http:
        log.info("serving %s over HTTP on %s", settings.index_path, settings.http)
    else:
        log.info("serving %s over stdio", settings.index_path)
    if not settings.http and sys.stdin.isatty():  # a person started it: say what it waits for
        print(
            f"pylucene-mcp {__version__}: waiting for an MCP client on stdin (index "
            f"{settings.index_path}); an MCP client such as Claude Desktop starts this command "
            "itself, and `pylucene-mcp doctor` prints its configuration. Ctrl-C stops.",
            file=sys.stderr,
            flush=True,
        )
    code = 0
    try:
        import anyio

        if settings.http:
            from functools import partial

            from pylucene_mcp.server.http import serve_http

            hosts, origins = settings.http_hosts, settings.http_origins
            run = partial(
                serve_http,
                server,
                host,
                port,
                hosts=hosts,
                origins=origins,
                access=access,
                settings=settings,
                sockets=sockets,
            )
            anyio.run(run)
        else:
            from pylucene_mcp.server.protocol import serve_stdio

            anyio.run(serve_stdio, server)
    except KeyboardInterrupt:
        pass
    except Exception:
        log.exception("the server stopped with an error")
        code = 1
    finally:
        try:
            service.close()
        except Exception:
            log.exception("closing the index failed")
        logging.shutdown()
        sys.stderr.flush()
    # The JVM may have been started from a worker thread, which makes a normal interpreter exit
    # hang (JPype shuts it down only from the main thread): leave at once, the index is closed.
    os._exit(code)


def _highlight(text: str, tty: bool) -> str:
    return text.replace("<em>", "\033[1m" if tty else "[").replace(
        "</em>", "\033[0m" if tty else "]"
    )


def _ask_server(settings: Settings, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The answer of the server that writes the index, when one runs (no JVM to start here:
    0.3 s instead of seconds), else None."""
    from pylucene_mcp.service.places import place

    return place(settings).ask_writer(tool, arguments)


def _search(args: argparse.Namespace) -> int:
    from pylucene_mcp.engine.core.backend import SearchRequest
    from pylucene_mcp.service.service import open_backend

    settings = _settings(args)
    filters = [parse_filter(f) for f in args.filter]
    operator = args.operator or settings.default_operator
    arguments = {"query": args.query, "sort": args.sort, "sortOrder": args.order}
    arguments.update(page=args.page, pageSize=args.page_size, defaultOperator=operator)
    data = _ask_server(settings, "search", {**arguments, "filters": filters or None})
    if data is None:
        index = open_backend(settings, read_only=True)
        try:
            data = index.search(
                SearchRequest(
                    args.query,
                    filters=filters,
                    sort=args.sort,
                    sort_order=args.order,
                    page=args.page,
                    page_size=args.page_size,
                    default_operator=operator,
                )
            ).to_dict()
        finally:
            index.close()
        from pylucene_mcp.server.fitting import fit_passages
        from pylucene_mcp.server.tools.output import ANSWER_BUDGET_BYTES

        data = fit_passages(data, ANSWER_BUDGET_BYTES)  # as the tool answers, passages fitted
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return 0
    _print_hits(data, sys.stdout.isatty())
    return 0


def _quote(args: argparse.Namespace) -> int:
    """``quote``: the locateQuote tool's answer, from the server that writes the index where
    one runs, else from the index itself; exit 1 where the quote stands nowhere."""
    from pylucene_mcp.basics.shapes import to_dict
    from pylucene_mcp.service.service import open_backend

    settings = _settings(args)
    filters = [parse_filter(f) for f in args.filter]
    arguments = {
        "quote": args.quote,
        "filePath": args.file,
        "filters": filters or None,
        "minSimilarity": args.min_similarity,
        "maxResults": args.max_results,
    }
    data = _ask_server(settings, "locateQuote", arguments)
    if data is None:
        index = open_backend(settings, read_only=True)
        try:
            found = index.locate_quote(
                args.quote,
                file_path=args.file,
                filters=filters,
                min_similarity=args.min_similarity,
                max_results=args.max_results,
            )
        finally:
            index.close()
        data = to_dict(found)
    if args.json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _print_places(data)
    return 0 if data["matches"] else 1


def _print_places(data: dict[str, Any]) -> None:
    """A locateQuote answer for a person: each place, its kind, document, page and span, its
    text, and the words that differ."""
    places = data["matches"] or data.get("closest") or []
    if not data["matches"]:
        print(f"nowhere at similarity {data['minSimilarity']:g} or more; the closest places:")
    for place in places:
        page = f" p.{place['page']}" if place.get("page") else ""
        similarity = f" {place['similarity']:.2f}" if place["match"] == "near" else ""
        print(
            f"{place['match']}{similarity}  {place['filePath']}{page} "
            f"[{place['start']}–{place['end']}]"
        )
        print("    " + " ".join(place["text"].split()))
        for difference in place.get("differences", ()):
            print(f"    quoted {difference['quote']!r}, written {difference['document']!r}")


def _print_hits(data: dict[str, Any], tty: bool) -> None:
    """A search's answer (the tool's JSON, from the server or the index) for a person, read as
    the typed result it is."""
    from pylucene_mcp.engine.core.backend import SearchResult

    result = SearchResult(data)
    took = "" if result.search_time_ms is None else f" ({result.search_time_ms} ms)"
    print(f"{result.total_hits} hits{took}, page {result.page}/{max(result.total_pages, 1)}")
    first = (result.page - 1) * result.page_size + 1
    for rank, hit in enumerate(result.documents, start=first):
        title = f" — {hit.title}" if hit.title else ""
        print(f"{rank:>3}. {hit.score:7.3f}  {hit.file_path}{title}")
        for passage in hit.passages:
            page = f"p.{passage.page} " if passage.page else ""
            print(f"       {page}{_highlight(passage.text, tty)}")
    for dim, values in result.facets.items():
        if values:
            print(f"  {dim}: " + ", ".join(f"{v.value} ({v.count})" for v in values))


def _crawl(args: argparse.Namespace) -> int:
    settings = _settings(args)
    setup_logging(settings.log_dir, stderr_level=logging.ERROR)
    folders = [str(folder.absolute()) for folder in args.directories]
    return _crawl_folders(settings, folders or None, args.full, args.json)


def _rebuild(args: argparse.Namespace) -> int:
    """``rebuild``: the index removed without being opened (a corrupt index cannot be), then the
    configured folders crawled into it anew."""
    from pylucene_mcp.service.places import place

    settings = _settings(args)
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
            service.crawlable(folder)
        service.writable_index()  # an index that cannot be written is said before anything
        if folders is None and not settings.directories:
            raise errors.InvalidRequestError(
                "no folders are configured: give the folders to crawl, e.g. "
                "`pylucene-mcp crawl ~/Documents`"
            )
        chosen = (
            list(settings.directories) if folders is None else service.adopt_directories(folders)
        )
        _fetch_tika()
        crawler = service.crawler()
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
    from rich.progress import BarColumn, DownloadColumn, Progress, TransferSpeedColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        DownloadColumn(),
        TransferSpeedColumn(),
        transient=True,
        console=_stderr_console(),
    ) as bar:
        task = bar.add_task("fetching the Tika server (once)", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

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
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeRemainingColumn

    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        transient=True,
        console=_stderr_console(),
    ) as bar:
        task = bar.add_task("extracting", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return crawler.crawl(folders, full=full, progress=update, reconcile=reconcile)


def _stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


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


def _stats(args: argparse.Namespace) -> int:
    from pylucene_mcp.basics.shapes import to_dict
    from pylucene_mcp.service.service import open_backend

    settings = _settings(args)
    stats = _ask_server(settings, "getIndexStats", {})
    if stats is None:
        index = open_backend(settings, read_only=True)
        try:
            stats = to_dict(index.index_stats())
        finally:
            index.close()
    print(json.dumps(stats, indent=2))
    return 0


def _doctor(args: argparse.Namespace) -> int:
    from pylucene_mcp import doctor

    return doctor.main(as_json=args.json, fetch_tika=args.fetch_tika)


def _optimize(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.service import open_backend

    index = open_backend(_settings(args), create=False)
    try:
        segments = index.optimize(args.max_segments)
        print(f"{len(index)} documents in {segments} segment(s)")
    finally:
        index.close()
    return 0


def _purge(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.places import place
    from pylucene_mcp.service.service import open_backend

    if not args.yes:
        raise errors.InvalidRequestError(
            "purge deletes every document of the index: run it again with --yes"
        )
    settings = _settings(args)
    if args.full:  # emptied without a writer: a corrupt index cannot be opened for one
        where = place(settings)
        count = where.documents()
        gone = (
            f"deleted {count} documents"
            if count is not None
            else ("removed an index that could not be read")
        )
        where.clear()
        print(f"{gone}; {where.location} recreated empty")
        return 0
    index = open_backend(settings, create=False)
    try:
        deleted = index.purge()
    finally:
        index.close()
    print(f"deleted {deleted} documents")
    return 0


def _solr(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.places import Collection

    if args.solr_command == "plugin":
        for jar in Collection.plugin_jars():
            print(jar)
        return 0
    print(Collection(_settings(args)).init(args.shards, args.replicas))
    return 0


def _token(args: argparse.Namespace) -> int:
    from pylucene_mcp.basics.config import comma_list, home_dir
    from pylucene_mcp.server.auth import add_static_token

    path = args.file or Settings.load().tokens_file or home_dir() / "tokens.yaml"
    names, groups = comma_list(args.scopes), comma_list(args.groups)
    made = add_static_token(path, args.subject, names, groups, args.days)
    print(made)
    print(
        f"a token for {args.subject} ({', '.join(names)}), good for {args.days:g} days: give it "
        f"to them now, it is not kept (its SHA-256 is in {path}); serve with tokens_file set to "
        "that file",
        file=sys.stderr,
    )
    return 0


def _unlock(args: argparse.Namespace) -> int:
    from pylucene_mcp.service.places import place

    print(place(_settings(args)).unlock()[1])
    return 0


def _negated_query(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """``search -debian``: a word that begins with '-' and is none of search's options is its
    query (a negation), not an option; it goes after ``--``, where a query that is one goes."""
    if not argv or argv[0] != "search" or "--" in argv:
        return argv
    search = next(
        action.choices["search"]
        for action in parser._subparsers._group_actions  # type: ignore[union-attr]
        if isinstance(action, argparse._SubParsersAction)
    )
    options = set(search._option_string_actions)
    for at, word in enumerate(argv[1:], start=1):
        if word.startswith("-") and len(word) > 1 and word.split("=", 1)[0] not in options:
            return [*argv[:at], *argv[at + 1 :], "--", word]
    return argv


def _stacks_on_sigusr1() -> None:
    """``kill -USR1 <pid>`` writes the stack of every Python thread of the server to stderr
    (the client's log of it; never stdout, the protocol's): where a server that does not answer
    or does not stop is waiting. POSIX only."""
    import faulthandler
    import signal

    if hasattr(signal, "SIGUSR1"):
        faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Runs the command line; returns the exit code."""
    parser = _parser()
    args = parser.parse_args(_negated_query(parser, list(sys.argv[1:] if argv is None else argv)))
    if args.command == "serve":
        return _serve(args)
    logging.basicConfig(
        level=logging.WARNING, stream=sys.stderr, format="%(levelname)s %(message)s"
    )
    commands = {
        "search": _search,
        "quote": _quote,
        "stats": _stats,
        "crawl": _crawl,
        "doctor": _doctor,
        "unlock": _unlock,
        "optimize": _optimize,
        "purge": _purge,
        "rebuild": _rebuild,
        "solr": _solr,
        "token": _token,
    }
    try:
        return commands[args.command](args)
    except errors.PyLuceneMcpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if getattr(args, "json", False):  # a script reading stdout gets the error there too
            print(json.dumps({"error": str(exc), "kind": type(exc).__name__}))
        return 2
