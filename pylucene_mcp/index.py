"""``Index``: a Lucene index on disk with one writer, near-real-time searchers and the schema.

    >>> index = Index.open("/tmp/idx", create=True)                  # doctest: +SKIP
    >>> with index.writer() as w:                                    # doctest: +SKIP
    ...     w.add({"file_path": "/docs/a.txt", "content": "Arbeitsvertrag"})
    >>> index.search("*vertrag").total_hits                          # doctest: +SKIP
    1

A ``writer()`` block commits when it ends and rolls back when it raises. Searches use a
``SearcherManager`` refreshed in the background every ``refresh_interval_s`` (and at once after a
commit made through ``writer()``), so they never wait for writes.
"""

from __future__ import annotations

import contextlib
import logging
import mimetypes
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from pylucene_mcp import analysis, errors, index_lock, jvm, schema
from pylucene_mcp.config import private_dir
from pylucene_mcp.crawler.normalize import content_hash

if TYPE_CHECKING:
    from pylucene_mcp.search import SearchResult

log = logging.getLogger(__name__)

_ALL_FIELDS = set(schema.FIELDS)


def _java_path(path: Path) -> Any:
    return jvm.jclass("java.nio.file.Paths").get(str(path), jvm.jarray("String", []))


class Writer:
    """Adds, replaces and deletes documents inside ``Index.writer()``."""

    def __init__(self, index: Index) -> None:
        self._index = index

    def add(self, doc: Mapping[str, Any]) -> None:
        """Adds ``doc``, replacing the document with the same ``file_path``.

        ``doc`` is keyed by schema field names; dates may be ``datetime``, ISO strings or epoch
        milliseconds. ``file_name``, ``file_extension`` and ``file_type`` are derived from
        ``file_path`` when absent, ``content_hash`` from ``content``.

        Raises:
            UnknownFieldError: for a key that is not a schema field.
            InvalidRequestError: when ``file_path`` is missing or a value has the wrong type.
        """
        lucene_doc, path = self._index._to_document(doc)
        term = jvm.jclass("org.apache.lucene.index.Term")(schema.FILE_PATH, path)
        with jvm.java_errors():
            self._index._writer.updateDocument(term, lucene_doc)

    def delete(self, file_path: str | PurePath) -> None:
        """Deletes the document of ``file_path`` (nothing happens if there is none)."""
        term = jvm.jclass("org.apache.lucene.index.Term")(
            schema.FILE_PATH, _normalize_path(file_path)
        )
        with jvm.java_errors():
            self._index._writer.deleteDocuments(term)

    def touch(self, file_path: str | PurePath, mtime_ms: int) -> None:
        """Records a new mtime for the document of ``file_path`` in place (a doc values update
        of ``file_mtime_seen``): for a file that was touched but whose text is the same, so that
        the document is not analysed and written again. ``file_mtime`` keeps the time of the
        last change of the text."""
        term = jvm.jclass("org.apache.lucene.index.Term")(
            schema.FILE_PATH, _normalize_path(file_path)
        )
        with jvm.java_errors():
            self._index._writer.updateNumericDocValue(term, schema.SEEN_MTIME, jvm.jlong(mtime_ms))

    def delete_under(self, folder: str) -> None:
        """Deletes every document whose file_path lies below ``folder``."""
        prefix = folder.rstrip("/") + "/"
        term = jvm.jclass("org.apache.lucene.index.Term")(schema.FILE_PATH, prefix)
        with jvm.java_errors():
            self._index._writer.deleteDocuments(
                jvm.jarray(
                    "org.apache.lucene.search.Query",
                    [jvm.jclass("org.apache.lucene.search.PrefixQuery")(term)],
                )
            )

    def delete_all(self) -> None:
        """Deletes every document (committed with the rest of the block)."""
        with jvm.java_errors():
            self._index._writer.deleteAll()


def _normalize_path(path: str | PurePath) -> str:
    text = str(path)
    if not text:
        raise errors.InvalidRequestError("file_path must not be empty")
    return str(PurePath(text))


