"""The reference of ``bench/startup.py``: a bare ``MCPServer`` of the same SDK with one tool,
served over stdio the SDK's own way. Accepts and ignores the arguments ``serve --index PATH``."""

from __future__ import annotations

from mcp.server.mcpserver import MCPServer

server = MCPServer(name="bare", instructions="A bare server: one tool.")


@server.tool()
def echo(text: str) -> str:
    """Returns ``text``."""
    return text


if __name__ == "__main__":
    server.run("stdio")
