"""``profileQuery``: what a query becomes in Lucene and what it costs, as data a model can act on.

The parsed query as a tree (type, field, value, occur), the rewrites the parser applied (a
leading wildcard on the reversed field, the German transliteration twin), each term's
statistics (documents, occurrences, idf, rarity), the totals, what each filter removes, the BM25
breakdown of the top documents, and recommendations drawn from those figures.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pylucene_mcp import errors, jvm, schema
from pylucene_mcp.explain import TermContribution, explain_document
from pylucene_mcp.filters import Filter, constrain, parse_filters
from pylucene_mcp.index import Index
from pylucene_mcp.query import parse_query

MAX_NODES = 200  # a query tree is cut here (a wildcard can rewrite into thousands of terms)


@dataclass(frozen=True)
class QueryNode:
    """One component of the parsed query."""

    type: str
    occur: str | None = None
    field: str | None = None
    value: str | None = None
    slop: int | None = None
    boost: float | None = None
    clauses: tuple[QueryNode, ...] | None = None


@dataclass(frozen=True)
class TermStats:
    field: str
    term: str
    doc_freq: int
    total_term_freq: int
    idf: float
    rarity: str  # "absent", "rare" (< 1 % of documents), "uncommon" (< 10 %), "common"


@dataclass(frozen=True)
class FilterImpact:
    filter: dict[str, Any]
    hits_with_filter: int
    removed: int
    selectivity: float  # the share of the query's hits the filter keeps


@dataclass(frozen=True)
class DocumentScore:
    file_path: str
    score: float
    summary: str
    terms: tuple[TermContribution, ...]


@dataclass(frozen=True)
class QueryProfile:
    query: str
    parsed: QueryNode
    lucene_query: str
    rewrites: tuple[str, ...]
    terms: tuple[TermStats, ...]
    documents: int
    matching: int
    matching_after_filters: int
    warnings: tuple[str, ...]
    recommendations: tuple[str, ...]
    filter_impact: tuple[FilterImpact, ...] | None = None
    document_scoring: tuple[DocumentScore, ...] | None = None
    profile_time_ms: float = field(default=0.0)


def _tree(query: Any, occur: str | None, budget: list[int]) -> QueryNode:
    budget[0] -= 1
    kind = str(query.getClass().getSimpleName())
    if kind == "BooleanQuery":
        clauses = []
        for clause in query.clauses():
            if budget[0] <= 0:
                break
            clauses.append(_tree(clause.query(), str(clause.occur().name()), budget))
        return QueryNode("BooleanQuery", occur, clauses=tuple(clauses))
    if kind == "BoostQuery":
        inner = _tree(query.getQuery(), occur, budget)
        return QueryNode(
            inner.type, occur, inner.field, inner.value, inner.slop, float(query.getBoost()),
            inner.clauses,
        )  # fmt: skip
    if kind == "TermQuery":
        term = query.getTerm()
        return QueryNode(kind, occur, str(term.field()), str(term.text()))
    if kind == "PhraseQuery":
        words = " ".join(str(t.text()) for t in query.getTerms())
        return QueryNode(kind, occur, str(query.getField()), words, int(query.getSlop()))
    if kind in ("WildcardQuery", "RegexpQuery", "FuzzyQuery"):
        term = query.getTerm()
        return QueryNode(kind, occur, str(term.field()), str(term.text()))
    if kind == "PrefixQuery":
        prefix = query.getPrefix()
        return QueryNode(kind, occur, str(prefix.field()), f"{prefix.text()}*")
    if kind == "MatchAllDocsQuery":
        return QueryNode(kind, occur)
    text = str(query.toString())  # a leaf of another kind: its own summary, no parsing of it
    return QueryNode(kind, occur, value=text[:200])


def query_tree(query: Any) -> QueryNode:
    """The Lucene ``query`` as a tree of :class:`QueryNode` (cut at 200 nodes)."""
    return _tree(query, None, [MAX_NODES])


def _leaves(node: QueryNode) -> list[QueryNode]:
    if node.clauses:
        return [leaf for clause in node.clauses for leaf in _leaves(clause)]
    return [node]


def _rewrites(leaves: list[QueryNode]) -> list[str]:
    notes = []
    for leaf in leaves:
        if leaf.field == schema.CONTENT_REVERSED and leaf.value:
            written = "*" + leaf.value.rstrip("*?")[::-1]
            notes.append(
                f"{written}: a leading wildcard runs as the prefix {leaf.value} on "
                f"{schema.CONTENT_REVERSED} (cheap: a prefix of reversed words)"
            )
        elif leaf.field == schema.CONTENT_TRANSLIT_DE and leaf.value:
            notes.append(
                f"{leaf.value}: also searched on {schema.CONTENT_TRANSLIT_DE}, where German "
                "umlauts and their spellings meet (Mueller = Müller)"
            )
    return list(dict.fromkeys(notes))


def _rarity(doc_freq: int, documents: int) -> str:
    if doc_freq == 0:
        return "absent"
    share = doc_freq / documents if documents else 0.0
    return "rare" if share < 0.01 else "uncommon" if share < 0.1 else "common"


def profile_query(
    index: Index,
    query: str,
    *,
    filters: Sequence[Filter | Mapping[str, Any]] = (),
    default_operator: str = "AND",
    analyze_filter_impact: bool = False,
    analyze_document_scoring: bool = False,
    max_doc_explanations: int = 3,
) -> QueryProfile:
    """The profile of ``query`` (see the module docstring).

    Raises:
        QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError.
    """
    started = time.perf_counter()
    if not 1 <= max_doc_explanations <= 10:
        raise errors.InvalidRequestError(
            f"maxDocExplanations must be 1–10, got {max_doc_explanations}"
        )
    parsed_filters = parse_filters(filters)
    parsed = parse_query(query, default_operator)
    tree = query_tree(parsed.query)
    leaves = _leaves(tree)
    term_class = jvm.jclass("org.apache.lucene.index.Term")
    with index.searcher() as searcher, jvm.java_errors(caller_input=True):
        reader = searcher.getIndexReader()
        documents = int(reader.numDocs())
        matching = int(searcher.count(parsed.query))
        filtered = constrain(parsed.query, parsed_filters)
        impacts = []
        for flt in parsed_filters:
            alone = int(searcher.count(constrain(parsed.query, [flt])))
            impacts.append(
                FilterImpact(
                    filter={k: v for k, v in flt.__dict__.items() if v is not None},
                    hits_with_filter=alone,
                    removed=matching - alone,
                    selectivity=round(alone / matching, 4) if matching else 0.0,
                )
            )
        after = int(searcher.count(filtered)) if parsed_filters else matching
        stats = []
        for leaf in leaves:
            if leaf.type != "TermQuery" or leaf.field is None or leaf.value is None:
                continue
            term = term_class(leaf.field, leaf.value)
            doc_freq = int(reader.docFreq(term))
            field_docs = int(reader.getDocCount(leaf.field)) or documents
            idf = math.log(1 + (field_docs - doc_freq + 0.5) / (doc_freq + 0.5))
            stats.append(
                TermStats(
                    leaf.field,
                    leaf.value,
                    doc_freq,
                    int(reader.totalTermFreq(term)),
                    round(idf, 4),
                    _rarity(doc_freq, field_docs),
                )
            )
        scoring: list[DocumentScore] | None = [] if analyze_document_scoring else None
        if scoring is not None and matching:
            stored = searcher.storedFields()
            for hit in searcher.search(filtered, max_doc_explanations).scoreDocs:
                path = str(stored.document(hit.doc).get(schema.FILE_PATH))
                explained = explain_document(searcher, parsed.query, int(hit.doc), path, query)
                scoring.append(
                    DocumentScore(
                        path, round(explained.score, 4), explained.summary, explained.terms
                    )
                )
    warnings, recommendations = _advice(query, leaves, stats, matching, documents)
    return QueryProfile(
        query=query,
        parsed=tree,
        lucene_query=str(parsed.query.toString())[:500],
        rewrites=tuple(_rewrites(leaves)),
        terms=tuple(stats),
        documents=documents,
        matching=matching,
        matching_after_filters=after,
        warnings=tuple(warnings),
        recommendations=tuple(recommendations),
        filter_impact=tuple(impacts) if analyze_filter_impact else None,
        document_scoring=tuple(scoring) if scoring is not None else None,
        profile_time_ms=round((time.perf_counter() - started) * 1000, 2),
    )


def _advice(
    query: str,
    leaves: list[QueryNode],
    stats: list[TermStats],
    matching: int,
    documents: int,
) -> tuple[list[str], list[str]]:
    warnings: list[str] = []
    recommendations: list[str] = []
    for leaf in leaves:
        if leaf.type in ("WildcardQuery", "PrefixQuery") and leaf.value is not None:
            letters = leaf.value.replace("*", "").replace("?", "")
            if len(letters) <= 2:
                warnings.append(
                    f"the pattern {leaf.value!r} on {leaf.field} has {len(letters)} letter(s): "
                    "it can expand to thousands of terms"
                )
                recommendations.append(
                    f"give more letters to {leaf.value!r} (three or more), or list the words "
                    "with suggestTerms and OR them"
                )
    for absent in (s for s in stats if s.rarity == "absent"):
        warnings.append(f"'{absent.term}' occurs in no document's {absent.field}")
    content = [s for s in stats if s.field == schema.CONTENT]
    rare = [s for s in content if s.rarity == "rare"]
    common = [s for s in content if s.rarity == "common"]
    if rare and common and '"' not in query:
        words = " ".join(s.term for s in content)
        recommendations.append(
            f"'{rare[0].term}' is rare and '{common[0].term}' common: the rare word decides the "
            f'ranking; to find them together, try the proximity "{words}"~3'
        )
    if documents and matching > 0.5 * documents and len(content) == 1:
        recommendations.append(
            f"'{content[0].term}' matches {matching} of {documents} documents: add a rarer "
            "word or a filter (language, file_extension, a date range) to narrow it"
        )
    if matching == 0:
        recommendations.append(
            "nothing matches: check the spelling with suggestTerms, use OR between "
            "alternatives, or trailing wildcards (sign*) for other word forms"
        )
    return warnings, list(dict.fromkeys(recommendations))
