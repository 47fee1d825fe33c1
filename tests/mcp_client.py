"""Calling tools through the SDK's client in tests: results that must succeed or must fail."""

from __future__ import annotations

from typing import Any

from mcp import Client


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """The structured result of a call that must succeed."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return result.structured_content


async def error(client: Client, tool: str, **arguments: Any) -> str:
    """The message of a call that must fail."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error
    return result.content[0].text  # type: ignore[union-attr]
