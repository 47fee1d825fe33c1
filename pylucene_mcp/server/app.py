"""The MCP server: thin tools over the service layer, served over STDIO.

Each tool validates (its input schema carries the constraints), calls the service and shapes the
result; errors of :mod:`pylucene_mcp.basics.errors` become tool errors whose text tells the
model what to do. No Lucene here. The JVM starts in the background after the handshake.
"""

from __future__ import annotations

import logging

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.utilities.func_metadata import FuncMetadata

from pylucene_mcp import __version__
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.server.protocol import StrictArguments
from pylucene_mcp.server.tools.apps import register_apps, ui_meta
from pylucene_mcp.server.tools.registry import Registry
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


def enabled_tools(settings: Settings, registry: Registry | None = None) -> set[str]:
    """Tool names left after ``tools_include`` / ``tools_exclude``: names or groups (those the
    tools were recorded under), exclude wins."""
    groups = (registry or all_tools(settings, Service(settings))).groups()
    every = {name for names in groups.values() for name in names}

    def expand(items: tuple[str, ...]) -> set[str]:
        out: set[str] = set()
        for item in items:
            out.update(groups.get(item, (item,)))
        return out

    chosen = expand(settings.tools_include) & every if settings.tools_include else every
    return chosen - expand(settings.tools_exclude)


def all_tools(settings: Settings, svc: Service) -> Registry:
    """Every tool of the server, recorded in the order tools/list shows them."""
    from pylucene_mcp.server.tools.admin import register_admin
    from pylucene_mcp.server.tools.crawler import register_crawler
    from pylucene_mcp.server.tools.debug import register_debug
    from pylucene_mcp.server.tools.search import register_search
    from pylucene_mcp.server.tools.vocabulary import register_vocabulary

    tools = Registry()
    register_search(tools, settings, svc)
    register_debug(tools, svc)
    register_vocabulary(tools, svc)
    register_crawler(tools, svc)
    register_admin(tools, svc)
    return tools


def build_server(settings: Settings, service: Service | None = None) -> MCPServer:
    """The MCP server for ``settings``: every enabled tool, the server instructions."""
    svc = service or Service(settings)
    server = MCPServer(
        name="pylucene-mcp",
        title="Lucene full-text search",
        version=__version__,
        instructions=INSTRUCTIONS,
    )
    server.service = svc  # type: ignore[attr-defined]
    tools = all_tools(settings, svc)
    enabled = enabled_tools(settings, tools)
    checked: dict[str, FuncMetadata] = {}
    for name, entry in tools.tools.items():
        if name in enabled:
            server.add_tool(
                entry.fn,
                name=name,
                title=entry.annotations.title,
                annotations=entry.annotations,
                meta=ui_meta(entry.app) if entry.app else None,
                structured_output=True,
            )
            # the SDK's own model of the arguments (building a second one cost ~100 ms a start)
            tool = server._tool_manager.get_tool(name)
            assert tool is not None, name
            checked[name] = tool.fn_metadata
    register_apps(server)
    server.middleware.append(StrictArguments(checked))
    return server
