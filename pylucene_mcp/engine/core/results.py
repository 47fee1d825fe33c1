"""The result shapes of a search and how they go on the wire.

A search page arrives from the Java shim as the JSON the ``search`` tool returns
(``io.github.pylucenemcp.search.PageResults`` writes the hits, passages and facets; Python adds
the paging and the filters). These :class:`~pylucene_mcp.basics.shapes.Shape` classes define
that JSON once and read it lazily for the Python API; :func:`fit_passages` and :func:`select`
fit it to the tool's byte budget and parameters."""

from __future__ import annotations

import re
from collections.abc import Sequence
from html import escape
from typing import Any, ClassVar

from pylucene_mcp.basics import schema
from pylucene_mcp.basics.shapes import Shape, compact_size, fit
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

    def to_dict(self, max_bytes: int | None = None) -> dict[str, Any]:
        """The JSON the MCP ``search`` tool returns; with ``max_bytes``, fitted to that many
        bytes of compact JSON (see :func:`fit_passages`)."""
        data = super().to_dict()
        return data if max_bytes is None else fit_passages(data, max_bytes)

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


#: the visible lengths that every passage is cut to, in turn, once each hit is down to its
#: best passage and the page still does not fit
SHORTER_PASSAGES = (150, 100, 60)
_TAG = re.compile(r"</?em>")
#: the fields a hit gives up, all hits alike, before its passages get shorter: two are spelled
#: out in ``filePath`` already, the other two dates matter least (``modifiedDate`` stays)
SPARE_FIELDS = ("fileName", "fileExtension", "indexedDate", "createdDate")


def fit_passages(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """The answer fitted to ``max_bytes`` of compact JSON, evenly across the hits: first fewer
    passages (the hit with the most gives up its weakest, the lowest-ranked first among equals)
    until each has its best one; then every hit without :data:`SPARE_FIELDS`; then every
    passage shorter (:data:`SHORTER_PASSAGES`, around its first match); only then the passages
    of the lowest-ranked hits (the first hit keeps its own). ``passagesOmitted`` counts the
    passages that went, ``fieldsOmitted`` names the fields, ``passagesShortenedTo`` gives the
    visible length passages were cut to (fewer hits, a lower ``maxPassages`` or a shorter
    ``passageLength`` bring them back, and getDocumentDetails reads any document). A page of
    many hits may pass ``max_bytes`` with their paths and scores alone."""
    if compact_size(data) <= max_bytes:
        return data
    # a copy of the parts it shortens: the result it came from keeps its passages
    documents = [
        {**doc, "passages": [dict(p) for p in doc["passages"]]} if "passages" in doc else doc
        for doc in data["documents"]
    ]
    data = {**data, "documents": documents}
    # the notes say what went as it goes, their bytes counted like any others (shapes.fit)
    counts: dict[str, int] = {}

    def fewer() -> tuple[str, list[Any]] | None:
        most = max((len(d.get("passages", ())) for d in documents), default=0)
        if most <= 1:
            return None
        last = [d for d in documents if len(d.get("passages", ())) == most][-1]
        return "passages", last["passages"]

    fit(data, max_bytes, fewer, "passagesOmitted", total=True, omitted=counts)
    if compact_size(data) > max_bytes:
        spared = [name for name in SPARE_FIELDS if any(name in doc for doc in documents)]
        documents[:] = [{k: v for k, v in doc.items() if k not in spared} for doc in documents]
        if spared:
            data["fieldsOmitted"] = spared
    for limit in SHORTER_PASSAGES:
        if compact_size(data) <= max_bytes:
            break
        for doc in documents:
            for passage in doc.get("passages", ()):
                passage["text"] = shorten(passage["text"], limit)
        data["passagesShortenedTo"] = limit

    def none_for_some() -> tuple[str, list[Any]] | None:
        having = [d for d in documents[1:] if d.get("passages")]
        return ("passages", having[-1]["passages"]) if having else None

    fit(data, max_bytes, none_for_some, "passagesOmitted", total=True, omitted=counts)
    return data


def shorten(text: str, limit: int) -> str:
    """``text`` (a passage: words and ``<em>`` tags) cut to ``limit`` visible characters around
    its first match, ``…`` where it was cut, its tags balanced."""
    parts = _TAG.split(text)
    tags = _TAG.findall(text)
    visible = "".join(parts)
    if len(visible) <= limit:
        return text
    first = len(parts[0]) if tags else 0  # where the first match starts, in visible letters
    start = max(0, min(first - limit // 3, len(visible) - limit))
    end = start + limit
    out: list[str] = ["…"] if start > 0 else []
    position, inside, opened = 0, False, False
    for n, part in enumerate(parts):
        lo, hi = max(start, position), min(end, position + len(part))
        if lo < hi:
            if inside and not opened:  # a match's first letters within the window
                out.append("<em>")
                opened = True
            out.append(part[lo - position : hi - position])
        position += len(part)
        if n < len(tags):
            inside = tags[n] == "<em>"
            if not inside and opened:
                out.append("</em>")
                opened = False
    if opened:
        out.append("</em>")
    if end < len(visible):
        out.append("…")
    return "".join(out)


#: facet dimensions an answer leaves out where they count nothing (``ocr`` in an index without
#: scans: the bytes of every answer are the assistant's)
QUIET_FACETS = (schema.OCR,)


def select(
    data: dict[str, Any],
    fields: Sequence[str] | None = None,
    facets: Sequence[str] | None = None,
    facet_min_count: int = 1,
) -> dict[str, Any]:
    """The tool's answer with only the hit ``fields`` asked for (``filePath`` always: it is the
    id), only the facet dimensions in ``facets`` (none for an empty list), and facet values
    counted at least ``facet_min_count`` times. None leaves a part as it is; a dimension of
    :data:`QUIET_FACETS` without values goes. ``data`` itself is not changed."""
    data = dict(data)
    if "facets" in data:
        data["facets"] = {
            dim: values
            for dim, values in data["facets"].items()
            if values or dim not in QUIET_FACETS
        }
    if fields is not None:
        keep = {"filePath", *fields}
        data["documents"] = [
            {k: v for k, v in doc.items() if k in keep} for doc in data["documents"]
        ]
    if facets is not None:
        data["facets"] = {dim: values for dim, values in data["facets"].items() if dim in facets}
    if facet_min_count > 1:
        data["facets"] = {
            dim: [v for v in values if v["count"] >= facet_min_count]
            for dim, values in data["facets"].items()
        }
    return data
