"""``profileQuery``: what a query becomes in Lucene and what it costs, as data a model can act on.

The parsed query as a tree (type, field, value, occur), the rewrites the parser applied (a
leading wildcard on the reversed field, the German transliteration twin), each term's
statistics (documents, occurrences, idf, rarity), the totals, what each filter removes, the BM25
breakdown of the top documents, and recommendations drawn from those figures.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core import limits
from pylucene_mcp.engine.core.explain import TermContribution, rarity
from pylucene_mcp.engine.core.filters import Filter, constrain, parse_filters
from pylucene_mcp.engine.core.probe import Probe, Probed
from pylucene_mcp.engine.core.query import ALSO_SEARCHED, LEMMA_WEIGHT, parse_query

MAX_NODES = 200  # a query tree is cut here (a wildcard can rewrite into thousands of terms)
MAX_EXPANSION = 100_000  # words of a pattern's expansion counted at most
SAMPLE_TERMS = 5  # words of a pattern's expansion shown
WIDE_EXPANSION = 1_000  # a pattern expanding to this many words gets a warning


@dataclass(frozen=True)
class QueryNode:
    """One component of the parsed query."""

    type: str
    occur: str | None = None
    field: str | None = None
    value: str | None = None
    slop: int | None = None
    boost: float | None = None
    #: Lucene's estimate of the documents this part visits (profileQuery only)
    cost: int | None = None
    #: the words of the index a pattern (wildcard, prefix, regex, fuzzy) expands to, the first
    #: few of them, and whether all were counted (profileQuery only)
    expands_to: int | None = None
    sample: tuple[str, ...] | None = None
    expansion_complete: bool | None = None
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
    ms: float | None  # the time to count the query with this filter (None: not said)


@dataclass(frozen=True)
class FacetCost:
    """What faceting adds to the search (medians of 5 runs, in ms): the search for 10 hits
    alone, with the facets collected, counting them, and reading each dimension's top values."""

    search_ms: float
    collect_ms: float
    count_ms: float
    dimensions: dict[str, float]


@dataclass(frozen=True)
class DocumentScore:
    file_path: str
    score: float
    summary: str
    terms: tuple[TermContribution, ...]


@dataclass(frozen=True)
class SemanticProfile:
    """What the semantic path adds to a query (vectors on): the documents whose best chunk
    reaches the threshold within the filters, how many of them the words match too, how many
    only the meaning finds and only the words find, and the vector search's time."""

    threshold: float
    documents: int
    also_by_words: int
    by_meaning_only: int
    by_words_only: int
    time_ms: float | None


@dataclass(frozen=True)
class QueryProfile:
    query: str
    #: the query on the content, with its twins
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
    facet_cost: FacetCost | None = None
    #: items left out to fit the answer's byte budget, by list (``parsed``: parts of the tree)
    omitted: dict[str, int] | None = None
    profile_time_ms: float | None = field(default=0.0)
    #: vectors on: what the semantic path contributes (found by meaning, by words, by both)
    semantic: SemanticProfile | None = None


def _tree(query: Any, occur: str | None, budget: list[int], probe: Probe | None) -> QueryNode:
    budget[0] -= 1
    kind = str(query.getClass().getSimpleName())
    if kind == "NamePhraseQuery":  # an exact phrase whose words may be a name's parts
        budget[0] += 1
        return _tree(query.phrase(), occur, budget, probe)
    if kind == "BooleanQuery":
        clauses = []
        for clause in query.clauses():
            if budget[0] <= 0:
                break
            clauses.append(_tree(clause.query(), str(clause.occur().name()), budget, probe))
        node = QueryNode("BooleanQuery", occur, clauses=tuple(clauses))
    elif kind == "BoostQuery":
        inner = _tree(query.getQuery(), occur, budget, probe)
        return dataclasses.replace(inner, boost=round(float(query.getBoost()), 3))
    elif kind in ("TermQuery", "WildcardQuery", "FuzzyQuery"):
        term = query.getTerm()
        node = QueryNode(kind, occur, str(term.field()), str(term.text()))
    elif kind == "RegexpQuery":  # its term is the expression, as written between the slashes
        term = query.getRegexp()
        node = QueryNode(kind, occur, str(term.field()), f"/{term.text()}/")
    elif kind == "PhraseQuery":
        words = " ".join(str(t.text()) for t in query.getTerms())
        node = QueryNode(kind, occur, str(query.getField()), words, int(query.getSlop()))
    elif kind == "MultiPhraseQuery":  # a phrase with several words at a position: (signed sign)
        positions = [[str(t.text()) for t in terms] for terms in query.getTermArrays()]
        field = str(query.getTermArrays()[0][0].field())
        words = " ".join(w[0] if len(w) == 1 else f"({' '.join(w)})" for w in positions)
        node = QueryNode(kind, occur, field, words, int(query.getSlop()))
    elif kind == "SynonymQuery":  # a word's lemmas at one position: sign OR signed
        terms = query.getTerms()
        words = " OR ".join(str(t.text()) for t in terms)
        node = QueryNode(kind, occur, str(query.getField()), words)
    elif kind == "PrefixQuery":
        prefix = query.getPrefix()
        node = QueryNode(kind, occur, str(prefix.field()), f"{prefix.text()}*")
    elif kind == "MatchAllDocsQuery":
        node = QueryNode(kind, occur)
    else:  # a leaf of another kind: its own summary, no parsing of it
        node = QueryNode(kind, occur, value=str(query.toString())[:200])
    return node if probe is None else _with_cost(node, query, probe)


