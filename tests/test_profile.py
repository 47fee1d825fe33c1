"""profileQuery: the parsed tree, rewrites, term statistics, totals, filter impact, the BM25
breakdown of the top documents and recommendations, on a corpus where "signed" is rare and
"contract" common (the seed's example)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from collections.abc import AsyncIterator
from decimal import Decimal
from pathlib import Path

import pytest
from mcp import Client

from pylucene_mcp import Index, InvalidRequestError
from pylucene_mcp.engine.core.profile import QueryNode, profile_query
from pylucene_mcp.engine.core.query import LEMMA_WEIGHT
from tests.conftest import FIGURES
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
    stats = {s.term: s for s in profile.terms if s.field == "content"}
    assert (stats["contract"].doc_freq, stats["contract"].rarity) == (DOCS, "common")
    assert (stats["signed"].doc_freq, stats["signed"].rarity) == (1, "rare")
    assert math.isclose(stats["signed"].idf, math.log(1 + (DOCS - 1 + 0.5) / 1.5), rel_tol=1e-3)
    assert (profile.documents, profile.matching) == (DOCS, 1)
    assert any('"contract signed"~3' in r for r in profile.recommendations)
    assert profile.document_scoring is not None
    (top,) = profile.document_scoring
    assert top.file_path == "/d/003.txt"
    assert sum(t.contribution_percent for t in top.terms if "sign" in t.term) > 90
    # each word required, as written on content or as its other forms on a lemma field,
    # weighted lower
    groups = [(c.type, c.occur, c.boost) for c in profile.parsed.clauses or ()]
    assert groups == [("BooleanQuery", "MUST", None)] * 2
    words = [
        [(w.field, w.occur, w.boost) for w in _unit(c).clauses or ()]
        for c in profile.parsed.clauses or ()
    ]
    assert (
        words
        == [
            [
                ("content", "SHOULD", None),
                ("content_lemma_en", "SHOULD", pytest.approx(LEMMA_WEIGHT)),
                ("content_lemma_de", "SHOULD", pytest.approx(LEMMA_WEIGHT)),
            ]
        ]
        * 2
    )
    units = [_unit(c) for c in profile.parsed.clauses or ()]
    written = [c.clauses[0].value for c in units if c.clauses]
    assert written == ["contract", "signed"]
    assert "sign" in (units[1].clauses or ())[1].value  # signed's lemma
    assert any("other forms of their words" in r for r in profile.rewrites)
    # the other forms' statistics are there too: "sign" counts its forms in English documents
    lemma = {(s.field, s.term): s for s in profile.terms}
    assert lemma["content_lemma_en", "contract"].doc_freq == DOCS - DOCS // 4


def test_rewrites_and_warnings_are_named(contracts: Index) -> None:
    profile = profile_query(contracts, "*tract AND Mueller AND a*")
    assert any("leading wildcard runs as the prefix tcart*" in r for r in profile.rewrites)
    assert any("content_translit_de" in r for r in profile.rewrites)
    assert any("'a*' on content has 1 letter" in w for w in profile.warnings)
    assert any("'mueller' occurs in no document" in w for w in profile.warnings)
    assert profile.matching == 0
    assert any("nothing matches" in r for r in profile.recommendations)


def test_an_excluded_word_is_neither_missed_nor_offered_in_a_phrase(fresh_index: Index) -> None:
    """The query builder's "None of these words: Hunden" excluded a document through the word's
    German forms, and profileQuery said "'hund' occurs in no document" and offered a phrase with
    the excluded word in it."""
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/1.txt", "content": "Die Miete und die Kaution", "language": "de"})
        w.add({"file_path": "/d/2.txt", "content": "Die Miete mit Hund", "language": "de"})
    profile = profile_query(fresh_index, "miete kaution -Hunden")
    assert fresh_index.search("miete -Hunden").total_hits == 1  # the form excludes /d/2.txt
    assert profile.matching == 1
    assert not [w for w in profile.warnings if "hund" in w.lower()], profile.warnings
    assert not [r for r in profile.recommendations if "hund" in r.lower()], profile.recommendations
    assert any('"miete kaution"~3' in r for r in profile.recommendations)  # the words it seeks
    # a word the query looks for and no document has is still named
    missing = profile_query(fresh_index, "miete hunden")
    assert any("'hunden' occurs in no document" in w for w in missing.warnings), missing.warnings


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
    with pytest.raises(InvalidRequestError, match="max_doc_explanations must be 1–10"):
        profile_query(contracts, "contract", max_doc_explanations=11)


@pytest.fixture
async def client(contracts: Index) -> AsyncIterator[Client]:
    async with connect(contracts) as connected:
        yield connected


@pytest.mark.anyio
@pytest.mark.parametrize(
    "query",
    [
        "contract OR signed OR team OR review*",
        # many parts, each with a cost, and patterns with their samples: the largest tree
        " OR ".join(f"{w}*" for w in ("c", "co", "con", "t", "te", "r", "re", "s", "si", "b")) * 8,
    ],
)
async def test_the_tool_answers_within_the_budget(client: Client, query: str) -> None:
    profile = await call(
        client,
        "profileQuery",
        query=query,
        analyzeDocumentScoring=True,
        maxDocExplanations=10,
        analyzeFilterImpact=True,
        analyzeFacetCost=True,
        filters=[{"field": "language", "value": "en"}],
    )
    omitted = profile.get("omitted", {})
    assert profile["matching"] == DOCS
    assert len(profile["documentScoring"]) + omitted.get("documentScoring", 0) == 10
    assert profile["facetCost"]["dimensions"]
    if len(query) > 100:  # the big tree had to give up parts, and says how many
        assert omitted["parsed"] > 0
    wire = json.dumps(profile, ensure_ascii=False, separators=(",", ":"))
    assert len(wire.encode()) <= 10_000, len(wire)


def _content_leaves(node: QueryNode) -> list[QueryNode]:
    """The leaves of the tree, without the twins of the words (their other forms) and the same
    words on the title and the file name."""
    if not node.clauses:
        skipped = ("content_lemma_en", "content_lemma_de", "title", "file_name")
        return [] if node.field in skipped else [node]
    return [leaf for clause in node.clauses for leaf in _content_leaves(clause)]


def _unit(node: QueryNode) -> QueryNode:
    """A clause's content part: an unfielded word is the word on the content (with its twins)
    or the same on the title and the file name, each clause on its own."""
    others = [c for c in node.clauses or () if c.field in ("title", "file_name")]
    if others and len(node.clauses or ()) == len(others) + 1:
        return next(c for c in node.clauses or () if c not in others)
    return node


def test_each_part_has_its_cost_and_each_pattern_its_expansion(contracts: Index) -> None:
    profile = profile_query(contracts, "contract AND sign* AND *viewed")
    leaves = {c.value: c for c in _content_leaves(profile.parsed)}
    assert leaves["contract"].cost == DOCS  # a term visits its documents
    assert leaves["contract"].expands_to is None
    signs = leaves["sign*"]
    assert (signs.expands_to, signs.sample, signs.expansion_complete) == (1, ("signed",), True)
    assert signs.cost is not None and signs.cost >= 1  # Lucene's estimate for a pattern: a bound
    # a leading wildcard runs on the reversed words: the sample shows them as written
    reviewed = next(c for c in _content_leaves(profile.parsed) if c.field == "content_reversed")
    assert reviewed.sample == ("reviewed",) and reviewed.cost is not None
    # a conjunction visits no more than its cheapest required part
    assert profile.parsed.cost == min(c.cost or 0 for c in profile.parsed.clauses or ())


def test_a_pattern_that_expands_to_thousands_of_words_is_named(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        for n in range(1_200):
            w.add({"file_path": f"/w/{n}.txt", "content": f"word{n:04} filler"})
    profile = profile_query(fresh_index, "word*")
    (leaf,) = [_unit(profile.parsed)]
    assert leaf.expands_to == 1_200 and leaf.sample == ("word0000", "word0001", "word0002",
                                                        "word0003", "word0004")  # fmt: skip
    assert any(
        "expands to 1,200 words: slow, and only its 50 best words rank its hits" in w
        for w in profile.warnings
    )
    assert any("narrow 'word*'" in r for r in profile.recommendations)


def test_facet_cost_and_filter_times_are_measured(contracts: Index) -> None:
    german = [{"field": "language", "value": "de"}]
    profile = profile_query(
        contracts, "contract", filters=german, analyze_facet_cost=True, analyze_filter_impact=True
    )
    cost = profile.facet_cost
    assert cost is not None
    assert set(cost.dimensions) == {"author", "language", "file_extension", "file_type", "ocr"}
    # each is a median of real work, in ms to the microsecond: none is 0 (what a figure that
    # was never measured would read)
    assert min(cost.search_ms, cost.collect_ms, cost.count_ms) > 0
    assert cost.dimensions["language"] > 0  # indexed: its top values are read
    (impact,) = profile.filter_impact or ()
    assert impact.hits_with_filter == DOCS // 4 and impact.ms > 0
    assert profile_query(contracts, "contract").facet_cost is None


@pytest.mark.slow
def test_the_profile_benchmark_runs_short(tmp_path: Path) -> None:
    """bench/profile_latency.py on 3,000 documents (the bench runs 100,000)."""
    bench = Path(__file__).resolve().parents[1] / "bench"
    done = subprocess.run(
        [sys.executable, "profile_latency.py", "--docs", "3000", "--runs", "3"],
        cwd=bench,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = [line for line in done.stdout.splitlines() if line.startswith("profileQuery on")]
    assert len(lines) == 2, done.stdout
    FIGURES["profileQuery, 3,000 documents (bench/profile_latency.py)"] = "; ".join(
        line.split(": ", 1)[1] for line in lines
    )


@pytest.mark.slow
def test_the_passage_cost_benchmark_runs_short(tmp_path: Path) -> None:
    """bench/passage_cost.py on the test corpus, one round (the bench crawls 190 real files)."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run(
        [sys.executable, "passage_cost.py", "--files", str(root / "tests/fixtures/corpus"),
         "--index-dir", str(tmp_path), "--rounds", "1"],
        cwd=root / "bench",
        capture_output=True,
        text=True,
        timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    (worst,) = [line for line in done.stdout.splitlines() if line.startswith("worst ratio")]
    FIGURES["passages ÷ none through MCP, test corpus (bench/passage_cost.py)"] = worst


