"""``search`` and ``quote``: the answer of the server that writes the index where one runs,
else of the index itself, printed for a person (``--json`` for a script)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pylucene_mcp.cli.common import ask_server, parse_filter, settings_of


def _highlight(text: str, tty: bool) -> str:
    return text.replace("<em>", "\033[1m" if tty else "[").replace(
        "</em>", "\033[0m" if tty else "]"
    )


def search(args: argparse.Namespace) -> int:
    from pylucene_mcp.engine.core.backend import SearchRequest
    from pylucene_mcp.service.service import open_backend

    settings = settings_of(args)
    filters = [parse_filter(f) for f in args.filter]
    operator = args.operator or settings.default_operator
    arguments = {"query": args.query, "sort": args.sort, "sortOrder": args.order}
    arguments.update(page=args.page, pageSize=args.page_size, defaultOperator=operator)
    data = ask_server(settings, "search", {**arguments, "filters": filters or None})
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


def quote(args: argparse.Namespace) -> int:
    """``quote``: the locateQuote tool's answer, from the server that writes the index where
    one runs, else from the index itself; exit 1 where the quote stands nowhere."""
    from pylucene_mcp.basics.shapes import to_dict
    from pylucene_mcp.service.service import open_backend

    settings = settings_of(args)
    filters = [parse_filter(f) for f in args.filter]
    arguments = {
        "quote": args.quote,
        "filePath": args.file,
        "filters": filters or None,
        "minSimilarity": args.min_similarity,
        "maxResults": args.max_results,
    }
    data = ask_server(settings, "locateQuote", arguments)
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
