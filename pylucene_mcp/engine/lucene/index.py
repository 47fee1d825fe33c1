"""``LuceneIndex``: a Lucene index on disk with one writer, near-real-time searchers and the schema.

    >>> index = LuceneIndex.open("/tmp/idx", create=True)                  # doctest: +SKIP
    >>> with index.writer() as w:                                    # doctest: +SKIP
    ...     w.add({"file_path": "/docs/a.txt", "content": "Arbeitsvertrag"})
    >>> search(index, "*vertrag").total_hits                         # doctest: +SKIP
    1

(``pylucene_mcp.Index``, the public API's, has ``index.search(...)`` too.)

A ``writer()`` block commits when it ends and rolls back when it raises. Searches use a
``SearcherManager`` refreshed in the background every ``refresh_interval_s`` (and at once after a
commit made through ``writer()``), so they never wait for writes.

An index opened ``read_only`` takes no lock: any number of processes search it beside the one
that writes it, each seeing that writer's commits within ``refresh_interval_s``, and one of them
can take the writer over when the writer has let go (:meth:`LuceneIndex.become_writer`).
"""

from __future__ import annotations

import contextlib
import copy
import logging
import os
import threading
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Self

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.private import private_dir
from pylucene_mcp.engine.core import analysis, documents, limits, query
from pylucene_mcp.engine.core.documents import FileState
from pylucene_mcp.engine.core.readable import Readable
from pylucene_mcp.engine.lucene import file_states, index_lock, refreshing
from pylucene_mcp.engine.lucene.queries import visible
from pylucene_mcp.engine.lucene.vectors import LuceneVectorStore, folder_of
from pylucene_mcp.engine.lucene.writer import Writer

log = logging.getLogger(__name__)
#: the views of the index (one per set of readable folders) kept at once
MAX_VIEWS = 32

#: the threads a batch of documents is analysed and indexed on (``Writer.add_many``)
INDEXING_THREADS = min(os.cpu_count() or 1, 8)
#: the memory the writer buffers new documents in before it writes a segment: Lucene's default
#: (16 MB) makes many small segments that merges then rewrite, and this indexes faster
#: (``bench/indexing.py``; docs/performance.md). Used only while documents are being added, and
#: at most a quarter of the JVM's heap (``max_heap``).
INDEXING_BUFFER_MB = 128.0


def _java_path(path: Path) -> Any:
    return jvm.jclass("java.nio.file.Paths").get(str(path), jvm.jarray("String", []))


