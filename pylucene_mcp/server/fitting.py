"""A search answer fitted to what the ``search`` tool was asked for and to its byte budget: the
server's work, on the JSON the engine's result already is (no second encoding)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from pylucene_mcp.basics import schema
from pylucene_mcp.basics.shapes import compact_size, fit

#: the visible lengths that every passage is cut to, in turn, once each hit is down to its
#: best passage and the page still does not fit
SHORTER_PASSAGES = (150, 100, 60)
_TAG = re.compile(r"</?em>")
#: the fields a hit gives up, all hits alike, before its passages get shorter: two are spelled
#: out in ``filePath`` already, the other two dates matter least (``modifiedDate`` stays)
SPARE_FIELDS = ("fileName", "fileExtension", "indexedDate", "createdDate")


def fit_passages(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """The answer fitted to ``max_bytes`` of compact JSON, evenly across the hits: first fewer
    passages (the hit with the most gives up its weakest, the lowest-ranked first among equals)
    until each has its best one; then every hit without :data:`SPARE_FIELDS`; then every
    passage shorter (:data:`SHORTER_PASSAGES`, around its first match); only then the passages
    of the lowest-ranked hits (the first hit keeps its own). ``passagesOmitted`` counts the
    passages that went, ``fieldsOmitted`` names the fields, ``passagesShortenedTo`` gives the
    visible length passages were cut to (fewer hits, a lower ``maxPassages`` or a shorter
    ``passageLength`` bring them back, and getDocumentDetails reads any document). A page of
    many hits may pass ``max_bytes`` with their paths and scores alone."""
    if compact_size(data) <= max_bytes:
        return data
    # a copy of the parts it shortens: the result it came from keeps its passages
    documents = [
        {**doc, "passages": [dict(p) for p in doc["passages"]]} if "passages" in doc else doc
        for doc in data["documents"]
    ]
    data = {**data, "documents": documents}
    # the notes say what went as it goes, their bytes counted like any others (shapes.fit)
    counts: dict[str, int] = {}

    def fewer() -> tuple[str, list[Any]] | None:
        most = max((len(d.get("passages", ())) for d in documents), default=0)
        if most <= 1:
            return None
        last = [d for d in documents if len(d.get("passages", ())) == most][-1]
        return "passages", last["passages"]

    fit(data, max_bytes, fewer, "passagesOmitted", total=True, omitted=counts)
    if compact_size(data) > max_bytes:
        spared = [name for name in SPARE_FIELDS if any(name in doc for doc in documents)]
        documents[:] = [{k: v for k, v in doc.items() if k not in spared} for doc in documents]
        if spared:
            data["fieldsOmitted"] = spared
    for limit in SHORTER_PASSAGES:
        if compact_size(data) <= max_bytes:
            break
        for doc in documents:
            for passage in doc.get("passages", ()):
                passage["text"] = shorten(passage["text"], limit)
        data["passagesShortenedTo"] = limit

    def none_for_some() -> tuple[str, list[Any]] | None:
        having = [d for d in documents[1:] if d.get("passages")]
        return ("passages", having[-1]["passages"]) if having else None

    fit(data, max_bytes, none_for_some, "passagesOmitted", total=True, omitted=counts)
    return data


def shorten(text: str, limit: int) -> str:
    """``text`` (a passage: words and ``<em>`` tags) cut to ``limit`` visible characters around
    its first match, ``…`` where it was cut, its tags balanced."""
    parts = _TAG.split(text)
    tags = _TAG.findall(text)
    visible = "".join(parts)
    if len(visible) <= limit:
        return text
    first = len(parts[0]) if tags else 0  # where the first match starts, in visible letters
    start = max(0, min(first - limit // 3, len(visible) - limit))
    end = start + limit
    out: list[str] = ["…"] if start > 0 else []
    position, inside, opened = 0, False, False
    for n, part in enumerate(parts):
        lo, hi = max(start, position), min(end, position + len(part))
        if lo < hi:
            if inside and not opened:  # a match's first letters within the window
                out.append("<em>")
                opened = True
            out.append(part[lo - position : hi - position])
        position += len(part)
        if n < len(tags):
            inside = tags[n] == "<em>"
            if not inside and opened:
                out.append("</em>")
                opened = False
    if opened:
        out.append("</em>")
    if end < len(visible):
        out.append("…")
    return "".join(out)


#: facet dimensions an answer leaves out where they count nothing (``ocr`` in an index without
#: scans: the bytes of every answer are the assistant's)
QUIET_FACETS = (schema.OCR,)


def select(
    data: dict[str, Any],
    fields: Sequence[str] | None = None,
    facets: Sequence[str] | None = None,
    facet_min_count: int = 1,
) -> dict[str, Any]:
    """The tool's answer with only the hit ``fields`` asked for (``filePath`` always: it is the
    id), only the facet dimensions in ``facets`` (none for an empty list), and facet values
    counted at least ``facet_min_count`` times. None leaves a part as it is; a dimension of
    :data:`QUIET_FACETS` without values goes. ``data`` itself is not changed."""
    data = dict(data)
    if "facets" in data:
        data["facets"] = {
            dim: values
            for dim, values in data["facets"].items()
            if values or dim not in QUIET_FACETS
        }
    if fields is not None:
        keep = {"filePath", *fields}
        data["documents"] = [
            {k: v for k, v in doc.items() if k in keep} for doc in data["documents"]
        ]
    if facets is not None:
        data["facets"] = {dim: values for dim, values in data["facets"].items() if dim in facets}
    if facet_min_count > 1:
        data["facets"] = {
            dim: [v for v in values if v["count"] >= facet_min_count]
            for dim, values in data["facets"].items()
        }
    return data
