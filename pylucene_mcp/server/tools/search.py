"""The search tool and the info tools (``getIndexStats``, ``listIndexedFields``,
``getDocumentDetails``)."""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Annotated, Any, Literal, get_args

from pydantic import Field

import pylucene_mcp.engine.core.backend as engine
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.config import Operator, Settings
from pylucene_mcp.basics.shapes import compact_size
from pylucene_mcp.engine.core.backend import (
    MAX_CURSOR_CHARS,
    Backend,
    FacetValue,
    SearchRequest,
    SearchResult,
    limits,
)
from pylucene_mcp.server import caller
from pylucene_mcp.server.tools.actions import search_actions
from pylucene_mcp.server.tools.models import RangeFacetIn, SearchFilter, filter_specs
from pylucene_mcp.server.tools.output import (
    ANSWER_BUDGET_BYTES,
    ANSWER_CEILING_BYTES,
    answers,
    listing,
)
from pylucene_mcp.server.tools.registry import Registry
from pylucene_mcp.service.service import Service

HitField = Literal[
    "filePath", "fileName", "title", "author", "language", "fileExtension", "fileType", "ocr",
    "fileSize", "createdDate", "modifiedDate", "indexedDate", "score", "passages",
    "similarity", "chunk", "semanticRank", "lexicalRank", "lexicalScore",
]  # fmt: skip
FacetDimension = schema.FacetField


# the MCP App that shows a tool's answer in hosts that support them (tools/apps.py)
DETAILS_LENGTH = 5000  # getDocumentDetails' default slice, in characters

FieldsOut = listing("FieldsOut", "fields", engine.FieldInfo)
#: facet values the query builder offers per dimension
BUILDER_FACET_VALUES = 30


@dataclass(frozen=True, kw_only=True)
class QueryBuilderView:
    """What a form needs to build a search: the index's fields and its facets' values."""

    #: the query to start from ("" for none)
    query: str
    document_count: int
    fields: tuple[engine.FieldInfo, ...]
    #: each facet dimension's most frequent values over the whole index, with their counts
    facets: dict[str, tuple[FacetValue, ...]]


