"""The MCP tools over a SolrCloud collection, as a client uses them: real PDF, DOCX, HTML and other
files crawled by the product's crawler (real Tika) into a collection of the session's 2-node
cluster and, beside it, into an embedded index; the same tool calls answer the same documents,
facets and passages on both, and the diagnostic tools work on the collection."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from pylucene_mcp.basics.config import Settings
from pylucene_mcp.engine.solr import SolrSettings
from pylucene_mcp.server.app import build_server
from pylucene_mcp.service.service import Service
from tests.crawler.files import expected_keys, make_corpus
from tests.mcp_client import call

pytestmark = [pytest.mark.anyio, pytest.mark.slow]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("documents")
    make_corpus(docs / "files")
    shutil.copyfile(docs / "files" / "readme.txt", docs / "files" / "readme-copy.txt")
    return docs / "files"


def _service(home: Path, **settings: Any) -> Service:
    (home / "logs").mkdir(parents=True, exist_ok=True)
    return Service(
        Settings(
            index_path=home / "index",
            log_dir=home / "logs",
            config_file=home / "config.yaml",
            watch=False,
            crawl_on_start=False,
            **settings,
        )
    )


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def clients(
    folder: Path, solr_settings: SolrSettings, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Client, Client]]:
    """An MCP client over the embedded index and one over a collection, both crawled."""
    from pylucene_mcp.engine.solr import SolrClient, init

    client = SolrClient(SolrSettings(solr_settings.urls, collection="mcp"))
    init(client, shards=2, replicas=2)
    client.close()
    embedded = _service(tmp_path_factory.mktemp("embedded"))
    solr = _service(
        tmp_path_factory.mktemp("solr"),
        backend="solr",
        solr_urls=solr_settings.urls,
        solr_collection="mcp",
    )
    async with (
        Client(build_server(embedded.settings, embedded)) as one,
        Client(build_server(solr.settings, solr)) as other,
    ):
        for connected in (one, other):
            await call(connected, "addCrawlableDirectory", path=str(folder), crawlNow=False)
            await call(connected, "startCrawl", wait=True)
        yield one, other
    embedded.close()
    solr.close()


async def test_the_crawl_writes_every_file_to_the_collection(
    clients: tuple[Client, Client], folder: Path
) -> None:
    embedded, solr = clients
    stats = await call(solr, "getIndexStats")
    expected = expected_keys(make_corpus_files(folder))
    assert stats["documentCount"] == len(expected)
    assert stats["cluster"]["shards"] == 2 and len(stats["cluster"]["liveNodes"]) == 2
    found = await call(solr, "search", query="*", pageSize=100, maxPassages=0)
    assert {d["filePath"] for d in found["documents"]} == expected
    assert (await call(embedded, "getIndexStats"))["documentCount"] == len(expected)


def make_corpus_files(folder: Path) -> dict[str, Path | None]:
    """The files of ``folder`` that the crawler indexes (make_corpus's, and the copy)."""
    included = {".pdf", ".docx", ".xlsx", ".pptx", ".odt", ".eml", ".rtf", ".epub"}
    included |= {".md", ".html", ".xml", ".txt"}
    return {
        str(p): p
        for p in folder.rglob("*")
        if p.is_file()
        and p.suffix in included
        and ".hidden" not in p.parts
        and "node_modules" not in p.parts
    }


SEARCHES: list[dict[str, Any]] = [
    {"query": "Arbeitsvertrag"},
    {"query": "*vertrag*"},
    {"query": "Mueller"},
    {"query": '"library opens"'},
    {"query": "quokka OR lighthouse", "defaultOperator": "OR"},
    {"query": "*", "filters": [{"field": "file_extension", "operator": "in", "values": ["pdf"]}]},
]


def _expansions(node: dict[str, Any]) -> list[tuple[str, int, list[str]]]:
    """Each pattern of a profile's tree: its text, the words it reaches, the first of them."""
    found = []
    if "expandsTo" in node:
        found.append((node["value"], node["expandsTo"], node.get("sample", [])))
    for clause in node.get("clauses", []):
        found += _expansions(clause)
    return found


def _same(answer: dict[str, Any]) -> dict[str, Any]:
    hits = [
        {
            "filePath": d["filePath"],
            "score": round(d["score"], 3),
            "passages": [(p["text"], p.get("page")) for p in d["passages"]],
        }
        for d in answer["documents"]
    ]
    return {
        "totalHits": answer["totalHits"],
        "facets": answer["facets"],
        "documents": sorted(hits, key=lambda d: (-d["score"], d["filePath"])),
    }


@pytest.mark.parametrize("arguments", SEARCHES, ids=[s["query"] for s in SEARCHES])
async def test_the_search_tool_answers_the_same_on_both(
    clients: tuple[Client, Client], arguments: dict[str, Any]
) -> None:
    embedded, solr = clients
    expected = await call(embedded, "search", pageSize=20, **arguments)
    found = await call(solr, "search", pageSize=20, **arguments)
    assert expected["totalHits"] > 0
    assert _same(found) == _same(expected)


async def test_the_diagnostic_tools_work_on_the_collection(
    clients: tuple[Client, Client], folder: Path
) -> None:
    embedded, solr = clients
    pdf = str(folder / "vertrag.pdf")
    details = await call(solr, "getDocumentDetails", filePath=pdf)
    assert details["pageCount"] == 2 and "Müller" in details["content"]
    profile = await call(solr, "profileQuery", query="*vertrag* AND Müller")
    same = await call(embedded, "profileQuery", query="*vertrag* AND Müller")
    assert profile["matching"] == same["matching"] > 0
    assert profile["documents"] == same["documents"]
    assert _expansions(profile["parsed"]) == _expansions(same["parsed"])
    assert any(n for _, n, _ in _expansions(profile["parsed"])), "a pattern was expanded"
    miss = await call(solr, "explainMiss", query="quokka", filePath=pdf)
    assert not miss["matchesQuery"] and miss["reasons"][0]["kind"] == "missing_term"
    duplicates = await call(solr, "findDuplicates")
    assert [g["size"] for g in duplicates["groups"]] == [2]
    assert {d["filePath"] for d in duplicates["groups"][0]["documents"]} == {
        str(folder / "readme.txt"),
        str(folder / "readme-copy.txt"),
    }


async def test_a_restricted_caller_on_solr_gets_a_trimmed_search_and_no_counts(
    clients: tuple[Client, Client],
    folder: Path,
    solr_settings: SolrSettings,
    tmp_path: Path,
) -> None:
    """A caller with an access token (set as the SDK's HTTP transport sets it) on a collection:
    its search holds only the documents below the folders it may read; a read tool that would
    count the others refuses it (a collection has no view of some folders yet)."""
    from mcp.server.auth.middleware.auth_context import auth_context_var
    from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
    from mcp.server.auth.provider import AccessToken

    expected = expected_keys(make_corpus_files(folder))
    token = AccessToken(
        token="t", client_id="dora", scopes=["search"], subject="dora", claims={"groups": ["team"]}
    )
    seen = {}
    for name, readers in (("all", {str(folder): ["group:team"]}), ("none", {"/elsewhere": ["*"]})):
        svc = _service(
            tmp_path / name,
            backend="solr",
            solr_urls=solr_settings.urls,
            solr_collection="mcp",
            readers=readers,
        )
        entered = auth_context_var.set(AuthenticatedUser(token))
        try:
            async with Client(build_server(svc.settings, svc)) as dora:
                found = await call(dora, "search", query="*", pageSize=100, maxPassages=0)
                seen[name] = {d["filePath"] for d in found["documents"]}
                assert found["totalHits"] == len(seen[name])
                refused = await dora.call_tool("getTopTerms", {"field": "content"})
                assert refused.is_error
                said = refused.content[0].text  # type: ignore[union-attr]
                assert "getTopTerms is not available to a caller whose answers are trimmed" in said
        finally:
            auth_context_var.reset(entered)
            svc.close()
    assert seen == {"all": expected, "none": set()}
