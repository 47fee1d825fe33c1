"""Passages for machine reading: windows of at most ``passage_length`` characters around the
matches, taken from the whole document, best first, each with its score (best = 1.0), matched
words, term coverage, position and, for paged formats, page.

The work happens in Java (``io.github.pylucenemcp.highlight``), once per result page; the page
comes back as JSON (``io.github.pylucenemcp.search.PageResults``) and becomes these dataclasses.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Passage:
    """A piece of a document around matches; ``<em>`` marks the matched words."""

    text: str
    score: float
    matched_terms: tuple[str, ...]
    term_coverage: float
    position: float
    page: int | None = None

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Passage:
        return cls(
            text=data["text"],
            score=float(data["score"]),
            matched_terms=tuple(data["matchedTerms"]),
            term_coverage=float(data["termCoverage"]),
            position=float(data["position"]),
            page=data.get("page"),
        )
