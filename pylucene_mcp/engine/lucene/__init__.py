"""The embedded index: Lucene in this process's JVM
(:class:`~pylucene_mcp.engine.lucene.embedded.EmbeddedBackend` over
:class:`~pylucene_mcp.engine.lucene.index.LuceneIndex`: the writer, near-real-time searchers,
file states, the folder's lock), its one-call search, and its answers to the core's
primitives."""
