"""What a folder holds before it opens as a research index: its latest commit's data, whose
index it is (the product's own, Anserini's, another Lucene index), and why it cannot be opened
as a research index, in words a person can act on."""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.anserini import LuceneIndexInfo, read_info
from pylucene_mcp.research.anserini import schema as anserini_schema

if TYPE_CHECKING:
    from pylucene_mcp.research.components import FieldSpec


def fs_directory(path: Path) -> Any:
    j = jvm.jclass
    return j("org.apache.lucene.store.FSDirectory").open(
        j("java.nio.file.Paths").get(str(path), jvm.jarray("String", []))
    )


def commit_data(path: Path) -> dict[str, str] | None:
    """The user data of the latest commit of the Lucene index in the folder ``path`` (None:
    no index there)."""
    try:  # no commit file: no index, as Lucene's indexExists says, without Java's start-up
        if not any(p.name.startswith("segments_") for p in path.iterdir()):
            return None
    except FileNotFoundError:
        return None
    except OSError:
        pass  # an unreadable folder: Java says what it cannot read
    j = jvm.jclass
    with opening(path, True):
        directory = fs_directory(path)
        try:
            with jvm.java_errors():
                if not j("org.apache.lucene.index.DirectoryReader").indexExists(directory):
                    return None
                infos = j("org.apache.lucene.index.SegmentInfos").readLatestCommit(directory)
                return {str(k): str(v) for k, v in dict(infos.getUserData()).items()}
        finally:
            directory.close()


def is_product_index(data: Mapping[str, str]) -> bool:
    """Whether commit data ``data`` is the product's own index's (the crawler's), which keeps
    its schema version there (``engine/lucene/index.py``)."""
    return "schema_version" in data


def no_schema(folder: Path, data: Mapping[str, str] | None, info: LuceneIndexInfo | None) -> str:
    """Why the folder ``folder`` (its index's commit ``data`` and ``info``, None where there is
    none or it was not read) opens as no research index: what it is, and what to do."""
    if not any(folder.iterdir()):
        return (
            f"no research index at {folder}: the folder is empty; create one there with "
            "ResearchIndex.create(path, fields)"
        )
    if data is None:
        return (
            f"no research index at {folder}: the folder holds no Lucene index (other files); "
            "give the folder of an index, or create one in a new folder"
        )
    if info is None:  # not read: the product's own
        return (
            f"the index at {folder} is the product's own (the crawler's): open it with "
            "pylucene_mcp.Index.open(path)"
        )
    return (
        f"the index at {folder} was not made by ResearchIndex.create: {_described(info)}, and "
        "no research schema (nor Anserini's fields: a keyword id and an analysed contents); "
        "index its documents again with ResearchIndex.create(new_path, fields)"
    )


def what_index(folder: Path, data: Mapping[str, str]) -> str:
    """What the index in ``folder`` (commit ``data``) is, when it keeps no research schema."""
    if is_product_index(data):
        return "the product's own, the crawler's"
    info = lucene_info(folder)
    if anserini_schema(info) is not None:
        return f"one Anserini built: {info.documents:,} documents"
    return _described(info)


def _described(info: LuceneIndexInfo) -> str:
    """A Lucene index without a schema of ours, in a few words."""
    names = ", ".join(field.name for field in info.fields) or "none"
    return (
        f"a Lucene {info.created_major} index of {info.documents:,} documents with the fields "
        f"{names}"
    )


def lucene_info(folder: Path) -> LuceneIndexInfo:
    """What the Lucene index in ``folder`` is: its documents, fields and version."""
    with opening(folder, True):
        directory = fs_directory(folder)
        try:
            with jvm.java_errors():
                reader = jvm.jclass("org.apache.lucene.index.DirectoryReader").open(directory)
                try:
                    return read_info(reader)
                finally:
                    reader.close()
        finally:
            directory.close()


@contextlib.contextmanager
def opening(path: Path, read_only: bool) -> Iterator[None]:
    """Java's errors on opening an index, said for a research index."""
    try:
        with jvm.java_errors():
            yield
    except errors.IndexLockedError as exc:
        raise errors.IndexLockedError(
            f"the research index at {path} is open for writing elsewhere (another ResearchIndex "
            "in this process, or another process): close that one, or open this one with "
            "ResearchIndex.open(path, read_only=True)"
        ) from exc


def anserini_fields(
    folder: Path,
    data: Mapping[str, str] | None,
    read_only: bool,
    analyzers: Mapping[str, Any] | None,
) -> dict[str, FieldSpec]:
    """The schema that the fields of the index Anserini built at ``folder`` (its commit
    ``data``) show, with ``analyzers`` in place of those it names; read only.

    Raises:
        IndexAccessError: when it is not one of Anserini's either (what it is, said), or when
            asked to write to it.
    """
    info = None if data is None or is_product_index(data) else lucene_info(folder)
    fields = None if info is None else anserini_schema(info)
    if fields is None:
        raise errors.IndexAccessError(no_schema(folder, data, info))
    if not read_only:
        raise errors.IndexAccessError(
            f"the index at {folder} was built by Anserini (pyserini's indexer): it is read "
            "here, not written; open it with ResearchIndex.open(path, read_only=True), or "
            "index its documents into a new index to add to them"
        )
    for name, analyzer in (analyzers or {}).items():
        if name in fields:
            fields[name] = dataclasses.replace(fields[name], analyzer=analyzer)
    return fields
