"""Queries as the product's Solr plugin takes them: the portable JSON of a parsed Lucene query
(``io.github.pylucenemcp.portable.PortableQuery``, built again by ``PortableQParserPlugin`` on
each shard), nodes made here for filters and counts, and the one local-params string the
backend writes (``{!pylucene tag=…}`` followed by the JSON, which Solr takes literally)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema

ALL: dict[str, Any] = {"t": "all"}
#: no document (a reader who may read none)
NOTHING: dict[str, Any] = {"t": "bool", "msm": 0, "c": [{"o": "MUST_NOT", "q": ALL}]}
#: the Solr field that counts a facet dimension: the keyword field itself, or for the analysed
#: author its exact values' twin
FACET_FIELD = {"author": "author_facet"}
#: the number of pages of a paged document (indexed: the documents that have pages are counted)
PAGE_COUNT = "page_count"
LONG_MIN = -(2**63)
LONG_MAX = 2**63 - 1


#: the embedded index's facet terms (``DrillDownQuery.term``): dimension and value joined
FACET_TERMS = "$facets"
FACET_DELIMITER = "\x1f"


def portable_query(query: Any) -> dict[str, Any]:
    """A parsed Lucene query (a Java object) as the portable JSON the plugin takes, a facet
    value's drill-down term as the term of the collection's facet field."""
    with jvm.java_errors():
        text = str(jvm.jclass("io.github.pylucenemcp.portable.PortableQuery").toJson(query))
    found: dict[str, Any] = json.loads(text, object_hook=_facet_term)
    return found


def _facet_term(node: dict[str, Any]) -> dict[str, Any]:
    if node.get("t") == "term" and node.get("f") == FACET_TERMS:
        dim, _, value = str(node["v"]).partition(FACET_DELIMITER)
        return term(FACET_FIELD.get(dim, dim), value)
    return node


def local(node: Mapping[str, Any], tags: Sequence[str] = (), *, cache: bool = True) -> str:
    """``node`` as a query string for Solr: the product's parser named, then the JSON (which a
    local-params parser takes literally, as the rest of the string); not ``cache``d: a filter
    that no other search will repeat (a vector search's documents)."""
    tag = f" tag={','.join(tags)}" if tags else ""
    kept = "" if cache else " cache=false"
    return "{!pylucene" + tag + kept + "}" + json.dumps(node, ensure_ascii=False)


def term(field: str, value: str) -> dict[str, Any]:
    return {"t": "term", "f": field, "v": value}


def paths(field: str, scores: Mapping[str, float] | Sequence[str]) -> dict[str, Any]:
    """The documents whose keyword ``field`` holds one of ``scores``' keys, each scored by its
    value (a sequence of keys: each scores 1): one query whatever their number."""
    if isinstance(scores, Mapping):
        return {"t": "paths", "f": field, "v": list(scores), "s": list(scores.values())}
    return {"t": "paths", "f": field, "v": list(scores)}


def prefix(field: str, value: str) -> dict[str, Any]:
    return {"t": "prefix", "f": field, "v": value, "ranked": False}


def any_of(nodes: Sequence[dict[str, Any]]) -> dict[str, Any]:
    if len(nodes) == 1:
        return nodes[0]
    return {"t": "bool", "msm": 0, "c": [{"o": "SHOULD", "q": n} for n in nodes]}


def minus(node: dict[str, Any], excluded: dict[str, Any]) -> dict[str, Any]:
    """The documents of ``node`` but those of ``excluded``."""
    return {
        "t": "bool",
        "msm": 0,
        "c": [{"o": "MUST", "q": node}, {"o": "MUST_NOT", "q": excluded}],
    }


def without(node: dict[str, Any]) -> dict[str, Any]:
    """Every document but those of ``node``."""
    return minus(ALL, node)


def longs(field: str, low: int, high: int) -> dict[str, Any]:
    return {"t": "longRange", "f": field, "lo": low, "hi": high}


def presence(name: str, kind: str) -> dict[str, Any]:
    """The documents that have field ``name``: any of its terms, or any point."""
    if name == schema.PAGE_OFFSETS:
        return longs(PAGE_COUNT, 0, LONG_MAX)
    if kind in ("long", "date"):
        return longs(name, LONG_MIN, LONG_MAX)
    return {"t": "termRange", "f": name, "lo": None, "hi": None, "li": True, "ui": True}
