"""Property-based fuzzing (hypothesis) of query strings, filters and tool arguments: through the
service layer, every call returns a result or raises one of the project's errors for the
caller (never an unmapped Java exception); over real stdio, every call gets exactly one answer
and the server is alive after."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pylucene_mcp import Index, JvmError, PyLuceneMcpError
from tests.conftest import FIGURES
from tests.stdio_peer import StdioPeer, handshake

pytestmark = pytest.mark.slow

SYNTAX = list('*?~^"()[]{}:/\\+-!&| ') + ["AND", "OR", "NOT", "TO", "title:", "language:"]
WORDS = ["vertrag", "Müller", "lease", "quokka", "2024-01-01", "2024", "a", "*vertrag*"]
FIELDS = ["language", "author", "file_extension", "modified_date", "file_size", "title", "nope"]

queries = st.lists(
    st.one_of(st.sampled_from(SYNTAX), st.sampled_from(WORDS), st.text(max_size=6)),
    max_size=12,
).map("".join)
values = st.one_of(
    st.none(), st.integers(-(2**63), 2**63 - 1), st.text(max_size=12), st.sampled_from(WORDS)
)
filters = st.fixed_dictionaries(
    {
        "field": st.sampled_from(FIELDS),
        "operator": st.sampled_from(["eq", "in", "not", "not_in", "range", "bogus"]),
    },
    optional={
        "value": values,
        "values": st.lists(values, max_size=3),
        "from": values,
        "to": values,
    },
)

calls = {"service": 0, "service_errors": 0}


def _search_once(index: Index, query: str, flts: list[dict[str, Any]]) -> None:
    calls["service"] += 1
    try:
        index.search(query, filters=flts, timeout_s=2)
    except JvmError:
        raise  # an unmapped Java exception is a bug, not the caller's mistake
    except PyLuceneMcpError as exc:
        calls["service_errors"] += 1
        assert str(exc), "an error must say something"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(query=queries, flts=st.lists(filters, max_size=2))
def test_any_query_and_filters_get_a_result_or_a_clear_error(
    index: Index, query: str, flts: list[dict[str, Any]]
) -> None:
    _search_once(index, query, flts)
    FIGURES["fuzzed searches (service layer)"] = (
        f"{calls['service']} calls, {calls['service_errors']} refused with a message, "
        "0 unmapped Java errors"
    )


TOOLS = ["search", "getDocumentDetails", "getIndexStats", "listIndexedFields", "nope"]
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=8,
)
arguments = st.dictionaries(
    st.sampled_from(["query", "filters", "page", "pageSize", "filePath", "offset", "sort", "x"]),
    json_values | queries,
    max_size=4,
)
plausible_search = st.fixed_dictionaries(
    {"query": queries},
    optional={
        "filters": st.lists(filters, max_size=2),
        "page": st.integers(0, 3),
        "pageSize": st.integers(1, 20),
        "defaultOperator": st.sampled_from(["AND", "OR"]),
        "sort": st.sampled_from(["_score", "modified_date", "file_size"]),
    },
)
tool_calls = st.one_of(
    st.tuples(st.sampled_from(TOOLS), arguments), st.tuples(st.just("search"), plausible_search)
)


@pytest.fixture(scope="module")
def peer(tmp_path_factory: pytest.TempPathFactory, closed_index_path: Path) -> Iterator[StdioPeer]:
    peer = StdioPeer(closed_index_path, tmp_path_factory.mktemp("fuzz-home"))
    handshake(peer, "2025-11-25")
    yield peer
    rest, _ = peer.close()
    assert rest.strip() == b""


wire = {"calls": 0, "errors": 0, "slowest_s": 0.0}


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tool_call=tool_calls)
def test_any_tool_call_over_stdio_gets_exactly_one_answer(
    peer: StdioPeer, tool_call: tuple[str, dict[str, Any]]
) -> None:
    tool, args = tool_call
    started = time.monotonic()
    answer = peer.request("tools/call", {"name": tool, "arguments": args}, timeout=30)
    wire["slowest_s"] = max(wire["slowest_s"], time.monotonic() - started)
    wire["calls"] += 1
    assert ("result" in answer) != ("error" in answer), answer
    if "error" in answer or answer["result"].get("isError"):
        wire["errors"] += 1
        text = json.dumps(answer)
        assert "pydantic" not in text.lower() and "validation error for" not in text, text
    assert peer.request("ping", timeout=10)["result"] == {}
    FIGURES["fuzzed tool calls (MCP over stdio)"] = (
        f"{wire['calls']} calls, each answered once ({wire['errors']} errors), slowest "
        f"{wire['slowest_s'] * 1000:.0f} ms, server alive after each"
    )
