"""The engine's one interface: what the service, the MCP tools, the command line and the crawler
ask of an index, and the data it answers with.

``Backend`` is a :class:`~typing.Protocol`: an implementation need not inherit from it. The
embedded Lucene index (:class:`~pylucene_mcp.engine.lucene.embedded.EmbeddedBackend`) is
the first; a remote one (:class:`~pylucene_mcp.engine.solr.backend.SolrBackend`, a SolrCloud
collection) is the second. Nothing above the engine imports its other modules:
``tests/test_architecture.py`` allows the layers above only this one (and the service the module
that builds the embedded index), and ``tests/contract/`` runs the same contract tests against
every implementation.

The answers are the engine's data types, re-exported here so that a caller names them from the
interface: a search page (:class:`SearchResult`), counts, details, explanations, profiles,
vocabulary, statistics, and the crawler's :class:`FileState`.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import PurePath
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from pylucene_mcp.engine.core import limits

if TYPE_CHECKING:
    from pylucene_mcp.engine.core.counts import RangeFacet
    from pylucene_mcp.engine.core.cursors import MAX_CHARS as MAX_CURSOR_CHARS
    from pylucene_mcp.engine.core.documents import FileState, content_hash, to_epoch_millis
    from pylucene_mcp.engine.core.explain import DocumentExplanation
    from pylucene_mcp.engine.core.filters import Filter
    from pylucene_mcp.engine.core.info import DocumentDetails, FieldInfo, IndexStats, StoredDocument
    from pylucene_mcp.engine.core.miss import MissExplanation, SemanticMiss
    from pylucene_mcp.engine.core.probe import Probe
    from pylucene_mcp.engine.core.profile import QueryProfile, SemanticProfile
    from pylucene_mcp.engine.core.quotes import QuoteLocations
    from pylucene_mcp.engine.core.readable import Readable
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.engine.core.results import (
        FacetValue,
        RangeBucket,
        SearchResult,
    )
    from pylucene_mcp.engine.core.semantic import VectorStore
    from pylucene_mcp.engine.core.vocabulary import DuplicateGroup, Duplicates, TermCount, TermList

#: where each re-exported name lives: imported on first use (PEP 562), so that a module that only
#: names the protocol (the server's start, before tools/list) loads none of the engine's data types
_HOMES = {
    "RangeFacet": "counts",
    "MAX_CURSOR_CHARS": ("cursors", "MAX_CHARS"),
    "FileState": "documents",
    "content_hash": "documents",
    "to_epoch_millis": "documents",
    "DocumentExplanation": "explain",
    "Filter": "filters",
    "DocumentDetails": "info",
    "FieldInfo": "info",
    "IndexStats": "info",
    "StoredDocument": "info",
    "MissExplanation": "miss",
    "SemanticMiss": "miss",
    "Probe": "probe",
    "QueryProfile": "profile",
    "SemanticProfile": "profile",
    "QuoteLocations": "quotes",
    "Readable": "readable",
    "SearchRequest": "request",
    "FacetValue": "results",
    "RangeBucket": "results",
    "SearchResult": "results",
    "VectorStore": "semantic",
    "DuplicateGroup": "vocabulary",
    "Duplicates": "vocabulary",
    "TermCount": "vocabulary",
    "TermList": "vocabulary",
}


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module, attribute = home if isinstance(home, tuple) else (home, name)
    value = getattr(importlib.import_module(f"pylucene_mcp.engine.core.{module}"), attribute)
    globals()[name] = value
    return value


__all__ = [
    "MAX_CURSOR_CHARS",
    "Backend",
    "BackendWriter",
    "DocumentDetails",
    "DocumentExplanation",
    "Duplicates",
    "FacetValue",
    "FieldInfo",
    "FileState",
    "Filter",
    "FilterInput",
    "IndexStats",
    "MissExplanation",
    "QueryProfile",
    "QuoteLocations",
    "Readable",
    "SemanticProfile",
    "VectorStore",
    "RangeBucket",
    "RangeFacet",
    "SearchRequest",
    "SearchResult",
    "TermList",
    "content_hash",
    "limits",
    "to_epoch_millis",
]

FilterInput: TypeAlias = "Sequence[Filter | Mapping[str, Any]]"
"""Filters as :class:`Filter` objects or as the tools' mappings (``field``, ``operator`` …)."""


