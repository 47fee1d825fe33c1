"""A cheap request gets past expensive ones. Issue: a search for one word waited 9.6 s behind 45
concurrent pattern searches, which held every worker thread. At most ``expensive_limit``
expensive calls (patterns, fuzzy words, regular expressions, whole-index tools) run at once;
the rest wait without a thread, so the cheap one runs at once (``bench/cheap_past.py`` times
it; no clock here: the order of the answers tells)."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import anyio
import pytest

from pylucene_mcp import Index
from pylucene_mcp.server import app
from pylucene_mcp.server.app import expensive
from tests.mcp_client import call, connect
from tests.waiting import arrives

pytestmark = pytest.mark.slow

EXPENSIVE = 45
LIMIT = 2


def test_what_counts_as_expensive() -> None:
    assert expensive("search", {"query": "*port*"}) and expensive("search", {"query": "Mayer~1"})
    assert expensive("search", {"query": "/ma[iy]er/"}) and expensive("findDuplicates", {})
    assert expensive("profileQuery", {"query": "comput?r"})
    assert not expensive("search", {"query": "contract AND lease"})
    assert not expensive("search", {"query": " * "}) and not expensive("getIndexStats", {})
    assert not expensive("getDocumentDetails", {"filePath": "/a/*.txt"})


@pytest.fixture
def vocabulary_index(tmp_path: Path) -> Any:
    rng = random.Random(3)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(4, 9)))
             for _ in range(200_000)]  # fmt: skip
    index = Index.open(tmp_path / "index")
    with index.writer() as writer:
        writer.add_many(
            {"file_path": f"/d/{n:05}.txt", "content": " ".join(rng.choices(words, k=60))}
            for n in range(20_000)
        )
        writer.add({"file_path": "/d/cheap.txt", "content": "the one note about kittiwakes"})
    yield index
    index.close()


@pytest.mark.anyio
async def test_a_cheap_search_is_answered_before_the_expensive_ones_queued_before_it(
    vocabulary_index: Index, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app, "expensive_limit", lambda: LIMIT)
    judged: list[str] = []  # the calls judged expensive: each then waits for its turn

    def judging(name: str, arguments: dict[str, Any]) -> bool:
        found = expensive(name, arguments)
        if found:
            judged.append(name)
        return found

    monkeypatch.setattr(app, "expensive", judging)
    answered: list[str] = []
    async with connect(vocabulary_index) as client:
        await call(client, "search", query="kittiwakes")  # the JVM warm, the tool added

        async def one(name: str, query: str) -> None:
            result = await call(client, "search", query=query, maxPassages=0)
            assert result["totalHits"] >= 1
            answered.append(name)

        async with anyio.create_task_group() as group:
            for n in range(EXPENSIVE):
                group.start_soon(one, f"expensive{n}", "*e* OR *a*")

            # every expensive request judged so, and running or waiting for its turn
            async def seen() -> int:
                return len(judged)

            await arrives(seen, lambda n: n == EXPENSIVE, 120, "every expensive call")
            group.start_soon(one, "cheap", "kittiwakes")
    before = answered.index("cheap")
    # at most those running when it came (the thread pool of 40 made it wait for 6 or more)
    assert before <= LIMIT + 1, answered[: before + 1]
    assert len(answered) == EXPENSIVE + 1
