"""profileQuery: the parsed tree, rewrites, term statistics, totals, filter impact, the BM25
breakdown of the top documents and recommendations, on a corpus where "signed" is rare and
"contract" common (the seed's example)."""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator

import pytest
from mcp import Client

from pylucene_mcp import Index, InvalidRequestError
from pylucene_mcp.profile import profile_query
from tests.mcp_client import call, connect

DOCS = 200


@pytest.fixture
def contracts(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        for n in range(DOCS):
            text = "the contract was reviewed by the team"
            if n == 3:
                text += ", then signed by both parties"
            w.add(
                {
                    "file_path": f"/d/{n:03}.txt",
                    "content": text,
                    "language": "de" if n % 4 == 0 else "en",
                }
            )
    return fresh_index


def test_the_rare_term_dominates_and_proximity_is_recommended(contracts: Index) -> None:
    profile = profile_query(contracts, "contract signed", analyze_document_scoring=True)
    stats = {s.term: s for s in profile.terms}
    assert (stats["contract"].doc_freq, stats["contract"].rarity) == (DOCS, "common")
    assert (stats["signed"].doc_freq, stats["signed"].rarity) == (1, "rare")
    assert math.isclose(stats["signed"].idf, math.log(1 + (DOCS - 1 + 0.5) / 1.5), rel_tol=1e-3)
    assert (profile.documents, profile.matching) == (DOCS, 1)
    assert any('"contract signed"~3' in r for r in profile.recommendations)
    assert profile.document_scoring is not None
    (top,) = profile.document_scoring
    assert top.file_path == "/d/003.txt"
    assert top.terms[0].term == "signed" and top.terms[0].contribution_percent > 90
    assert [(c.type, c.occur, c.value) for c in profile.parsed.clauses or ()] == [
        ("TermQuery", "MUST", "contract"),
        ("TermQuery", "MUST", "signed"),
    ]


def test_rewrites_and_warnings_are_named(contracts: Index) -> None:
    profile = profile_query(contracts, "*tract AND Mueller AND a*")
    assert any("leading wildcard runs as the prefix tcart*" in r for r in profile.rewrites)
    assert any("content_translit_de" in r for r in profile.rewrites)
    assert any("'a*' on content has 1 letter" in w for w in profile.warnings)
    assert any("'mueller' occurs in no document" in w for w in profile.warnings)
    assert profile.matching == 0
    assert any("nothing matches" in r for r in profile.recommendations)


def test_filter_impact_counts_what_each_filter_removes(contracts: Index) -> None:
    german = {"field": "language", "value": "de"}
    profile = profile_query(contracts, "contract", filters=[german], analyze_filter_impact=True)
    assert profile.filter_impact is not None
    (impact,) = profile.filter_impact
    expected = contracts.search("contract", filters=[german]).total_hits
    assert impact.hits_with_filter == expected == DOCS // 4
    assert impact.removed == DOCS - expected
    assert profile.matching_after_filters == expected
    assert profile_query(contracts, "contract").filter_impact is None  # opt-in


def test_bad_input_is_refused_clearly(contracts: Index) -> None:
    with pytest.raises(InvalidRequestError, match="maxDocExplanations must be 1–10"):
        profile_query(contracts, "contract", max_doc_explanations=11)


@pytest.fixture
async def client(contracts: Index) -> AsyncIterator[Client]:
    async with connect(contracts) as connected:
        yield connected


@pytest.mark.anyio
async def test_the_tool_answers_within_the_budget(client: Client) -> None:
    profile = await call(
        client,
        "profileQuery",
        query="contract OR signed OR team OR review*",
        analyzeDocumentScoring=True,
        maxDocExplanations=10,
        analyzeFilterImpact=True,
        filters=[{"field": "language", "value": "en"}],
    )
    assert profile["matching"] == DOCS and len(profile["documentScoring"]) == 10
    wire = json.dumps(profile, ensure_ascii=False, separators=(",", ":"))
    assert len(wire.encode()) <= 10_000, len(wire)
