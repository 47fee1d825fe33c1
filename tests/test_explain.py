"""Lucene's Explanation as Python data: per-term BM25 contributions that add up to the score,
with factors checked against BM25's formula computed here, not read back from the code."""

from __future__ import annotations

import math

import pytest

from pylucene_mcp import DocumentNotFoundError, Index
from pylucene_mcp.engine.core.query import LEMMA_WEIGHT

K1, B = 1.2, 0.75  # Lucene's BM25Similarity defaults


@pytest.fixture
def contracts(fresh_index: Index) -> Index:
    """30 documents mention "contract"; one of them says "signed" three times."""
    with fresh_index.writer() as w:
        for n in range(30):
            text = "the contract was reviewed by the team"
            if n == 3:
                text += " and signed signed signed"
            w.add({"file_path": f"/d/{n:02}.txt", "content": text})
    return fresh_index


def test_the_rare_term_dominates_and_the_parts_add_up(contracts: Index) -> None:
    explained = contracts.explain("contract signed", "/d/03.txt")
    assert explained.matched
    signed, contract = (t for t in explained.terms if t.field == "content")
    assert (signed.term, contract.term) == ("signed", "contract")
    assert math.isclose(sum(t.contribution for t in explained.terms), explained.score, rel_tol=1e-5)
    assert math.isclose(sum(t.contribution_percent for t in explained.terms), 100, abs_tol=0.3)
    # the other forms of the words count on the lemma fields, weighted lower
    forms = [t for t in explained.terms if t.field != "content"]
    assert {t.field for t in forms} == {"content_lemma_en", "content_lemma_de"}
    # "signed" is an adjective and a form of "sign": both lemmas score as one (a synonym)
    assert {t.term for t in forms if t.field == "content_lemma_en"} == {
        "sign OR signed",
        "contract",
    }
    assert all(t.boost == pytest.approx(LEMMA_WEIGHT) for t in forms)
    assert signed.contribution > 5 * contract.contribution
    assert explained.summary.startswith("'signed' gives")
    # rarity as the terms table of profileQuery means it: 1 of 30 documents is "uncommon"
    assert "uncommon (idf" in explained.summary and "3 occurrences" in explained.summary
    # BM25 as the formula says, from the counts of the documents written above
    assert (signed.doc_freq, signed.doc_count, signed.freq) == (1, 30, 3)
    assert signed.idf is not None and signed.tf is not None
    assert math.isclose(signed.idf, math.log(1 + (30 - 1 + 0.5) / (1 + 0.5)), rel_tol=1e-5)
    assert signed.field_length is not None and signed.average_field_length is not None
    norm = K1 * (1 - B + B * signed.field_length / signed.average_field_length)
    assert math.isclose(signed.tf, 3 / (3 + norm), rel_tol=1e-5)
    assert math.isclose(contract.idf or 0, math.log(1 + (30 - 30 + 0.5) / (30 + 0.5)), rel_tol=1e-5)
    # the same score the search gives the document
    (hit,) = contracts.search("contract signed").documents
    assert math.isclose(hit.score, explained.score, abs_tol=1e-3)


def test_a_document_that_does_not_match_says_so(contracts: Index) -> None:
    explained = contracts.explain("contract signed", "/d/04.txt")
    assert not explained.matched and explained.terms == () and explained.score == 0.0
    assert "does not match" in explained.summary
    assert not explained.tree.match


def test_a_leading_wildcard_is_shown_as_written_or_by_the_word_it_ranked(
    contracts: Index,
) -> None:
    short = contracts.explain("*ct", "/d/04.txt")  # under four letters: constant score
    assert [(t.field, t.term) for t in short.terms] == [("content", "*ct")]
    # four letters or more rank by the words matched: the word is named, as written
    ranked = contracts.explain("*tract", "/d/04.txt")
    assert [(t.field, t.term) for t in ranked.terms] == [("content", "contract")]


def test_the_tree_is_read_through_the_getters(contracts: Index) -> None:
    tree = contracts.explain("signed", "/d/03.txt").tree
    assert tree.match and tree.details
    assert tree.find("idf") is not None and tree.find("freq") is not None


def test_an_unknown_document_is_an_error_that_says_where_paths_come_from(
    contracts: Index,
) -> None:
    with pytest.raises(DocumentNotFoundError, match="filePath values come from search results"):
        contracts.explain("contract", "/nowhere.txt")
