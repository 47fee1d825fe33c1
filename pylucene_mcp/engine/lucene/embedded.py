"""The embedded Lucene index as a :class:`~pylucene_mcp.engine.core.backend.Backend`: the index in
this process's JVM (:class:`~pylucene_mcp.engine.lucene.index.LuceneIndex`: writer, near-real-time
searchers, file states) with the engine's queries as its methods.

Each method is the engine's function of the same name, taking this index as its first argument
(so the module that defines a query keeps its one definition, and the engine's arrows keep
running from the queries to the index, never back). Only the service layer builds one
(:class:`pylucene_mcp.service.places.Folder`); the public Python API's ``Index`` is one.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from pylucene_mcp.engine.core.shared import SharedQuestions
from pylucene_mcp.engine.lucene import explain, index, index_lock, probe
from pylucene_mcp.engine.lucene import info as lucene_info
from pylucene_mcp.engine.lucene import search as searching
from pylucene_mcp.engine.lucene import vocabulary as lucene_terms
from pylucene_mcp.engine.lucene.index_lock import Owner

__all__ = ["EmbeddedBackend", "Owner"]


class EmbeddedBackend(index.LuceneIndex, SharedQuestions):
    """An index on disk, in this process: everything a :class:`Backend` offers, and the raw
    Lucene objects (``searcher()``, ``searchers``) for those who want them. The questions both
    backends answer alike come from :class:`SharedQuestions`; here are this one's own."""

    search = searching.search
    #: vectors on: what the semantic path makes of one document (explainMiss)
    semantic_miss = searching.semantic_miss
    explain = explain.explain
    index_stats = lucene_info.index_stats
    field_infos = lucene_info.field_infos
    # what the methods written once for every backend ask of this one
    stored_document = lucene_info.stored_document
    duplicate_groups = lucene_terms.duplicate_groups
    term_counts = lucene_terms.term_counts
    probe = probe.lucene_probe

    # -- the lock of an index folder, which only an embedded index has --------------------

    @staticmethod
    def holder(folder: Path) -> Owner | None:
        """The process recorded as the writer of the index in ``folder``, if any."""
        return index_lock.holder(folder)

    @staticmethod
    def wipe(folder: Path) -> None:
        """Removes the index in ``folder`` without opening it (a corrupt index cannot be) and
        leaves the folder empty (see :func:`pylucene_mcp.engine.lucene.index_lock.wipe`)."""
        index_lock.wipe(folder)

    @staticmethod
    def unlock(folder: Path) -> str:
        """Removes the write lock of ``folder`` when no live process holds it; says what was
        done (see :func:`pylucene_mcp.engine.lucene.index_lock.unlock`)."""
        return index_lock.unlock(folder)


if TYPE_CHECKING:  # mypy checks here that the embedded index is a whole Backend
    from pylucene_mcp.engine.core.backend import Backend

    def _is_a_backend(embedded: EmbeddedBackend) -> Backend:
        return embedded
