"""Each person sees only their documents: a real server over HTTP with static tokens, folders
whose ``readers`` differ, and every answer of the search tool (hits, total, facets, filter and
facet-query counts) and of getDocumentDetails checked, person by person, against a plain-Python
oracle of what that person may read. The read tools that cannot trim their answers yet refuse a
restricted caller on a backend without views (Solr: tests/test_solr_mcp.py); on the embedded
index they answer from a view of the person's folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from tests.http_server import HttpServer
from tests.test_oauth import authorized

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

#: folder → who may read it (the setting), and the test's own view of it
READERS = {
    "sales": ["group:sales"],
    "eng": ["group:eng", "user:dora"],
    "public": ["*"],
    "erik-only": ["user:erik"],
}
#: person → (groups, scopes)
PEOPLE = {
    "dora": (["sales"], "search"),
    "erik": (["eng"], "search,crawl"),
    "finn": ([], "search"),
}
WORDS = ["heron", "otter", "kingfisher"]
FOLDERS = [*READERS, "unlisted"]


def principals(person: str) -> set[str]:
    return {f"user:{person}", *(f"group:{g}" for g in PEOPLE[person][0]), "*"}


def readable(root: Path, person: str) -> set[str]:
    """The oracle: the files below a folder whose readers name one of the person's
    principals (``unlisted`` has no readers: no one restricted reads it)."""
    mine = principals(person)
    return {
        str(path)
        for name, who in READERS.items()
        if mine & set(who)
        for path in (root / name).iterdir()
    }


def holding(paths: set[str], word: str) -> set[str]:
    return {p for p in paths if word in Path(p).read_text(encoding="utf-8").split()}


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("shared")
    n = 0
    for folder in FOLDERS:
        (docs / folder).mkdir()
        for k in range(5):
            chosen = [w for b, w in enumerate(WORDS) if ((n + k) >> b) & 1] or ["nothing"]
            suffix = ".md" if (n + k) % 3 == 0 else ".txt"
            text = f"{folder} note {k}: " + " ".join(chosen)
            (docs / folder / f"note{k}{suffix}").write_text(text, encoding="utf-8")
        n += 3
    return docs


def make_token(home: Path, person: str) -> str:
    groups, scopes = PEOPLE[person]
    done = subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", "token", "--subject", person, "--scopes", scopes]
        + ["--groups", ",".join(groups)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYLUCENE_MCP_HOME": str(home)},
        timeout=60,
        check=True,
    )
    return done.stdout.strip()


class Team:
    def __init__(self, server: HttpServer, tokens: dict[str, str]) -> None:
        self.server, self.tokens = server, tokens

    def client(self, person: str) -> Any:
        return authorized(
            self.server.url, headers={"Authorization": f"Bearer {self.tokens[person]}"}
        )


@pytest.fixture(scope="module")
def team(tmp_path_factory: pytest.TempPathFactory, root: Path) -> Iterator[Team]:
    home = tmp_path_factory.mktemp("home")
    tokens = {person: make_token(home, person) for person in PEOPLE}
    readers = {str(root / name): who for name, who in READERS.items()}
    env = {
        "PYLUCENE_MCP_TOKENS_FILE": str(home / "tokens.yaml"),
        "PYLUCENE_MCP_READERS": json.dumps(readers),
    }
    server = HttpServer(home, root, env=env)
    yield Team(server, tokens)
    assert server.stop() == b""


async def search(client: Client, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool("search", {"pageSize": 100, **arguments})
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def test_each_person_s_search_is_exactly_what_they_may_read(team: Team, root: Path) -> None:
    async with team.client("erik") as operator:
        crawled = await operator.call_tool("startCrawl", {"wait": True})
        assert not crawled.is_error, crawled.content
    for person in PEOPLE:
        mine = readable(root, person)
        async with team.client(person) as client:
            everything = await search(client, query="*", maxPassages=0)
            assert {h["filePath"] for h in everything["documents"]} == mine, person
            assert everything["totalHits"] == len(mine)
            for query, expected in (
                ("heron", holding(mine, "heron")),
                ("otter OR kingfisher", holding(mine, "otter") | holding(mine, "kingfisher")),
            ):
                found = await search(
                    client,
                    query=query,
                    defaultOperator="OR",
                    facetQueries={"heron": "heron"},
                    filters=[{"field": "file_extension", "operator": "in", "values": ["md"]}],
                )
                md = {p for p in expected if p.endswith(".md")}
                assert {h["filePath"] for h in found["documents"]} == md, (person, query)
                assert found["totalHits"] == len(md)
                extensions = Counter(Path(p).suffix.lstrip(".") for p in expected)
                counted = {f["value"]: f["count"] for f in found["facets"]["file_extension"]}
                assert counted == dict(extensions), (person, query)
                assert found["facetQueries"] == {"heron": len(holding(md, "heron"))}
                for hit in found["documents"]:  # passages only of what may be read
                    assert hit["filePath"] in mine


async def test_a_document_one_may_not_read_is_answered_as_missing(team: Team, root: Path) -> None:
    async with team.client("erik") as operator:
        assert not (await operator.call_tool("startCrawl", {"wait": True})).is_error
    hidden = str(root / "sales" / "note0.md")
    absent = str(root / "sales" / "never-there.md")
    async with team.client("dora") as dora, team.client("finn") as finn:
        seen = await dora.call_tool("getDocumentDetails", {"filePath": hidden})
        assert not seen.is_error and seen.structured_content is not None
        assert seen.structured_content["filePath"] == hidden
        refused = await finn.call_tool("getDocumentDetails", {"filePath": hidden})
        missing = await finn.call_tool("getDocumentDetails", {"filePath": absent})
        assert refused.is_error and missing.is_error
        said = [c.text for c in refused.content]  # type: ignore[union-attr]
        assert said == [c.text.replace(absent, hidden) for c in missing.content]  # type: ignore[union-attr]


async def test_every_read_tool_answers_within_what_one_may_read(team: Team, root: Path) -> None:
    """Counts, terms, duplicates and profiles of the embedded index come from a view of the
    person's folders: a word only other folders hold is nowhere, the counts are theirs. Each
    note's text begins with its folder's name, which the oracle reads off the folder."""
    async with team.client("erik") as operator:
        assert not (await operator.call_tool("startCrawl", {"wait": True})).is_error
    for person in PEOPLE:
        mine = readable(root, person)
        folders = {Path(p).parent.name for p in mine}
        hidden = {f.replace("-", " ").split()[0] for f in FOLDERS} - {
            f.replace("-", " ").split()[0] for f in folders
        }
        async with team.client(person) as client:
            stats = (await client.call_tool("getIndexStats", {})).structured_content
            assert stats is not None and stats["documentCount"] == len(mine), person
            top = await client.call_tool("getTopTerms", {"field": "content", "limit": 100})
            assert top.structured_content is not None, top.content
            words = {t["term"] for t in top.structured_content["terms"]}
            assert words & hidden == set(), (person, words & hidden)
            note = sum(1 for p in mine if "note" in Path(p).read_text().split())
            counted = {t["term"]: t["docFreq"] for t in top.structured_content["terms"]}
            assert counted.get("note", 0) == note
            profile = await client.call_tool("profileQuery", {"query": "heron"})
            assert not profile.is_error, profile.content
            duplicates = await client.call_tool("findDuplicates", {})
            assert not duplicates.is_error, duplicates.content


async def test_no_timing_or_index_path_tells_a_restricted_caller_of_other_documents(
    team: Team,
) -> None:
    # a word in 20,000 hidden documents takes longer to count than in none: no such figure
    # reaches one who may not read them all, nor where the index lies
    async with team.client("finn") as client:
        found = await search(client, query="heron")
        assert "searchTimeMs" not in found and "totalHits" in found
        profile = await client.call_tool(
            "profileQuery",
            {
                "query": "heron",
                "analyzeFacetCost": True,
                "analyzeFilterImpact": True,
                "filters": [{"field": "file_extension", "operator": "eq", "value": "md"}],
            },
        )
        data = profile.structured_content
        assert data is not None and not profile.is_error, profile.content
        assert "facetCost" not in data and "profileTimeMs" not in data
        assert data["filterImpact"] and all("ms" not in f for f in data["filterImpact"])
        stats = (await client.call_tool("getIndexStats", {})).structured_content
        assert stats is not None and "indexPath" not in stats and "documentCount" in stats


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("getTopTerms", {}),
        ("suggestTerms", {"prefix": "her"}),
        ("findDuplicates", {}),
        ("getIndexStats", {}),
        ("profileQuery", {"query": "heron"}),
        ("explainMiss", {"query": "heron", "filePath": "/x"}),
    ],
)
async def test_the_read_tools_answer_a_restricted_caller_on_the_embedded_index(
    team: Team, tool: str, arguments: dict[str, Any]
) -> None:
    async with team.client("dora") as client:
        answer = await client.call_tool(tool, arguments)
    said = answer.content[0].text if answer.content else ""  # type: ignore[union-attr]
    assert "not available to a caller" not in said


async def test_a_quote_stands_only_in_what_one_may_read(team: Team, root: Path) -> None:
    """locateQuote through a person's token: a sentence of a hidden note stands nowhere for
    them (nor near: its place is not among their candidates), and the note asked for by path is
    answered as a missing one, word for word; one who may read it finds it exactly."""
    async with team.client("erik") as operator:
        assert not (await operator.call_tool("startCrawl", {"wait": True})).is_error
    hidden = root / "sales" / "note0.md"
    quote = " ".join(hidden.read_text(encoding="utf-8").split()[:8])
    absent = str(root / "sales" / "never-there.md")
    async with team.client("dora") as dora, team.client("finn") as finn:
        seen = await dora.call_tool("locateQuote", {"quote": quote})
        assert seen.structured_content is not None, seen.content
        assert {m["filePath"] for m in seen.structured_content["matches"]} >= {str(hidden)}
        unseen = await finn.call_tool("locateQuote", {"quote": quote})
        assert unseen.structured_content is not None, unseen.content
        places = unseen.structured_content["matches"] + unseen.structured_content.get("closest", [])
        mine = readable(root, "finn")
        assert all(p["filePath"] in mine for p in places), places
        refused = await finn.call_tool("locateQuote", {"quote": quote, "filePath": str(hidden)})
        missing = await finn.call_tool("locateQuote", {"quote": quote, "filePath": absent})
        assert refused.is_error and missing.is_error
        said = [c.text for c in refused.content]  # type: ignore[union-attr]
        assert said == [c.text.replace(absent, str(hidden)) for c in missing.content]  # type: ignore[union-attr]
