"""Calling tools through the SDK's client in tests: results that must succeed or must fail."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from typing import Any

from mcp import Client

from pylucene_mcp import Index
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.service.service import Service


class SharedService(Service):
    """A service over an index a fixture owns (the fixture closes it), so that the tools and
    the test see the same corpus."""

    def __init__(self, index: Index, settings: Settings | None = None) -> None:
        super().__init__(settings or Settings(index_path=index.path))
        self._index = index

    def close(self) -> None:
        pass


@contextlib.asynccontextmanager
async def connect(index: Index, **settings: Any) -> AsyncIterator[Client]:
    """The SDK's in-memory client of a server over ``index`` (which the caller keeps open),
    with ``settings`` (``Settings`` fields) besides the index path."""
    from pylucene_mcp.server.app import build_server

    chosen = Settings(index_path=index.path, **settings)
    async with Client(build_server(chosen, SharedService(index, chosen))) as c:
        yield c


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
