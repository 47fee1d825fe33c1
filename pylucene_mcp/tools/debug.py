"""The debug tools: ``profileQuery`` and ``explainMiss``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any

from pydantic import Field

from pylucene_mcp.miss import MissExplanation, explain_miss
from pylucene_mcp.profile import QueryProfile, profile_query
from pylucene_mcp.service import Service
from pylucene_mcp.tools.models import SearchFilter, filter_specs
from pylucene_mcp.tools.output import answers

ToolSpec = tuple[Callable[..., Any], Any]


def debug_tools(
    svc: Service,
    tool_errors: Callable[[Callable[..., Any]], Callable[..., Any]],
    annotations: Callable[..., Any],
) -> dict[str, ToolSpec]:
    """The debug tools and their annotations."""

    @tool_errors
    @answers(QueryProfile)
    def profileQuery(
        query: Annotated[str, Field(max_length=10_000)],
        filters: Annotated[list[SearchFilter] | None, Field(max_length=20)] = None,
        defaultOperator: Annotated[str, Field(pattern="^(AND|OR)$")] = "AND",
        analyzeFilterImpact: bool = False,
        analyzeDocumentScoring: bool = False,
        maxDocExplanations: Annotated[int, Field(ge=1, le=10)] = 3,
    ) -> QueryProfile:
        """What a query becomes in Lucene and why it ranks as it does: the parsed tree, the
        rewrites applied (leading wildcard, transliteration), each term's documents and idf,
        the totals, warnings and recommendations; optionally what each filter removes and the
        BM25 breakdown of the top documents. Use it when results surprise you."""
        return profile_query(
            svc.index(),
            query,
            filters=filter_specs(filters),
            default_operator=defaultOperator,
            analyze_filter_impact=analyzeFilterImpact,
            analyze_document_scoring=analyzeDocumentScoring,
            max_doc_explanations=maxDocExplanations,
        )

    @tool_errors
    @answers(MissExplanation)
    def explainMiss(
        query: Annotated[str, Field(max_length=10_000)],
        filePath: Annotated[str, Field(min_length=1, max_length=4096)],
        filters: Annotated[list[SearchFilter] | None, Field(max_length=20)] = None,
        defaultOperator: Annotated[str, Field(pattern="^(AND|OR)$")] = "AND",
    ) -> MissExplanation:
        """Why an indexed document is not in a query's results, or ranks low: the filter that
        excludes it (and its value), a required word it does not contain (with the closest
        words it has), a phrase whose words are too far apart (their distance), a pattern that
        reaches none of its words, or its rank and score against the first page."""
        return explain_miss(
            svc.index(),
            query,
            filePath,
            filters=filter_specs(filters),
            default_operator=defaultOperator,
        )

    read_only = {"read_only": True}
    return {
        "profileQuery": (profileQuery, annotations("Profile a query", **read_only)),
        "explainMiss": (explainMiss, annotations("Explain a missing document", **read_only)),
    }
