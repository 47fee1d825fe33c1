"""Passages for machine reading: windows of at most ``passage_length`` characters around the
matches, taken from the whole document, best first, each with its score (best = 1.0), matched
words, term coverage, position and, for paged formats, page.

The work happens in Java (``io.github.pylucenemcp.highlight``), once per result page; the page
comes back as the search tool's JSON (``io.github.pylucenemcp.search.PageResults``), which a
:class:`Passage` reads when it is read.
"""

from __future__ import annotations

from pylucene_mcp.basics.shapes import Shape


class Passage(Shape):
    """A piece of a document around matches; ``<em>`` marks the matched words."""

    __slots__ = ()
    text: str
    score: float
    matched_terms: tuple[str, ...]
    term_coverage: float
    position: float
    page: int | None