class BackendWriter(Protocol):
    """The changes of one block of writes (see :meth:`Backend.writer`): seen together by
    searches once the block ends, or not at all when it raises."""

    def add(self, doc: Mapping[str, Any]) -> None:
        """Adds or replaces the document whose ``file_path`` is ``doc["file_path"]``."""

    def add_many(self, docs: Iterable[Mapping[str, Any]]) -> int:
        """Adds or replaces each of ``docs`` as :meth:`add` does, in as few calls into the
        index as it allows (a crawl's block of files); returns how many. On an error, the
        documents before the refused one may be in."""

    def delete(self, file_path: str | PurePath) -> None:
        """Deletes the document of ``file_path`` (none is fine)."""

    def delete_under(self, folder: str, keep: Sequence[str] = ()) -> None:
        """Deletes every document whose ``file_path`` lies below ``folder``, but for those
        below one of the folders ``keep`` (folders inside it that stay crawled)."""

    def delete_outside(self, folders: Sequence[str]) -> None:
        """Deletes every document whose ``file_path`` lies below none of ``folders``."""

    def touch(self, file_path: str | PurePath, mtime_ms: int) -> None:
        """Records that the file was seen unchanged at ``mtime_ms`` (no new analysis)."""

    def set_readers(self, file_path: str | PurePath, readers: Sequence[str]) -> None:
        """Records who may read the file ``file_path`` now (principals), without a new
        analysis; only where the backend :attr:`~Backend.records_readers`."""

    def delete_all(self) -> None:
        """Deletes every document."""


