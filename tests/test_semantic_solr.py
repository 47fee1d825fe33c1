"""The semantic path through MCP on both backends: real files (PDF, DOCX, HTML …) crawled by the
product's crawler (real Tika) into an embedded index and into a collection of the session's
SolrCloud cluster, each server with vectors on and its own embedder; once both have embedded
every document, the three search modes, the semanticSearch tool, explainMiss and profileQuery
answer the same on both (the embedded index's answers are checked against a numpy oracle in
tests/test_semantic.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from mcp import Client

from pylucene_mcp.engine.solr import SolrSettings
from pylucene_mcp.server.app import build_server
from pylucene_mcp.service.service import Service
from tests.crawler.files import make_corpus
from tests.mcp_client import call
from tests.semantic_model import ensure
from tests.test_solr_mcp import _service
from tests.waiting import arrives

pytestmark = pytest.mark.anyio

THRESHOLD = 0.2


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


async def _embedded_all(client: Client, timeout_s: float = 300) -> None:
    """Waits until the server's embedder has embedded every document of its index."""

    async def counts() -> tuple[int, dict[str, Any]]:
        count = (await call(client, "getIndexStats"))["documentCount"]
        vectors = (await call(client, "getCrawlerStatus"))["vectors"]
        if vectors.get("error"):
            raise AssertionError(f"the embedder failed: {vectors['error']}")
        return count, vectors

    _, vectors = await arrives(
        counts,
        lambda c: c[0] and c[1]["embedded"] == c[0] and c[1]["waiting"] == 0,
        timeout_s,
        "every document's vectors",
    )
    assert vectors["runtime"].startswith("CPUExecutionProvider, "), vectors


@pytest.fixture(scope="module")
async def clients(
    solr_settings: SolrSettings, tmp_path_factory: pytest.TempPathFactory
) -> AsyncIterator[tuple[Client, Client]]:
    """An MCP client over an embedded index and one over a collection, both crawled from the
    same folder and embedded by their servers' embedders."""
    from pylucene_mcp.engine.solr import SolrClient, init

    folder = tmp_path_factory.mktemp("documents") / "files"
    make_corpus(folder)
    client = SolrClient(SolrSettings(solr_settings.urls, collection="semantic-mcp"))
    init(client, shards=2, replicas=1)
    client.close()
    semantic = {
        "vectors": True,
        "embedding_model": str(ensure()),
        "similarity_threshold": THRESHOLD,
    }
    embedded = _service(tmp_path_factory.mktemp("embedded"), **semantic)
    solr = _service(
        tmp_path_factory.mktemp("solr"),
        backend="solr",
        solr_urls=solr_settings.urls,
        solr_collection="semantic-mcp",
        **semantic,
    )
    services: list[Service] = [embedded, solr]
    async with (
        Client(build_server(embedded.settings, embedded)) as one,
        Client(build_server(solr.settings, solr)) as other,
    ):
        for service, connected in zip(services, (one, other), strict=True):
            await call(connected, "addCrawlableDirectory", path=str(folder), crawlNow=False)
            await call(connected, "startCrawl", wait=True)
            assert service.embedding is not None
            service.embedding.start()
        for connected in (one, other):
            await _embedded_all(connected)
        yield one, other
    embedded.close()
    solr.close()


def _hits(answer: dict[str, Any]) -> list[dict[str, Any]]:
    """A search's hits as both backends must give them: the semantic fields, and the score
    to three places (Solr sends scores as decimals)."""
    keys = ("similarity", "chunk", "semanticRank", "lexicalRank")
    hits = []
    for hit in answer["documents"]:
        same = {key: hit.get(key) for key in keys}
        same["similarity"] = None if hit.get("similarity") is None else round(hit["similarity"], 3)
        same["score"] = round(hit["score"], 3)
        same["passages"] = [(p["text"], p.get("page")) for p in hit.get("passages", [])]
        hits.append({"filePath": hit["filePath"], **same})
    return hits


