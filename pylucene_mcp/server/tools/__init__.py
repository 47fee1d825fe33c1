"""The MCP faces, one module per tool group: thin functions that validate, call the service and
shape the result. ``pylucene_mcp.server.app`` assembles them into one server."""
