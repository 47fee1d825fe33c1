"""The analysis chains, shown as token streams."""

from __future__ import annotations

import pytest

from pylucene_mcp import analyze


def terms(text: str, field: str = "content") -> list[str]:
    return [t.term for t in analyze(text, field)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("\ufb01nance", ["finance"]),  # NFKC expands the ligature
        ("Ｌｕｃｅｎｅ", ["lucene"]),  # full-width forms
        ("Café crème", ["cafe", "creme"]),  # diacritics folded
        ("Müller Straße", ["muller", "strasse"]),
        ("Arbeitsvertrag, Vertragsbedingungen.", ["arbeitsvertrag", "vertragsbedingungen"]),
    ],
)
def test_content_chain(text: str, expected: list[str]) -> None:
    assert terms(text) == expected


def test_reversed_chain_reverses_the_folded_tokens() -> None:
    assert terms("Arbeitsvertrag Müller", "content_reversed") == ["gartrevstiebra", "rellum"]


@pytest.mark.parametrize(
    ("umlaut", "digraph"),
    [("Müller", "Mueller"), ("Straße", "Strasse"), ("Käse", "Kaese"), ("Öl", "Oel")],
)
def test_translit_chain_makes_digraphs_and_umlauts_meet(umlaut: str, digraph: str) -> None:
    assert terms(umlaut, "content_translit_de") == terms(digraph, "content_translit_de")


def test_keyword_fields_keep_the_value_whole() -> None:
    assert terms("/home/a/My File.pdf", "file_path") == ["/home/a/My File.pdf"]


def test_tokens_carry_offsets_into_the_original_text() -> None:
    text = "Der Arbeitsvertrag"
    (first, second) = analyze(text)
    assert text[second.start : second.end] == "Arbeitsvertrag"
    assert (first.position, second.position) == (0, 1)
