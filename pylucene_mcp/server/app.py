"""The MCP server: thin tools over the service layer, served over STDIO.

Each tool validates (its input schema carries the constraints), calls the service and shapes the
result; errors of :mod:`pylucene_mcp.basics.errors` become tool errors whose text tells the
model what to do. No Lucene here. The JVM starts in the background after the handshake.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Annotated, Any, Literal, TypeVar

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata
from mcp_types import ToolAnnotations
from pydantic import Field

from pylucene_mcp import __version__
from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.engine import backend as info
from pylucene_mcp.engine.backend import SearchResult, compact_size
from pylucene_mcp.server.protocol import StrictArguments
from pylucene_mcp.server.tools.actions import search_actions
from pylucene_mcp.server.tools.apps import register_apps, ui_meta
from pylucene_mcp.server.tools.models import RangeFacetIn, SearchFilter, filter_specs
from pylucene_mcp.server.tools.output import (
    ANSWER_BUDGET_BYTES,
    ANSWER_CEILING_BYTES,
    answers,
    listing,
)
from pylucene_mcp.service.service import Service

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
Full-text search (Apache Lucene) over the user's indexed documents. You are the semantic layer:
the engine matches words exactly, so expand the query yourself.
- English and German word forms match, ranked below the word as written: lock finds locks and
  locked, Haus finds Häuser (wordForms=false: exact words only).
- No synonyms: write OR-expansions, e.g. (contract OR agreement OR Vertrag).
- Trailing wildcards for derived words: sign* finds sign, signed, signature (patterns of four
  letters or more rank their matches; shorter ones score all alike).
- German compounds: infix wildcards, *vertrag* finds Arbeitsvertrag and Vertragsbedingungen;
  a leading wildcard *vertrag is cheap.
- Phrases and proximity: "signed contract", "contract signed"~3. Fuzzy: Mayer~1.
- Umlauts and accents are folded: muller, Mueller and Müller all find Müller; cafe finds café.
- Terms are ANDed by default (defaultOperator=OR to change); use AND/OR/NOT, +/-, parentheses.
  Words side by side bind tighter than OR: machine learning OR deep learning means
  (machine AND learning) OR (deep AND learning). Patterns and fuzzy words match every word
  they expand to.
- Unfielded words match the text or the title (also a title kept only in a file's metadata).
- Fields: title:, author:, file_name:, language:de, file_extension:pdf,
  modified_date:[2024-01-01 TO *], file_size:[1000000 TO *].
- Narrow with filters and facets (author, language, file_extension, file_type) instead of
  re-querying; facets of a filtered dimension still show its other values.
- Long result lists: cursor '*' and then each answer's nextCursor (page stays 1).
- Passages show <em>matched</em> words from anywhere in the document; read more of a document
  with getDocumentDetails (filePath, offset, length).
- When results surprise you: profileQuery (what the query became, term rarity, advice) and
  explainMiss (why a given document is missing); suggestTerms shows how the index spells a word.
"""

HitField = Literal[
    "filePath", "fileName", "title", "author", "language", "fileExtension", "fileType",
    "fileSize", "createdDate", "modifiedDate", "indexedDate", "score", "passages",
]  # fmt: skip
FacetDimension = Literal["author", "language", "file_extension", "file_type"]


# the MCP App that shows a tool's answer in hosts that support them (tools/apps.py)
DETAILS_LENGTH = 5000  # getDocumentDetails' default slice, in characters

TOOL_APPS = {"search": "search-results", "indexAdmin": "index-admin"}

TOOL_GROUPS = {
    "search": ("search",),
    "info": ("getIndexStats", "listIndexedFields", "getDocumentDetails"),
    "debug": ("profileQuery", "explainMiss"),
    "admin": ("indexAdmin", "optimizeIndex", "purgeIndex", "unlockIndex", "getIndexAdminStatus"),
    "observability": ("suggestTerms", "getTopTerms", "findDuplicates"),
    "crawler": (
        "startCrawl",
        "pauseCrawler",
        "resumeCrawler",
        "stopCrawler",
        "getCrawlerStatus",
        "getCrawlerStats",
        "listCrawlableDirectories",
        "addCrawlableDirectory",
        "removeCrawlableDirectory",
    ),
}


def _annotations(
    title: str, *, read_only: bool, destructive: bool = False, idempotent: bool = True
) -> ToolAnnotations:
    return ToolAnnotations(
        title=title,
        read_only_hint=read_only,
        destructive_hint=destructive,
        idempotent_hint=idempotent,
        open_world_hint=False,
    )