def test_a_regular_expression_and_the_word_forms_note_read_as_written(contracts: Index) -> None:
    profile = profile_query(contracts, "/contr.ct/")
    (leaf,) = [
        c
        for c in [profile.parsed, *(profile.parsed.clauses or ())]
        if c.type == "RegexpQuery" and c.field == "content"
    ]
    assert (leaf.field, leaf.value) == ("content", "/contr.ct/")
    assert profile.matching == DOCS
    forms = profile_query(contracts, "contract")
    (note,) = [r for r in forms.rewrites if "other forms of their words" in r]
    assert "weighted 0.7 " in note and "None" not in note and "0.69" not in note


@pytest.mark.anyio
async def test_the_debug_tools_explain_the_query_the_search_ran(contracts: Index) -> None:
    """With OR configured, profileQuery and explainMiss default to OR as the search does (they
    had explained the AND query instead)."""
    from tests.mcp_client import call, connect

    async with connect(contracts, default_operator="OR") as client:
        searched = await call(client, "search", query="contract signed", maxPassages=0)
        profiled = await call(client, "profileQuery", query="contract signed")
        assert searched["totalHits"] == profiled["matching"] == DOCS
        missing = await call(client, "explainMiss", query="contract signed", filePath="/d/000.txt")
        assert missing["matchesQuery"] is True  # under AND it would not: no "signed" in it


