"""The semantic path through MCP (the SDK's client): the search tool's mode semantic and the
semanticSearch tool with the server's own model and embedder; with vectors off, no trace of
them but a clear refusal. A real crawl (real Tika) gives every document its vectors."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client

from pylucene_mcp import Index
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.lucene.vectors import folder_of
from pylucene_mcp.service.embedding import Embedding
from tests.mcp_client import SharedService, call, connect, error
from tests.semantic_model import ensure
from tests.waiting import eventually

pytestmark = pytest.mark.anyio

TEXTS = {
    "bread.txt": "Knead the dough, let it rise for an hour, then bake the loaf until golden.",
    "soup.txt": "Simmer lentils with onions and carrots; season the soup with cumin.",
    "river.txt": "After the storm the river burst its banks and flooded the fields.",
    "compiler.txt": "The compiler translates source code into machine instructions.",
    "harbour.txt": "Ships unload grain and timber at the harbour every morning.",
}


@pytest.fixture(scope="module")
def semantic_index(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    index = Index.open(tmp_path_factory.mktemp("semantic-mcp") / "index")
    with index.writer() as writer:
        for n, (name, text) in enumerate(TEXTS.items()):
            writer.add(
                {
                    "file_path": f"/notes/{name}",
                    "content": text,
                    "author": "Ada" if n % 2 else "Bo",
                }
            )
    index.refresh()
    settings = Settings(index_path=index.path, vectors=True, embedding_model=str(ensure()))
    embedding = Embedding(settings, lambda: index, lambda: True)
    progress = embedding.reconcile()
    assert (progress.embedded, progress.waiting, progress.failed) == (len(TEXTS), 0, 0)
    yield index
    index.close()


def on(**extra: Any) -> dict[str, Any]:
    return {"vectors": True, "embedding_model": str(ensure()), **extra}


async def test_mode_semantic_finds_by_meaning(semantic_index: Index) -> None:
    async with connect(semantic_index, **on(similarity_threshold=0.2)) as client:
        answer = await call(client, "search", query="how do I make a loaf?", mode="semantic")
        first = answer["documents"][0]
        assert first["filePath"] == "/notes/bread.txt"
        assert first["similarity"] > answer["documents"][1]["similarity"]
        assert first["chunk"] == [0, len(TEXTS["bread.txt"])]
        assert first["passages"][0]["text"].startswith("Knead the dough")
        # no word of the question is in the document: a lexical search finds nothing
        lexical = await call(client, "search", query="how do I make a loaf?")
        assert lexical["totalHits"] == 0


async def test_mode_hybrid_finds_by_words_and_by_meaning(semantic_index: Index) -> None:
    async with connect(semantic_index, **on(similarity_threshold=0.2)) as client:
        answer = await call(client, "search", query="compiler", mode="hybrid")
        by_path = {h["filePath"]: h for h in answer["documents"]}
        assert by_path["/notes/compiler.txt"]["lexicalRank"] == 1
        assert by_path["/notes/compiler.txt"]["semanticRank"] == 1
        assert answer["documents"][0]["filePath"] == "/notes/compiler.txt"
        assert answer["totalHits"] == len(by_path) >= 1


async def test_explain_miss_says_what_the_semantic_path_makes_of_a_document(
    semantic_index: Index,
) -> None:
    question = "how do I make a loaf?"
    async with connect(semantic_index, **on(similarity_threshold=0.3)) as client:
        everything = await call(
            client, "search", query=question, mode="semantic", similarityThreshold=-1, pageSize=10
        )
        order = [h["filePath"] for h in everything["documents"]]
        similarity = {h["filePath"]: h["similarity"] for h in everything["documents"]}
        for path in ("/notes/bread.txt", "/notes/compiler.txt"):
            miss = await call(client, "explainMiss", query=question, filePath=path)
            assert miss["matchesQuery"] is False  # none of the question's words is in it
            semantic = miss["semantic"]
            assert semantic["similarity"] == pytest.approx(similarity[path], abs=1e-4)
            assert semantic["rank"] == order.index(path) + 1
            assert semantic["threshold"] == 0.3
            assert semantic["reachesThreshold"] is (similarity[path] >= 0.3)
        assert order[0] == "/notes/bread.txt"


async def test_profile_query_says_what_each_path_contributes(semantic_index: Index) -> None:
    async with connect(semantic_index, **on(similarity_threshold=0.15)) as client:
        for words in ("river", "boats", "dough OR compiler"):
            meaning = await call(client, "search", query=words, mode="semantic", pageSize=50)
            by_meaning = {h["filePath"] for h in meaning["documents"]}
            terms = words.lower().split(" or ")
            # the oracle: the documents whose text holds one of the words, read here
            by_words = {
                f"/notes/{name}"
                for name, text in TEXTS.items()
                if any(t in text.lower().replace(",", " ").replace(".", " ").split() for t in terms)
            }
            profile = await call(client, "profileQuery", query=words, defaultOperator="OR")
            semantic = profile["semantic"]
            assert semantic["documents"] == len(by_meaning)
            assert semantic["alsoByWords"] == len(by_meaning & by_words)
            assert semantic["byMeaningOnly"] == len(by_meaning - by_words)
            assert semantic["byWordsOnly"] == len(by_words - by_meaning)
            assert profile["matchingAfterFilters"] == len(by_words)


async def test_semantic_search_tool_answers_as_the_search_tool(semantic_index: Index) -> None:
    async with connect(semantic_index, **on(similarity_threshold=0.1)) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "semanticSearch" in names
        filters = [{"field": "author", "operator": "eq", "value": "Bo"}]
        direct = await call(
            client, "semanticSearch", query="boats and water", filters=filters, pageSize=3
        )
        through = await call(
            client,
            "search",
            query="boats and water",
            mode="semantic",
            filters=filters,
            pageSize=3,
        )
        assert direct["documents"] == through["documents"]
        assert direct["totalHits"] == through["totalHits"] > 0
        assert direct["documents"][0]["filePath"] == "/notes/harbour.txt"
        assert {h["filePath"] for h in direct["documents"]} <= {
            "/notes/bread.txt",
            "/notes/river.txt",
            "/notes/harbour.txt",
        }
        strict = await call(
            client, "semanticSearch", query="boats and water", similarityThreshold=0.95
        )
        assert strict["totalHits"] == 0


async def test_with_vectors_off_there_is_no_semantic_tool_and_a_clear_refusal(
    semantic_index: Index,
) -> None:
    async with connect(semantic_index) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert "semanticSearch" not in names
        message = await error(client, "search", query="loaf", mode="semantic")
        assert "PYLUCENE_MCP_VECTORS=on" in message


def test_the_embedder_follows_the_index_by_itself(tmp_path: Path) -> None:
    index = Index.open(tmp_path / "index")
    settings = Settings(index_path=index.path, vectors=True, embedding_model=str(ensure()))
    service = SharedService(index, settings)
    assert service.embedding is not None
    embedding = service.embedding
    try:
        embedding.start()
        with index.writer() as writer:
            writer.add({"file_path": "/n/a.txt", "content": "Herons wait by the water."})
        index.refresh()
        store = embedding.store()
        assert eventually(lambda: set(store.states()) == {"/n/a.txt"}, timeout_s=60)
        with index.writer() as writer:  # changed and gone: followed too
            writer.add({"file_path": "/n/b.txt", "content": "Otters play in the river."})
            writer.delete("/n/a.txt")
        index.refresh()
        assert eventually(lambda: set(store.states()) == {"/n/b.txt"}, timeout_s=60)
        assert embedding.progress.error is None
    finally:
        embedding.stop()
        index.close()
    assert not any(t.name == "pylucene-mcp-embedder" for t in threading.enumerate())


async def test_concurrent_first_semantic_searches_open_the_vectors_once(
    tmp_path: Path, semantic_index: Index
) -> None:
    """Four semantic and hybrid searches as a server's first calls had failed in 6 of 6 runs on
    "the index is locked by another writer (…/index-vectors/write.lock)": the server's own."""
    copy = tmp_path / "index"
    shutil.copytree(semantic_index.path, copy)
    shutil.copytree(folder_of(semantic_index.path), folder_of(copy))
    fresh = Index.open(copy)
    try:
        async with connect(fresh, **on(similarity_threshold=0.2)) as client:
            answers: list[dict[str, Any]] = []

            async def ask(mode: str) -> None:
                answers.append(await call(client, "search", query="a loaf of bread", mode=mode))

            async with anyio.create_task_group() as group:
                for mode in ("semantic", "hybrid", "semantic", "hybrid"):
                    group.start_soon(ask, mode)
            assert len(answers) == 4
            assert all(a["documents"][0]["filePath"] == "/notes/bread.txt" for a in answers)
    finally:
        fresh.close()


