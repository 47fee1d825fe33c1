"""The command line: ``pylucene-mcp serve | search | quote | crawl | rebuild | stats | doctor |
unlock | optimize | purge | solr | token``.

``serve`` speaks MCP on stdin/stdout and nothing else may write there; the other commands print
their results on stdout for people (``--json`` for scripts). This module parses the command
line and serves; the other commands live by job in ``reading`` (search, quote), ``crawling``
(crawl, rebuild) and ``admin`` (the rest).
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from pylucene_mcp import __version__
from pylucene_mcp.basics import errors
from pylucene_mcp.basics.logs import setup_logging
from pylucene_mcp.cli import admin, crawling, reading
from pylucene_mcp.cli.common import parse_filter, settings_of

__all__ = ["main", "parse_filter"]

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


def _serve(args: argparse.Namespace) -> int:
    try:
        settings = settings_of(args)
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
        "search": reading.search,
        "quote": reading.quote,
        "stats": admin.stats,
        "crawl": crawling.crawl,
        "doctor": admin.doctor,
        "unlock": admin.unlock,
        "optimize": admin.optimize,
        "purge": admin.purge,
        "rebuild": crawling.rebuild,
        "solr": admin.solr,
        "token": admin.token,
    }
    try:
        return commands[args.command](args)
    except errors.PyLuceneMcpError as exc:
        print(f"error: {exc}", file=sys.stderr)
        if getattr(args, "json", False):  # a script reading stdout gets the error there too
            print(json.dumps({"error": str(exc), "kind": type(exc).__name__}))
        return 2
