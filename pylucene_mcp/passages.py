"""Passages for machine reading: windows of at most ``passage_length`` characters around the
matches, taken from the whole document, best first, each with its score (best = 1.0), matched
words, term coverage, position and, for paged formats, page. The work happens in one Java call per
result page (``io.github.pylucenemcp.highlight.Highlighting``)."""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pylucene_mcp import analysis, jvm, schema

if TYPE_CHECKING:
    from pylucene_mcp.search import ParsedQuery


@dataclass(frozen=True)
class Passage:
    """A piece of a document around matches; ``<em>`` marks the matched words."""

    text: str
    score: float
    matched_terms: tuple[str, ...]
    term_coverage: float
    position: float
    page: int | None = None


@functools.cache
def _match_fields() -> Any:
    fields = jvm.jclass("java.util.HashSet")()
    fields.add(schema.CONTENT)
    fields.add(schema.CONTENT_TRANSLIT_DE)
    return fields


def passages_for(
    searcher: Any, parsed: ParsedQuery, doc_ids: list[int], max_passages: int, max_chars: int
) -> list[tuple[Passage, ...]]:
    """The passages of each document in ``doc_ids`` (an empty tuple where nothing matched)."""
    if not doc_ids or max_passages == 0:
        return [() for _ in doc_ids]
    highlighting = jvm.jclass("io.github.pylucenemcp.highlight.Highlighting")
    with jvm.java_errors():
        results = highlighting.passages(
            searcher,
            analysis.schema_analyzer(),
            schema.CONTENT,
            _match_fields(),
            parsed.highlight_query,
            parsed.units,
            jvm.jarray("int", doc_ids),
            max_passages,
            max_chars,
        )
        stored = searcher.storedFields()
        out: list[tuple[Passage, ...]] = []
        for doc_id, infos in zip(doc_ids, results, strict=True):
            if infos is None:
                out.append(())
                continue
            pages = _page_offsets(stored, doc_id)
            out.append(tuple(_passage(info, pages) for info in infos))
    return out


def _page_offsets(stored: Any, doc_id: int) -> list[int]:
    names = jvm.jclass("java.util.Set").of(schema.PAGE_OFFSETS)  # the one-argument overload
    value = stored.document(doc_id, names).get(schema.PAGE_OFFSETS)
    if not value:
        return []
    return [int(part) for part in str(value).split(",") if part]


def _passage(info: Any, pages: list[int]) -> Passage:
    page = bisect.bisect_right(pages, int(info.startOffset)) if pages else None
    return Passage(
        text=str(info.text),
        score=round(float(info.score), 3),
        matched_terms=tuple(str(t) for t in info.matchedTerms),
        term_coverage=round(float(info.termCoverage), 2),
        position=round(float(info.position), 3),
        page=page if page else None,
    )
