"""Every search runs under a time limit: expensive expansions stop with advice, collection stops
with the hits found so far, and regular expressions that would take minutes to compile are
refused before Lucene builds them."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from pylucene_mcp import Index, QuerySyntaxError, SearchTimeoutError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=[1, 8], ids=["one segment", "eight segments or more"])
def many_terms(
    tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest
) -> Iterator[Index]:
    """50,000 distinct words in one document, 20,000 small documents: expanding a* OR b* … takes
    a few hundred milliseconds here. In one segment, or in eight or more: then a search runs
    on several slices, some of them on search threads, which must keep the caller's deadlines."""
    rng = random.Random(7)
    words = ["".join(rng.choice("abcdefghijklmnop") for _ in range(7)) for _ in range(50_000)]
    docs = [
        {
            "file_path": f"/d/{n}.txt",
            "content": f"alpha {words[n]} {words[n + 1]}",
            "language": "de" if n % 2 else "en",
        }
        for n in range(20_000)
    ]
    index = Index.open(tmp_path_factory.mktemp("many-terms"), refresh_interval_s=60)
    for part in range(8):
        with index.writer() as w:  # each commit writes a segment or two (one per thread)
            if part == 0:
                w.add({"file_path": "/d/all.txt", "content": " ".join(words), "language": "en"})
            w.add_many(docs[part::8])
    if request.param == 1:
        index.optimize(1)
    with index.searcher() as searcher:
        leaves = searcher.getIndexReader().leaves().size()
        assert leaves == 1 if request.param == 1 else leaves > 5
    yield index
    index.close()


def test_a_large_index_is_searched_on_several_threads(many_terms: Index) -> None:
    from pylucene_mcp import jvm

    tasks = jvm.jclass("io.github.pylucenemcp.search.Deadline").tasksRun
    with many_terms.searcher() as searcher:
        sliced = searcher.getIndexReader().leaves().size() > 5  # Lucene's 5 segments a slice
    before = tasks()
    # The calling thread runs the slices no pool thread has started yet, so on a busy machine
    # one search may run them all itself: of several searches, one at least uses the pool when
    # the index is sliced, and none ever does when it is not. No passages: a page's documents
    # are highlighted on the same threads, sliced or not.
    for _ in range(1 if not sliced else 20):
        result = many_terms.search(
            "alpha", filters=[{"field": "language", "value": "de"}], max_passages=0
        )
        assert result.total_hits == 10_000
        assert result.facets["language"][0].count == 10_000
        if tasks() > before:
            break
    assert (tasks() > before) == sliced


EXPENSIVE = "a* OR b* OR c* OR d* OR e* OR f*"
EXPENSIVER = EXPENSIVE + " OR g* OR h* OR i*"


def test_without_a_limit_the_expensive_query_completes(many_terms: Index) -> None:
    result = many_terms.search(EXPENSIVE, timeout_s=0)
    assert result.total_hits == 20_001
    assert not result.partial_results
    assert "partialResults" not in result.to_dict()


def test_an_expensive_expansion_stops_at_the_limit_with_advice(many_terms: Index) -> None:
    # a microsecond, which is 1 ms for Java (it had become 0: no limit): the deadline passes
    # while the patterns expand, before any hit is found
    with pytest.raises(SearchTimeoutError) as caught:
        many_terms.search(EXPENSIVER, timeout_s=0.000001)
    message = str(caught.value)
    assert "time limit of 1 ms" in message
    assert "more letters before a *" in message and "search_timeout_s" in message


def test_a_search_cut_before_it_found_anything_is_the_error_that_says_what_to_do(
    many_terms: Index,
) -> None:
    """docs/tools.md: a search that found nothing within its limit is a tool error naming
    cheaper forms, never ``totalHits: 0, partialResults: true`` (which reads as "no such
    documents"). An OR of 200 fuzzy words, under limits from 1 ms to 0.4 s."""
    rng = random.Random(11)
    with many_terms.searcher() as searcher:
        terms = searcher.getIndexReader().leaves().get(0).reader().terms("content").iterator()
        vocabulary = []
        while len(vocabulary) < 5000 and (term := terms.next()) is not None:
            vocabulary.append(str(term.utf8ToString()))
    query = " OR ".join(f"{w}~2" for w in rng.sample(vocabulary, 200))
    for limit in (0.000001, 0.005, 0.05, 0.4):
        try:
            found = many_terms.search(query, timeout_s=limit, max_passages=0)
        except SearchTimeoutError as exc:
            assert "found nothing" in str(exc) or "time limit" in str(exc)
            assert "~1 instead of ~2" in str(exc)
            continue
        assert found.total_hits > 0 or not found.partial_results, limit


@pytest.mark.anyio
async def test_the_server_s_search_timeout_setting_limits_the_search_tool(
    many_terms: Index,
) -> None:
    """search_timeout_s as the server applies it to the search tool (not only as parsed)."""
    from tests.mcp_client import call, connect, error

    async with connect(many_terms, search_timeout_s=0.000001) as limited:
        refused = await error(limited, "search", query=EXPENSIVER)
        assert "time limit" in refused and "search_timeout_s" in refused
    async with connect(many_terms, search_timeout_s=0) as unlimited:  # 0: no limit
        answer = await call(unlimited, "search", query=EXPENSIVE, maxPassages=0)
        assert answer["totalHits"] == 20_001 and "partialResults" not in answer


def test_the_limit_leaves_the_searcher_usable(many_terms: Index) -> None:
    with pytest.raises(SearchTimeoutError):
        many_terms.search(EXPENSIVER, timeout_s=0.001)
    again = many_terms.search("alpha", filters=[{"field": "language", "value": "de"}])
    assert again.total_hits == 10_000
    assert not again.partial_results  # the deadline of the failed search is gone


@pytest.mark.parametrize("regex", ["/a{1,100000}/", "lease AND /x{101}/", "/(ab){2,5000}c/"])
def test_huge_regex_repeats_are_refused_before_they_are_built(
    many_terms: Index, regex: str
) -> None:
    with pytest.raises(QuerySyntaxError, match="a repeat may count at most 100"):
        many_terms.search(regex)


def test_a_bounded_regex_runs(many_terms: Index) -> None:
    assert many_terms.search("/alph[a-z]{1,100}/").total_hits == 20_000


def test_the_limit_comes_from_the_settings(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from pylucene_mcp.basics.config import Settings

    monkeypatch.setenv("PYLUCENE_MCP_SEARCH_TIMEOUT_S", "0.25")
    assert Settings.load(tmp_path / "none.yaml").search_timeout_s == 0.25
    monkeypatch.setenv("PYLUCENE_MCP_SEARCH_TIMEOUT_S", "soon")
    with pytest.raises(Exception, match="PYLUCENE_MCP_SEARCH_TIMEOUT_S must be a number"):
        Settings.load(tmp_path / "none.yaml")
