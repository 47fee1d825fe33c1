"""The MCP tools through the SDK's in-memory client, against build_server()."""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from mcp import Client

from pylucene_mcp import Index
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.server import app
from pylucene_mcp.server.app import build_server, enabled_tools
from tests.mcp_client import SharedService, call, connect, error

pytestmark = pytest.mark.anyio


@pytest.fixture
async def client(index: Index) -> AsyncIterator[Client]:
    async with connect(index) as connected:
        yield connected


async def test_tools_are_listed_with_annotations_and_constraints(client: Client) -> None:
    tools = {t.name: t for t in (await client.list_tools()).tools}
    read_only = {
        "search",
        "getIndexStats",
        "listIndexedFields",
        "getDocumentDetails",
        "suggestTerms",
        "getTopTerms",
        "findDuplicates",
        "profileQuery",
        "explainMiss",
        "getIndexAdminStatus",
        "indexAdmin",
        "queryBuilder",
        "locateQuote",
    }
    assert read_only <= set(tools) and "startCrawl" in tools
    for tool in tools.values():
        assert tool.annotations is not None
        assert tool.annotations.read_only_hint is (
            tool.name in read_only
            or "Status" in tool.name
            or "Stats" in tool.name
            or "list" in tool.name
        )
        assert tool.annotations.open_world_hint is False
        assert tool.output_schema is not None
        assert tool.description
    props = tools["search"].input_schema["properties"]
    assert props["pageSize"]["maximum"] == 100 and props["pageSize"]["minimum"] == 1
    assert set(props["sort"]["enum"]) == {"_score", "modified_date", "created_date", "file_size"}
    assert props["defaultOperator"]["enum"] == ["AND", "OR"]
    filter_schema = json.dumps(tools["search"].input_schema["$defs"])
    assert '"from"' in filter_schema and '"not_in"' in filter_schema


async def test_search_tool_returns_the_structured_result(client: Client) -> None:
    data = await call(
        client,
        "search",
        query="*vertrag*",
        filters=[{"field": "modified_date", "operator": "range", "from": "2023-01-01"}],
    )
    assert data["totalHits"] == 2
    assert {Path(d["filePath"]).name for d in data["documents"]} == {
        "arbeitsvertrag.txt",
        "kaufvertrag.md",
    }
    passage = data["documents"][0]["passages"][0]
    assert set(passage) >= {"text", "score", "matchedTerms", "termCoverage", "position"}
    assert data["activeFilters"] == [
        {"field": "modified_date", "operator": "range", "from": "2023-01-01", "matchCount": 2}
    ]
    assert data["facets"]["language"] == [{"value": "de", "count": 2}]
    assert data["hasNextPage"] is False and data["totalPages"] == 1


async def test_search_tool_errors_tell_the_model_what_to_do(client: Client) -> None:
    result = await client.call_tool("search", {"query": '"signed contract'})
    assert result.is_error
    text = result.content[0].text  # type: ignore[union-attr]
    assert 'Try: "signed contract"' in text
    result = await client.call_tool(
        "search", {"query": "*", "filters": [{"field": "title", "value": "x"}]}
    )
    assert result.is_error and "analyzed text" in result.content[0].text  # type: ignore[union-attr]
    published = next(t for t in (await client.list_tools()).tools if t.name == "search")
    most = published.input_schema["properties"]["pageSize"]["maximum"]
    result = await client.call_tool("search", {"query": "*", "pageSize": most + 1})
    text = result.content[0].text  # type: ignore[union-attr]
    assert result.is_error and "pageSize" in text and str(most) in text  # the bound it published


async def test_info_tools(client: Client, corpus_dir: Path) -> None:
    stats = await call(client, "getIndexStats")
    assert stats["documentCount"] == 11 and stats["luceneVersion"].startswith("10.")
    fields = await call(client, "listIndexedFields")
    assert any(f["name"] == "author" and f["facet"] for f in fields["fields"])
    details = await call(
        client, "getDocumentDetails", filePath=str(corpus_dir / "recipe.txt"), length=20
    )
    assert details["content"] == "Apple pie recipe\n\nPr"
    assert details["hasMore"] is True
    missing = await client.call_tool("getDocumentDetails", {"filePath": "/etc/passwd"})
    assert missing.is_error and "no indexed document" in missing.content[0].text  # type: ignore[union-attr]


