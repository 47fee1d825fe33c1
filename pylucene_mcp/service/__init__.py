"""The service: one index, its crawler and watcher, the admin operations, for
the faces above (MCP, CLI, Python API).
"""
