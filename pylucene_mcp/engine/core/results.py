"""The result shapes of a search.

A search page arrives from the Java shim as the JSON the ``search`` tool returns
(``io.github.pylucenemcp.search.PageResults`` writes the hits, passages and facets; Python adds
the paging and the filters). These :class:`~pylucene_mcp.basics.shapes.Shape` classes define
that JSON once and read it lazily for the Python API; the server fits it to the tool's byte
budget and parameters (``server/fitting.py``)."""

from __future__ import annotations

from html import escape
from typing import Any, ClassVar

from pylucene_mcp.basics.shapes import Shape
from pylucene_mcp.engine.core.filters import Filter
from pylucene_mcp.engine.core.passages import Passage


class ActiveFilter(Shape):
    """A filter as applied, with the number of documents the query matches with it alone."""

    __slots__ = ()
    field: str
    operator: str
    value: Any
    values: tuple[Any, ...] | None
    from_: Any
    to: Any
    match_count: int

    @property
    def filter(self) -> Filter:
        return Filter.of(self.to_dict())


class FacetValue(Shape):
    __slots__ = ()
    value: str
    count: int


class VectorsWaiting(Shape):
    """Documents whose vectors are not made yet, which a search by meaning cannot find, and
    the seconds until they are at the embedder's rate (None until it has one)."""

    __slots__ = ()
    documents: int
    done_in_s: float | None


class Hit(Shape):
    """One document of a result page. Its JSON keys are also the names ``fields`` takes; every
    stored field here is written by the shim in this order (see ``query.field_schema``)."""

    __slots__ = ()
    wire_required: ClassVar[tuple[str, ...] | None] = ("file_path",)  # `fields` keeps only it
    file_path: str
    file_name: str | None
    title: str | None
    author: str | None
    language: str | None
    file_extension: str | None
    file_type: str | None
    #: where the text comes from OCR: True (recognised: may hold recognition errors),
    #: "pending", "needed" or "failed" (schema.OCR); None: the file holds its text
    ocr: bool | str | None
    file_size: int | None
    created_date: str | None
    modified_date: str | None
    indexed_date: str | None
    score: float
    passages: tuple[Passage, ...]
    #: a semantic or hybrid search's: the cosine similarity of the document's best chunk, that
    #: chunk's span in the content ([start, end) in characters), and the document's rank by
    #: similarity; a hybrid search's: its rank and score among the words' first hundred
    similarity: float | None
    chunk: tuple[int, ...] | None
    semantic_rank: int | None
    lexical_rank: int | None
    lexical_score: float | None


class RangeBucket(Shape):
    """A date or size bucket of ``rangeFacets``: its bounds (``to`` excluded; ISO-8601 for
    dates, bytes for sizes) and how many hits fall in it."""

    __slots__ = ()
    from_: Any
    to: Any
    count: int


class Action(Shape):
    """A next call the answer suggests (the search tool's ``actions``): ``tool`` with the
    ``arguments`` to change (``same_arguments``: the others as in this call) and why."""

    __slots__ = ()
    why: str
    tool: str
    arguments: dict[str, Any]
    same_arguments: bool


class SearchResult(Shape):
    """A page of hits with the facet counts and the filters that produced it.

    ``partial_results`` is true when the time limit cut the search short: the hits, counts and
    facets are those found in time (a lower bound), and some passages may be missing their
    highlights. ``next_cursor`` continues a search paged by cursor. ``passages_omitted``
    counts the passages left out to fit the answer's byte budget. ``facet_queries`` and
    ``range_facets`` are there when the search tool asked for them, ``actions`` (``_actions``)
    when it asked for suggested next calls."""

    __slots__ = ()
    documents: tuple[Hit, ...]
    total_hits: int
    page: int
    page_size: int
    total_pages: int
    has_next_page: bool
    facets: dict[str, tuple[FacetValue, ...]]
    active_filters: tuple[ActiveFilter, ...]
    #: None where it is not said (to a caller who may not read every document: it tells of them)
    search_time_ms: float | None
    facet_queries: dict[str, int] | None
    range_facets: dict[str, tuple[RangeBucket, ...]] | None
    next_cursor: str | None
    partial_results: bool
    #: why the results are partial when the engine says (a SolrCloud shard that did not answer)
    partial_details: str | None
    passages_omitted: int | None
    actions: tuple[Action, ...] | None
    #: why a search that found nothing may have missed, where the query says (a lowercase
    #: "and" is a word to find, not an operator)
    hint: str | None
    #: True where a semantic or hybrid search walked the graph of quantized vectors (an index
    #: of more chunks than an exact scan reads in time): a document the exact scan finds may be
    #: missing, so the documents and totals found by meaning are a lower bound (each similarity
    #: is exact); None: every vector the filters allow was read
    approximate: bool | None
    #: a semantic or hybrid search while the embedder makes vectors: how many documents it
    #: could not find by meaning yet (not said to a caller who may not read every document)
    vectors_waiting: VectorsWaiting | None
    json_keys: ClassVar[dict[str, str]] = {"actions": "_actions"}

    def _repr_html_(self) -> str:
        """The page as a table in Jupyter: rank, document, score, best passage (its <em> marks
        kept, the document's own text escaped)."""
        rows = []
        for rank, hit in enumerate(self.documents, (self.page - 1) * self.page_size + 1):
            best = hit.passages[0].text if hit.passages else ""
            passage = escape(best).replace("&lt;em&gt;", "<em>").replace("&lt;/em&gt;", "</em>")
            name = escape(hit.title or hit.file_name or hit.file_path)
            rows.append(
                f"<tr><td>{rank}</td><td>{name}<br><small>{escape(hit.file_path)}</small></td>"
                f"<td>{hit.score:.3f}</td><td>{passage}</td></tr>"
            )
        return (
            f"<p>{self.total_hits} hits, page {self.page} of {max(self.total_pages, 1)}</p>"
            "<table><thead><tr><th>#</th><th>document</th><th>score</th><th>passage</th></tr>"
            f"</thead><tbody>{''.join(rows)}</tbody></table>"
        )
