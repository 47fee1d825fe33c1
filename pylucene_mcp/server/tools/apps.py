"""MCP Apps (the ``io.modelcontextprotocol/ui`` extension): the HTML views a host that supports
them shows beside a tool's answer, inside the conversation.

- ``ui://pylucene-mcp/index-admin.html`` renders the ``indexAdmin`` tool's answer: index
  statistics, the crawl with a live progress bar, and Optimize / Purge / Unlock behind a
  confirmation, each a call of the server's own tool through the host.
- ``ui://pylucene-mcp/crawl-dashboard.html`` renders ``getCrawlerStats``: the folders with the
  running (or last) crawl's figures for each, the progress and rates, the failures with their
  reasons, the watcher's recent changes; Pause, Resume, Stop and Start crawl.
- ``ui://pylucene-mcp/document-preview.html`` renders ``getDocumentDetails``: the text page by
  page (a PDF's pages as the search numbers them), the query's matches marked, Previous and Next
  match, Previous and Next page.
- ``ui://pylucene-mcp/query-builder.html`` renders ``queryBuilder``: words, a phrase, words to
  leave out and a field to search them in, filters picked from the facets' values, a date range;
  the query text it writes, its hit count as it changes, and profileQuery's explanation.
- ``ui://pylucene-mcp/search-results.html`` renders a ``search`` answer: a sortable, filterable
  table of the hits with their passages, the facet counts (a click narrows the search), and a
  preview of a document through ``getDocumentDetails``.

Each is one self-contained HTML file in ``pylucene_mcp/server/apps/`` (no remote resource: the
host's default CSP applies), following the host's theme through the standard CSS variables. Hosts
without app support ignore the ``_meta.ui`` of the tools and show their usual answer.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import resources

from mcp.server.mcpserver import MCPServer

MIME_TYPE = "text/html;profile=mcp-app"
APPS = {
    "index-admin": (
        "ui://pylucene-mcp/index-admin.html",
        "Index administration",
        "Index statistics, crawl progress, and Optimize / Purge / Unlock with confirmation",
    ),
    "crawl-dashboard": (
        "ui://pylucene-mcp/crawl-dashboard.html",
        "Crawl dashboard",
        "The crawl per folder with its progress and rates, failures with their reasons, the "
        "watcher's recent changes, and pause, resume and stop",
    ),
    "document-preview": (
        "ui://pylucene-mcp/document-preview.html",
        "Document preview",
        "A document's text page by page with a search's matches marked and a jump from match "
        "to match",
    ),
    "query-builder": (
        "ui://pylucene-mcp/query-builder.html",
        "Query builder",
        "A form that writes a search from the index's own fields and values, with its hit count "
        "as it changes and profileQuery's explanation",
    ),
    "search-results": (
        "ui://pylucene-mcp/search-results.html",
        "Search results",
        "The hits of a search as a table with passages, facets to narrow it and a preview",
    ),
}


def app_html(name: str) -> str:
    """The HTML of the app ``name`` (a key of :data:`APPS`): its page with the shared style
    sheet and bridge script (``apps/base.css``, ``apps/bridge.js``) put in place."""
    folder = resources.files("pylucene_mcp.server") / "apps"
    page = (folder / f"{name}.html").read_text("utf-8")
    page = page.replace("/*BASE_CSS*/", (folder / "base.css").read_text("utf-8"))
    return page.replace("/*BRIDGE_JS*/", (folder / "bridge.js").read_text("utf-8"))


def ui_meta(name: str) -> dict[str, object]:
    """The ``_meta`` of a tool whose answer the app ``name`` renders."""
    return {"ui": {"resourceUri": APPS[name][0]}}


def register_apps(server: MCPServer) -> None:
    """Serves every app as a ``ui://`` resource of the MCP Apps MIME type."""
    for name, (uri, title, description) in APPS.items():
        server.resource(
            uri,
            name=name,
            title=title,
            description=description,
            mime_type=MIME_TYPE,
            meta={"ui": {"prefersBorder": True}},
        )(_reader(name))


def _reader(name: str) -> Callable[[], str]:
    def read() -> str:
        return app_html(name)

    return read
