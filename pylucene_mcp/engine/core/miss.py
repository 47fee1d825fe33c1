"""``explainMiss``: why an indexed document is not among a query's results, or why it ranks low.

Each cause is checked on the index, in the order a person would: the filters (which one excludes
the document, and the document's value), the query's required parts (a term the document does
not contain, with the closest words it does contain; a phrase whose words are there but too far
apart, with their distance; a pattern that reaches none of its words), and, when it matches, its
rank and score against the last result of the first page.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core import analysis, documents
from pylucene_mcp.engine.core.filters import Filter, constrain, filter_query, parse_filters
from pylucene_mcp.engine.core.probe import Probe, Probed
from pylucene_mcp.engine.core.profile import QueryNode, query_tree
from pylucene_mcp.engine.core.query import (
    ALSO_SEARCHED,
    QUOTE_CHARS,
    ParsedQuery,
    parse_query,
    quote,
)

FIRST_PAGE = 10
RANK_WINDOW = 10_000


@dataclass(frozen=True)
class MissReason:
    """One reason, with what the check found."""

    kind: str  # "filter", "missing_term", "phrase_distance", "pattern", "rank", "ocr"
    detail: str
    field: str | None = None
    value: str | None = None
    closest: tuple[str, ...] | None = None
    distance: int | None = None


@dataclass(frozen=True)
class SemanticMiss:
    """What the semantic path says of the document (vectors on): the cosine similarity of its
    best chunk to the query and that chunk (None: it has no vectors yet), the threshold, whether
    the similarity reaches it (None: no vectors yet, so neither), and its rank by similarity
    among the documents the filters allow (None beyond the 1,000 kept)."""

    similarity: float | None
    chunk: tuple[int, ...] | None
    threshold: float
    reaches_threshold: bool | None
    rank: int | None


@dataclass(frozen=True)
class MissExplanation:
    file_path: str
    query: str
    matches_query: bool
    passes_filters: bool
    rank: int | None
    score: float | None
    last_shown_score: float | None
    reasons: tuple[MissReason, ...]
    summary: str
    #: reasons left out to fit the answer's byte budget
    omitted: dict[str, int] | None = None
    #: the semantic path's view of the document (vectors on): found by meaning, or why not
    semantic: SemanticMiss | None = None


_ALL_PARTS = 8 * 1024

_TWINS = {schema.CONTENT_TRANSLIT_DE, *schema.LEMMA_FIELDS}


def _field_of(node: QueryNode) -> str | None:
    """The one field of a node's leaves (None when they have several)."""
    if not node.clauses:
        return node.field
    fields = {_field_of(c) for c in node.clauses}
    return fields.pop() if len(fields) == 1 else None


def _required_leaves(
    node: QueryNode, twins: tuple[QueryNode, ...] = ()
) -> list[tuple[QueryNode, tuple[QueryNode, ...]]]:
    """The leaves a match needs (under MUST/FILTER clauses, or the only SHOULD of a group),
    each with its twins: a word or phrase ORed with its transliteration and its other forms
    counts as the word, and it matches when one of them does."""
    if not node.clauses:
        return [(node, twins)]
    shoulds = [c for c in node.clauses if c.occur == "SHOULD"]
    musts = [c for c in node.clauses if c.occur in ("MUST", "FILTER")]
    elsewhere = [c for c in shoulds if _field_of(c) in ALSO_SEARCHED]
    if not musts and elsewhere and len(shoulds) == len(elsewhere) + 1:
        # one clause in every field searched: the content's unit, and the same on the title
        # and the file name, any of which has the word when it matches
        (unit,) = (c for c in shoulds if c not in elsewhere)
        return [(leaf, (*found, *elsewhere)) for leaf, found in _required_leaves(unit, twins)]
    on_content = [c for c in shoulds if _field_of(c) == schema.CONTENT]
    others = tuple(c for c in shoulds if on_content and c is not on_content[0])
    if not musts and len(on_content) == 1 and all(_field_of(c) in _TWINS for c in others):
        word = on_content[0]
        if not word.clauses:
            return [(word, others)]
        # several words analyzed together (content: +a +b, a lemma field: +a' +b'): the
        # words' twins stand at the same places in their groups
        out = []
        for i, clause in enumerate(word.clauses):
            if clause.occur in ("MUST", "FILTER"):
                same = tuple(
                    o.clauses[i]
                    for o in others
                    if o.clauses and len(o.clauses) == len(word.clauses)
                )
                out.extend(_required_leaves(clause, same))
        return out
    out = []
    for clause in musts:
        out.extend(_required_leaves(clause))
    if not musts and len(shoulds) == 1:
        out.extend(_required_leaves(shoulds[0]))
    return out


def _tokens(text: str) -> list[str]:
    return [t.term for t in analysis.analyze(text, schema.CONTENT)]


