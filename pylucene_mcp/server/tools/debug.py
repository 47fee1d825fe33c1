"""The debug tools: ``profileQuery`` and ``explainMiss``."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator
from typing import Annotated, Any

from pydantic import Field

from pylucene_mcp.basics.config import Operator
from pylucene_mcp.basics.shapes import to_dict
from pylucene_mcp.engine.core.backend import (
    MissExplanation,
    QueryProfile,
    SearchRequest,
    SemanticProfile,
    limits,
)
from pylucene_mcp.server import caller
from pylucene_mcp.server.tools.models import SearchFilter, filter_specs
from pylucene_mcp.server.tools.output import ANSWER_BUDGET_BYTES, answers, fit_counted
from pylucene_mcp.server.tools.registry import Registry
from pylucene_mcp.server.tools.search import semantic_options
from pylucene_mcp.service.service import Service


def _lists(data: dict[str, Any]) -> Iterator[tuple[str, list[Any]]]:
    """The lists of a profile that can give up items, each with the name ``omitted`` counts
    them under: every clause list of the tree, the term statistics, the scored documents and
    their terms."""
    nodes = [data["parsed"]]
    while nodes:
        node = nodes.pop()
        if node.get("clauses"):
            yield "parsed", node["clauses"]
            nodes.extend(node["clauses"])
    yield "terms", data["terms"]
    for scored in data.get("documentScoring", ()):
        yield "documentScoring.terms", scored["terms"]
    yield "documentScoring", data.get("documentScoring", [])


def fit_profile(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """A profile fitted to ``max_bytes``: the longest lists give up items first, each keeping
    its first; ``omitted`` counts what went."""
    return fit_counted(data, _lists, max_bytes)


def fit_miss(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """An explanation fitted to ``max_bytes``: the first reasons stay, ``omitted`` counts the
    others."""
    return fit_counted(data, lambda d: [("reasons", d["reasons"])], max_bytes)


def semantic_profile(
    index: Any,
    svc: Service,
    query: str,
    filters: list[SearchFilter] | None,
    operator: str,
    by_words: int,
) -> SemanticProfile:
    """What a semantic search of ``query`` within ``filters`` adds to the words' ``by_words``
    matches: its documents, counted with the words among them (a facet query of the search)."""
    options = semantic_options(svc, query, "semantic", None)
    started = time.perf_counter()
    answer = index.search(
        SearchRequest(
            query,
            filters=filter_specs(filters),
            default_operator=operator,
            facet_queries={"words": query},
            page_size=1,
            max_passages=0,
            **options,
        )
    ).to_dict()
    spent = (time.perf_counter() - started) * 1000
    documents = int(answer["totalHits"])
    both = int(answer.get("facetQueries", {}).get("words", 0))
    return SemanticProfile(
        options["similarity_threshold"], documents, both, documents - both, by_words - both, spent
    )


def register_debug(tools: Registry, svc: Service) -> None:
    """Records the debug tools on ``tools``. Their default operator is the one the search
    tool uses (the configured one), so that they explain the query the search ran."""
    configured = svc.settings.default_operator

    @tools.tool("debug", "Profile a query", read_only=True)
    @answers(QueryProfile)
    def profileQuery(
        query: Annotated[str, Field(**limits.QUERY_CHARS.schema())],
        filters: Annotated[list[SearchFilter] | None, Field(**limits.FILTERS.schema())] = None,
        defaultOperator: Operator = configured,
        analyzeFilterImpact: bool = False,
        analyzeDocumentScoring: bool = False,
        analyzeFacetCost: bool = False,
        maxDocExplanations: Annotated[int, Field(**limits.DOC_EXPLANATIONS.schema())] = 3,
    ) -> dict[str, Any]:
        """What a query becomes in Lucene and why it ranks as it does: the parsed tree with each
        part's estimated cost (documents visited) and each pattern's expansion (how many words,
        the first few), the rewrites applied (leading wildcard, transliteration), each term's
        documents and idf, the totals, warnings and recommendations; optionally what each filter
        removes, the BM25 breakdown of the top documents and the time faceting adds. Use it
        when results surprise you."""
        index = caller.readable(svc)
        profile = index.profile_query(
            query,
            filters=filter_specs(filters),
            default_operator=defaultOperator,
            analyze_filter_impact=analyzeFilterImpact,
            analyze_document_scoring=analyzeDocumentScoring,
            analyze_facet_cost=analyzeFacetCost,
            max_doc_explanations=maxDocExplanations,
        )
        if svc.embedding is not None:
            profile = dataclasses.replace(
                profile,
                semantic=semantic_profile(
                    index, svc, query, filters, defaultOperator, profile.matching_after_filters
                ),
            )
        return fit_profile(to_dict(profile), ANSWER_BUDGET_BYTES)

    @tools.tool("debug", "Explain a missing document", read_only=True)
    @answers(MissExplanation)
    def explainMiss(
        query: Annotated[str, Field(**limits.QUERY_CHARS.schema())],
        filePath: Annotated[str, Field(**limits.PATH_CHARS.schema())],
        filters: Annotated[list[SearchFilter] | None, Field(**limits.FILTERS.schema())] = None,
        defaultOperator: Operator = configured,
    ) -> dict[str, Any]:
        """Why an indexed document is not in a query's results, or ranks low: the filter that
        excludes it (and its value), a required word it does not contain (with the closest
        words it has), a phrase whose words are too far apart (their distance), a pattern that
        reaches none of its words, or its rank and score against the first page."""
        index = caller.readable(svc)
        explained = index.explain_miss(
            query,
            filePath,
            filters=filter_specs(filters),
            default_operator=defaultOperator,
        )
        if svc.embedding is not None:
            # found by meaning, or why not: the same search with mode semantic
            options = semantic_options(svc, query, "semantic", None)
            request = SearchRequest(query, filters=filter_specs(filters), **options)
            semantic = index.semantic_miss(filePath, request)
            explained = dataclasses.replace(explained, semantic=semantic)
        return fit_miss(to_dict(explained), ANSWER_BUDGET_BYTES)