def test_tool_include_and_exclude_take_names_and_groups() -> None:
    assert enabled_tools(Settings(tools_include=("info",))) == {
        "getIndexStats",
        "listIndexedFields",
        "getDocumentDetails",
        "queryBuilder",
        "locateQuote",
    }
    assert enabled_tools(
        Settings(tools_exclude=("getDocumentDetails", "crawler", "observability", "debug", "admin"))
    ) == {
        "search",
        "getIndexStats",
        "listIndexedFields",
        "queryBuilder",
        "locateQuote",
    }
    assert enabled_tools(Settings(tools_include=("observability",))) == {
        "suggestTerms",
        "getTopTerms",
        "findDuplicates",
    }
    assert "startCrawl" in enabled_tools(Settings(tools_include=("crawler", "search")))
    assert enabled_tools(Settings(tools_include=("search",), tools_exclude=("search",))) == set()


async def test_excluded_tools_are_not_served(index: Index) -> None:
    excluded = ("info", "crawler", "observability", "debug", "admin")
    settings = Settings(index_path=index.path, tools_exclude=excluded)
    async with Client(build_server(settings, SharedService(index))) as client:
        assert [t.name for t in (await client.list_tools()).tools] == ["search"]


async def test_search_parameters_of_solr_mcp_209(client: Client) -> None:
    slim = await call(
        client, "search", query="*vertrag*", fields=["title", "score"], facets=["language"]
    )
    assert all(set(d) <= {"filePath", "title", "score"} for d in slim["documents"])
    assert all("filePath" in d and "score" in d for d in slim["documents"])
    assert list(slim["facets"]) == ["language"]
    none = await call(client, "search", query="*vertrag*", facets=[], fields=[])
    assert none["facets"] == {} and all(set(d) == {"filePath"} for d in none["documents"])
    counted = await call(client, "search", query="*", facetMinCount=3)
    assert counted["facets"]["language"]
    assert all(v["count"] >= 3 for values in counted["facets"].values() for v in values)
    everything = await call(client, "search", query="*")
    assert any(v["count"] < 3 for values in everything["facets"].values() for v in values)
    timed = await call(client, "search", query="*vertrag*", timeAllowedMs=60_000)
    assert timed["totalHits"] == 3 and "partialResults" not in timed


# a reference to something outside the page: a remote src/href, url(), or an @import
REMOTE = r"""(src|href)\s*=\s*["']?https?:|url\(\s*["']?https?:|@import"""


@pytest.mark.anyio
async def test_apps_are_resources_that_tools_point_to_and_load_nothing_remote(
    client: Client,
) -> None:
    tools = {tool.name: tool for tool in (await client.list_tools()).tools}
    pointed = {
        name: (tool.meta or {}).get("ui", {}).get("resourceUri")
        for name, tool in tools.items()
        if (tool.meta or {}).get("ui")
    }
    assert pointed == {
        "search": "ui://pylucene-mcp/search-results.html",
        "indexAdmin": "ui://pylucene-mcp/index-admin.html",
        "getCrawlerStats": "ui://pylucene-mcp/crawl-dashboard.html",
        "queryBuilder": "ui://pylucene-mcp/query-builder.html",
        "getDocumentDetails": "ui://pylucene-mcp/document-preview.html",
    }
    listed = {str(r.uri): r for r in (await client.list_resources()).resources}
    for uri in pointed.values():
        assert listed[uri].mime_type == "text/html;profile=mcp-app"
        (content,) = (await client.read_resource(uri)).contents
        html = content.text  # type: ignore[union-attr]
        assert html.startswith("<!DOCTYPE html>") and "/*" + "BRIDGE_JS*/" not in html
        assert "ui/initialize" in html and "--color-background-primary" in html
        # nothing from elsewhere: the host's default CSP allows no remote resource
        assert not re.search(REMOTE, html)
    # a host without apps gets the same answer as before
    assert "documents" in await call(client, "search", query="vertrag")
    view = await call(client, "indexAdmin")
    assert view["stats"]["documentCount"] > 0 and view["crawler"]["status"] == "IDLE"


