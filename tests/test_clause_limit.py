"""Every query of plain words within the 10,000-character limit runs: an OR of about 400 words
(6,190 characters) failed with "maxClauseCount is set to 1024", since each word counts once for
each field it searches. Lucene's limit is raised to what our own limit allows
(``engine.core.query.MAX_CLAUSES``); what still passes it (patterns, fuzzy words) gets the error
that says what to do."""

from __future__ import annotations

import random

import pytest

from pylucene_mcp import Index, TooManyClausesError, jvm
from pylucene_mcp.engine.core.query import MAX_CLAUSES

WORDS = [f"w{n:04}" for n in range(2000)]


TEXTS = [" ".join(random.Random(n).sample(WORDS, 30)) for n in range(300)]


@pytest.fixture
def words_index(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        w.add_many({"file_path": f"/d/{n:04}.txt", "content": t} for n, t in enumerate(TEXTS))
    return fresh_index


def holding(words: list[str]) -> int:
    """The oracle: the texts that hold any of ``words``, in plain Python."""
    wanted = set(words)
    return sum(1 for text in TEXTS if wanted & set(text.split()))


@pytest.mark.parametrize("count", [400, 1100])
def test_an_or_of_many_words_within_the_limit_runs(words_index: Index, count: int) -> None:
    query = " OR ".join(WORDS[:count])
    assert len(query) <= 10_000
    assert words_index.search(query, max_passages=0).total_hits == holding(WORDS[:count])


def test_the_worst_plain_query_within_the_limit_fits() -> None:
    """5,000 one-letter words (the most 10,000 characters hold) at 10 clauses a word, the most
    a word had (five fields and its word forms)."""
    assert 5_000 * 10 <= MAX_CLAUSES


def test_a_query_past_lucene_s_limit_says_what_to_do(words_index: Index) -> None:
    """Patterns and fuzzy words count their expansions: past the limit (lowered here, so that a
    short query passes it) the error says what to do."""
    searcher = jvm.jclass("org.apache.lucene.search.IndexSearcher")
    searcher.setMaxClauseCount(200)
    try:
        with pytest.raises(TooManyClausesError, match="split the query into several searches"):
            words_index.search(" OR ".join(WORDS[:60]), max_passages=0)
    finally:
        searcher.setMaxClauseCount(MAX_CLAUSES)