class LuceneIndex:
    """A Lucene index directory opened for reading and writing.

    The raw Lucene objects are there for those who want them: ``index.java_writer`` (the
    ``IndexWriter``), ``index.directory`` and, inside ``with index.searcher() as s``, the
    ``IndexSearcher``.
    """

    def __init__(
        self, path: Path, refresh_interval_s: float = 1.0, read_only: bool = False
    ) -> None:
        self.path = path
        self.refresh_interval_s = refresh_interval_s
        self.read_only = read_only
        self._writer: Any = None
        self.java_writer: Any = None
        self._reopener: Any = None
        #: the writer could not be opened again after an error: searches go on, on the last
        #: searcher, and the next block of changes tries again
        self._stalled = False
        self._following: threading.Event | None = None  # set: stop following the commits
        self._commit_schema_version = schema.SCHEMA_VERSION
        self._write_lock = threading.RLock()
        self._views: dict[Readable, Self] = {}
        self._views_lock = threading.Lock()  # not the write lock: a crawl's writes hold that
        self._generation = 0  # how many writers this index has opened (a view is of one)
        #: the folders a view shows (None: the whole index)
        self.visible_to: tuple[str, ...] | None = None
        #: the chunks of the documents with their vectors (None: vectors off; docs/semantic.md)
        self.vectors: LuceneVectorStore | None = None
        self._vectors_lock = threading.Lock()  # the first searches open them once between them
        jvm.start()
        with jvm.java_errors():
            self.directory = jvm.jclass("org.apache.lucene.store.FSDirectory").open(
                _java_path(path)
            )
            self.facets_config = documents.make_facets_config()
            on_disk = self.schema_version
            if on_disk is not None:
                self._commit_schema_version = on_disk
            self.snapshots = _snapshots()
            if read_only:
                self._manager = jvm.jclass("org.apache.lucene.search.SearcherManager")(
                    self.directory, None
                )
                self._follow_commits()
            else:
                try:
                    self._open_writer()
                except Exception as exc:
                    self.directory.close()
                    raise index_lock.refusal(path, exc) from exc
                index_lock.record_owner(path)

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        read_only: bool = False,
        refresh_interval_s: float = 1.0,
    ) -> Self:
        """Opens the index at ``path``, creating it when ``create`` is true.

        ``read_only`` opens it without a writer (no lock), so it can be searched while another
        process (the server) writes: that process's commits show within ``refresh_interval_s``
        (``refresh()`` shows them at once).

        Raises:
            IndexAccessError: when there is no index and ``create`` is false.
            IndexLockedError: when another writer holds the index.
            IndexReadOnlyError: when the folder cannot be written (open it ``read_only``).
            IndexCorruptError: when the files cannot be read.
        """
        folder = Path(path).expanduser().resolve()
        if folder.exists() and not folder.is_dir():
            raise errors.IndexAccessError(
                f"{folder} is a file, not an index's folder: give the folder the index is in "
                "(--index, index_path)"
            )
        if (read_only or not create) and not (folder.is_dir() and any(folder.glob("segments_*"))):
            raise errors.IndexAccessError(
                f"no index at {folder}: crawl folders into it first (`pylucene-mcp crawl DIR`), "
                "or give the folder an index is in (--index, index_path); in Python, "
                "Index.open(path) creates one"
            )
        private_dir(folder)
        return cls(folder, refresh_interval_s, read_only)

    # -- set-up ---------------------------------------------------------------------------

    def _open_writer(self) -> None:
        config_class = jvm.jclass("org.apache.lucene.index.IndexWriterConfig")
        config = config_class(analysis.schema_analyzer())
        config.setOpenMode(config_class.OpenMode.CREATE_OR_APPEND)
        config.setCommitOnClose(False)
        heap_mb = jvm.jclass("java.lang.Runtime").getRuntime().maxMemory() / 2**20
        config.setRAMBufferSizeMB(max(16.0, min(INDEXING_BUFFER_MB, heap_mb / 4)))
        self._writer = jvm.jclass("org.apache.lucene.index.IndexWriter")(self.directory, config)
        self.java_writer = self._writer
        self._generation += 1  # the views made before are of the writer closed
        self._schema_writer = jvm.jclass("io.github.pylucenemcp.index.SchemaWriter")(
            self._writer,
            query.field_schema(),
            self.facets_config,
            schema.FILE_PATH,
            jvm.jarray("String", documents.STRING_SLOTS),
            jvm.jarray("String", documents.LONG_SLOTS),
            schema.SEEN_MTIME,
            INDEXING_THREADS,
        )
        if not self._writer.getLiveCommitData():
            self._set_commit_data()
        if not jvm.jclass("org.apache.lucene.index.DirectoryReader").indexExists(self.directory):
            self._writer.commit()  # a new index: a first, empty commit lets readers open it
        self._manager = jvm.jclass("org.apache.lucene.search.SearcherManager")(self._writer, None)
        self._start_reopener()

    def _start_reopener(self) -> None:
        self._reopener = refreshing.reopener(self._writer, self._manager, self.refresh_interval_s)

    def _follow_commits(self) -> None:
        """Opens the commits another process makes, within ``refresh_interval_s`` (a read-only
        index: a background thread, stopped by :meth:`close` or :meth:`become_writer`)."""
        self._following = refreshing.follow_commits(
            self._manager, self.refresh_interval_s, self.path
        )

    def become_writer(self) -> None:
        """Takes the writer of an index opened read-only, once the process that wrote it has let
        go: searches go on throughout (those under way finish on the searcher they hold), and
        cursor walks keep their snapshots. Does nothing when this index writes already.

        Raises:
            IndexLockedError: while another process holds the writer (nothing changes).
            IndexReadOnlyError: when the folder cannot be written.
        """
        with self._write_lock:
            if self._writer is not None:
                return
            searching, following = self._manager, self._following
            try:
                with jvm.java_errors():
                    self._open_writer()
            except Exception as exc:
                self._manager = searching
                raise index_lock.refusal(self.path, exc) from exc
            if following is not None:
                following.set()
            self._following = None
            with jvm.java_errors():
                searching.close()
            self.read_only = False
        index_lock.record_owner(self.path)

    def _set_commit_data(self) -> None:
        hash_map = jvm.jclass("java.util.HashMap")()
        hash_map.put("schema_version", str(self._commit_schema_version))
        self._writer.setLiveCommitData(hash_map.entrySet())

    def mark_schema_current(self) -> None:
        """Records, in a commit of its own, that every document now follows this schema version
        (after a full reindex)."""
        self._commit_schema_version = schema.SCHEMA_VERSION
        with self.writer():
            pass

    def set_refresh_interval(self, seconds: float) -> None:
        """Changes how stale searches may be (widened during a bulk crawl)."""
        if self._writer is None or seconds == self.refresh_interval_s:
            return
        if self._stalled:  # the writer opened again takes it
            self.refresh_interval_s = seconds
            return
        with jvm.java_errors():
            self._reopener.close()
            self.refresh_interval_s = seconds
            self._start_reopener()

    #: an index folder is this configuration's own: a crawl of all its folders removes what
    #: none of them covers (see :attr:`pylucene_mcp.engine.core.backend.Backend.shared`)
    shared = False
    #: the crawler records who may read a file (``file_readers``), for the views of readers
    records_readers = True

    @property
    def identity(self) -> str:
        """What this index is, as one text: its folder's real path (see
        :attr:`pylucene_mcp.engine.core.backend.Backend.identity`); a view's adds the folders
        it shows (a cursor of one reader's view is no other's)."""
        folder = os.path.realpath(self.path)
        return folder if self.visible_to is None else f"{folder}|{'|'.join(self.visible_to)}"

    @property
    def schema_version(self) -> int | None:
        """The schema version in the last commit (None for an index never committed)."""
        with jvm.java_errors():
            if not jvm.jclass("org.apache.lucene.index.DirectoryReader").indexExists(
                self.directory
            ):
                return None
            infos = jvm.jclass("org.apache.lucene.index.SegmentInfos")
            data = infos.readLatestCommit(self.directory).getUserData()
        value = data.get("schema_version")
        return int(value) if value is not None else None

    @property
    def needs_reindex(self) -> bool:
        """True while the index holds documents of another schema version: from opening an
        index written by another version until :meth:`mark_schema_current`."""
        return self._commit_schema_version != schema.SCHEMA_VERSION

    # -- writing --------------------------------------------------------------------------

    @contextlib.contextmanager
    def writer(self) -> Iterator[Writer]:
        """A block of changes: committed when it ends, rolled back when it raises.

        Raises:
            IndexAccessError: when the commit fails.
            DiskFullError: when the disk is full (the block is rolled back).
        """
        if self._writer is None:
            raise errors.IndexAccessError(
                f"{self.path} was opened read-only; open it with Index.open(path) to write"
            )
        with self._write_lock:
            if self._stalled:
                self._reopen_writer()
                if self._stalled:
                    raise errors.IndexAccessError(
                        f"the writer of {self.path} could not be opened again after an error "
                        "(see the log: no file descriptor left, say); searches go on, and the "
                        "next write tries again"
                    )
            writer = Writer(self._writer, self._schema_writer)
            try:
                yield writer
                with jvm.java_errors():
                    self._set_commit_data()
                    self._writer.commit()
                    self._manager.maybeRefreshBlocking()
            except errors.DiskFullError as exc:
                self._rollback()
                raise errors.DiskFullError(
                    f"no space left on device while writing the index at {self.path}: free "
                    "space on that disk and try again; everything committed before is kept"
                ) from exc
            except BaseException:
                self._rollback()
                raise

    def _rollback(self) -> None:
        """Drops the uncommitted changes and opens a new writer (after an error or a full disk:
        a writer that failed to commit may be closed for good). Searches go on meanwhile on the
        last searcher, and go on so when the new writer cannot be opened yet (no descriptor left,
        say): the next block of changes tries again (:meth:`_reopen_writer`)."""
        log.warning("rolling back uncommitted changes to %s", self.path)
        with contextlib.suppress(errors.PyLuceneMcpError), jvm.java_errors():
            if self._reopener is not None:
                self._reopener.close()
                self._reopener = None
            self._schema_writer.close()
            self._writer.rollback()
        self._reopen_writer()

    def _reopen_writer(self) -> None:
        """Opens a new writer and searcher manager, then closes the old manager; when that
        fails, keeps the old one searching and :attr:`_stalled` set."""
        searching, failed = self._manager, self._writer
        try:
            with jvm.java_errors():
                self._open_writer()
        except errors.PyLuceneMcpError:
            log.exception(
                "could not reopen the writer of %s; tried again at the next write", self.path
            )
            if self._writer is not failed:  # opened, then failed: let go of its lock
                with contextlib.suppress(Exception):
                    self._writer.rollback()
            self._writer = self.java_writer = failed
            self._manager, self._stalled = searching, True
            return
        self._stalled = False
        with contextlib.suppress(errors.PyLuceneMcpError), jvm.java_errors():
            searching.close()

    def _close_searching(self) -> None:
        """Stops the refresh thread, closes the searchers and drops uncommitted changes (cursor
        walks keep their snapshots)."""
        if self._reopener is not None:
            self._reopener.close()
        if self._following is not None:
            self._following.set()
        self._manager.close()
        if self._writer is not None and not self._stalled:
            self._schema_writer.close()
            self._writer.rollback()

    # -- reading --------------------------------------------------------------------------

    def file_states(self, roots: Sequence[str]) -> dict[str, FileState]:
        """What the index holds for the files under the folders ``roots``, by path; in one
        call into the shim whatever the number of documents."""
        with self.searcher() as searcher:
            return file_states.under(searcher, roots)

    def file_states_of(self, paths: Iterable[str]) -> dict[str, FileState]:
        """What the index holds for the files ``paths`` (those it has), by path."""
        with self.searcher() as searcher:
            return file_states.of(searcher, paths)

    @property
    def searchers(self) -> Any:
        """The ``SearcherManager`` (a Java object) that hands out the current searcher."""
        return self._manager

    def viewed(self, readable: Readable | Sequence[str]) -> Self:
        """This index as a reader of the documents of ``readable`` (or below the folders
        ``readable``) alone sees it: every search, count, facet, score, explanation and term
        list of the view is the one an index of those documents alone would give (the shim's
        ``VisibleReader``: the others hidden as deleted ones are, and left out of every
        statistic). For reading only; one view per reader is kept, refreshed when it is asked
        for again."""
        chosen = Readable.of(readable)
        with self._views_lock:
            known = self._views.pop(chosen, None)
            if known is not None and known._generation == self._generation:
                try:
                    with jvm.java_errors():
                        known._manager.maybeRefresh()
                    known.vectors = self.vectors  # opened since the view was made
                    self._views[chosen] = known
                    return known
                except errors.PyLuceneMcpError:
                    log.warning("a view of %s could not be refreshed; made anew", self.path)
            if known is not None:  # of a writer since closed (a rollback), or broken
                known._close_view()
            view = copy.copy(self)
            with self.searcher() as searcher:
                view._manager = refreshing.visible_searchers(searcher, visible(chosen))
            view.snapshots = _snapshots()
            view.visible_to = chosen.key
            view._views = {}
            view._reopener = view._following = view._writer = None
            if len(self._views) >= MAX_VIEWS:  # the oldest goes
                oldest = next(iter(self._views))
                self._views.pop(oldest)._close_view()
            self._views[chosen] = view
            return view

    def keep_vectors(self, model: str) -> LuceneVectorStore:
        """Opens the chunks and vectors of this index (made with ``model``; made again when they
        were made with another), for semantic searches (docs/semantic.md); read-only when the
        index is (its writer's process makes them).

        Raises:
            IndexAccessError: read-only, when the writer has made none yet.
        """
        with self._vectors_lock:
            if self.vectors is None:
                self.vectors = LuceneVectorStore(
                    folder_of(self.path), model, read_only=self.read_only
                )
            return self.vectors

    def content_version(self) -> int:
        """What changes whenever the documents do: the reader's version."""
        with self.searcher() as searcher, jvm.java_errors():
            return int(searcher.getIndexReader().getVersion())

    def content_hashes(self) -> dict[str, str | None]:
        """The content hash of every document, by path (what its chunks are made from)."""
        with self.searcher() as searcher:
            states = file_states.under(searcher, [""])
        return {path: state.content_hash for path, state in states.items()}

    def _close_view(self) -> None:
        with jvm.java_errors():
            self._manager.close()
            self.snapshots.close()

    @contextlib.contextmanager
    def searcher(self) -> Iterator[Any]:
        """The current ``IndexSearcher`` (a Java object), released when the block ends."""
        searcher = self._manager.acquire()
        try:
            yield searcher
        finally:
            self._manager.release(searcher)

    def refresh(self) -> None:
        """Makes every change so far visible to searches now."""
        with jvm.java_errors():
            self._manager.maybeRefreshBlocking()

    def __len__(self) -> int:
        with self.searcher() as searcher:
            return int(searcher.getIndexReader().numDocs())

    def optimize(self, max_segments: int = 1) -> int:
        """Merges the index down to at most ``max_segments`` segments (and drops deleted
        documents for good), then commits. Returns the number of segments after.

        Raises:
            InvalidRequestError: for fewer than one segment.
            IndexAccessError: when the index was opened read-only.
        """
        limits.SEGMENTS.check("max_segments", max_segments)
        with self.writer():
            with jvm.java_errors():
                self._writer.forceMerge(max_segments, True)
        self.refresh()  # done means seen: the figures asked for next are the merged index's
        with self.searcher() as searcher:
            return len(searcher.getIndexReader().leaves())

    def purge(self) -> int:
        """Deletes every document and commits. Returns how many there were.

        Raises:
            IndexAccessError: when the index was opened read-only.
        """
        count = len(self)
        with self.writer() as writer:
            writer.delete_all()
        self.refresh()
        return count

    def close(self) -> None:
        """Stops the refresh thread and closes the writer (uncommitted changes are dropped)."""
        with self._write_lock, jvm.java_errors():
            with self._views_lock:
                for view in self._views.values():
                    view._close_view()
                self._views.clear()
            self._close_searching()
            self.snapshots.close()
            self.directory.close()
            if self.vectors is not None:
                self.vectors.close()
                self.vectors = None
        if not self.read_only:
            index_lock.release_owner(self.path)

    def __enter__(self) -> LuceneIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _snapshots() -> Any:
    """The searchers that cursor walks keep (``SearcherLifetimeManager``): each walk pages through
    the index as it was at its first page (see ``SearchContext.run``)."""
    return jvm.jclass("org.apache.lucene.search.SearcherLifetimeManager")()