async def test_a_meaning_that_reaches_no_threshold_says_which_would(semantic_index: Index) -> None:
    """At the default threshold 0.7 the tests' model found nothing for 10 of 10 questions and
    said nothing; hybrid gave the lexical list alone. Both say the best similarity they saw and
    the threshold that finds it."""
    question = "how do I make a loaf?"
    async with connect(semantic_index, **on(similarity_threshold=0.95)) as client:
        everything = await call(
            client, "search", query=question, mode="semantic", similarityThreshold=-1
        )
        best = everything["documents"][0]  # the oracle: every document, most similar first
        assert "hint" not in everything
        for mode in ("semantic", "hybrid"):
            answer = await call(client, "search", query=question, mode=mode)
            assert all(h.get("similarity") is None for h in answer["documents"])
            hint = answer["hint"]
            assert "no document reaches the similarity threshold 0.95" in hint, hint
            assert f"{best['filePath']}, has {best['similarity']:.3f}" in hint, hint
            reach = float(hint.split("similarityThreshold ")[1].split()[0])
            assert reach <= best["similarity"] < reach + 0.01
            again = await call(
                client, "search", query=question, mode="semantic", similarityThreshold=reach
            )
            assert again["documents"][0]["filePath"] == best["filePath"]


async def test_while_vectors_are_made_every_answer_by_meaning_says_how_many_wait(
    tmp_path: Path, semantic_index: Index
) -> None:
    """While 372 of 424 documents waited for vectors, semantic answers were partial without a
    word: each says how many documents it could not find by meaning yet; lexical ones do not."""
    from pylucene_mcp.server.app import build_server

    copy = tmp_path / "index"
    shutil.copytree(semantic_index.path, copy)
    shutil.copytree(folder_of(semantic_index.path), folder_of(copy))
    fresh = Index.open(copy)
    try:
        with fresh.writer() as writer:  # two documents the embedder has not seen
            writer.add({"file_path": "/notes/rye.txt", "content": "Rye loaves need a sourdough."})
            writer.add({"file_path": "/notes/tide.txt", "content": "The tide turns at noon."})
        fresh.refresh()
        settings = Settings(index_path=fresh.path, **on(similarity_threshold=0.2))
        service = SharedService(fresh, settings)
        assert service.embedding is not None
        service.embedding.stop()  # stopped before its round embeds anything: both wait
        assert service.embedding.progress.counting is True  # nothing counted yet
        assert service.embedding.reconcile().waiting == 2
        assert service.embedding.progress.counting is None
        async with Client(build_server(settings, service)) as client:
            for mode in ("semantic", "hybrid"):
                answer = await call(client, "search", query="how do I make a loaf?", mode=mode)
                assert answer["vectorsWaiting"] == {"documents": 2}
                assert "/notes/bread.txt" in {h["filePath"] for h in answer["documents"]}
            lexical = await call(client, "search", query="loaves")
            assert "vectorsWaiting" not in lexical
    finally:
        fresh.close()


