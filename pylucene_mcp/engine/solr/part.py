"""What each part of :class:`~pylucene_mcp.engine.solr.backend.SolrBackend` (its search, its
writing, its statistics: a module each) may use of the whole, declared once for the type
checker; the backend sets them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pylucene_mcp.engine.core.info import StoredDocument
    from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
    from pylucene_mcp.engine.solr.collection import SolrCollection
    from pylucene_mcp.engine.solr.vectors import SolrVectorStore


class Part:
    """A part of the backend: its settings, client and collection, its refresh interval, and
    what it says of itself."""

    if TYPE_CHECKING:
        settings: SolrSettings
        client: SolrClient
        collection: SolrCollection
        _refresh_interval_s: float
        #: the chunks and their vectors (None: vectors off; docs/semantic.md)
        vectors: SolrVectorStore | None

        @property
        def identity(self) -> str: ...

        @property
        def location(self) -> str: ...

        @property
        def needs_reindex(self) -> bool: ...

        def stored_document(self, file_path: str) -> StoredDocument: ...