def fit_content(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Document details whose text slice is cut to fit ``max_bytes`` of compact JSON (text in
    scripts of several bytes a character passes 10 KB long before 5,000 characters)."""
    over = compact_size(data) - max_bytes
    if over <= 0:
        return data
    encoded = data["content"].encode("utf-8")  # cut by what is over, then by what the cut adds
    kept = encoded[: max(len(encoded) - over, 0)].decode("utf-8", errors="ignore")
    offset = data["offset"]
    while compact_size({**data, "content": kept, "nextOffset": offset + len(kept)}) > max_bytes:
        if not kept:
            break
        kept = kept[: -max(len(kept) // 50, 1)]
    cut = {"content": kept, "length": len(kept), "hasMore": True, "nextOffset": offset + len(kept)}
    return {**data, **cut}


def fit_quotes(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """A locateQuote answer within ``max_bytes`` of compact JSON: the context around the places
    goes first, then the last places (``matchesOmitted`` counts them; a smaller maxResults or
    filePath brings them back)."""
    if compact_size(data) <= max_bytes:
        return data
    places = [*data.get("matches", ()), *(data.get("closest") or ())]
    for place in places:
        place.pop("before", None)
        place.pop("after", None)
    omitted = 0
    for key in ("closest", "matches"):
        while compact_size(data) > max_bytes and len(data.get(key) or ()) > 1:
            data[key].pop()
            omitted += 1
    if omitted:
        data["matchesOmitted"] = omitted
    return data


def semantic_options(
    svc: Service, query: str, mode: str, threshold: float | None
) -> dict[str, Any]:
    """A search request's semantic options: none for a lexical search; else the query embedded
    by the server's model, and the threshold (the server's unless given: the setting, or the
    model's own).

    Raises:
        InvalidRequestError: semantic, with vectors off (saying how to turn them on).
    """
    if mode == "lexical":
        return {}
    if svc.embedding is None:
        raise errors.InvalidRequestError.vectors_off()
    svc.embedding.store()  # opened before any view of the index is made
    return {
        "mode": mode,
        "vector": svc.embedding.query_vector(query),
        "similarity_threshold": svc.embedding.threshold() if threshold is None else threshold,
    }


#: an operator written in lowercase: a word to find for the query syntax
_LOWER_OPERATOR = re.compile(r"(?<![\w:\"'])(and|or|not)(?![\w\"'])")


def dead_end(query: str) -> str | None:
    """What a query that found nothing may mean other than it says: ``miete and kaution``
    requires the word "and" (an operator is written in capitals). None when nothing stands
    out."""
    unquoted = re.sub(r'"[^"]*"', " ", query)  # inside a phrase a word is a word
    lowered = sorted(set(_LOWER_OPERATOR.findall(unquoted)))
    if not lowered:
        return None
    words = " and ".join(f"'{w}'" for w in lowered)
    capitals = " or ".join(w.upper() for w in lowered)
    being = "is a word" if len(lowered) == 1 else "are words"
    return (
        f"{words} in lowercase {being} the documents must hold, not an operator: write "
        f"{capitals} in capitals to combine the other words"
    )


def below(index: Backend, request: SearchRequest) -> str:
    """Why the meaning found nothing: no document (within the filters) reaches the threshold;
    the most similar one's similarity, which a threshold of it (rounded down) reaches."""
    best = index.search(
        dataclasses.replace(
            request,
            mode="semantic",
            similarity_threshold=-1.0,
            page=1,
            page_size=1,
            cursor=None,
            max_passages=0,
            facet_queries=None,
            range_facets=(),
        )
    ).to_dict()["documents"]
    threshold = request.similarity_threshold
    if not best:
        return (
            "no document (within the filters) has vectors yet: getCrawlerStatus says how far "
            "the embedder is"
        )
    nearest = best[0]
    reach = math.floor(nearest["similarity"] * 100) / 100
    return (
        f"no document reaches the similarity threshold {threshold:g}; the most similar, "
        f"{nearest['filePath']}, has {nearest['similarity']:.3f}: similarityThreshold {reach:g} "
        "finds it and those as similar"
    )


def register_search(tools: Registry, settings: Settings, svc: Service) -> None:
    """Records the search tool and the info tools on ``tools``."""
    from pylucene_mcp.basics.shapes import to_dict
    from pylucene_mcp.server.fitting import fit_passages, select

    @tools.tool("search", "Search documents", read_only=True, app="search-results")
    @answers(SearchResult)
    def search(
        query: Annotated[
            str, Field(**limits.QUERY_CHARS.schema(), description="Lucene query; '*' matches all")
        ],
        filters: Annotated[list[SearchFilter] | None, Field(**limits.FILTERS.schema())] = None,
        sort: schema.SortField = "_score",
        sortOrder: limits.SortOrder = "desc",
        page: Annotated[int, Field(**limits.PAGE.schema())] = 1,
        pageSize: Annotated[int, Field(**limits.PAGE_SIZE.schema())] = 10,
        defaultOperator: Operator = settings.default_operator,
        maxPassages: Annotated[int, Field(**limits.MAX_PASSAGES.schema())] = 3,
        passageLength: Annotated[int, Field(**limits.PASSAGE_LENGTH.schema())] = 200,
        fields: Annotated[
            list[HitField] | None,
            Field(
                max_length=len(get_args(HitField)),
                description="hit fields to return (filePath always)",
            ),
        ] = None,
        facets: Annotated[
            list[FacetDimension] | None,
            Field(
                max_length=len(schema.FACET_FIELDS),
                description="facet dimensions to count; [] for none",
            ),
        ] = None,
        facetLimit: Annotated[int, Field(**limits.FACET_LIMIT.schema())] = 10,
        facetMinCount: Annotated[int, Field(**limits.FACET_MIN_COUNT.schema())] = 1,
        timeAllowedMs: Annotated[
            int | None,
            Field(
                **limits.TIME_ALLOWED_MS.schema(), description="a time limit below the server's own"
            ),
        ] = None,
        facetQueries: Annotated[
            dict[str, Annotated[str, Field(**limits.COUNTED_QUERY_CHARS.schema())]] | None,
            Field(
                **limits.COUNTED_QUERIES.schema(),
                description="name → Lucene query: counts among the hits",
            ),
        ] = None,
        rangeFacets: Annotated[
            list[RangeFacetIn] | None,
            Field(
                **limits.RANGE_FACETS.schema(), description="date or size buckets among the hits"
            ),
        ] = None,
        cursor: Annotated[
            str | None,
            Field(
                max_length=MAX_CURSOR_CHARS,
                description="deep paging: '*' for the first page, then the answer's nextCursor",
            ),
        ] = None,
        actions: Annotated[
            bool, Field(description="suggest next calls in _actions (page, drill-down, read)")
        ] = False,
        wordForms: Annotated[
            bool,
            Field(description="also match other forms of the words (locks → lock); false: exact"),
        ] = True,
        mode: Annotated[
            limits.Mode,
            Field(
                description="lexical: the query's words; semantic: documents whose meaning is "
                "close to the query's (a question in any language; needs vectors on); hybrid: "
                "both lists fused"
            ),
        ] = "lexical",
        similarityThreshold: Annotated[
            float | None,
            Field(
                **limits.SIMILARITY_THRESHOLD.schema(),
                description="semantic: the least similarity (server's default)",
            ),
        ] = None,
    ) -> dict[str, Any]:
        """Search the indexed documents with Lucene query syntax; returns ranked documents with
        passages (<em> around matches), facet counts and the applied filters. Cheap: call it
        freely and refine with filters or OR-expansions. A search that runs out of its time
        limit returns what it found with partialResults: true. mode semantic finds documents
        by meaning (each hit with its similarity and the chunk that matched). Before you
        present a quote from the documents, check it with locateQuote."""
        specs = filter_specs(filters)
        limit_s = min(settings.search_timeout_s, (timeAllowedMs or 10**9) / 1000)
        semantic = semantic_options(svc, query, mode, similarityThreshold)
        index, trim = caller.reading(svc.index(), svc.settings)
        request = SearchRequest(
            query,
            filters=specs,
            sort=sort,
            sort_order=sortOrder,
            page=page,
            page_size=pageSize,
            default_operator=defaultOperator,
            max_passages=maxPassages,
            passage_length=passageLength,
            timeout_s=limit_s,
            facet_limit=facetLimit,
            cursor=cursor,
            word_forms=wordForms,
            facet_queries=facetQueries,
            range_facets=[r.model_dump() for r in rangeFacets or ()],
            within=trim,
            **semantic,
        )
        found = index.search(request).to_dict()
        data = select(found, fields, facets, facetMinCount)
        if actions:
            data["_actions"] = search_actions(data, specs)
        if data.get("totalHits") == 0 and (said := dead_end(query)) is not None:
            data["hint"] = said
        if mode != "lexical" and all(h.get("similarity") is None for h in found["documents"]):
            data["hint"] = "; ".join(filter(None, [data.get("hint"), below(index, request)]))
        if mode != "lexical" and svc.embedding is not None:
            progress = svc.embedding.progress
            if progress.waiting:  # found by words, not yet by meaning
                data["vectorsWaiting"] = {"documents": progress.waiting}
                if progress.done_in_s is not None:
                    data["vectorsWaiting"]["doneInS"] = progress.done_in_s
        return fit_passages(data, ANSWER_BUDGET_BYTES)

    if settings.vectors:  # a client that knows MCPLuceneServer's tool finds it here too

        @tools.tool("search", "Search by meaning", read_only=True, app="search-results")
        @answers(SearchResult)
        def semanticSearch(
            query: Annotated[
                str,
                Field(
                    **limits.QUERY_CHARS.schema(),
                    description="what to find, in words (any language)",
                ),
            ],
            filters: Annotated[list[SearchFilter] | None, Field(**limits.FILTERS.schema())] = None,
            page: Annotated[int, Field(**limits.PAGE.schema())] = 1,
            pageSize: Annotated[int, Field(**limits.PAGE_SIZE.schema())] = 10,
            similarityThreshold: Annotated[
                float | None,
                Field(
                    **limits.SIMILARITY_THRESHOLD.schema(),
                    description="the least similarity (server's default)",
                ),
            ] = None,
        ) -> dict[str, Any]:
            """Find documents by meaning: those with a passage whose meaning is close to the
            query's, most similar first, each with its similarity and that passage; facets and
            filters as in search (which does the same with mode semantic)."""
            found: dict[str, Any] = search.__wrapped__(  # type: ignore[attr-defined]
                query,
                filters=filters,
                page=page,
                pageSize=pageSize,
                mode="semantic",
                similarityThreshold=similarityThreshold,
            )
            return found

    @tools.tool("info", "Query builder", read_only=True, app="query-builder")
    @answers(QueryBuilderView)
    def queryBuilder(
        query: Annotated[
            str, Field(**limits.QUERY_CHARS.schema(), description="a query to start from")
        ] = "",
    ) -> QueryBuilderView:
        """For a person who wants to build a search by hand: the index's fields and the values
        of its facets with their counts. Hosts with MCP Apps show it as a form that writes the
        query text, counts its hits as it changes and explains it with profileQuery; the model
        needs none of it (it writes queries itself)."""
        index = caller.readable(svc)
        everything = index.search(
            SearchRequest("*", page_size=1, max_passages=0, facet_limit=BUILDER_FACET_VALUES)
        )
        return QueryBuilderView(
            query=query,
            document_count=everything.total_hits,
            fields=tuple(index.field_infos()),
            facets=dict(everything.facets),
        )

    @tools.tool("info", "Index statistics", read_only=True)
    @answers(engine.IndexStats)
    def getIndexStats() -> engine.IndexStats:
        """Document count, index path and size, schema and Lucene version, indexed fields and
        the date ranges of the documents. Use it first to see what is searchable."""
        return caller.readable(svc).index_stats()

    @tools.tool("info", "List indexed fields", read_only=True)
    @answers(FieldsOut)
    def listIndexedFields() -> dict[str, Any]:
        """Every field: its kind, whether it is stored, a facet or sortable, which filter
        operators it takes and how many documents have it. Use it to write field queries and
        filters."""
        index = caller.readable(svc)
        return {"fields": to_dict(index.field_infos())}

    @tools.tool("info", "Document details", read_only=True, app="document-preview")
    @answers(engine.DocumentDetails)
    def getDocumentDetails(
        filePath: Annotated[str, Field(**limits.PATH_CHARS.schema())],
        offset: Annotated[int, Field(**limits.DETAILS_OFFSET.schema())] = 0,
        length: Annotated[int, Field(**limits.DETAILS_LENGTH.schema())] = DETAILS_LENGTH,
        query: Annotated[
            str | None,
            Field(
                **limits.QUERY_CHARS.schema(),
                description="a search's query: its matches in the text",
            ),
        ] = None,
        defaultOperator: Operator = settings.default_operator,
        wordForms: bool = True,
    ) -> dict[str, Any]:
        """The stored metadata of one indexed document and a slice of its text (offset/length
        in characters; hasMore says whether more follows, nextOffset where it starts). The slice
        is shortened to fit 10 KB at the default length, 64 KB at any length. With query (as the
        search had it), matches lists where the query matches the whole text ([offset, length],
        at most 300) and pageOffsets where each page starts."""
        index, trim = caller.reading(svc.index(), svc.settings)
        caller.check_readable(filePath, trim)
        details = index.document_details(
            filePath,
            offset=offset,
            length=length,
            query=query,
            default_operator=defaultOperator,
            word_forms=wordForms,
        )
        data: dict[str, Any] = to_dict(details)
        budget = ANSWER_BUDGET_BYTES if length == DETAILS_LENGTH else ANSWER_CEILING_BYTES
        return fit_content(data, budget)

    @tools.tool("info", "Locate a quote", read_only=True)
    @answers(engine.QuoteLocations)
    def locateQuote(
        quote: Annotated[
            str,
            Field(
                **limits.QUOTE_CHARS.schema(),
                description="the words as you would quote them: a few words to a few sentences",
            ),
        ],
        filePath: Annotated[
            str | None,
            Field(**limits.PATH_CHARS.schema(), description="only in this document"),
        ] = None,
        filters: Annotated[list[SearchFilter] | None, Field(**limits.FILTERS.schema())] = None,
        minSimilarity: Annotated[
            float,
            Field(
                **limits.QUOTE_SIMILARITY.schema(), description="near matches at least this similar"
            ),
        ] = 0.8,
        maxResults: Annotated[int, Field(**limits.QUOTE_RESULTS.schema())] = 5,
    ) -> dict[str, Any]:
        """Check a quote before presenting it: where it stands in the indexed documents, best
        first, each with its document, page, character span (start, end: getDocumentDetails
        reads there), the text as the document writes it and a little context. match: exact;
        normalized (only case, diacritics, ligatures, quotation marks, dashes, whitespace or a
        line-end hyphen differ); near (with the words that differ and a similarity 0-1). With
        no match, closest shows the nearest places and what differs: correct the quote from
        there rather than repeat it."""
        index, trim = caller.reading(svc.index(), svc.settings)
        if filePath is not None:
            caller.check_readable(filePath, trim)
        found = index.locate_quote(
            quote,
            file_path=filePath,
            filters=filter_specs(filters),
            min_similarity=minSimilarity,
            max_results=maxResults,
            within=trim,
        )
        return fit_quotes(to_dict(found), ANSWER_BUDGET_BYTES)
