"""Normalization of extracted text, and page boundaries from Tika's XHTML."""

from __future__ import annotations

from pylucene_mcp.crawler.normalize import join_pages, normalize_text, xhtml_to_pages


def test_nfkc_and_invisible_characters() -> None:
    # ligatures expanded; zero-width space, U+FFFD, a control character and a soft hyphen removed
    text = "\ufb01nance\u200b team\ufffd\x07 e\ufb03cien\u00adcy"
    assert normalize_text(text) == "finance team efficiency"


def test_whitespace_is_collapsed_but_paragraphs_stay() -> None:
    assert normalize_text("  a \t\u00a0 b  \n\n\n\n  c  ") == "a b\n\nc"


def test_pages_are_split_at_page_divs_and_joined_with_offsets() -> None:
    xhtml = (
        '<html><body><div class="page"><p>First page.</p></div>'
        '<div class="page"><p>Second</p><p>page.</p></div></body></html>'
    )
    pages, paged = xhtml_to_pages(xhtml)
    assert paged and pages == ["First page.", "Second\n\npage."]
    content, offsets = join_pages(pages)
    assert offsets == [0, len("First page.") + 2]
    assert content[offsets[1] :].startswith("Second")


def test_unpaged_documents_are_one_page_and_scripts_are_dropped() -> None:
    pages, paged = xhtml_to_pages(
        "<html><head><title>T</title></head><body><p>x</p><script>var a;</script></body></html>"
    )
    assert not paged and pages == ["x"]


def test_a_pdfs_lines_are_joined_within_a_paragraph_and_its_hyphenated_words_made_whole() -> None:
    xhtml = (
        '<html><body><div class="page"><p>The same restrictions ap-\nply as above; the\n'
        "Software-\nEntwicklung and 2-\n3.</p><p>A new\nparagraph.</p></div></body></html>"
    )
    pages, paged = xhtml_to_pages(xhtml)
    assert paged and pages == [
        "The same restrictions apply as above; the Software-Entwicklung and 2- 3.\n\n"
        "A new paragraph."
    ]
    # a document without pages keeps its lines: they may be a poem's, a table's or code's
    assert xhtml_to_pages("<html><body><p>one\ntwo-\nthree</p></body></html>")[0] == [
        "one\ntwo-\nthree"
    ]
