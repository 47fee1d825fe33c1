"""Writing a SolrCloud collection: the crawler's documents as Solr documents in update requests of
bounded size, deletes by path and folder, the file states a crawl compares with the disk, and
the administration's optimize and purge."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import PurePath
from typing import Any

import pylucene_mcp.engine.solr.nodes as nodes
from pylucene_mcp.basics import portable, schema
from pylucene_mcp.engine.core import documents, limits
from pylucene_mcp.engine.core.documents import FileState
from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
from pylucene_mcp.engine.solr.collection import SolrCollection

SCHEMA_VERSION_FIELD = "schema_version"


#: documents per update request, and the characters of text at which a request is sent early
UPDATE_DOCS = 500


UPDATE_CHARS = 8_000_000


def _below(folders: Sequence[str]) -> dict[str, Any]:
    """The node of the documents whose file_path lies below one of ``folders``."""
    return nodes.any_of(
        [nodes.prefix(schema.FILE_PATH, portable.folder_prefix(f)) for f in folders]
    )


class SolrWriter:
    """The changes of one block, kept until it ends (see :meth:`SolrBackend.writer`)."""

    def __init__(self) -> None:
        self.commands: list[tuple[str, dict[str, Any]]] = []

    def add(self, doc: Mapping[str, Any]) -> None:
        self.commands.append(("add", {"doc": solr_document(doc)}))

    def add_many(self, docs: Iterable[Mapping[str, Any]]) -> int:
        """Each of ``docs`` added (sent with the block's other commands when it ends)."""
        before = len(self.commands)
        for doc in docs:
            self.add(doc)
        return len(self.commands) - before

    def delete(self, file_path: str | PurePath) -> None:
        self.commands.append(("delete", {"id": documents.normalize_path(file_path)}))

    def delete_under(self, folder: str, keep: Sequence[str] = ()) -> None:
        node = nodes.minus(_below([folder]), _below(keep)) if keep else _below([folder])
        self.commands.append(("delete", {"query": nodes.local(node)}))

    def delete_outside(self, folders: Sequence[str]) -> None:
        self.commands.append(("delete", {"query": nodes.local(nodes.without(_below(folders)))}))

    def delete_all(self) -> None:
        self.commands.append(("delete", {"query": nodes.local(nodes.ALL)}))

    def touch(self, file_path: str | PurePath, mtime_ms: int) -> None:
        # an in-place update of the doc-values-only field; _version_ 1: only if the document
        # exists (the conflict of a missing one is ignored, as Lucene ignores its update)
        self.commands.append(
            (
                "add",
                {
                    "doc": {
                        schema.FILE_PATH: documents.normalize_path(file_path),
                        schema.SEEN_MTIME: {"set": int(mtime_ms)},
                        "_version_": 1,
                    }
                },
            )
        )

    def set_readers(self, file_path: str | PurePath, readers: Sequence[str]) -> None:
        """Nothing: a collection does not record who may read a file (its backend's
        ``records_readers`` is False, so a crawl does not ask this)."""


def solr_document(doc: Mapping[str, Any]) -> dict[str, Any]:
    """``doc`` (a mapping of schema fields) as the Solr document the configset takes: derived
    fields filled in as the embedded index fills them (:func:`documents.to_row`), keyword values
    as the index holds them, dates as epoch milliseconds, and the content copied to the lemma
    fields of its language.

    Raises:
        UnknownFieldError, InvalidRequestError: for a field or value the schema refuses.
    """
    strings, numbers, path = documents.to_row(doc)
    out: dict[str, Any] = {SCHEMA_VERSION_FIELD: schema.SCHEMA_VERSION}
    for name, value in zip(documents.STRING_SLOTS, strings, strict=True):
        if value is None or name == schema.FILE_READERS:  # not recorded in a collection
            continue
        if name == documents.LEMMA_SLOT:
            for lemma_field in filter(None, value.split(",")):
                out[lemma_field] = strings[documents.STRING_SLOTS.index(schema.CONTENT)]
        elif name == schema.CONTENT:
            out[name] = value
        elif name == schema.PAGE_OFFSETS:
            out[name] = value
            out[nodes.PAGE_COUNT] = len(value.split(",")) if value else 0
        else:
            parts = [v for v in value.split(documents.SEPARATOR) if v]
            if parts:
                out[name] = parts if len(parts) > 1 else parts[0]
    for name, number in zip(documents.LONG_SLOTS, numbers, strict=True):
        if number != documents.NONE:
            out[name] = number
    if "file_mtime" in out:
        out[schema.SEEN_MTIME] = out["file_mtime"]
    out[schema.FILE_PATH] = path
    return out


def stored_row(doc: Mapping[str, Any]) -> dict[str, Any]:
    """A hit's stored fields from Solr as a mapping of schema fields (what ``to_row`` takes)."""
    row: dict[str, Any] = {}
    for name, value in doc.items():
        if name == schema.PAGE_OFFSETS:
            row[name] = [int(p) for p in str(value).split(",") if p]
        elif name in schema.FIELDS and schema.FIELDS[name].kind != "shadow":
            row[name] = value
    row.setdefault(schema.CONTENT, "")
    return row


class SolrWrites:
    """The writing and administration of a :class:`~pylucene_mcp.engine.solr.backend.SolrBackend`:
    blocks of writes sent through ``client`` (retried for ``settings.write_retry_s``), the files'
    states read from ``collection``, optimize and purge."""

    def __init__(
        self,
        settings: SolrSettings,
        client: SolrClient,
        collection: SolrCollection,
        refresh_interval_s: float,
    ) -> None:
        self.settings = settings
        self.client = client
        self.collection = collection
        self._refresh_interval_s = refresh_interval_s

    @contextlib.contextmanager
    def writer(self) -> Iterator[SolrWriter]:
        """A block of writes, sent when it ends and committed; nothing is sent when it raises.

        Raises:
            RemoteIndexError: when the cluster refuses or no node answers (what the block sent
                before stays; the crawler writes it again on its next pass).
        """
        block = SolrWriter()
        yield block
        self._send(block.commands)
        self.client.commit(self.settings.write_retry_s)

    def _send(self, commands: Sequence[tuple[str, dict[str, Any]]]) -> None:
        chunk: list[str] = []
        chars = 0
        for verb, body in commands:
            text = json.dumps(body, ensure_ascii=False)
            chunk.append(f'"{verb}":{text}')
            chars += len(text)
            if len(chunk) >= UPDATE_DOCS or chars >= UPDATE_CHARS:
                self.client.update(chunk, self.settings.write_retry_s)
                chunk, chars = [], 0
        if chunk:
            self.client.update(chunk, self.settings.write_retry_s)

    def file_states(self, roots: Sequence[str]) -> dict[str, FileState]:
        prefixes = [nodes.prefix(schema.FILE_PATH, portable.folder_prefix(r)) for r in roots]
        if not prefixes:
            return {}
        return self._states(nodes.any_of(prefixes))

    def file_states_of(self, paths: Iterable[str]) -> dict[str, FileState]:
        found: dict[str, FileState] = {}
        wanted = list(dict.fromkeys(paths))
        for start in range(0, len(wanted), 500):
            terms = [nodes.term(schema.FILE_PATH, p) for p in wanted[start : start + 500]]
            found.update(self._states(nodes.any_of(terms)))
        return found

    def _states(self, node: dict[str, Any]) -> dict[str, FileState]:
        fields = f"file_path,file_size,content_hash,{schema.SEEN_MTIME}"
        return {
            doc["file_path"]: FileState(
                doc.get("file_size"), doc.get(schema.SEEN_MTIME), doc.get("content_hash")
            )
            for doc in self.collection.walk(node, fields)
        }

    def content_hashes(self) -> dict[str, str | None]:
        """The content hash of every document, by path (what its chunks are made from)."""
        return {path: state.content_hash for path, state in self._states(nodes.ALL).items()}

    def content_version(self) -> str:
        """What changes whenever the documents do: their number and the last update's
        version (a deletion lowers the one, a write raises the other)."""
        answer = self.collection.select(
            {
                "query": json.dumps(nodes.ALL),
                "limit": 1,
                "sort": "_version_ desc",
                "fields": "_version_",
                "params": {"shards.tolerant": "false"},
            }
        )
        found = answer["response"]
        last = found["docs"][0].get("_version_") if found["docs"] else None
        return f"{found['numFound']}:{last}"

    @property
    def refresh_interval_s(self) -> float:
        return self._refresh_interval_s

    def set_refresh_interval(self, seconds: float) -> None:
        self._refresh_interval_s = seconds

    def optimize(self, max_segments: int = 1) -> int:
        """Merges each shard's index down to at most ``max_segments``; returns the most segments
        a shard's leader has after.

        Raises:
            InvalidRequestError: for fewer than one segment.
        """
        limits.SEGMENTS.check("max_segments", max_segments)
        self.client.post(
            self.client.collection("update"),
            params={"optimize": "true", "maxSegments": max_segments, "waitSearcher": "true"},
        )
        return max(
            (int(c.get("segmentCount", 0)) for c in self.collection.leader_cores()), default=0
        )

    def purge(self) -> int:
        """Removes the deleted documents of every shard for good; returns how many there were
        (on the shards' leaders)."""
        deleted = sum(int(c.get("deletedDocs", 0)) for c in self.collection.leader_cores())
        self.client.post(
            self.client.collection("update"),
            params={"commit": "true", "expungeDeletes": "true", "waitSearcher": "true"},
        )
        return deleted

    def refresh(self) -> None:
        """Opens a new searcher on every replica (a soft commit)."""
        self.client.post(
            self.client.collection("update"), params={"softCommit": "true", "commit": "true"}
        )