class Index:
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
        self._commit_schema_version = schema.SCHEMA_VERSION
        self._write_lock = threading.RLock()
        self._facet_lock = threading.Lock()
        self._facet_state: tuple[Any, Any, Any] | None = None
        jvm.start()
        with jvm.java_errors():
            self.directory = jvm.jclass("org.apache.lucene.store.FSDirectory").open(
                _java_path(path)
            )
            self.facets_config = make_facets_config()
            on_disk = self.schema_version
            if on_disk is not None:
                self._commit_schema_version = on_disk
            if read_only:
                self._manager = jvm.jclass("org.apache.lucene.search.SearcherManager")(
                    self.directory, None
                )
            else:
                try:
                    self._open_writer()
                except Exception as exc:
                    if isinstance(jvm.translate(exc), errors.IndexLockedError):
                        self.directory.close()
                        raise index_lock.locked_error(path) from exc
                    raise
                index_lock.record_owner(path)

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        create: bool = True,
        read_only: bool = False,
        refresh_interval_s: float = 1.0,
    ) -> Index:
        """Opens the index at ``path``, creating it when ``create`` is true.

        ``read_only`` opens it without a writer (no lock), so it can be searched while another
        process (the server) writes; ``refresh()`` then picks up that process's commits.

        Raises:
            IndexAccessError: when there is no index and ``create`` is false.
            IndexLockedError: when another writer holds the index.
            IndexCorruptError: when the files cannot be read.
        """
        folder = Path(path).expanduser().resolve()
        if (read_only or not create) and not (folder.is_dir() and any(folder.glob("segments_*"))):
            raise errors.IndexAccessError(
                f"no index at {folder}; create it with Index.open(path, create=True) "
                "or crawl a folder"
            )
        private_dir(folder)
        return cls(folder, refresh_interval_s, read_only)

    # -- set-up ---------------------------------------------------------------------------

    def _open_writer(self) -> None:
        config_class = jvm.jclass("org.apache.lucene.index.IndexWriterConfig")
        config = config_class(analysis.schema_analyzer())
        config.setOpenMode(config_class.OpenMode.CREATE_OR_APPEND)
        config.setCommitOnClose(False)
        self._writer = jvm.jclass("org.apache.lucene.index.IndexWriter")(self.directory, config)
        self.java_writer = self._writer
        if not self._writer.getLiveCommitData():
            self._set_commit_data()
        if not jvm.jclass("org.apache.lucene.index.DirectoryReader").indexExists(self.directory):
            self._writer.commit()  # a new index: a first, empty commit lets readers open it
        self._manager = jvm.jclass("org.apache.lucene.search.SearcherManager")(self._writer, None)
        self._start_reopener()

    def _start_reopener(self) -> None:
        self._reopener = jvm.jclass("org.apache.lucene.search.ControlledRealTimeReopenThread")(
            self._writer, self._manager, self.refresh_interval_s, 0.0
        )
        self._reopener.setName("pylucene-mcp-nrt-reopen")
        self._reopener.setDaemon(True)
        self._reopener.start()

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
        with jvm.java_errors():
            self._reopener.close()
            self.refresh_interval_s = seconds
            self._start_reopener()

    @property
    def schema_version(self) -> int | None:
        """The schema version in the last commit (None for an index never committed)."""
        with jvm.java_errors():
            infos = jvm.jclass("org.apache.lucene.index.SegmentInfos")
            try:
                data = infos.readLatestCommit(self.directory).getUserData()
            except jvm.jclass("org.apache.lucene.index.IndexNotFoundException"):
                return None
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
            writer = Writer(self)
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
        a writer that failed to commit may be closed for good)."""
        log.warning("rolling back uncommitted changes to %s", self.path)
        try:
            with jvm.java_errors():
                self._close_searching()
                self._open_writer()
        except errors.PyLuceneMcpError:
            log.exception("could not reopen the writer of %s", self.path)

    def _close_searching(self) -> None:
        """Stops the refresh thread, closes the searchers and drops uncommitted changes."""
        if self._reopener is not None:
            self._reopener.close()
        self._manager.close()
        if self._writer is not None:
            self._writer.rollback()

    def _to_document(self, doc: Mapping[str, Any]) -> tuple[Any, str]:
        unknown = set(doc) - _ALL_FIELDS
        if unknown:
            name = sorted(unknown)[0]
            raise errors.UnknownFieldError(
                f"unknown field '{name}'; documents take: "
                + ", ".join(sorted(_ALL_FIELDS - set(schema.SHADOW_FIELDS))),
                name,
                sorted(_ALL_FIELDS),
            )
        for shadow in schema.SHADOW_FIELDS:
            if shadow in doc:
                raise errors.InvalidRequestError(
                    f"'{shadow}' is derived from content; do not set it"
                )
        if not doc.get(schema.FILE_PATH):
            raise errors.InvalidRequestError("a document needs a file_path (its unique id)")
        values = dict(doc)
        path = _normalize_path(values[schema.FILE_PATH])
        values[schema.FILE_PATH] = path
        pure = PurePath(path)
        values.setdefault("file_name", pure.name)
        extension = values.get("file_extension") or pure.suffix.lstrip(".")
        values["file_extension"] = str(extension).lower().lstrip(".")
        if not values.get("file_type"):
            guessed = mimetypes.guess_type(pure.name)[0]
            values["file_type"] = guessed or "application/octet-stream"
        content = str(values.get(schema.CONTENT) or "")
        values[schema.CONTENT] = content
        values.setdefault("content_hash", content_hash(content))
        values.setdefault("language", "unknown")
        values["indexed_date"] = values.get("indexed_date") or int(time.time() * 1000)
        return self._build(values), path

    def _build(self, values: Mapping[str, Any]) -> Any:
        j = jvm.jclass
        document = j("org.apache.lucene.document.Document")()
        store_yes = j("org.apache.lucene.document.Field$Store").YES
        store_no = j("org.apache.lucene.document.Field$Store").NO
        text_field = j("org.apache.lucene.document.TextField")
        string_field = j("org.apache.lucene.document.StringField")
        facet_field = j("org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField")
        for name in schema.TEXT_FIELDS:
            if name == schema.CONTENT:
                continue
            for value in _as_list(values.get(name)):
                document.add(text_field(name, value, store_yes))
        content = jvm.jclass("java.lang.String")(values[schema.CONTENT])
        document.add(
            j("org.apache.lucene.document.Field")(schema.CONTENT, content, _content_type())
        )
        for shadow in schema.SHADOW_FIELDS:
            document.add(text_field(shadow, content, store_no))
        for name in schema.KEYWORD_FIELDS:
            for value in _as_list(values.get(name)):
                document.add(string_field(name, schema.keyword_value(name, value), store_yes))
        for name in schema.FACET_FIELDS:
            for value in _as_list(values.get(name)):
                document.add(facet_field(name, schema.keyword_value(name, value)))
        for name in (*schema.LONG_FIELDS, *schema.DATE_FIELDS):
            raw = values.get(name)
            if raw is None:
                continue
            try:
                number = (
                    schema.to_epoch_millis(raw, name) if name in schema.DATE_FIELDS else int(raw)
                )
            except (TypeError, ValueError) as exc:
                raise errors.InvalidRequestError(str(exc)) from exc
            document.add(
                j("org.apache.lucene.document.LongPoint")(name, jvm.jarray("long", [number]))
            )
            document.add(j("org.apache.lucene.document.NumericDocValuesField")(name, number))
            document.add(j("org.apache.lucene.document.StoredField")(name, jvm.jlong(number)))
            if name == "file_mtime":
                document.add(
                    j("org.apache.lucene.document.NumericDocValuesField")(schema.SEEN_MTIME, number)
                )
        pages = values.get(schema.PAGE_OFFSETS)
        if pages:
            text = ",".join(str(int(p)) for p in pages)
            document.add(j("org.apache.lucene.document.StoredField")(schema.PAGE_OFFSETS, text))
            # the page count as a point too, so that the field statistics can count the field
            document.add(
                j("org.apache.lucene.document.LongPoint")(
                    schema.PAGE_OFFSETS, jvm.jarray("long", [len(pages)])
                )
            )
        with jvm.java_errors():
            return self.facets_config.build(document)

    # -- reading --------------------------------------------------------------------------

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

    def facet_state(self, searcher: Any) -> tuple[Any, Any | None]:
        """For ``searcher``'s reader: the reader wrapped to stop at a search's deadline, and the
        sorted-set facet state of that wrapped reader (None while no facet is indexed). Built
        once per reader."""
        reader = searcher.getIndexReader()
        with self._facet_lock:
            cached = self._facet_state
            if cached is not None and cached[0].equals(reader):
                return cached[1], cached[2]
            with jvm.java_errors():
                limited = jvm.jclass("io.github.pylucenemcp.search.SearchContext").limitedReader(
                    searcher
                )
                state = None
                if (
                    jvm.jclass("org.apache.lucene.index.FieldInfos")
                    .getMergedFieldInfos(reader)
                    .fieldInfo(self.facets_config.DEFAULT_INDEX_FIELD_NAME)
                    is not None
                ):
                    state = jvm.jclass(
                        "org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState"
                    )(limited, self.facets_config)
            self._facet_state = (reader, limited, state)
            return limited, state

    def __len__(self) -> int:
        with self.searcher() as searcher:
            return int(searcher.getIndexReader().numDocs())

    def search(self, query: str, **params: Any) -> SearchResult:
        """Searches the index; see :func:`pylucene_mcp.search.search` for the parameters."""
        from pylucene_mcp.search import search

        return search(self, query, **params)

    def close(self) -> None:
        """Stops the refresh thread and closes the writer (uncommitted changes are dropped)."""
        with self._write_lock, jvm.java_errors():
            self._close_searching()
            self.directory.close()
        if not self.read_only:
            index_lock.release_owner(self.path)

    def __enter__(self) -> Index:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def make_facets_config() -> Any:
    """The ``FacetsConfig`` of the schema: sorted-set facets, ``author`` multi-valued."""
    config = jvm.jclass("org.apache.lucene.facet.FacetsConfig")()
    config.setMultiValued("author", True)
    return config


def _as_list(value: Any) -> list[str]:
    if value is None or value == "":
        return []
    if isinstance(value, list | tuple | set):
        return [str(v) for v in value if v is not None and str(v) != ""]
    return [str(value)]


_CONTENT_TYPE: list[Any] = []


def _content_type() -> Any:
    """Tokenized, stored, with offsets in the postings (for highlighting the whole text)."""
    if not _CONTENT_TYPE:
        field_type = jvm.jclass("org.apache.lucene.document.FieldType")(
            jvm.jclass("org.apache.lucene.document.TextField").TYPE_STORED
        )
        field_type.setIndexOptions(
            jvm.jclass(
                "org.apache.lucene.index.IndexOptions"
            ).DOCS_AND_FREQS_AND_POSITIONS_AND_OFFSETS
        )
        field_type.freeze()
        _CONTENT_TYPE.append(field_type)
    return _CONTENT_TYPE[0]


# -- information about the index and its documents --------------------------------------------


@dataclass(frozen=True)
class DateRange:
    earliest: str | None
    latest: str | None


@dataclass(frozen=True)
class IndexStats:
    """What ``getIndexStats`` returns."""

    document_count: int
    deleted_documents: int
    index_path: str
    schema_version: int
    needs_reindex: bool
    lucene_version: str
    size_bytes: int
    fields: tuple[str, ...]
    date_ranges: dict[str, DateRange]


@dataclass(frozen=True)
class FieldInfo:
    """One field of the schema, as ``listIndexedFields`` describes it."""

    name: str
    kind: str
    stored: bool
    facet: bool
    sortable: bool
    filter_operators: tuple[str, ...]
    documents_with_field: int
    description: str


@dataclass(frozen=True)
class DocumentDetails:
    """The stored fields of one document and a slice of its content."""

    file_path: str
    fields: dict[str, Any]
    content: str
    offset: int
    length: int
    content_length: int
    has_more: bool
    page_count: int | None


def index_stats(index: Index) -> IndexStats:
    """Counts, size, schema and date ranges of ``index``."""
    point_values = jvm.jclass("org.apache.lucene.index.PointValues")
    long_point = jvm.jclass("org.apache.lucene.document.LongPoint")
    with index.searcher() as searcher, jvm.java_errors():
        reader = searcher.getIndexReader()
        ranges = {}
        for name in schema.DATE_FIELDS:
            low = point_values.getMinPackedValue(reader, name)
            high = point_values.getMaxPackedValue(reader, name)
            ranges[name] = DateRange(
                schema.iso(int(long_point.decodeDimension(low, 0))) if low is not None else None,
                schema.iso(int(long_point.decodeDimension(high, 0))) if high is not None else None,
            )
        size = sum(
            int(index.directory.fileLength(f))
            for f in index.directory.listAll()
            if not str(f).endswith(".lock") and not str(f).startswith("pending")
        )
        return IndexStats(
            document_count=int(reader.numDocs()),
            deleted_documents=int(reader.numDeletedDocs()),
            index_path=str(index.path),
            schema_version=index.schema_version or schema.SCHEMA_VERSION,
            needs_reindex=index.needs_reindex,
            lucene_version=jvm.lucene_version(),
            size_bytes=size,
            fields=tuple(schema.FIELDS),
            date_ranges=ranges,
        )


def field_infos(index: Index) -> tuple[FieldInfo, ...]:
    """Every schema field with how it can be used and how many documents have it."""
    with index.searcher() as searcher, jvm.java_errors():
        reader = searcher.getIndexReader()
        points = jvm.jclass("org.apache.lucene.index.PointValues")
        out = []
        for spec in schema.FIELDS.values():
            if spec.kind in ("long", "date", "stored"):  # stored: page_offsets has a point
                count = int(points.getDocCount(reader, spec.name))
            else:
                count = int(reader.getDocCount(spec.name))
            out.append(
                FieldInfo(
                    name=spec.name,
                    kind=spec.kind,
                    stored=spec.stored,
                    facet=spec.facet,
                    sortable=spec.sortable,
                    filter_operators=spec.filter_operators,
                    documents_with_field=count,
                    description=spec.description,
                )
            )
        return tuple(out)


def document_details(
    index: Index, file_path: str, *, offset: int = 0, length: int = 5000
) -> DocumentDetails:
    """The stored fields of the document of ``file_path``, with ``length`` characters of its
    content from ``offset``.

    Raises:
        DocumentNotFoundError: when no indexed document has that path.
        InvalidRequestError: for a negative offset or a length outside 1–100000.
    """
    if offset < 0:
        raise errors.InvalidRequestError(f"offset must be >= 0, got {offset}")
    if not 1 <= length <= 100_000:
        raise errors.InvalidRequestError(f"length must be 1–100000, got {length}")
    path = _normalize_path(file_path)
    term = jvm.jclass("org.apache.lucene.index.Term")(schema.FILE_PATH, path)
    with index.searcher() as searcher, jvm.java_errors():
        top = searcher.search(jvm.jclass("org.apache.lucene.search.TermQuery")(term), 1)
        if int(top.totalHits.value()) == 0:
            raise errors.DocumentNotFoundError(
                f"no indexed document has file_path {path!r}; search for it first "
                "(filePath values come from search results)"
            )
        document = searcher.storedFields().document(top.scoreDocs[0].doc)
    fields: dict[str, Any] = {}
    for stored in document.getFields():
        name = str(stored.name())
        if name in (schema.CONTENT, schema.PAGE_OFFSETS):
            continue
        number = stored.numericValue()
        value: Any = int(number.longValue()) if number is not None else str(stored.stringValue())
        if name in schema.DATE_FIELDS:
            value = schema.iso(value)
        if name in fields:
            previous = fields[name]
            fields[name] = [*previous, value] if isinstance(previous, list) else [previous, value]
        else:
            fields[name] = value
    content = str(document.get(schema.CONTENT) or "")
    pages = document.get(schema.PAGE_OFFSETS)
    chunk = content[offset : offset + length]
    return DocumentDetails(
        file_path=path,
        fields=fields,
        content=chunk,
        offset=offset,
        length=len(chunk),
        content_length=len(content),
        has_more=offset + len(chunk) < len(content),
        page_count=len(str(pages).split(",")) if pages else None,
    )
