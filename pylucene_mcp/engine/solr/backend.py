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
from collections.abc import Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

import pylucene_mcp.engine.solr.configset as configset
import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.engine.core.documents import FileState
from pylucene_mcp.engine.core.explain import DocumentExplanation, explanation_of
from pylucene_mcp.engine.core.info import FieldInfo, IndexStats, StoredDocument
from pylucene_mcp.engine.core.miss import SemanticMiss
from pylucene_mcp.engine.core.probe import Probe
from pylucene_mcp.engine.core.query import parse_query
from pylucene_mcp.engine.core.readable import Readable
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.core.results import SearchResult
from pylucene_mcp.engine.core.shared import SharedQuestions
from pylucene_mcp.engine.core.vocabulary import DuplicateGroup, TermCount
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from pylucene_mcp.engine.solr.collection import SolrCollection
from pylucene_mcp.engine.solr.probe import SolrProbe
from pylucene_mcp.engine.solr.searching import SolrSearch
from pylucene_mcp.engine.solr.statistics import SolrStatistics
from pylucene_mcp.engine.solr.vectors import SolrVectorStore
from pylucene_mcp.engine.solr.writing import SCHEMA_VERSION_FIELD, SolrWriter, SolrWrites


class SolrBackend(SharedQuestions):
    """A SolrCloud collection: everything a
    :class:`~pylucene_mcp.engine.core.backend.Backend` offers (what Solr cannot give is said
    where it is left out; docs/scale-out.md). Its parts are objects of their own, one seam
    each, given what they use: the search (:class:`~pylucene_mcp.engine.solr.searching.SolrSearch`),
    writing and administration (:class:`~pylucene_mcp.engine.solr.writing.SolrWrites`),
    vocabulary and statistics (:class:`~pylucene_mcp.engine.solr.statistics.SolrStatistics`);
    this class holds identity and lifetime, one document, and hands each question to its part
    (those the core writes once, :class:`~pylucene_mcp.engine.core.shared.SharedQuestions`,
    over them)."""

    def __init__(self, settings: SolrSettings, *, refresh_interval_s: float = 1.0) -> None:
        self.settings = settings
        self.client = SolrClient(settings)
        self.collection = SolrCollection(self.client)
        self.vectors: SolrVectorStore | None = None
        self._vectors_lock = threading.Lock()
        self._search = SolrSearch(
            self.collection, self.identity, lambda: self.vectors, self.stored_document
        )
        self._writes = SolrWrites(settings, self.client, self.collection, refresh_interval_s)
        self._statistics = SolrStatistics(settings, self.client, self.collection)

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

    # -- searching (searching.py) -----------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResult:
        return self._search.search(request)

    def semantic_miss(self, path: str, request: SearchRequest) -> SemanticMiss:
        return self._search.semantic_miss(path, request)

    # -- one document -----------------------------------------------------------------------

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

    @contextlib.contextmanager
    def probe(self) -> Iterator[Probe]:
        """The collection as the diagnostics ask it; the facet cost, which Solr does not break
        down, is left out of a profile."""
        yield SolrProbe(self.collection)

    # -- vocabulary and statistics (statistics.py) ------------------------------------------

    def term_counts(
        self, name: str, prefix: str | None, limit: int
    ) -> tuple[list[TermCount], int, bool]:
        return self._statistics.term_counts(name, prefix, limit)

    def duplicate_groups(
        self, min_group_size: int, under: str, offset: int, size: int
    ) -> tuple[int, list[DuplicateGroup], int]:
        return self._statistics.duplicate_groups(min_group_size, under, offset, size)

    def index_stats(self) -> IndexStats:
        return self._statistics.index_stats(self.location, self.needs_reindex)

    def field_infos(self) -> tuple[FieldInfo, ...]:
        return self._statistics.field_infos()

    # -- writing for the crawler, and the administration's optimize and purge (writing.py) ---

    def writer(self) -> AbstractContextManager[SolrWriter]:
        return self._writes.writer()

    def file_states(self, roots: Sequence[str]) -> dict[str, FileState]:
        return self._writes.file_states(roots)

    def file_states_of(self, paths: Iterable[str]) -> dict[str, FileState]:
        return self._writes.file_states_of(paths)

    def content_hashes(self) -> dict[str, str | None]:
        return self._writes.content_hashes()

    def content_version(self) -> str:
        return self._writes.content_version()

    @property
    def refresh_interval_s(self) -> float:
        return self._writes.refresh_interval_s

    def set_refresh_interval(self, seconds: float) -> None:
        self._writes.set_refresh_interval(seconds)

    def optimize(self, max_segments: int = 1) -> int:
        return self._writes.optimize(max_segments)

    def purge(self) -> int:
        return self._writes.purge()

    def refresh(self) -> None:
        self._writes.refresh()


if TYPE_CHECKING:  # mypy checks here that the collection is a whole Backend
    from pylucene_mcp.engine.core.backend import Backend

    def _is_a_backend(solr: SolrBackend) -> Backend:
        return solr
