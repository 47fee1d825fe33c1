"""What the index holds of each file (its size, the modification time seen, its text's hash, who
may read it), read by the shim's ``FileStates`` in one call whatever the number of documents: what
a crawl compares the disk with."""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import portable, schema
from pylucene_mcp.engine.core import documents
from pylucene_mcp.engine.core.documents import FileState


@functools.cache
def _file_states() -> Any:
    return jvm.jclass("io.github.pylucenemcp.index.FileStates")(
        schema.FILE_PATH, "file_size", "content_hash", schema.SEEN_MTIME, schema.FILE_READERS
    )


def under(searcher: Any, roots: Sequence[str]) -> dict[str, FileState]:
    """The files below the folders ``roots`` that ``searcher`` (an ``IndexSearcher``) holds, by
    path (``[""]``: every file)."""
    prefixes = [portable.folder_prefix(root) for root in roots]
    with jvm.java_errors():
        return _states(
            _file_states().under(searcher.getIndexReader(), jvm.jarray("String", prefixes))
        )


def of(searcher: Any, paths: Iterable[str]) -> dict[str, FileState]:
    """The files ``paths`` that ``searcher`` holds (those it has), by path."""
    with jvm.java_errors():
        return _states(_file_states().of(searcher, jvm.jarray("String", list(paths))))


def _states(answer: Any) -> dict[str, FileState]:
    rows = json.loads(memoryview(answer).tobytes())
    return {
        path: FileState(size, mtime, digest, _readers(readers))
        for path, size, mtime, digest, readers in rows
    }


def _readers(recorded: str | None) -> tuple[str, ...] | None:
    """Readers as :func:`documents.to_row` joins them (None: not recorded)."""
    return None if recorded is None else tuple(p for p in recorded.split(documents.SEPARATOR) if p)
