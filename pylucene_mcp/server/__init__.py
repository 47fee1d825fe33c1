"""The MCP face: the server and its tools, the stdio protocol gate, the MCP Apps."""