FieldsOut = listing("FieldsOut", "fields", info.FieldInfo)

F = TypeVar("F", bound=Callable[..., Any])


def _tool_errors(fn: F) -> F:
    """Turns the project's errors into tool errors addressed to the model."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except errors.PyLuceneMcpError as exc:
            raise ToolError(str(exc)) from exc

    return wrapper  # type: ignore[return-value]


def fit_content(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Document details whose text slice is cut to fit ``max_bytes`` of compact JSON (text in
    scripts of several bytes a character passes 10 KB long before 5,000 characters)."""
    over = compact_size(data) - max_bytes
    if over <= 0:
        return data
    encoded = data["content"].encode("utf-8")
    kept = encoded[: max(len(encoded) - over - 40, 0)].decode("utf-8", errors="ignore")
    offset = data["offset"]
    while compact_size({**data, "content": kept, "nextOffset": offset + len(kept)}) > max_bytes:
        if not kept:
            break
        kept = kept[: -max(len(kept) // 50, 1)]
    cut = {"content": kept, "length": len(kept), "hasMore": True, "nextOffset": offset + len(kept)}
    return {**data, **cut}


def enabled_tools(settings: Settings) -> set[str]:
    """Tool names left after ``tools_include`` / ``tools_exclude``: names or groups, exclude
    wins."""
    every = {name for names in TOOL_GROUPS.values() for name in names}

    def expand(items: tuple[str, ...]) -> set[str]:
        out: set[str] = set()
        for item in items:
            out.update(TOOL_GROUPS.get(item, (item,)))
        return out

    chosen = expand(settings.tools_include) & every if settings.tools_include else every
    return chosen - expand(settings.tools_exclude)


def build_server(settings: Settings, service: Service | None = None) -> MCPServer:
    """The MCP server for ``settings``: every enabled tool, the server instructions."""
    from pylucene_mcp.basics.shapes import to_dict
    from pylucene_mcp.engine.backend import fit_passages, select

    svc = service or Service(settings)
    server = MCPServer(
        name="pylucene-mcp",
        title="Lucene full-text search",
        version=__version__,
        instructions=INSTRUCTIONS,
    )
    server.service = svc  # type: ignore[attr-defined]
    enabled = enabled_tools(settings)

    @_tool_errors
    @answers(SearchResult)
    def search(
        query: Annotated[
            str, Field(max_length=10_000, description="Lucene query; '*' matches all")
        ],
        filters: Annotated[list[SearchFilter] | None, Field(max_length=20)] = None,
        sort: Literal["_score", "modified_date", "created_date", "file_size"] = "_score",
        sortOrder: Literal["asc", "desc"] = "desc",
        page: Annotated[int, Field(ge=1, le=1000)] = 1,
        pageSize: Annotated[int, Field(ge=1, le=100)] = 10,
        defaultOperator: Literal["AND", "OR"] = settings.default_operator,
        maxPassages: Annotated[int, Field(ge=0, le=10)] = 3,
        passageLength: Annotated[int, Field(ge=50, le=1000)] = 200,
        fields: Annotated[
            list[HitField] | None,
            Field(max_length=13, description="hit fields to return (filePath always)"),
        ] = None,
        facets: Annotated[
            list[FacetDimension] | None,
            Field(max_length=4, description="facet dimensions to count; [] for none"),
        ] = None,
        facetLimit: Annotated[int, Field(ge=1, le=100)] = 10,
        facetMinCount: Annotated[int, Field(ge=1, le=1_000_000)] = 1,
        timeAllowedMs: Annotated[
            int | None,
            Field(ge=1, le=600_000, description="a time limit below the server's own"),
        ] = None,
        facetQueries: Annotated[
            dict[str, Annotated[str, Field(max_length=1000)]] | None,
            Field(max_length=20, description="name → Lucene query: counts among the hits"),
        ] = None,
        rangeFacets: Annotated[
            list[RangeFacetIn] | None,
            Field(max_length=4, description="date or size buckets among the hits"),
        ] = None,
        cursor: Annotated[
            str | None,
            Field(
                max_length=200,
                description="deep paging: '*' for the first page, then the answer's nextCursor",
            ),
        ] = None,
        actions: Annotated[
            bool, Field(description="suggest next calls in _actions (page, drill-down, read)")
        ] = False,
        wordForms: Annotated[
            bool,
            Field(description="also match other forms of the words (locks → lock); false: exact"),
        ] = True,
    ) -> dict[str, Any]:
        """Search the indexed documents with Lucene query syntax; returns ranked documents with
        passages (<em> around matches), facet counts and the applied filters. Cheap: call it
        freely and refine with filters or OR-expansions. A search that runs out of its time
        limit returns what it found with partialResults: true."""
        specs = filter_specs(filters)
        limit_s = min(settings.search_timeout_s, (timeAllowedMs or 10**9) / 1000)
        result = svc.index().search(
            query,
            filters=specs,
            sort=sort,
            sort_order=sortOrder,
            page=page,
            page_size=pageSize,
            default_operator=defaultOperator,
            max_passages=maxPassages,
            passage_length=passageLength,
            timeout_s=limit_s,
            facet_limit=facetLimit,
            cursor=cursor,
            word_forms=wordForms,
        )
        data = select(result.to_dict(), fields, facets, facetMinCount)
        if facetQueries or rangeFacets:
            named, ranges, cut = svc.index().facet_counts(
                query,
                filters=specs,
                facet_queries=facetQueries,
                range_facets=[r.model_dump() for r in rangeFacets or ()],
                default_operator=defaultOperator,
                word_forms=wordForms,
                timeout_s=limit_s,
            )
            if cut:  # the counts not done in time are left out, and the answer says so
                data["partialResults"] = True
            if named:
                data["facetQueries"] = named
            if ranges:
                data["rangeFacets"] = to_dict(ranges)
        if actions:
            data["_actions"] = search_actions(data, specs)
        return fit_passages(data, ANSWER_BUDGET_BYTES)

    @_tool_errors
    @answers(info.IndexStats)
    def getIndexStats() -> info.IndexStats:
        """Document count, index path and size, schema and Lucene version, indexed fields and
        the date ranges of the documents. Use it first to see what is searchable."""
        return svc.index().index_stats()

    @_tool_errors
    @answers(FieldsOut)
    def listIndexedFields() -> dict[str, Any]:
        """Every field: its kind, whether it is stored, a facet or sortable, which filter
        operators it takes and how many documents have it. Use it to write field queries and
        filters."""
        return {"fields": to_dict(svc.index().field_infos())}

    @_tool_errors
    @answers(info.DocumentDetails)
    def getDocumentDetails(
        filePath: Annotated[str, Field(min_length=1, max_length=4096)],
        offset: Annotated[int, Field(ge=0)] = 0,
        length: Annotated[int, Field(ge=1, le=100_000)] = DETAILS_LENGTH,
    ) -> dict[str, Any]:
        """The stored metadata of one indexed document and a slice of its text (offset/length
        in characters; hasMore says whether more follows, nextOffset where it starts). The slice
        is shortened to fit 10 KB at the default length, 64 KB at any length."""
        details = svc.index().document_details(filePath, offset=offset, length=length)
        data: dict[str, Any] = to_dict(details)
        budget = ANSWER_BUDGET_BYTES if length == DETAILS_LENGTH else ANSWER_CEILING_BYTES
        return fit_content(data, budget)

    from pylucene_mcp.server.tools.admin import admin_tools
    from pylucene_mcp.server.tools.crawler import crawler_tools
    from pylucene_mcp.server.tools.debug import debug_tools
    from pylucene_mcp.server.tools.vocabulary import vocabulary_tools

    tools: dict[str, tuple[Callable[..., Any], ToolAnnotations]] = {
        "search": (search, _annotations("Search documents", read_only=True)),
        "getIndexStats": (getIndexStats, _annotations("Index statistics", read_only=True)),
        "listIndexedFields": (
            listIndexedFields,
            _annotations("List indexed fields", read_only=True),
        ),
        "getDocumentDetails": (
            getDocumentDetails,
            _annotations("Document details", read_only=True),
        ),
        **debug_tools(svc, _tool_errors, _annotations),
        **vocabulary_tools(svc, _tool_errors, _annotations),
        **crawler_tools(svc, _tool_errors, _annotations),
        **admin_tools(svc, _tool_errors, _annotations),
    }
    checked: dict[str, FuncMetadata] = {}
    for name, (fn, tool_annotations) in tools.items():
        if name in enabled:
            server.add_tool(
                fn,
                name=name,
                title=tool_annotations.title,
                annotations=tool_annotations,
                meta=ui_meta(TOOL_APPS[name]) if name in TOOL_APPS else None,
                structured_output=True,
            )
            # the SDK's own model of the arguments (building a second one cost ~100 ms a start)
            tool = server._tool_manager.get_tool(name)
            assert tool is not None, name
            checked[name] = tool.fn_metadata
    register_apps(server)
    server.middleware.append(StrictArguments(checked))
    return server
