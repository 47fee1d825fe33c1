"""Golden responses: what each read tool answers on the fixture corpus, as the client receives
it, kept in tests/golden/. They guard refactorings: a change of shape or of a value shows up as
a diff. Regenerate on purpose with PYLUCENE_MCP_UPDATE_GOLDEN=1 and review the diff."""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from pylucene_mcp import Index
from tests.mcp_client import connect

pytestmark = pytest.mark.anyio

GOLDEN = Path(__file__).parent / "golden"
CALLS: dict[str, tuple[str, dict[str, Any]]] = {
    "search-default": ("search", {"query": "*vertrag*"}),
    "search-german-filters": (
        "search",
        {
            "query": "Mueller OR Vertrag",
            "defaultOperator": "OR",
            "filters": [{"field": "language", "value": "de"}],
            "sort": "modified_date",
        },
    ),
    "search-phrase-page": ("search", {"query": '"reading room"~2', "pageSize": 1, "page": 1}),
    "search-last-page": ("search", {"query": "quokka", "maxPassages": 1}),
    "search-error": ("search", {"query": "(lease"}),
    "search-unknown-field": ("search", {"query": "year:2024"}),
    "stats": ("getIndexStats", {}),
    "fields": ("listIndexedFields", {}),
    "details": ("getDocumentDetails", {"filePath": "@corpus/arbeitsvertrag.txt", "length": 200}),
}
VOLATILE = {
    "searchTimeMs",
    "indexedDate",
    "indexed_date",
    "sizeBytes",
    "indexPath",
    "deletedDocuments",
}


@pytest.fixture
async def client(index: Index) -> AsyncIterator[Client]:
    async with connect(index) as connected:
        yield connected


def _stable(value: Any, corpus: str) -> Any:
    if isinstance(value, dict):
        return {
            k: ("<volatile>" if k in VOLATILE else _stable(v, corpus)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [_stable(v, corpus) for v in value]
    if isinstance(value, str):
        return value.replace(corpus, "@corpus")
    if isinstance(value, float):
        return round(value, 3)
    return value


@pytest.mark.parametrize("name", sorted(CALLS))
async def test_each_read_tool_answers_as_recorded(
    client: Client, corpus_dir: Path, name: str
) -> None:
    tool, arguments = CALLS[name]
    corpus = str(corpus_dir)
    arguments = json.loads(json.dumps(arguments).replace("@corpus", corpus))
    result = await client.call_tool(tool, arguments)
    answer = {
        "isError": bool(result.is_error),
        "text": result.content[0].text if result.is_error else None,  # type: ignore[union-attr]
        "structured": result.structured_content,
    }
    got = _stable(answer, corpus)
    path = GOLDEN / f"{name}.json"
    if os.environ.get("PYLUCENE_MCP_UPDATE_GOLDEN"):
        path.write_text(json.dumps(got, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        # a regenerated answer is compared with nothing: it is not reported as a pass
        pytest.skip(f"regenerated {path.name}: review its diff, then run without the variable")
    expected = json.loads(path.read_text(encoding="utf-8"))
    assert got == expected
