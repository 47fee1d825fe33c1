"""The debug tools: ``profileQuery`` and ``explainMiss``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any, NotRequired

from pydantic import Field
from typing_extensions import TypedDict

from pylucene_mcp.miss import explain_miss
from pylucene_mcp.profile import profile_query
from pylucene_mcp.service import Service
from pylucene_mcp.shapes import to_dict
from pylucene_mcp.tools.models import SearchFilter, filter_specs

ToolSpec = tuple[Callable[..., Any], Any]


class ProfileOut(TypedDict):
    query: str
    parsed: dict[str, Any]
    luceneQuery: str
    rewrites: list[str]
    terms: list[dict[str, Any]]
    documents: int
    matching: int
    matchingAfterFilters: int
    warnings: list[str]
    recommendations: list[str]
    filterImpact: NotRequired[list[dict[str, Any]]]
    documentScoring: NotRequired[list[dict[str, Any]]]
    profileTimeMs: float


class MissOut(TypedDict):
    filePath: str
    query: str
    matchesQuery: bool
    passesFilters: bool
    rank: NotRequired[int]
    score: NotRequired[float]
    lastShownScore: NotRequired[float]
    reasons: list[dict[str, Any]]
    summary: str


def debug_tools(
    svc: Service,
    tool_errors: Callable[[Callable[..., Any]], Callable[..., Any]],
    annotations: Callable[..., Any],
) -> dict[str, ToolSpec]:
    """The debug tools and their annotations."""

    @tool_errors
    def profileQuery(
        query: Annotated[str, Field(max_length=10_000)],
        filters: Annotated[list[SearchFilter] | None, Field(max_length=20)] = None,
        defaultOperator: Annotated[str, Field(pattern="^(AND|OR)$")] = "AND",
        analyzeFilterImpact: bool = False,
        analyzeDocumentScoring: bool = False,
        maxDocExplanations: Annotated[int, Field(ge=1, le=10)] = 3,
    ) -> ProfileOut:
        """What a query becomes in Lucene and why it ranks as it does: the parsed tree, the
        rewrites applied (leading wildcard, transliteration), each term's documents and idf,
        the totals, warnings and recommendations; optionally what each filter removes and the
        BM25 breakdown of the top documents. Use it when results surprise you."""
        profile = profile_query(
            svc.index(),
            query,
            filters=filter_specs(filters),
            default_operator=defaultOperator,
            analyze_filter_impact=analyzeFilterImpact,
            analyze_document_scoring=analyzeDocumentScoring,
            max_doc_explanations=maxDocExplanations,
        )
        result: ProfileOut = to_dict(profile)
        return result

    @tool_errors
    def explainMiss(
        query: Annotated[str, Field(max_length=10_000)],
        filePath: Annotated[str, Field(min_length=1, max_length=4096)],
        filters: Annotated[list[SearchFilter] | None, Field(max_length=20)] = None,
        defaultOperator: Annotated[str, Field(pattern="^(AND|OR)$")] = "AND",
    ) -> MissOut:
        """Why an indexed document is not in a query's results, or ranks low: the filter that
        excludes it (and its value), a required word it does not contain (with the closest
        words it has), a phrase whose words are too far apart (their distance), a pattern that
        reaches none of its words, or its rank and score against the first page."""
        explained = explain_miss(
            svc.index(),
            query,
            filePath,
            filters=filter_specs(filters),
            default_operator=defaultOperator,
        )
        result: MissOut = to_dict(explained)
        return result

    read_only = {"read_only": True}
    return {
        "profileQuery": (profileQuery, annotations("Profile a query", **read_only)),
        "explainMiss": (explainMiss, annotations("Explain a missing document", **read_only)),
    }
