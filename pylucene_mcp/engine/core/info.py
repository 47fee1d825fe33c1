"""What the index holds: statistics, its fields and the details of one document (the
``getIndexStats``, ``listIndexedFields`` and ``getDocumentDetails`` tools)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core import limits


@dataclass(frozen=True)
class DateRange:
    earliest: str | None
    latest: str | None


@dataclass(frozen=True)
class ClusterInfo:
    """Where a SolrCloud collection lives: its nodes, shards and replicas."""

    collection: str
    configset: str | None
    live_nodes: tuple[str, ...]
    shards: int
    replicas: int
    active_replicas: int


@dataclass(frozen=True)
class IndexStats:
    """What ``getIndexStats`` returns."""

    document_count: int
    deleted_documents: int
    #: None where it is not said (to a caller who may not read every document)
    index_path: str | None
    schema_version: int
    needs_reindex: bool
    lucene_version: str
    #: the index's size on disk (None for a reader of some folders: it would tell the rest)
    size_bytes: int | None
    fields: tuple[str, ...]
    date_ranges: dict[str, DateRange]
    #: the cluster of a SolrCloud collection (None for the embedded index)
    cluster: ClusterInfo | None = None


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
    #: where the rest of the text starts (``offset`` of the next call), while ``has_more``
    next_offset: int | None = None
    #: with a query: its matches over the whole text as the passages mark them, each
    #: ``[offset, length]``, in order, at most :data:`MAX_MATCHES`
    matches: list[list[int]] | None = None
    #: with a query, for a paged format: where each page starts in the text
    page_offsets: list[int] | None = None


#: the most matches a document's details list
MAX_MATCHES = 300


@dataclass(frozen=True)
class StoredDocument:
    """A document as its engine stored it: its path as the index keys it, its fields as the
    tools show them (dates ISO-8601; several values as a list; no text), its text, and where
    each page starts (as stored: offsets joined by commas; None without pages)."""

    path: str
    fields: dict[str, Any]
    content: str
    pages: str | None

    @property
    def page_starts(self) -> list[int] | None:
        """Where each page starts, in characters of the content (None without pages)."""
        return [int(p) for p in self.pages.split(",") if p] if self.pages else None

    def page_of(self, offset: int) -> int | None:
        """The page (from 1) that the character at ``offset`` is on (None without pages)."""
        starts = self.page_starts
        return (sum(1 for start in starts if start <= offset) or None) if starts else None


class Stores(Protocol):
    """An index that gives a document as it stored it: every backend. ``document_details`` is
    written once against it and is a method of each backend as it is."""

    def stored_document(self, file_path: str) -> StoredDocument:
        """The document of ``file_path``.

        Raises:
            DocumentNotFoundError: when no indexed document has that path.
        """


def document_details(
    index: Stores,
    file_path: str,
    *,
    offset: int = 0,
    length: int = 5000,
    query: str | None = None,
    default_operator: str = "AND",
    word_forms: bool = True,
) -> DocumentDetails:
    """The stored fields of the document of ``file_path``, with ``length`` characters of its
    content from ``offset``; with ``query``, its matches over the whole text and the page
    starts.

    Raises:
        DocumentNotFoundError: when no indexed document has that path.
        InvalidRequestError: for a negative offset or a length outside 1–100000.
        QuerySyntaxError, UnknownFieldError: for a query that does not parse.
    """
    stored = index.stored_document(file_path)
    path, fields, content = stored.path, stored.fields, stored.content
    limits.DETAILS_OFFSET.check("offset", offset)
    limits.DETAILS_LENGTH.check("length", length)
    chunk = content[offset : offset + length]
    more = offset + len(chunk) < len(content)
    starts = stored.page_starts
    matches = None
    if query is not None and query.strip():
        from pylucene_mcp.engine.core.query import context, parse_query

        parsed = parse_query(query, default_operator, word_forms=word_forms)
        language = str(fields.get("language") or "unknown")
        with jvm.java_errors():
            spans = (
                context()
                .pages()
                .matchesIn(
                    parsed.java, content, ",".join(schema.lemma_fields_of(language)), MAX_MATCHES
                )
            )
        bounds = [int(v) for v in spans]  # start, end, start, end …
        matches = [[bounds[k], bounds[k + 1] - bounds[k]] for k in range(0, len(bounds), 2)]
    return DocumentDetails(
        file_path=path,
        fields=fields,
        content=chunk,
        offset=offset,
        length=len(chunk),
        content_length=len(content),
        has_more=more,
        page_count=len(starts) if starts else None,
        next_offset=offset + len(chunk) if more else None,
        matches=matches,
        page_offsets=starts if matches is not None else None,
    )


def field_info(spec: schema.FieldSpec, documents_with_field: int) -> FieldInfo:
    """The ``listIndexedFields`` entry of the schema field ``spec``."""
    return FieldInfo(
        name=spec.name,
        kind=spec.kind,
        stored=spec.stored,
        facet=spec.facet,
        sortable=spec.sortable,
        filter_operators=spec.filter_operators,
        documents_with_field=documents_with_field,
        description=spec.description,
    )
