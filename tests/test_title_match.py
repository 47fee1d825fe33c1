"""Unfielded words also match the title: a document whose title lives only in its metadata
is found by it, and a title adds to a text match. The tools that explain a search agree."""

from __future__ import annotations

import math

import pytest

from pylucene_mcp import Index
from pylucene_mcp.engine.core.miss import explain_miss
from pylucene_mcp.engine.core.profile import profile_query

FILLER = "The committee met on Tuesday and discussed the budget of the archive. " * 6


@pytest.fixture
def manuals(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        w.add(
            {
                "file_path": "/m/biblatex.pdf",
                "title": "The BibLaTeX Package",  # only in the metadata
                "content": "Sophisticated bibliographies in LaTeX. " + FILLER,
            }
        )
        w.add(
            {
                "file_path": "/m/notes.txt",
                "content": FILLER + "Someone mentioned the biblatex package once.",
            }
        )
        w.add(
            {
                "file_path": "/m/guide.pdf",
                "title": "A guide to the biblatex package",
                "content": FILLER + "The biblatex package replaces BibTeX styles.",
            }
        )
        w.add({"file_path": "/m/other.txt", "language": "de", "content": FILLER})
        for n in range(12):  # most documents of a collection have a title
            w.add({"file_path": f"/m/t{n}.pdf", "title": f"Report number {n}", "content": FILLER})
    return fresh_index


def test_a_title_in_the_metadata_finds_its_document(manuals: Index) -> None:
    result = [h.file_path for h in manuals.search("biblatex package").documents]
    # the title and the text outrank the text alone; the title alone is found, near the mention
    assert result[0] == "/m/guide.pdf"
    assert set(result) == {"/m/guide.pdf", "/m/biblatex.pdf", "/m/notes.txt"}
    phrase = {h.file_path for h in manuals.search('"bibLaTeX package"').documents}
    assert phrase == {"/m/guide.pdf", "/m/biblatex.pdf", "/m/notes.txt"}
    # each word matches in the text, the title or the file name, each on its own (as edismax's
    # qf): biblatex in the title and sophisticated in the text find the manual
    assert {h.file_path for h in manuals.search("biblatex AND sophisticated").documents} == {
        "/m/biblatex.pdf"
    }
    # and a negated word excludes a document that has it anywhere: in its title too
    assert "/m/guide.pdf" not in {h.file_path for h in manuals.search("package -guide").documents}


def test_the_explaining_tools_agree_with_the_search(manuals: Index) -> None:
    (hit,) = [h for h in manuals.search("biblatex").documents if h.file_path == "/m/biblatex.pdf"]
    explained = manuals.explain("biblatex", "/m/biblatex.pdf")
    assert math.isclose(explained.score, hit.score, rel_tol=1e-3)
    assert any(t.field == "title" for t in explained.terms)
    assert profile_query(manuals, "biblatex").matching == 3
    assert explain_miss(manuals, "biblatex", "/m/biblatex.pdf").matches_query is True


def test_a_fielded_query_is_not_doubled(manuals: Index) -> None:
    assert manuals.search("language:de").total_hits == 1
    assert manuals.search("title:biblatex").total_hits == 2  # the two titles that hold it