def test_the_report_agrees_with_itself(contracts: Index) -> None:
    """One meaning of rarity (the terms table's) in the document summaries too; no warning
    about the parser's own twin fields; proximity advice for plain multi-word AND queries."""
    profile = profile_query(contracts, "contract signed", analyze_document_scoring=True)
    table = {s.term: s.rarity for s in profile.terms if s.field == "content"}
    for doc in profile.document_scoring or ():
        for word, rarity in table.items():
            if f"'{word}' gives" in doc.summary:
                assert f": {rarity} (idf" in doc.summary
    assert not [w for w in profile.warnings if "content_lemma" in w or "translit" in w]
    assert any('"contract signed"~3' in r for r in profile.recommendations)
    ored = profile_query(contracts, "contract OR signed")
    assert not any("~3" in r for r in ored.recommendations)


def test_every_alternative_the_search_runs_is_shown_with_its_weight(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/t/a.txt", "title": "Lease contract", "content": "rent and keys"})
        w.add({"file_path": "/t/b.txt", "content": "the contract text"})
    profile = profile_query(fresh_index, "contract", analyze_document_scoring=True)
    # the word in every field searched, each with its weight, in the tree itself (clause by
    # clause: docs/query.md)
    assert [(n.field, n.value, n.boost) for n in (profile.parsed.clauses or ())[1:]] == [
        ("title", "contract", 1.0),
        ("file_name", "contract", 1.0),
    ]
    stats = {(s.field, s.term): s.doc_freq for s in profile.terms}
    assert stats[("title", "contract")] == 1 and stats[("content", "contract")] == 1
    assert profile.matching == 2  # one by its text, one by its title
    titled = [d for d in profile.document_scoring or () if d.file_path == "/t/a.txt"]
    assert [t.field for t in titled[0].terms] == ["title"]  # what the table explains
    assert not [w for w in profile.warnings if "file_name" in w]  # no warning the user caused


@pytest.mark.anyio
async def test_profile_figures_are_rounded_not_widened_floats(contracts: Index) -> None:
    """Issue: profileQuery showed 0.699999988079071 for the word forms' weight 0.7 (a Java
    float widened to a double). Every figure of a term's scoring is the shortest decimal of its
    float, and a weight is the number it was set to."""
    async with connect(contracts) as client:
        answer = await call(
            client, "profileQuery", query="contracts OR review*", analyzeDocumentScoring=True
        )
    text = json.dumps(answer)
    assert "0.69999" not in text
    widened = [
        value
        for doc in answer["documentScoring"]
        for term in doc["terms"]
        for value in term.values()
        if isinstance(value, float) and len(Decimal(repr(value)).as_tuple().digits) > 9
    ]
    assert widened == []  # a float has 9 significant digits at most
    boosts = {t.get("boost") for d in answer["documentScoring"] for t in d["terms"]}
    assert LEMMA_WEIGHT in boosts