def _with_cost(node: QueryNode, query: Any, probe: Probe) -> QueryNode:
    found = probe.cost(query, MAX_EXPANSION, SAMPLE_TERMS)
    if "terms" not in found:
        return dataclasses.replace(node, cost=found["cost"])
    sample = found["sample"]
    if node.field == schema.CONTENT_REVERSED:  # the index holds these words reversed
        sample = [word[::-1] for word in sample]
    return dataclasses.replace(
        node,
        cost=found["cost"],
        expands_to=found["terms"],
        sample=tuple(sample),
        expansion_complete=found["complete"],
    )


def query_tree(query: Any, probe: Probe | None = None, max_nodes: int = MAX_NODES) -> QueryNode:
    """The Lucene ``query`` as a tree of :class:`QueryNode` (cut at ``max_nodes``); with
    ``probe``, each node with its cost and each pattern with its expansion in that index."""
    return _tree(query, None, [max_nodes], probe)


def _leaves(node: QueryNode) -> list[QueryNode]:
    if node.clauses:
        return [leaf for clause in node.clauses for leaf in _leaves(clause)]
    return [node]


def _negated(node: QueryNode, under: bool = False) -> set[tuple[str | None, str | None]]:
    """The (field, value) of the leaves under a MUST_NOT clause: words the query excludes."""
    under = under or node.occur == "MUST_NOT"
    if node.clauses:
        return {pair for clause in node.clauses for pair in _negated(clause, under)}
    return {(node.field, node.value)} if under else set()


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
        elif leaf.field in schema.LEMMA_FIELDS:
            notes.append(
                f"words and phrases also match other forms of their words on "
                f"{' and '.join(schema.LEMMA_FIELDS)} (lock = locks, Haus = Häuser), weighted "
                f"{LEMMA_WEIGHT:g} (a search without word forms finds the words as written only)"
            )
    return list(dict.fromkeys(notes))


