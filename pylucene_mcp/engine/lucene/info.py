"""The embedded index's statistics, fields and stored documents, as the core's data types."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core import documents
from pylucene_mcp.engine.core.info import (
    DateRange,
    FieldInfo,
    IndexStats,
    StoredDocument,
    field_info,
)
from pylucene_mcp.engine.lucene.index import LuceneIndex
from pylucene_mcp.engine.lucene.queries import document_id


def folder_size(folder: Path) -> int:
    """The bytes of the index's files, each as it is when looked at: a file that Lucene deletes
    meanwhile (a merge's or a flush's temporary file, during and just after a crawl) counts
    nothing, where asking Lucene for its length failed the whole answer."""
    total = 0
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        if name.endswith(".lock") or name.startswith("pending"):
            continue
        try:
            total += os.stat(folder / name).st_size
        except OSError:  # gone since it was listed
            continue
    return total


def index_stats(index: LuceneIndex) -> IndexStats:
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
        whole = index.visible_to is None  # a view's hidden documents look deleted: not said
        size = folder_size(Path(index.path)) if whole else None
        return IndexStats(
            document_count=int(reader.numDocs()),
            deleted_documents=int(reader.numDeletedDocs()) if whole else 0,
            index_path=str(index.path),
            schema_version=index.schema_version or schema.SCHEMA_VERSION,
            needs_reindex=index.needs_reindex,
            lucene_version=jvm.lucene_version(),
            size_bytes=size,
            fields=tuple(schema.FIELDS),
            date_ranges=ranges,
        )


def field_infos(index: LuceneIndex) -> tuple[FieldInfo, ...]:
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
            out.append(field_info(spec, count))
        return tuple(out)


def stored_document(index: LuceneIndex, file_path: str) -> StoredDocument:
    """The embedded index's :meth:`Stores.stored_document`."""
    path = documents.normalize_path(file_path)
    with index.searcher() as searcher, jvm.java_errors():
        document = searcher.storedFields().document(document_id(searcher, path))
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
    pages = document.get(schema.PAGE_OFFSETS)
    return StoredDocument(
        path, fields, str(document.get(schema.CONTENT) or ""), str(pages) if pages else None
    )