SEARCHES: list[dict[str, Any]] = [
    {"query": "an agreement about work and pay", "mode": "semantic"},
    {"query": "opening hours of the library", "mode": "semantic"},
    {
        "query": "a contract of employment",
        "mode": "semantic",
        "filters": [{"field": "file_extension", "operator": "in", "values": ["pdf", "docx"]}],
    },
    {"query": "library OR contract", "mode": "hybrid", "defaultOperator": "OR"},
    {
        "query": "Vertrag",
        "mode": "hybrid",
        "filters": [{"field": "language", "operator": "eq", "value": "de"}],
    },
]


@pytest.mark.parametrize("arguments", SEARCHES, ids=[s["query"] for s in SEARCHES])
async def test_each_mode_answers_the_same_on_both(
    clients: tuple[Client, Client], arguments: dict[str, Any]
) -> None:
    embedded, solr = clients
    expected = await call(embedded, "search", pageSize=50, **arguments)
    found = await call(solr, "search", pageSize=50, **arguments)
    assert expected["totalHits"] > 0
    assert found["totalHits"] == expected["totalHits"]
    assert found["facets"] == expected["facets"]
    assert _hits(found) == _hits(expected)


async def test_the_semantic_search_tool_answers_the_same_on_both(
    clients: tuple[Client, Client],
) -> None:
    embedded, solr = clients
    arguments = {"query": "a contract of employment", "pageSize": 2, "page": 1}
    expected = await call(embedded, "semanticSearch", **arguments)
    found = await call(solr, "semanticSearch", **arguments)
    assert expected["totalHits"] > 2  # a second page exists
    assert _hits(found) == _hits(expected)
    second = {**arguments, "page": 2}
    assert _hits(await call(solr, "semanticSearch", **second)) == _hits(
        await call(embedded, "semanticSearch", **second)
    )


async def test_explain_miss_and_profile_say_the_same_of_the_semantic_path(
    clients: tuple[Client, Client],
) -> None:
    embedded, solr = clients
    query = "opening hours of the library"
    first = (await call(embedded, "search", query=query, mode="semantic"))["documents"]
    for path in (first[0]["filePath"], first[-1]["filePath"]):
        expected = await call(embedded, "explainMiss", query=query, filePath=path)
        found = await call(solr, "explainMiss", query=query, filePath=path)
        assert expected["semantic"]["rank"] is not None
        assert found["semantic"]["rank"] == expected["semantic"]["rank"]
        assert found["semantic"]["chunk"] == expected["semantic"]["chunk"]
        assert found["semantic"]["similarity"] == pytest.approx(
            expected["semantic"]["similarity"], abs=1e-3
        )
    expected = (await call(embedded, "profileQuery", query="library"))["semantic"]
    found = (await call(solr, "profileQuery", query="library"))["semantic"]
    counts = ("documents", "alsoByWords", "byMeaningOnly", "byWordsOnly")
    assert {k: found[k] for k in counts} == {k: expected[k] for k in counts}
    assert expected["documents"] > 0


async def test_the_collection_keeps_one_record_of_chunks_per_document(
    clients: tuple[Client, Client], solr_settings: SolrSettings
) -> None:
    _, solr = clients
    from pylucene_mcp.engine.solr import SolrClient
    from pylucene_mcp.engine.solr.vectors import SolrVectorStore

    hits = (await call(solr, "search", query="library", mode="semantic"))["documents"]
    assert hits
    settings = SolrSettings(solr_settings.urls, collection="semantic-mcp")
    store = SolrVectorStore(settings, str(ensure()))
    try:
        states = store.states()
        client = SolrClient(settings)
        try:
            total = client.post(client.collection("select"), {"query": '{"t": "all"}', "limit": 0})[
                "response"
            ]["numFound"]
        finally:
            client.close()
        assert len(states) == total  # one record of chunks per document, none left over
        assert hits[0]["filePath"] in states
    finally:
        store.close()
