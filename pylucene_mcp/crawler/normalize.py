"""Text normalization for extracted content, and the XHTML → text conversion that keeps page
boundaries.

Normalized text is NFKC; control characters (but newlines and tabs), zero-width characters and
U+FFFD are removed; runs of spaces and tabs become one space, lines are trimmed, and more than one
empty line becomes one.

A paged document (a PDF) is typeset: its line breaks are where the layout ran out of width, so the
lines of a paragraph are joined (:func:`unwrap_lines`), and a word hyphenated at a line's end is
whole again ("ap-" "ply" → "apply"; "Software-" "Entwicklung" keeps its hyphen).
"""

from __future__ import annotations

import re
import unicodedata
from html.parser import HTMLParser

from pylucene_mcp.basics.text import visible

_HSPACE = re.compile(r"[ \t\r\f\v\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000]+")
_BLANK_LINES = re.compile(r"\n{3,}")
# a line feed inside a paragraph: a line on each side
_WRAP = re.compile(r"(?<=[^\n])\n(?=[^\n])")
# a letter, a hyphen at the line's end, a letter on the next line
_HYPHENATED = re.compile(r"(?<=[^\W\d_])-\n(?=[^\W\d_])")


def normalize_text(text: str) -> str:
    """NFKC, invisible and replacement characters removed, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text)
    text = visible(text)
    text = _HSPACE.sub(" ", text)
    text = "\n".join(line.strip() for line in text.split("\n"))
    return _BLANK_LINES.sub("\n\n", text).strip()


def unwrap_lines(text: str) -> str:
    """The lines of each paragraph of normalized ``text`` joined; paragraphs (blank lines) kept.

    A hyphen at a line's end between two letters joins the word: dropped before a lower-case
    letter (a syllable's hyphen), kept before anything else (a compound's).
    """

    def hyphen(match: re.Match[str]) -> str:
        return "" if match.string[match.end()].islower() else "-"

    return _WRAP.sub(" ", _HYPHENATED.sub(hyphen, text))


_BLOCKS = {
    "p",
    "div",
    "br",
    "li",
    "tr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "title",
    "table",
    "section",
    "article",
    "blockquote",
    "pre",
    "dd",
    "dt",
    "hr",
}
_CELLS = {"td", "th"}
_SKIP = {"script", "style", "head"}


class _XhtmlText(HTMLParser):
    """Collects text, breaking lines at block elements and pages at ``<div class="page">``."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.pages: list[list[str]] = [[]]
        self.paged = False
        self._skip = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _SKIP:
            self._skip += 1
        elif tag == "div" and ("class", "page") in attrs:
            if self.paged or any(part.strip() for part in self.pages[-1]):
                self.pages.append([])
            self.paged = True
        elif tag in _BLOCKS:
            self.pages[-1].append("\n")
        elif tag in _CELLS:
            self.pages[-1].append("\t")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIP:
            self._skip = max(0, self._skip - 1)
        elif tag in _BLOCKS:
            self.pages[-1].append("\n")

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self.pages[-1].append(data)


def xhtml_to_pages(xhtml: str) -> tuple[list[str], bool]:
    """The normalized text of each page of a Tika XHTML document, and whether it was paged.

    Documents without ``<div class="page">`` come back as one page.
    """
    parser = _XhtmlText()
    parser.feed(xhtml)
    parser.close()
    pages = [normalize_text("".join(parts)) for parts in parser.pages]
    if parser.paged:
        pages = [unwrap_lines(page) for page in pages]
    if parser.paged and pages and not pages[0] and len(pages) > 1:
        pages = pages[1:]  # text before the first page marker was only whitespace
    return pages, parser.paged


def join_pages(pages: list[str]) -> tuple[str, list[int]]:
    """The pages joined by blank lines, and the offset where each page starts."""
    offsets: list[int] = []
    parts: list[str] = []
    position = 0
    for page in pages:
        offsets.append(position)
        parts.append(page)
        position += len(page) + 2
    return "\n\n".join(parts), offsets
