"""explainMiss, tested against each cause: a filter, a missing word, a phrase too far apart, a
pattern that reaches nothing, a low rank; and through the SDK's client."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from mcp import Client

from pylucene_mcp import DocumentNotFoundError, Index
from pylucene_mcp.engine.core.miss import explain_miss
from tests.mcp_client import call, connect

LEASE = "/d/lease.txt"


@pytest.fixture
def leases(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        w.add(
            {
                "file_path": LEASE,
                "content": "The tenant signed the lease agreement in March. "
                "The contract runs two years.",
                "language": "en",
                "modified_date": "2024-03-01",
            }
        )
        for n in range(15):
            w.add({"file_path": f"/d/other{n:02}.txt", "content": "contract contract lease"})
    return fresh_index


def test_a_filter_that_excludes_it_is_named_with_the_documents_value(leases: Index) -> None:
    miss = explain_miss(leases, "lease", LEASE, filters=[{"field": "language", "value": "de"}])
    assert miss.matches_query and not miss.passes_filters
    (reason,) = miss.reasons
    assert (reason.kind, reason.field, reason.value) == ("filter", "language", "en")
    dated = [{"field": "modified_date", "operator": "range", "from": "2025-01-01"}]
    miss = explain_miss(leases, "lease", LEASE, filters=dated)
    assert miss.reasons[0].value == "2024-03-01T00:00:00Z"


def test_a_missing_word_comes_with_the_closest_words_the_document_has(leases: Index) -> None:
    miss = explain_miss(leases, "contract AND agreemnt", LEASE)
    assert not miss.matches_query
    (reason,) = miss.reasons
    assert reason.kind == "missing_term" and reason.value == "agreemnt"
    assert reason.closest is not None and reason.closest[0] == "agreement"


def test_a_phrase_too_far_apart_gives_the_slop_that_would_match(leases: Index) -> None:
    miss = explain_miss(leases, '"signed agreement"', LEASE)
    (reason,) = miss.reasons
    assert (reason.kind, reason.distance) == ("phrase_distance", 3)
    assert '"signed agreement"~2 would match' in reason.detail
    assert explain_miss(leases, '"signed agreement"~2', LEASE).matches_query  # and it does


def test_a_pattern_that_reaches_nothing_is_named(leases: Index) -> None:
    miss = explain_miss(leases, "contr* AND zebra*", LEASE)
    assert [(r.kind, r.value) for r in miss.reasons] == [("pattern", "zebra*")]


def test_a_low_rank_is_given_against_the_first_page(leases: Index) -> None:
    miss = explain_miss(leases, "contract", LEASE)
    assert miss.matches_query and miss.passes_filters
    assert miss.rank == 16 and miss.score is not None and miss.last_shown_score is not None
    assert miss.score < miss.last_shown_score
    assert miss.reasons[0].kind == "rank"
    assert explain_miss(leases, "tenant", LEASE).summary.startswith("it matches and ranks 1")


def test_an_unknown_document_is_an_error(leases: Index) -> None:
    with pytest.raises(DocumentNotFoundError):
        explain_miss(leases, "lease", "/d/none.txt")


@pytest.fixture
async def client(leases: Index) -> AsyncIterator[Client]:
    async with connect(leases) as connected:
        yield connected


@pytest.mark.anyio
async def test_the_tool_answers_in_camel_case(client: Client) -> None:
    miss = await call(client, "explainMiss", query="contract AND agreemnt", filePath=LEASE)
    assert miss["matchesQuery"] is False and miss["passesFilters"] is True
    assert miss["reasons"][0]["kind"] == "missing_term"
    assert "rank" not in miss


@pytest.mark.anyio
async def test_many_missing_words_fit_the_budget_and_say_how_many_were_left_out(
    client: Client,
) -> None:
    # 100 words: each one is a clause on the text, the title, the file name and the two lemma
    # fields, and Lucene takes 1,024 clauses in one query
    words = " AND ".join(f"absentword{n:03}{'x' * 30}" for n in range(100))
    miss = await call(client, "explainMiss", query=f"contract AND {words}", filePath=LEASE)
    shown = len(miss["reasons"])
    assert miss["omitted"]["reasons"] == 100 - shown and shown >= 1
    assert miss["reasons"][0]["kind"] == "missing_term"
    assert len(json.dumps(miss, ensure_ascii=False, separators=(",", ":")).encode()) <= 10_000
