"""Each bound of a request's numbers is stated once (``engine/core/limits.py``): the range an MCP
client reads in a tool's published schema is the one the engine enforces on a Python caller,
who is told the Python parameter's name. Checked on what a client gets (``tools/list``) and on
what the engine refuses, one past each end."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from pylucene_mcp import Index, InvalidRequestError
from pylucene_mcp.engine.core import limits
from pylucene_mcp.engine.core.request import SearchRequest
from tests.mcp_client import connect

pytestmark = pytest.mark.anyio

#: (tool, parameter) → (the bound, how a Python caller passes a value, that parameter's name)
Ask = Callable[[Index, float], object]
SEARCH: dict[str, tuple[str, Ask]] = {
    "page": ("page", lambda i, v: SearchRequest("x", page=int(v))),
    "pageSize": ("page_size", lambda i, v: SearchRequest("x", page_size=int(v))),
    "maxPassages": ("max_passages", lambda i, v: SearchRequest("x", max_passages=int(v))),
    "passageLength": ("passage_length", lambda i, v: SearchRequest("x", passage_length=int(v))),
    "facetLimit": ("facet_limit", lambda i, v: SearchRequest("x", facet_limit=int(v))),
    "similarityThreshold": (
        "similarity_threshold",
        lambda i, v: SearchRequest("x", mode="semantic", vector=[1.0], similarity_threshold=v),
    ),
}
CASES: list[tuple[str, str, limits.Bounds, str, Ask]] = [
    ("search", name, getattr(limits, python.upper()), python, ask)
    for name, (python, ask) in SEARCH.items()
] + [
    ("semanticSearch", "pageSize", limits.PAGE_SIZE, "page_size", SEARCH["pageSize"][1]),
    (
        "getDocumentDetails",
        "length",
        limits.DETAILS_LENGTH,
        "length",
        lambda i, v: i.document_details("/c/a.txt", length=int(v)),
    ),
    (
        "getDocumentDetails",
        "offset",
        limits.DETAILS_OFFSET,
        "offset",
        lambda i, v: i.document_details("/c/a.txt", offset=int(v)),
    ),
    (
        "locateQuote",
        "minSimilarity",
        limits.QUOTE_SIMILARITY,
        "min_similarity",
        lambda i, v: i.locate_quote("the grey heron waits", min_similarity=v),
    ),
    (
        "locateQuote",
        "maxResults",
        limits.QUOTE_RESULTS,
        "max_results",
        lambda i, v: i.locate_quote("the grey heron waits", max_results=int(v)),
    ),
    (
        "suggestTerms",
        "limit",
        limits.TERM_LIMIT,
        "limit",
        lambda i, v: i.suggest_terms("content", "h", int(v)),
    ),
    (
        "getTopTerms",
        "limit",
        limits.TERM_LIMIT,
        "limit",
        lambda i, v: i.top_terms("content", int(v)),
    ),
    (
        "findDuplicates",
        "minGroupSize",
        limits.GROUP_SIZE,
        "min_group_size",
        lambda i, v: i.find_duplicates(int(v)),
    ),
    (
        "findDuplicates",
        "pageSize",
        limits.GROUP_PAGE_SIZE,
        "page_size",
        lambda i, v: i.find_duplicates(2, None, 1, int(v)),
    ),
    (
        "profileQuery",
        "maxDocExplanations",
        limits.DOC_EXPLANATIONS,
        "max_doc_explanations",
        lambda i, v: i.profile_query("heron", max_doc_explanations=int(v)),
    ),
    (
        "optimizeIndex",
        "maxSegments",
        limits.SEGMENTS,
        "max_segments",
        lambda i, v: i.optimize(int(v)),
    ),
]


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def herons(tmp_path_factory: pytest.TempPathFactory) -> Any:
    index = Index.open(tmp_path_factory.mktemp("limits") / "index")
    with index.writer() as writer:
        writer.add({"file_path": "/c/a.txt", "content": "The grey heron waits by the water."})
    yield index
    index.close()


async def test_a_tools_published_range_is_the_one_the_engine_enforces(herons: Index) -> None:
    async with connect(herons) as client:
        listed = {t.name: t.input_schema for t in (await client.list_tools()).tools}
    checked = 0
    for tool, parameter, bounds, python, ask in CASES:
        if tool not in listed:
            continue  # semanticSearch exists with vectors on: its pageSize is search's
        published = listed[tool]["properties"][parameter]
        published = next((a for a in published.get("anyOf", []) if "minimum" in a), published)
        assert published["minimum"] == bounds.low, (tool, parameter)
        assert published.get("maximum") == bounds.high, (tool, parameter)
        checked += 1
        outside = [bounds.low - 1 if float(bounds.low).is_integer() else bounds.low - 0.5]
        if bounds.high is not None:
            outside.append(bounds.high + 1)
        for value in outside:
            with pytest.raises(InvalidRequestError, match=f"^{python} must be {bounds.said()}"):
                ask(herons, value)
        ask(herons, bounds.low)  # the bound itself is taken
    assert checked == len(CASES) - 1


def test_a_number_that_is_no_number_is_refused(herons: Index) -> None:
    """NaN compares false to every bound: it is refused, not let through."""
    nan = float("nan")
    with pytest.raises(InvalidRequestError, match="^similarity_threshold must be -1–1, got nan"):
        SearchRequest("x", mode="semantic", vector=[1.0], similarity_threshold=nan)
    with pytest.raises(InvalidRequestError, match="^min_similarity must be 0–1, got nan"):
        herons.locate_quote("the grey heron waits", min_similarity=nan)