@pytest.mark.anyio
async def test_tools_list_from_the_descriptions_a_start_wrote_is_the_sdks_own(
    index: Index, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_CACHE", str(tmp_path))
    async with connect(index) as first:  # no descriptions yet: the SDK builds every tool
        built = [tool.model_dump() for tool in (await first.list_tools()).tools]
    (written,) = tmp_path.glob("tools-*.json")
    async with connect(index) as second:
        assert [tool.model_dump() for tool in (await second.list_tools()).tools] == built
        # tools the SDK is given only now: validated once, with the model's wording
        assert (await call(second, "search", query="contract"))["totalHits"] > 0
        refused = await error(second, "search", query="vertrag", pageSize=0)
        assert refused.startswith("search: argument 'pageSize' must be greater than or equal to 1")
        assert "pydantic" not in refused and "http" not in refused
        unknown = await error(second, "getIndexStats", verbose=True)
        assert unknown == "getIndexStats takes no argument 'verbose'; its arguments are: none"
    # what tools/list shows is the file: a description planted in it is served
    listed = json.loads(written.read_text(encoding="utf-8"))
    listed[0]["description"] = "planted"
    written.write_text(json.dumps(listed), encoding="utf-8")
    async with connect(index) as third:
        assert (await third.list_tools()).tools[0].description == "planted"
    # a file that cannot be read is written again from the SDK's tools
    written.write_text('[{"name": "search"', encoding="utf-8")
    async with connect(index) as fourth:
        assert [tool.model_dump() for tool in (await fourth.list_tools()).tools] == built
    assert json.loads(written.read_text(encoding="utf-8"))[0]["description"] != "planted"


def test_the_descriptions_are_named_by_what_they_are_made_of(tmp_path: Path) -> None:
    import pylucene_mcp.server.tools.search as source
    from pylucene_mcp.server.app import fingerprint

    settings = Settings(index_path=tmp_path)
    named = fingerprint(settings)
    for changed in (
        {"default_operator": "OR"},
        {"vectors": True},
        {"tools_exclude": ("debug",)},
        {"tools_include": ("search",)},
    ):
        assert fingerprint(settings.model_copy(update=changed)) != named, changed
    assert fingerprint(settings.model_copy(update={"max_heap": "3g"})) == named  # not one of them
    path = Path(source.__file__)
    before = path.stat()
    try:  # a source file changed since
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000))
        assert fingerprint(settings) != named
    finally:
        os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


@pytest.mark.parametrize("vectors", [False, True])
def test_the_descriptions_digest_holds_every_setting_the_tools_are_made_of(vectors: bool) -> None:
    """``tools/list`` is answered from an earlier start's descriptions when the digest of the
    code and of :data:`~pylucene_mcp.server.app.REGISTRATION_SETTINGS` is the same: every setting
    that recording the tools reads must be in it, or a changed setting would be answered with
    stale tools. Each read is recorded here, not taken from the code's own list."""
    read: set[str] = set()

    class Recording:
        def __init__(self, settings: Settings) -> None:
            self._settings = settings

        def __getattr__(self, name: str) -> object:
            read.add(name)
            return getattr(self._settings, name)

    settings: Any = Recording(Settings(vectors=vectors))
    svc: Any = SimpleNamespace(settings=settings)
    app.enabled_tools(settings, app.all_tools(settings, svc))
    assert "vectors" in read and "tools_include" in read  # what the recording sees
    assert read <= set(app.REGISTRATION_SETTINGS), read - set(app.REGISTRATION_SETTINGS)


async def test_every_failure_reaches_the_client_one_way(
    index: Index, caplog: pytest.LogCaptureFixture
) -> None:
    """A refusal of the engine, an argument out of bounds, an argument the tool does not take
    and a crash of the server itself are each one ``isError`` answer in the server's words: no
    SDK wrapper text before them, and a crash's own text (a path, say) stays in the log."""

    class Crashing(SharedService):
        def index(self) -> Any:
            raise RuntimeError("secret /home/ann/notes")

    async with connect(index) as client:
        answers = [
            await error(client, "search", query='"unclosed'),
            await error(client, "search", query="x", pageSize=0),
            await error(client, "search", query="x", colour="red"),
        ]
    chosen = Settings(index_path=index.path)
    with caplog.at_level("ERROR"):
        async with Client(build_server(chosen, Crashing(index, chosen))) as client:
            answers.append(await error(client, "getIndexStats"))
    assert not any(text.startswith("Error executing tool") for text in answers), answers
    assert answers[0].startswith("cannot parse query") and "pageSize" in answers[1]
    assert "colour" in answers[2]
    assert "getIndexStats failed" in answers[3] and "secret" not in answers[3]
    assert "secret /home/ann/notes" in caplog.text  # the crash is the server's to see