QUESTIONS = {  # none of its document's words
    "how do I make a loaf?": "/notes/bread.txt",
    "a warm bowl of pulses": "/notes/soup.txt",
    "water over the meadows after heavy rain": "/notes/river.txt",
    "software that builds executables": "/notes/compiler.txt",
    "freight at the docks": "/notes/harbour.txt",
}


async def test_turned_on_as_the_docs_say_questions_find_their_documents(
    semantic_index: Index,
) -> None:
    """At the threshold every model had (0.7) the tests' model found nothing for 10 of 10
    questions. Without a threshold set, the model's own is measured when it loads, and each
    question finds its document first."""
    async with connect(semantic_index, **on()) as client:
        for question, document in QUESTIONS.items():
            answer = await call(client, "search", query=question, mode="semantic")
            assert answer["documents"][0]["filePath"] == document, (question, answer)
            assert "hint" not in answer
    settings = Settings(index_path=semantic_index.path, **on())
    embedding = Embedding(settings, lambda: semantic_index, lambda: True)
    threshold = embedding.threshold()
    assert 0 < threshold < 0.7
    # each question's own document reaches it, and it keeps out at least one other document
    # (a threshold of 0 would take every document that is not opposite the question)
    below = 0
    for question, document in QUESTIONS.items():
        vector = embedding.query_vector(question)
        answer = semantic_index.search(
            SearchRequest(question, mode="semantic", vector=vector, similarity_threshold=-1)
        ).to_dict()
        similarity = {h["filePath"]: h["similarity"] for h in answer["documents"]}
        assert similarity[document] >= threshold
        below += sum(1 for s in similarity.values() if s < threshold)
    assert below > 0
    fixed = Embedding(
        Settings(index_path=semantic_index.path, **on(similarity_threshold=0.42)),
        lambda: semantic_index,
        lambda: True,
    )
    assert fixed.threshold() == 0.42  # a threshold set is the threshold
