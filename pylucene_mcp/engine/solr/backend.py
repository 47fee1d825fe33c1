"""A SolrCloud collection as a :class:`~pylucene_mcp.engine.core.backend.Backend`: the same
tools, the same answers, with the index sharded and replicated over a cluster (docs/scale-out.md).

What runs where:

- A query is parsed and analysed here, by the same parser and analyzers as the embedded index
  (:func:`~pylucene_mcp.engine.core.query.parse_query`), and sent as the JSON of the Lucene query it
  became (``PortableQuery``); the product's Solr plugin (``defType=pylucene``) builds that query
  again on every shard. User text never reaches a Solr query parser or local params: filters,
  facet queries and range buckets are such JSON too, and the only local params are the
  product's own (``{!pylucene tag=…}``).
- Facets with DrillSideways semantics are the JSON Facet API with tagged filters: a facet
  dimension's own filter is excluded from its counts (``excludeTags``), so it still shows its
  other values. Each filter's ``matchCount`` is a query facet over the query alone.
- Scores are Solr's BM25 with exact distributed statistics (``ExactStatsCache``), so a sharded
  collection ranks as one index does; ties go by the file path.
- Passages come from the hits' stored text, highlighted here by the embedded index's own
  highlighter over an index in memory of the page's documents
  (``Pages.storedPage``): the same passages, with the page's statistics instead of the
  collection's.
- Writes are buffered for a block and sent when it ends, then committed: a block that raises
  sends nothing (Solr's cloud mode has no rollback; a block cut short between two of its
  requests keeps the part that was sent).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import pylucene_mcp.engine.solr.configset as configset
import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine.core import info, miss, profile, quotes, request, vocabulary
from pylucene_mcp.engine.core.explain import DocumentExplanation, explanation_of
from pylucene_mcp.engine.core.info import StoredDocument
from pylucene_mcp.engine.core.probe import Probe
from pylucene_mcp.engine.core.query import parse_query
from pylucene_mcp.engine.core.readable import Readable
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from pylucene_mcp.engine.solr.collection import SolrCollection
from pylucene_mcp.engine.solr.probe import SolrProbe
from pylucene_mcp.engine.solr.searching import Searching
from pylucene_mcp.engine.solr.statistics import Statistics
from pylucene_mcp.engine.solr.vectors import SolrVectorStore
from pylucene_mcp.engine.solr.writing import SCHEMA_VERSION_FIELD, Writing


class SolrBackend(Searching, Writing, Statistics):
    """A SolrCloud collection: everything a
    :class:`~pylucene_mcp.engine.core.backend.Backend` offers (what Solr cannot give is said
    where it is left out; docs/scale-out.md). Its parts are modules of their own, one seam
    each: the search (:mod:`~pylucene_mcp.engine.solr.searching`), writing and administration
    (:mod:`~pylucene_mcp.engine.solr.writing`), vocabulary and statistics
    (:mod:`~pylucene_mcp.engine.solr.statistics`); this class holds identity and lifetime, one
    document, and the questions the core writes once."""

    def __init__(self, settings: SolrSettings, *, refresh_interval_s: float = 1.0) -> None:
        self.settings = settings
        self.client = SolrClient(settings)
        self.collection = SolrCollection(self.client)
        self._refresh_interval_s = refresh_interval_s
        self.vectors: SolrVectorStore | None = None
        self._vectors_lock = threading.Lock()

    @classmethod
    def open(cls, settings: SolrSettings, *, refresh_interval_s: float = 1.0) -> SolrBackend:
        """The backend of ``settings``' collection, once the cluster says it exists.

        Raises:
            RemoteIndexError: when no node answers or the collection does not exist.
        """
        backend = cls(settings, refresh_interval_s=refresh_interval_s)
        try:
            if settings.collection not in configset.collections(backend.client):
                raise errors.RemoteIndexError(
                    f"the collection '{settings.collection}' does not exist in the cluster at "
                    f"{', '.join(settings.urls)}: run `pylucene-mcp solr init`, or set "
                    "solr_collection (PYLUCENE_MCP_SOLR_COLLECTION) to an existing one"
                )
        except BaseException:
            backend.client.close()
            raise
        return backend

    # -- identity and lifetime --------------------------------------------------------------

    #: a collection that several people's servers may crawl into (docs/scale-out.md): a crawl
    #: leaves alone what its folders do not cover
    shared = True

    @property
    def identity(self) -> str:
        return f"solr:{self.settings.collection}@{','.join(sorted(self.settings.urls))}"

    @property
    def location(self) -> str:
        """The collection as a person names it: its first node's URL and its name."""
        return f"{self.client.urls[0]}/{self.settings.collection}"

    def __len__(self) -> int:
        return self.collection.count(nodes.ALL)

    @property
    def needs_reindex(self) -> bool:
        """Whether a document was written with another schema version (each records its own)."""
        version = nodes.longs(SCHEMA_VERSION_FIELD, schema.SCHEMA_VERSION, schema.SCHEMA_VERSION)
        return self.collection.count(nodes.without(version)) > 0

    def mark_schema_current(self) -> None:
        """Nothing to record: each document carries the schema version it was written with."""

    def close(self) -> None:
        if self.vectors is not None:
            self.vectors.close()
            self.vectors = None
        self.client.close()

    def keep_vectors(self, model: str) -> SolrVectorStore:
        """The chunks and vectors of this collection's documents (made with ``model``; made
        again when they were made with another), in a collection beside it, created when the
        cluster lacks it (docs/semantic.md)."""
        with self._vectors_lock:  # the first searches open them once between them
            if self.vectors is None:
                self.vectors = SolrVectorStore(self.settings, model)
            return self.vectors

    def viewed(self, readable: Readable | Sequence[str]) -> None:
        """None: a collection has no view of some folders yet (Solr's statistics are the
        whole collection's); a search is trimmed by its request's ``within``."""
        return None

    @property
    def records_readers(self) -> bool:
        """False: a collection does not record who may read a file; a restricted caller reads
        the folders the configuration's ``readers`` gives it."""
        return False

    # -- searching (the search itself: searching.py) ---------------------------------------

    facet_counts = request.facet_counts

    # -- one document -----------------------------------------------------------------------

    document_details = info.document_details
    locate_quote = quotes.locate_quote

    def stored_document(self, file_path: str) -> StoredDocument:
        stored = self.collection.stored(file_path)
        fields: dict[str, Any] = {}
        for name, value in stored.items():
            if name in (schema.CONTENT, schema.PAGE_OFFSETS) or name not in schema.FIELDS:
                continue
            values = value if isinstance(value, list) else [value]
            if name in schema.DATE_FIELDS:
                values = [schema.iso(int(v)) for v in values]
            fields[name] = values[0] if len(values) == 1 else values
        pages = stored.get(schema.PAGE_OFFSETS)
        content = str(stored.get(schema.CONTENT) or "")
        return StoredDocument(
            str(stored[schema.FILE_PATH]), fields, content, str(pages) if pages else None
        )

    def explain(
        self, query: str, file_path: str, *, default_operator: str = "AND"
    ) -> DocumentExplanation:
        """How ``query`` scores the document, from Solr's structured explanation (the same
        tree as Lucene's, with the collection's statistics)."""
        parsed = parse_query(query, default_operator)
        path = str(self.collection.stored(file_path, "file_path")[schema.FILE_PATH])
        node = self.collection.ranked(nodes.portable_query(parsed.match_query))
        tree = self.collection.explanation(node, path)
        return explanation_of(tree, path, query)

    profile_query = profile.profile_query
    explain_miss = miss.explain_miss

    @contextlib.contextmanager
    def probe(self) -> Iterator[Probe]:
        """The collection as the diagnostics ask it; the facet cost, which Solr does not break
        down, is left out of a profile."""
        yield SolrProbe(self.collection)

    # -- vocabulary and statistics (their primitives and the statistics: statistics.py) ------

    suggest_terms = vocabulary.suggest_terms
    top_terms = vocabulary.top_terms
    find_duplicates = vocabulary.find_duplicates

    # writing for the crawler, and the administration's optimize and purge: writing.py


if TYPE_CHECKING:  # mypy checks here that the collection is a whole Backend
    from pylucene_mcp.engine.core.backend import Backend

    def _is_a_backend(solr: SolrBackend) -> Backend:
        return solr