def profile_query(
    index: Probed,
    query: str,
    *,
    filters: Sequence[Filter | Mapping[str, Any]] = (),
    default_operator: str = "AND",
    analyze_filter_impact: bool = False,
    analyze_document_scoring: bool = False,
    analyze_facet_cost: bool = False,
    max_doc_explanations: int = 3,
) -> QueryProfile:
    """The profile of ``query`` (see the module docstring), asked of any backend's probe; the
    facet cost where the index breaks it down (the embedded one; Solr's does not).

    Raises:
        QuerySyntaxError, UnknownFieldError, InvalidFilterError, InvalidRequestError.
    """
    started = time.perf_counter()
    with index.probe() as probe:
        limits.DOC_EXPLANATIONS.check("max_doc_explanations", max_doc_explanations)
        parsed_filters = parse_filters(filters)
        parsed = parse_query(query, default_operator)
        tree = query_tree(parsed.query, probe)
        leaves = _leaves(tree)
        documents = probe.documents()
        matching = probe.count(parsed.match_query)
        filtered = constrain(parsed.match_query, parsed_filters)
        impacts = []
        for flt in parsed_filters:
            counted = time.perf_counter()
            alone = probe.count(constrain(parsed.match_query, [flt]))
            impacts.append(
                FilterImpact(
                    filter={k: v for k, v in flt.__dict__.items() if v is not None},
                    hits_with_filter=alone,
                    removed=matching - alone,
                    selectivity=round(alone / matching, 4) if matching else 0.0,
                    ms=round((time.perf_counter() - counted) * 1000, 3),
                )
            )
        after = probe.count(filtered) if parsed_filters else matching
        stats = []
        for leaf in leaves:
            if leaf.type != "TermQuery" or leaf.field is None or leaf.value is None:
                continue
            doc_freq, occurrences = probe.term_stats(leaf.field, leaf.value)
            field_docs = probe.field_documents(leaf.field) or documents
            idf = math.log(1 + (field_docs - doc_freq + 0.5) / (doc_freq + 0.5))
            stats.append(
                TermStats(
                    leaf.field,
                    leaf.value,
                    doc_freq,
                    occurrences,
                    round(idf, 4),
                    rarity(doc_freq, field_docs),
                )
            )
        scoring: list[DocumentScore] | None = [] if analyze_document_scoring else None
        if scoring is not None and matching:
            for path, _ in probe.top(filtered, max_doc_explanations):
                explained = probe.explain(parsed.match_query, path, query)
                scoring.append(
                    DocumentScore(
                        path, round(explained.score, 4), explained.summary, explained.terms
                    )
                )
        cost = probe.facet_cost(filtered) if analyze_facet_cost else None
        measured = None
        if cost is not None:
            measured = FacetCost(
                cost["searchMs"], cost["collectMs"], cost["countMs"], cost["dimensions"]
            )
        # what the user wrote, not the same words that the search adds on the title and the file
        # name (a weighted clause beside each unfielded one): advice is about the former
        # and, for the words' statistics, the words it looks for: an excluded word is neither
        # missed nor part of a phrase to try (its word forms on the shadow fields may exclude
        # documents where the word itself is absent)
        excluded = _negated(tree)
        own = [
            leaf for leaf in leaves if not (leaf.field in ALSO_SEARCHED and leaf.boost is not None)
        ]
        written = {(leaf.field, leaf.value) for leaf in own} - excluded
        written_stats = [s for s in stats if (s.field, s.term) in written]
        warnings, recommendations = _advice(
            query, own, written_stats, matching, documents, default_operator
        )
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
            facet_cost=measured,
            profile_time_ms=round((time.perf_counter() - started) * 1000, 2),
        )


def _advice(
    query: str,
    leaves: list[QueryNode],
    stats: list[TermStats],
    matching: int,
    documents: int,
    default_operator: str,
) -> tuple[list[str], list[str]]:
    warnings: list[str] = []
    recommendations: list[str] = []
    for leaf in leaves:
        if leaf.expands_to is not None and (
            leaf.expands_to >= WIDE_EXPANSION or not leaf.expansion_complete
        ):
            many = f"{leaf.expands_to:,}" + ("" if leaf.expansion_complete else " or more")
            # how the parser ranks a pattern: its own rule, read from it
            ranked = jvm.jclass("io.github.pylucenemcp.queryparser.RankedPatterns")
            spelled = len((leaf.value or "").replace("*", "").replace("?", ""))
            ranking = (
                f"only its {ranked.TERMS} best words rank its hits"
                if spelled >= ranked.LETTERS
                else "its hits all score alike"
            )
            warnings.append(
                f"the pattern {leaf.value!r} on {leaf.field} expands to {many} words: slow, "
                f"and {ranking}"
            )
            recommendations.append(
                f"narrow {leaf.value!r}: more letters, or the few words you mean ORed "
                "(suggestTerms lists them)"
            )
        elif leaf.type in ("WildcardQuery", "PrefixQuery") and leaf.value is not None:
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
        if absent.field not in schema.SHADOW_FIELDS:  # the twins are the parser's, not the user's
            warnings.append(f"'{absent.term}' occurs in no document's {absent.field}")
    content = [s for s in stats if s.field == schema.CONTENT]
    rare = [s for s in content if s.rarity == "rare"]
    common = [s for s in content if s.rarity == "common"]
    plain_words = (
        2 <= len(content) <= 6
        and not any(c in query for c in '"~*?()')
        and all(word not in query.split() for word in ("OR", "||", "NOT"))
    )
    words = " ".join(s.term for s in content)
    if rare and common and plain_words:
        recommendations.append(
            f"'{rare[0].term}' is rare and '{common[0].term}' common: the rare word decides the "
            f'ranking; to find them together, try the proximity "{words}"~3'
        )
    elif plain_words and default_operator == "AND":
        recommendations.append(
            f"the words may be anywhere in a document; to find them near each other, try the "
            f'proximity "{words}"~3 (or the phrase "{words}")'
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
    return list(dict.fromkeys(warnings)), list(dict.fromkeys(recommendations))
