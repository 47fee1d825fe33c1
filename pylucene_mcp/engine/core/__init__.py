"""The engine's core: the :class:`~pylucene_mcp.engine.core.backend.Backend` protocol, its
data types, the query model (the classic syntax parsed in the shim, filters, facets and counts,
cursors, passages) and the questions both backends answer the same way, each written once over
the primitives a backend gives (``stored_document``, ``probe``, ``term_counts``,
``duplicate_groups``). It imports neither backend: ``tests/test_architecture.py`` says so."""