def explain_miss(
    index: Probed,
    query: str,
    file_path: str,
    *,
    filters: Sequence[Filter | Mapping[str, Any]] = (),
    default_operator: str = "AND",
) -> MissExplanation:
    """Why the document of ``file_path`` is not in the results of ``query`` with ``filters``,
    or where it ranks, asked of any backend's probe.

    Raises:
        DocumentNotFoundError: when no indexed document has that path.
        QuerySyntaxError, UnknownFieldError, InvalidFilterError: for a query or filter that is
            wrong in itself.
    """
    path = documents.normalize_path(file_path)
    with index.probe() as probe:
        parsed_filters = parse_filters(filters)
        return _explain(probe, query, parse_query(query, default_operator), path, parsed_filters)


def _explain(
    probe: Probe, query: str, parsed: ParsedQuery, path: str, parsed_filters: list[Filter]
) -> MissExplanation:
    """:func:`explain_miss` asked of ``probe`` for the document of ``path`` (as the index keys
    it)."""
    reasons: list[MissReason] = []
    stored = probe.stored(path)
    passes = True
    for flt in parsed_filters:
        positive = probe.matches(filter_query(flt), path)
        excluded = not positive if flt.operator not in ("not", "not_in") else positive
        if excluded:
            passes = False
            values = stored.get(flt.field) or ["(none)"]
            reasons.append(
                MissReason(
                    "filter",
                    f"the filter {flt.operator} on {flt.field} excludes it: its "
                    f"{flt.field} is {', '.join(values)}",
                    flt.field,
                    ", ".join(values),
                )
            )
    matches = probe.matches(parsed.match_query, path)
    content = (stored.get(schema.CONTENT) or [""])[0]
    # every part the query can have: Lucene's clause limit, each word with its twins
    tree = query_tree(parsed.query, max_nodes=_ALL_PARTS)
    if not matches:
        words = _tokens(content)
        vocabulary = sorted(set(words))
        for leaf, twins in _required_leaves(tree):
            if leaf.type == "MatchAllDocsQuery" or leaf.field is None:
                continue
            if any(_matches(probe, path, twin) for twin in twins):
                continue  # another form of the word is in the document
            reason = _leaf_reason(probe, path, leaf, words, vocabulary)
            if reason is not None:
                reasons.append(reason)
        if not reasons:
            reasons.append(
                MissReason(
                    "query",
                    "none of the query's alternatives (OR) occurs in the document",
                )
            )
        recognised = ocr_reason((stored.get(schema.OCR) or [""])[0])
        if recognised is not None:
            reasons.insert(0, recognised)
    rank = score = last_score = None
    if matches and passes:
        hits = probe.top(constrain(parsed.match_query, parsed_filters), RANK_WINDOW)
        for position, (hit_path, hit_score) in enumerate(hits, start=1):
            if hit_path == path:
                rank, score = position, round(hit_score, 4)
                break
        if len(hits) >= FIRST_PAGE:
            last_score = round(hits[FIRST_PAGE - 1][1], 4)
        if rank is not None and rank > FIRST_PAGE:
            reasons.append(
                MissReason(
                    "rank",
                    f"it matches but ranks {rank} of {len(hits)} (score {score}; the "
                    f"{FIRST_PAGE}th result has {last_score}): add a word that sets it "
                    "apart, or filters",
                )
            )
    return MissExplanation(
        file_path=path,
        query=query if len(query) <= QUOTE_CHARS else quote(query),
        matches_query=matches,
        passes_filters=passes,
        rank=rank,
        score=score,
        last_shown_score=last_score,
        reasons=tuple(reasons),
        summary=_summary(matches, passes, rank, reasons),
    )


#: what explainMiss says of a document whose text comes from OCR, by its ``ocr`` field
OCR_REASONS = {
    schema.OCR_PENDING: "its text is still waiting for OCR (scanned pages, or an image): until "
    "it is recognised the document is found by its name, its metadata and the text of its other "
    "pages only; getCrawlerStatus's ocr says how far OCR is",
    schema.OCR_NEEDED: "it has scanned pages or is an image, whose text only OCR can read, and "
    "no Tesseract is installed: `pylucene-mcp doctor` says how to install it",
    schema.OCR_FAILED: "OCR of its scanned pages failed (getCrawlerStatus's ocr.failures says "
    "why): it is found by its name, its metadata and the text of its other pages only",
    schema.OCR_DONE: "its text was recognised by OCR and may hold recognition errors: try the "
    "words fuzzily (contract~) or a shorter phrase",
}


def ocr_reason(value: str) -> MissReason | None:
    """Why a document whose text comes from OCR may miss (None: its file holds its text)."""
    detail = OCR_REASONS.get(value)
    return None if detail is None else MissReason("ocr", detail, schema.OCR, value)


