"""A research index's schema as data: its fields, their analyzers and its similarity, kept in
the index's commit data so that :meth:`ResearchIndex.open` can build them again.

An analyzer is written as what builds it: a ``CustomAnalyzer`` (from :meth:`Analyzer.custom` or
built in Java) as its factories' SPI names and parameters, one of the product's chains by its
name, another Java analyzer by its class when that class has a public constructor without
parameters. Any other analyzer is written by class name only, and ``open`` asks for it. A
similarity is written by its class and parameters (BM25's k1 and b, Dirichlet's mu, …).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.components import Analyzer, FieldSpec, Similarity

#: the commit data key the schema is kept under
KEY = "pylucene_mcp.research.schema"
VERSION = 1

_SIMILARITIES = {
    "org.apache.lucene.search.similarities.BM25Similarity": ("bm25", ("k1", "b")),
    "org.apache.lucene.search.similarities.LMDirichletSimilarity": ("lm_dirichlet", ("mu",)),
    "org.apache.lucene.search.similarities.LMJelinekMercerSimilarity": (
        "lm_jelinek_mercer",
        ("lambda",),
    ),
    "org.apache.lucene.search.similarities.ClassicSimilarity": ("classic", ()),
}
_GETTERS = {"k1": "getK1", "b": "getB", "mu": "getMu", "lambda": "getLambda"}


def analyzer_spec(analyzer: Any) -> dict[str, Any] | None:
    """What builds ``analyzer`` again (None: the default, Lucene's ``StandardAnalyzer``)."""
    if analyzer is None:
        return None
    product = Analyzer.product_name(analyzer)
    if product is not None:
        return {"product": product}
    name = str(analyzer.getClass().getName())
    custom = jvm.jclass("org.apache.lucene.analysis.custom.CustomAnalyzer")
    if isinstance(analyzer, custom):
        return {"custom": _custom_spec(analyzer)}
    if _has_default_constructor(analyzer.getClass()):
        return {"class": name}
    return {"opaque": name}


def _custom_spec(analyzer: Any) -> dict[str, Any]:
    def one(factory: Any, kind: str) -> str | dict[str, dict[str, str]]:
        spi = str(jvm.jclass(f"org.apache.lucene.analysis.{kind}").findSPIName(factory.getClass()))
        args = {
            str(k): str(v)
            for k, v in dict(factory.getOriginalArgs()).items()
            if str(k) != "luceneMatchVersion"
        }
        return {spi: args} if args else spi

    return {
        "tokenizer": one(analyzer.getTokenizerFactory(), "TokenizerFactory"),
        "filters": [one(f, "TokenFilterFactory") for f in analyzer.getTokenFilterFactories()],
        "char_filters": [one(f, "CharFilterFactory") for f in analyzer.getCharFilterFactories()],
    }


def _has_default_constructor(java_class: Any) -> bool:
    modifier = jvm.jclass("java.lang.reflect.Modifier")
    for constructor in java_class.getConstructors():
        if constructor.getParameterCount() == 0 and modifier.isPublic(constructor.getModifiers()):
            return True
    return False


def build_analyzer(spec: Mapping[str, Any] | None, field: str) -> Any:
    """The analyzer ``spec`` describes (None for the default).

    Raises:
        InvalidRequestError: for an analyzer that cannot be built again from its spec.
    """
    if spec is None:
        return None
    if "product" in spec:
        return Analyzer.product(spec["product"])
    if "custom" in spec:
        custom = spec["custom"]
        return Analyzer.custom(custom["tokenizer"], custom["filters"], custom["char_filters"])
    if "class" in spec:
        with jvm.java_errors(caller_input=True):
            return jvm.jclass(spec["class"])()
    raise errors.InvalidRequestError(
        f"field {field!r} was indexed with a Java analyzer of class {spec.get('opaque')}, which "
        "cannot be built again from the index; pass it: ResearchIndex.open(path, "
        f"analyzers={{{field!r}: <the analyzer>}})"
    )


def similarity_spec(similarity: Any) -> dict[str, Any]:
    """What builds ``similarity`` again."""
    name = str(similarity.getClass().getName())
    known = _SIMILARITIES.get(name)
    if known is not None:
        kind, params = known
        # a Java float, written as the decimal it was given as (0.9, not 0.8999999761581421)
        return {kind: {p: float(f"{getattr(similarity, _GETTERS[p])():.7g}") for p in params}}
    if _has_default_constructor(similarity.getClass()):
        return {"class": name}
    return {"opaque": name}


def build_similarity(spec: Mapping[str, Any]) -> Any:
    """The similarity ``spec`` describes.

    Raises:
        InvalidRequestError: for one that cannot be built again from its spec.
    """
    ((kind, params),) = spec.items()
    if kind == "class":
        with jvm.java_errors(caller_input=True):
            return jvm.jclass(params)()
    if kind == "opaque":
        raise errors.InvalidRequestError(
            f"the index was searched with a Java similarity of class {params}, which cannot be "
            "built again from the index; pass it: ResearchIndex.open(path, similarity=...)"
        )
    if kind == "lm_jelinek_mercer":
        return Similarity.lm_jelinek_mercer(params["lambda"])
    return getattr(Similarity, kind)(**params)


def to_json(fields: Mapping[str, FieldSpec], similarity: Any) -> str:
    """The schema as the index keeps it."""
    return json.dumps(
        {
            "version": VERSION,
            "fields": {name: field_json(spec) for name, spec in fields.items()},
            "similarity": similarity_spec(similarity),
        },
        sort_keys=True,
    )


def field_json(spec: FieldSpec) -> dict[str, Any]:
    written = {
        "kind": spec.kind,
        "stored": spec.stored,
        "term_vectors": spec.term_vectors,
        "doc_values": spec.doc_values,
        "analyzer": analyzer_spec(spec.analyzer),
    }
    if spec.query_analyzer is not None:  # only then: the schemas written before stay as they are
        written["query_analyzer"] = analyzer_spec(spec.query_analyzer)
    return written


def from_json(
    text: str, analyzers: Mapping[str, Any] | None = None
) -> tuple[dict[str, FieldSpec], Any]:
    """The fields and similarity that ``text`` describes; ``analyzers`` replaces the analyzers
    of the fields it names (of their documents and of their queries)."""
    data = json.loads(text)
    fields = {}
    for name, field in data["fields"].items():
        given = (analyzers or {}).get(name)
        analyzer = given if given is not None else build_analyzer(field["analyzer"], name)
        queries = field.get("query_analyzer")
        fields[name] = FieldSpec(
            field["kind"],
            field["stored"],
            analyzer,
            term_vectors=field["term_vectors"],
            doc_values=field["doc_values"],
            query_analyzer=None
            if given is not None or queries is None
            else build_analyzer(queries, name),
        )
    return fields, build_similarity(data["similarity"])


def describe(text: str) -> str:
    """The schema ``text`` in one line a person can read: each field with its kind, options and
    analyzer, and the similarity."""
    data = json.loads(text)
    parts = []
    for name, field in data["fields"].items():
        options = [o for o in ("stored", "term_vectors", "doc_values") if field[o]]
        analyzer = field["analyzer"]
        queries = field.get("query_analyzer")
        parts.append(
            f"{name}: {field['kind']}"
            + (f" ({', '.join(options)})" if options else "")
            + (f" {json.dumps(analyzer, sort_keys=True)}" if analyzer is not None else "")
            + (f", queries {json.dumps(queries, sort_keys=True)}" if queries is not None else "")
        )
    return "; ".join(parts) + f"; similarity {json.dumps(data['similarity'], sort_keys=True)}"
