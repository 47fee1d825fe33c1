"""The changes of one block of writes to an embedded index (``LuceneIndex.writer()``): documents
added a batch at a time through the shim's ``SchemaWriter`` (one call into Java per batch,
analysed on every core), replaced, deleted, touched in place."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import PurePath
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core import documents
from pylucene_mcp.engine.lucene.queries import below


class Writer:
    """Adds, replaces and deletes documents inside ``LuceneIndex.writer()``."""

    def __init__(self, java: Any, schema_writer: Any) -> None:
        """The block's Lucene ``IndexWriter`` and the shim's ``SchemaWriter`` over it."""
        self._java = java
        self._schema_writer = schema_writer

    def add(self, doc: Mapping[str, Any]) -> None:
        """Adds ``doc``, replacing the document with the same ``file_path``.

        ``doc`` is keyed by schema field names; dates may be ``datetime``, ISO strings or epoch
        milliseconds. ``file_name``, ``file_extension`` and ``file_type`` are derived from
        ``file_path`` when absent, ``content_hash`` from ``content``.

        Raises:
            UnknownFieldError: for a key that is not a schema field.
            InvalidRequestError: when ``file_path`` is missing or a value has the wrong type.
        """
        self.add_many([doc])

    def add_many(self, docs: Iterable[Mapping[str, Any]], batch: int = 256) -> int:
        """Adds each of ``docs`` as :meth:`add` does, ``batch`` at a time: one call into Java
        per batch, where the batch is analysed and indexed on every core. Returns how many.

        Raises:
            UnknownFieldError, InvalidRequestError: as :meth:`add`; the documents of the
                failing batch before the bad one may be in, and the ``writer()`` block rolls
                back as a whole.
        """
        added = 0
        rows: list[tuple[list[str | None], list[int], str]] = []
        for doc in docs:
            rows.append(documents.to_row(doc))
            if len(rows) == batch:
                added += self._write_rows(rows)
                rows = []
        if rows:
            added += self._write_rows(rows)
        return added

    def delete(self, file_path: str | PurePath) -> None:
        """Deletes the document of ``file_path`` (nothing happens if there is none)."""
        term = jvm.jclass("org.apache.lucene.index.Term")(
            schema.FILE_PATH, documents.normalize_path(file_path)
        )
        with jvm.java_errors():
            self._java.deleteDocuments(term)

    def touch(self, file_path: str | PurePath, mtime_ms: int) -> None:
        """Records a new mtime for the document of ``file_path`` in place (a doc values update
        of ``file_mtime_seen``): for a file that was touched but whose text is the same, so that
        the document is not analysed and written again. ``file_mtime`` keeps the time of the
        last change of the text."""
        term = jvm.jclass("org.apache.lucene.index.Term")(
            schema.FILE_PATH, documents.normalize_path(file_path)
        )
        with jvm.java_errors():
            self._java.updateNumericDocValue(term, schema.SEEN_MTIME, jvm.jlong(mtime_ms))

    def set_readers(self, file_path: str | PurePath, readers: Sequence[str]) -> None:
        """Records in place who may read the file ``file_path`` (its owner or mode changed): a
        doc values update of ``file_readers``, no new analysis."""
        term = jvm.jclass("org.apache.lucene.index.Term")(
            schema.FILE_PATH, documents.normalize_path(file_path)
        )
        value = jvm.jclass("org.apache.lucene.util.BytesRef")(documents.SEPARATOR.join(readers))
        with jvm.java_errors():
            self._java.updateBinaryDocValue(term, schema.FILE_READERS, value)

    def delete_under(self, folder: str, keep: Sequence[str] = ()) -> None:
        """Deletes every document whose file_path lies below ``folder``, but for those below
        one of the folders ``keep``."""
        self._delete(below([folder]), below(keep) if keep else None)

    def delete_outside(self, folders: Sequence[str]) -> None:
        """Deletes every document whose file_path lies below none of ``folders``."""
        self._delete(jvm.jclass("org.apache.lucene.search.MatchAllDocsQuery")(), below(folders))

    def _delete(self, chosen: Any, kept: Any | None) -> None:
        occur = jvm.jclass("org.apache.lucene.search.BooleanClause$Occur")
        query = jvm.jclass("org.apache.lucene.search.BooleanQuery$Builder")()
        query.add(chosen, occur.MUST)
        if kept is not None:
            query.add(kept, occur.MUST_NOT)
        with jvm.java_errors():
            self._java.deleteDocuments(
                jvm.jarray("org.apache.lucene.search.Query", [query.build()])
            )

    def delete_all(self) -> None:
        """Deletes every document (committed with the rest of the block)."""
        with jvm.java_errors():
            self._java.deleteAll()

    def _write_rows(self, rows: list[tuple[list[str | None], list[int], str]]) -> int:
        strings = [value for row in rows for value in row[0]]
        numbers = [value for row in rows for value in row[1]]
        with jvm.java_errors(caller_input=True):  # e.g. a term too long for Lucene
            return int(
                self._schema_writer.add(jvm.jarray("String", strings), jvm.jarray("long", numbers))
            )