class Backend(Protocol):
    """An index as the layers above the engine use it. Every method raises the errors of
    :mod:`pylucene_mcp.basics.errors` (``InvalidRequestError`` for the caller's mistakes,
    ``DocumentNotFoundError``, ``SearchTimeoutError`` …), whatever the implementation."""

    # -- identity and lifetime --------------------------------------------------------------

    @property
    def identity(self) -> str:
        """What the index is, as one text that no other index has (a folder's real path, a
        collection and its nodes): what a cursor and the crawler's list of failed files belong
        to."""

    def __len__(self) -> int:
        """The number of documents that searches see now."""

    @property
    def shared(self) -> bool:
        """Whether other configurations write this index too (a SolrCloud collection that
        several people's servers crawl into): a crawl then leaves alone the documents that
        its folders do not cover, where it removes them from an index of its own."""

    @property
    def needs_reindex(self) -> bool:
        """Whether the documents were written with another schema version."""

    def mark_schema_current(self) -> None:
        """Records that every document has been written with this schema version."""

    def close(self) -> None:
        """Commits what is pending and releases the index."""

    @property
    def records_readers(self) -> bool:
        """Whether the crawler records who may read a file (its owner, group and mode) in this
        index, for the views of :meth:`viewed`."""

    def viewed(self, readable: Readable | Sequence[str]) -> Backend | None:
        """The index as a reader of the documents of ``readable`` (or below the folders
        ``readable``) alone sees it, for every read question (counts, terms, scores and
        explanations as an index of those documents alone would give them); None where the
        backend has no such view (then only a search is trimmed, by ``SearchRequest.within``)."""

    # -- searching --------------------------------------------------------------------------

    def search(self, request: SearchRequest) -> SearchResult:
        """One page of hits for ``request`` with the facet counts of the whole match, and the
        counts of its facet queries and range facets among the hits (within the same time
        limit)."""

    def facet_counts(
        self,
        query: str,
        *,
        filters: FilterInput = (),
        facet_queries: Mapping[str, str] | None = None,
        range_facets: Sequence[RangeFacet | Mapping[str, Any]] = (),
        default_operator: str = "AND",
        word_forms: bool = True,
        timeout_s: float = 0.0,
    ) -> tuple[dict[str, int], dict[str, list[RangeBucket]], bool]:
        """Counts of named sub-queries and of range buckets within the match of ``query``; the
        last item says whether the time limit cut them short."""

    def document_details(
        self,
        file_path: str,
        *,
        offset: int = 0,
        length: int = 5000,
        query: str | None = None,
        default_operator: str = "AND",
        word_forms: bool = True,
    ) -> DocumentDetails:
        """One document's stored fields and a slice of its text; with ``query``, the query's
        matches over the whole text (as its passages mark them) and the page starts."""

    def locate_quote(
        self,
        quote: str,
        *,
        file_path: str | None = None,
        filters: FilterInput = (),
        min_similarity: float = 0.8,
        max_results: int = 5,
        within: Any | None = None,
    ) -> QuoteLocations:
        """Every place where ``quote`` stands (exactly, normalized or nearly), best first;
        written once for every backend over its search and stored documents
        (:func:`~pylucene_mcp.engine.core.quotes.locate_quote`)."""

    def stored_document(self, file_path: str) -> StoredDocument:
        """The document of ``file_path`` as the index stored it: what ``document_details``,
        written once for every backend (:func:`~pylucene_mcp.engine.core.info.document_details`),
        asks of each.

        Raises:
            DocumentNotFoundError: when no indexed document has that path.
        """

    def explain(
        self, query: str, file_path: str, *, default_operator: str = "AND"
    ) -> DocumentExplanation:
        """How ``query`` scores the document of ``file_path``, term by term."""

    def profile_query(
        self,
        query: str,
        *,
        filters: FilterInput = (),
        default_operator: str = "AND",
        analyze_filter_impact: bool = False,
        analyze_document_scoring: bool = False,
        analyze_facet_cost: bool = False,
        max_doc_explanations: int = 3,
    ) -> QueryProfile:
        """What ``query`` becomes, what its terms cost, and what each filter removes."""

    def explain_miss(
        self,
        query: str,
        file_path: str,
        *,
        filters: FilterInput = (),
        default_operator: str = "AND",
    ) -> MissExplanation:
        """Why the document of ``file_path`` is not among the hits of ``query``."""

    def semantic_miss(self, path: str, request: SearchRequest) -> SemanticMiss:
        """What a semantic search of ``request`` (its vector, threshold and filters) makes of
        the document ``path`` (explainMiss with vectors on): its best chunk's similarity,
        whether that reaches the threshold, its rank by similarity.

        Raises:
            InvalidRequestError: with vectors off (:meth:`keep_vectors` not called).
        """

    def content_version(self) -> Any:
        """What changes whenever the documents do (the embedder's cue to reconcile)."""

    def content_hashes(self) -> dict[str, str | None]:
        """The content hash of every document, by path (what its chunks are made from)."""

    def keep_vectors(self, model: str) -> VectorStore:
        """The chunks and vectors of this index's documents, made with ``model`` (those made
        with another are made again by the embedder), opened once (docs/semantic.md)."""

    def probe(self) -> AbstractContextManager[Probe]:
        """The index as the diagnostics ask it, at one point in time, for a ``with`` block:
        what ``profile_query`` and ``explain_miss``, written once for every backend
        (:mod:`~pylucene_mcp.engine.core.profile`, :mod:`~pylucene_mcp.engine.core.miss`), ask
        of each."""

    # -- vocabulary and statistics ----------------------------------------------------------

    def suggest_terms(self, name: str, prefix: str = "", limit: int = 20) -> TermList:
        """The terms of field ``name`` that start with ``prefix``, most frequent first."""

    def top_terms(self, name: str, limit: int = 20, skip_common: bool = False) -> TermList:
        """The most frequent terms of field ``name``; with ``skip_common``, leaving out stop
        words of English and German, numbers and single letters."""

    def term_counts(
        self, name: str, prefix: str | None, limit: int
    ) -> tuple[list[TermCount], int, bool]:
        """The at most ``limit`` terms of ``name`` with the most documents (starting with
        ``prefix``; None: any), how many terms were read, and whether that was all: what
        ``suggest_terms`` and ``top_terms``, written once for every backend
        (:mod:`~pylucene_mcp.engine.core.vocabulary`), ask of each."""

    def find_duplicates(
        self,
        min_group_size: int = 2,
        directory: str | None = None,
        page: int = 1,
        page_size: int = 10,
    ) -> Duplicates:
        """Groups of documents with the same text, largest first."""

    def duplicate_groups(
        self, min_group_size: int, under: str, offset: int, size: int
    ) -> tuple[int, list[DuplicateGroup], int]:
        """The groups of documents with the same text below ``under``: their number, ``size``
        of them from ``offset``, and how many documents have no text: what
        ``find_duplicates``, written once for every backend
        (:func:`~pylucene_mcp.engine.core.vocabulary.find_duplicates`), asks of each."""

    def index_stats(self) -> IndexStats:
        """Counts, sizes, languages, types and dates of the whole index."""

    def field_infos(self) -> tuple[FieldInfo, ...]:
        """Every field: its kind, what it is for, and how to query it."""

    # -- writing (the crawler) --------------------------------------------------------------

    def writer(self) -> AbstractContextManager[BackendWriter]:
        """A block of writes, committed when it ends, rolled back when it raises."""

    def file_states(self, roots: Sequence[str]) -> dict[str, FileState]:
        """What the index holds for the files below the folders ``roots``, by path."""

    def file_states_of(self, paths: Iterable[str]) -> dict[str, FileState]:
        """What the index holds for the files ``paths`` (those it has), by path."""

    @property
    def refresh_interval_s(self) -> float:
        """How often searches are refreshed to see new writes."""

    def set_refresh_interval(self, seconds: float) -> None:
        """Sets :attr:`refresh_interval_s` (longer during a bulk crawl)."""

    def refresh(self) -> None:
        """Makes every committed write visible to searches now."""

    # -- administration ---------------------------------------------------------------------

    def optimize(self, max_segments: int = 1) -> int:
        """Merges the index down to at most ``max_segments``; returns the number left."""

    def purge(self) -> int:
        """Removes deleted documents for good; returns how many there were."""