def _leaf_reason(
    probe: Probe, path: str, leaf: QueryNode, words: list[str], vocabulary: list[str]
) -> MissReason | None:
    """Why one required part of the query does not match the document (None: it does)."""
    node_query = _leaf_query(leaf)
    if node_query is not None and probe.matches(node_query, path):
        return None
    value = leaf.value or ""
    if leaf.type == "PhraseQuery":
        terms = value.split()
        missing = [t for t in terms if t not in vocabulary]
        if missing:
            return MissReason(
                "missing_term",
                f"the phrase needs {', '.join(missing)}, which the document does not contain",
                leaf.field,
                value,
                tuple(difflib.get_close_matches(missing[0], vocabulary, n=3)),
            )
        distance = _closest_distance(words, terms)
        return MissReason(
            "phrase_distance",
            f'the words of "{value}" are in the document but {distance} positions apart: '
            f'"{value}"~{max(distance - len(terms) + 1, 1)} would match',
            leaf.field,
            value,
            distance=distance,
        )
    if leaf.type == "TermQuery":
        if leaf.field not in (schema.CONTENT, schema.CONTENT_TRANSLIT_DE):
            return MissReason("missing_term", f"its {leaf.field} is not {value}", leaf.field, value)
        return MissReason(
            "missing_term",
            f"the document does not contain '{value}'",
            leaf.field,
            value,
            tuple(difflib.get_close_matches(value, vocabulary, n=3)),
        )
    return MissReason(
        "pattern",
        f"the pattern {value!r} on {leaf.field} reaches none of the document's words",
        leaf.field,
        value,
    )


def _matches(probe: Probe, path: str, leaf: QueryNode) -> bool:
    """Whether the document of ``path`` matches ``leaf`` (False when it cannot be rebuilt)."""
    query = _leaf_query(leaf)
    return query is not None and probe.matches(query, path)


def _leaf_query(leaf: QueryNode) -> Any:
    """A query for one leaf of the tree, to test it alone (None when it cannot be rebuilt)."""
    j = jvm.jclass
    if leaf.field is None or leaf.value is None:
        return None
    if leaf.type == "TermQuery":
        return j("org.apache.lucene.search.TermQuery")(j("org.apache.lucene.index.Term")(
            leaf.field, leaf.value))  # fmt: skip
    if leaf.type == "PhraseQuery":
        phrase = j("org.apache.lucene.search.PhraseQuery")(
            leaf.slop or 0, leaf.field, jvm.jarray("String", leaf.value.split())
        )
        named = j("io.github.pylucenemcp.queryparser.NamePhraseQuery")
        return named(phrase) if named.applies(phrase) else phrase  # as the search parsed it
    if leaf.type == "SynonymQuery":  # sign OR signed
        any_of = j("org.apache.lucene.search.BooleanQuery$Builder")()
        should = j("org.apache.lucene.search.BooleanClause$Occur").SHOULD
        for word in leaf.value.split(" OR "):
            term = j("org.apache.lucene.index.Term")(leaf.field, word)
            any_of.add(j("org.apache.lucene.search.TermQuery")(term), should)
        return any_of.build()
    if leaf.type == "MultiPhraseQuery":  # (signed sign) agreement
        phrase = j("org.apache.lucene.search.MultiPhraseQuery$Builder")()
        for group in re.findall(r"\(([^)]*)\)|(\S+)", leaf.value):
            words = (group[0] or group[1]).split()
            phrase.add(jvm.jarray("org.apache.lucene.index.Term", [
                j("org.apache.lucene.index.Term")(leaf.field, w) for w in words]))  # fmt: skip
        phrase.setSlop(leaf.slop or 0)
        return phrase.build()
    if leaf.type in ("WildcardQuery", "PrefixQuery"):
        return j("org.apache.lucene.search.WildcardQuery")(
            j("org.apache.lucene.index.Term")(leaf.field, leaf.value)
        )
    return None


def _closest_distance(words: list[str], terms: list[str]) -> int:
    """The smallest span (in positions) that holds every one of ``terms``."""
    positions = {t: [i for i, w in enumerate(words) if w == t] for t in set(terms)}
    best = len(words)
    for start in positions.get(terms[0], []):
        span = 0
        for term in terms[1:]:
            span = max(span, min((abs(p - start) for p in positions.get(term, [])), default=best))
        best = min(best, span)
    return best


SUMMARY_REASONS = 3  # reasons the one-line summary names


def _summary(matches: bool, passes: bool, rank: int | None, reasons: list[MissReason]) -> str:
    if matches and passes:
        if rank is not None and rank <= FIRST_PAGE:
            return f"it matches and ranks {rank}: it is on the first page"
        if rank is None:
            return f"it matches but ranks below the first {RANK_WINDOW} results"
        return reasons[-1].detail
    shown = "; ".join(r.detail for r in reasons[:SUMMARY_REASONS]) or "it does not match"
    more = len(reasons) - SUMMARY_REASONS
    return shown + (f"; and {more} more (see reasons)" if more > 0 else "")
