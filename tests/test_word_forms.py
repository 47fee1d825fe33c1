"""Word forms: the lemma fields (content_lemma_en, content_lemma_de) let a word find its other
forms, ranked below the word as written, marked in passages, and turned off by wordForms=false."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from mcp import Client

from pylucene_mcp import Index
from pylucene_mcp.engine.core.miss import explain_miss
from tests.mcp_client import call, connect

DOCS = {
    "/en/exact.txt": ("en", "Take the lock and open the door with the key."),
    "/en/forms.txt": ("en", "The file locks were released after the process locked them."),
    "/en/regex.txt": ("en", "Regular expressions are compiled once and cached."),
    "/en/other.txt": ("en", "Nothing about that here, only doors and keys."),
    "/de/altstadt.txt": ("de", "Die Häuser in der Altstadt sind denkmalgeschützt."),
    "/de/satz.txt": ("de", "Die Silbentrennungen am Zeilenende setzt das Programm selbst."),
    "/fr/maisons.txt": ("fr", "Les locks de la maison."),
    "/xx/unknown.txt": ("unknown", "Zwei Häuser und drei locks."),
}


@pytest.fixture
def forms(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        for path, (language, text) in DOCS.items():
            w.add({"file_path": path, "content": text, "language": language})
    return fresh_index


def paths(index: Index, query: str, **kwargs: object) -> list[str]:
    return [h.file_path for h in index.search(query, **kwargs).documents]


def test_a_word_finds_its_other_forms_below_itself(forms: Index) -> None:
    found = paths(forms, "lock")
    # the word as written first; its forms in English documents, and in a document whose
    # language is unknown (both dictionaries), but not in a French one (no dictionary)
    assert found[0] == "/en/exact.txt"
    assert set(found) == {"/en/exact.txt", "/en/forms.txt", "/xx/unknown.txt"}
    assert paths(forms, "lock", word_forms=False) == ["/en/exact.txt"]
    # and the other way round: a form finds the word
    assert set(paths(forms, "locked")) >= {"/en/exact.txt", "/en/forms.txt"}
    assert paths(forms, "keys")[0] == "/en/other.txt"  # "keys" itself ranks above "key"


def test_irregular_and_german_forms(forms: Index) -> None:
    assert set(paths(forms, "Haus")) == {"/de/altstadt.txt", "/xx/unknown.txt"}
    assert paths(forms, "Haus", word_forms=False) == []
    assert paths(forms, "expression") == ["/en/regex.txt"]
    assert paths(forms, '"regular expression"') == ["/en/regex.txt"]
    assert paths(forms, '"regular expression"', word_forms=False) == []
    # a compound outside the dictionary takes the forms of its tail (Trennung): the singular
    # finds the plural, and only as a form
    assert paths(forms, "Silbentrennung") == ["/de/satz.txt"]
    assert paths(forms, "Silbentrennung", word_forms=False) == []
    # AND holds per word across the word's forms: both words in one document
    assert paths(forms, "release AND process") == ["/en/forms.txt"]


def test_passages_mark_the_form_the_document_has(forms: Index) -> None:
    (hit,) = forms.search("release", word_forms=True).documents
    (passage,) = hit.passages
    assert "<em>released</em>" in passage.text
    assert passage.matched_terms == ("released",)
    assert passage.term_coverage == 1.0
    (hit,) = forms.search('"regular expression"').documents
    assert "expressions</em>" in hit.passages[0].text


def test_explain_miss_names_only_the_words_no_form_of_which_is_there(forms: Index) -> None:
    miss = explain_miss(forms, "lock AND zebra", "/en/forms.txt")
    assert [(r.kind, r.value) for r in miss.reasons] == [("missing_term", "zebra")]
    miss = explain_miss(forms, "locked zebra process", "/en/forms.txt")  # analyzed together
    assert [(r.kind, r.value) for r in miss.reasons] == [("missing_term", "zebra")]
    miss = explain_miss(forms, '"files locked" AND "regular expression"', "/en/forms.txt")
    assert [(r.kind, r.value) for r in miss.reasons] == [("missing_term", "regular expression")]


@pytest.fixture
async def client(forms: Index) -> AsyncIterator[Client]:
    async with connect(forms) as connected:
        yield connected


@pytest.mark.anyio
async def test_the_tool_takes_word_forms_and_a_cursor_keeps_it(client: Client) -> None:
    answer = await call(client, "search", query="lock", fields=["filePath"])
    assert answer["totalHits"] == 3
    exact = await call(client, "search", query="lock", wordForms=False, fields=["filePath"])
    assert [d["filePath"] for d in exact["documents"]] == ["/en/exact.txt"]
    first = await call(client, "search", query="lock", pageSize=1, cursor="*")
    refused = await client.call_tool(
        "search",
        {"query": "lock", "pageSize": 1, "cursor": first["nextCursor"], "wordForms": False},
    )
    assert refused.is_error and "another query" in refused.content[0].text  # type: ignore[union-attr]
