"""Why a document scores what it scores: Lucene's ``Explanation``, read through its getters
(``getValue``, ``getDescription``, ``getDetails``, ``isMatch``, never by parsing ``toString()``)
into Python data, and the BM25 contribution of each matched term.

    >>> index.explain("contract signed", "/docs/a.txt").summary          # doctest: +SKIP
    "'signed' gives 72 % of the score: rare (idf 2.40), 6 occurrences"
"""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pylucene_mcp.basics import schema

_WEIGHT = re.compile(r"^weight\((?P<field>[^:\s(]+):(?P<term>.*) in \d+\)")
# several words at one position (a word's lemmas: signed → sign, signed) score as one
_SYNONYM = re.compile(r"^weight\(Synonym\((?P<terms>[^)]*)\) in \d+\)")
_CONSTANT = re.compile(r"^(?P<field>[a-z_]+):(?P<term>\S+)$")


def shortest(value: float) -> float:
    """``value``, a Java float (widened to a double: 0.7f is 0.699999988079071), as the shortest
    decimal that is the same float: 0.7. Other values pass as they are."""
    if not math.isfinite(value):
        return value
    single = struct.unpack("f", struct.pack("f", value))[0]
    if single != value:
        return value  # a double's value, not a float's
    for digits in range(1, 10):
        near = float(f"{value:.{digits}g}")
        if struct.unpack("f", struct.pack("f", near))[0] == single:
            return near
    return value


@dataclass(frozen=True)
class Explanation:
    """One node of Lucene's explanation: its value, what it is, and the nodes it is made of."""

    value: float
    description: str
    match: bool
    details: tuple[Explanation, ...]

    @classmethod
    def of(cls, java: Any) -> Explanation:
        """The tree of a Java ``org.apache.lucene.search.Explanation``."""
        return cls(
            value=shortest(float(java.getValue().doubleValue())),
            description=str(java.getDescription()),
            match=bool(java.isMatch()),
            details=tuple(cls.of(d) for d in java.getDetails()),
        )

    @classmethod
    def of_json(cls, tree: Mapping[str, Any]) -> Explanation:
        """The tree of an explanation as JSON (``match``, ``value``, ``description``,
        ``details``: Solr's structured explanation)."""
        return cls(
            value=shortest(float(tree.get("value", 0.0))),
            description=str(tree.get("description", "")),
            match=bool(tree.get("match", False)),
            details=tuple(cls.of_json(d) for d in tree.get("details", ())),
        )

    def find(self, prefix: str) -> Explanation | None:
        """The first node below this one whose description starts with ``prefix``."""
        for detail in self.details:
            if detail.description.startswith(prefix):
                return detail
            found = detail.find(prefix)
            if found is not None:
                return found
        return None


@dataclass(frozen=True)
class TermContribution:
    """What one matched term (or pattern) adds to a document's score.

    ``idf``, ``tf``, ``freq``, ``doc_freq``, ``doc_count`` and ``field_length`` are BM25's
    factors; they are None for a constant-score match (a wildcard, a range).
    """

    field: str
    term: str
    contribution: float
    contribution_percent: float
    freq: float | None = None
    idf: float | None = None
    tf: float | None = None
    doc_freq: int | None = None
    doc_count: int | None = None
    field_length: float | None = None
    average_field_length: float | None = None
    boost: float | None = None


@dataclass(frozen=True)
class DocumentExplanation:
    """Why one document matches a query (or does not), and what each term gives."""

    file_path: str
    query: str
    matched: bool
    score: float
    terms: tuple[TermContribution, ...]
    summary: str
    tree: Explanation


def _value(node: Explanation | None) -> float | None:
    return node.value if node is not None else None


def _contributions(tree: Explanation, score: float) -> list[TermContribution]:
    found: list[TermContribution] = []

    def visit(node: Explanation) -> None:
        weight = _WEIGHT.match(node.description)
        constant = _CONSTANT.match(node.description) if not node.details else None
        if constant and node.value == 0:  # adds nothing: a pattern's every-term clause
            return
        synonym = _SYNONYM.match(node.description)
        if weight or constant or synonym:
            idf = node.find("idf")
            share = 100.0 * node.value / score if score else 0.0
            if synonym:
                pairs = [p.split(":", 1) for p in synonym.group("terms").split(" ")]
                field, term = pairs[0][0], " OR ".join(t for _, t in pairs)
            else:
                match = weight or constant
                assert match is not None
                field, term = match.group("field"), match.group("term")
            if field == schema.CONTENT_REVERSED:  # shown as the user wrote it: *vertrag
                field, term = schema.CONTENT, term[::-1]
            found.append(
                TermContribution(
                    field=field,
                    term=term,
                    contribution=node.value,
                    contribution_percent=round(share, 1),
                    freq=_value(node.find("freq")),
                    idf=_value(idf),
                    tf=_value(node.find("tf")),
                    doc_freq=_int(idf.find("n,") if idf else None),
                    doc_count=_int(idf.find("N,") if idf else None),
                    field_length=_value(node.find("dl,")),
                    average_field_length=_value(node.find("avgdl,")),
                    boost=_value(node.find("boost")),
                )
            )
            return
        for detail in node.details:
            if detail.match:
                visit(detail)

    if tree.match:
        visit(tree)
    return found


def _int(node: Explanation | None) -> int | None:
    return int(node.value) if node is not None else None


def rarity(doc_freq: int, documents: int) -> str:
    """How rare a term is, by the share of documents that have it (one meaning everywhere):
    "absent", "rare" (< 1 %), "uncommon" (< 10 %) or "common"."""
    if doc_freq == 0:
        return "absent"
    share = doc_freq / documents if documents else 0.0
    return "rare" if share < 0.01 else "uncommon" if share < 0.1 else "common"


def _summary(terms: list[TermContribution], matched: bool, path: str) -> str:
    if not matched:
        return f"{path} does not match the query"
    if not terms:
        return f"{path} matches without a scored term (a filter or match-all)"
    top = max(terms, key=lambda t: t.contribution)
    why = []
    if top.idf is not None and top.doc_freq is not None and top.doc_count is not None:
        why.append(f"{rarity(top.doc_freq, top.doc_count)} (idf {top.idf:.2f})")
    elif top.idf is not None:
        why.append(f"idf {top.idf:.2f}")
    if top.freq is not None:
        why.append(f"{int(top.freq)} occurrence{'s' if top.freq != 1 else ''}")
    tail = f": {', '.join(why)}" if why else ""
    return f"'{top.term}' gives {top.contribution_percent:.0f} % of the score{tail}"


def explanation_of(tree: Explanation, path: str, query: str) -> DocumentExplanation:
    """What the explanation ``tree`` of the document of ``path`` for ``query`` says: its score
    and each matched term's share."""
    score = tree.value if tree.match else 0.0
    terms = _contributions(tree, score)
    return DocumentExplanation(
        file_path=path,
        query=query,
        matched=tree.match,
        score=score,
        terms=tuple(sorted(terms, key=lambda t: -t.contribution)),
        summary=_summary(terms, tree.match, path),
        tree=tree,
    )
