"""File names: split into their words (dots, dashes, underscores, case changes, digits) and kept
whole, and matched by unfielded words beside the content and the title."""

from __future__ import annotations

import pytest

from pylucene_mcp import Index
from pylucene_mcp.engine.core import analysis


@pytest.fixture
def named(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        w.add({"file_path": "/r/Annual_Report-2024.pdf", "content": "Figures of the year."})
        w.add({"file_path": "/r/notes.txt", "content": "The annual meeting moved."})
        w.add({"file_path": "/r/myBudgetPlan.xlsx", "content": "Rows and columns."})
    return fresh_index


def paths(index: Index, query: str) -> list[str]:
    return [h.file_path for h in index.search(query).documents]


def test_unfielded_words_find_a_file_by_its_name(named: Index) -> None:
    assert paths(named, "annual report") == ["/r/Annual_Report-2024.pdf"]
    assert paths(named, "report 2024") == ["/r/Annual_Report-2024.pdf"]
    assert paths(named, "budget plan") == ["/r/myBudgetPlan.xlsx"]  # split at case changes
    # a word in a name and a word in a text: the whole query on one field, not mixed
    assert paths(named, "annual meeting") == ["/r/notes.txt"]
    assert set(paths(named, "annual")) == {"/r/Annual_Report-2024.pdf", "/r/notes.txt"}


def test_the_whole_name_and_its_parts_are_fielded_queries_too(named: Index) -> None:
    assert paths(named, 'file_name:"Annual_Report-2024.pdf"') == ["/r/Annual_Report-2024.pdf"]
    assert paths(named, "file_name:notes.txt") == ["/r/notes.txt"]
    assert paths(named, "file_name:txt") == ["/r/notes.txt"]
    terms = [t.term for t in analysis.analyze("Annual_Report-2024.pdf", "file_name")]
    assert {"annual", "report", "2024", "pdf", "annual_report-2024.pdf"} <= set(terms)
