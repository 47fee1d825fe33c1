"""The Lucene queries of an embedded index's own keys: the documents below folders, those a
reader may read, the document of one path."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors, portable, schema
from pylucene_mcp.engine.core.readable import Readable


def visible(readable: Readable) -> Any:
    """The query for the documents of ``readable``: below its folders, or recorded as readable
    by one of its principals and below none of its assigned folders."""
    if not readable.principals:
        return below(readable.folders)
    occur = jvm.jclass("org.apache.lucene.search.BooleanClause$Occur")
    recorded = jvm.jclass("org.apache.lucene.search.BooleanQuery$Builder")()
    recorded.add(
        jvm.jclass("io.github.pylucenemcp.index.ReadersQuery")(
            schema.FILE_READERS, jvm.jarray("String", list(readable.principals))
        ),
        occur.FILTER,
    )
    if readable.assigned:
        recorded.add(below(readable.assigned), occur.MUST_NOT)
    query = jvm.jclass("org.apache.lucene.search.BooleanQuery$Builder")()
    query.add(below(readable.folders), occur.SHOULD)
    query.add(recorded.build(), occur.SHOULD)
    return query.build()


def below(folders: Sequence[str]) -> Any:
    """The query for the documents whose file_path lies below one of ``folders``."""
    occur = jvm.jclass("org.apache.lucene.search.BooleanClause$Occur")
    query = jvm.jclass("org.apache.lucene.search.BooleanQuery$Builder")()
    for folder in folders:
        term = jvm.jclass("org.apache.lucene.index.Term")(
            schema.FILE_PATH, portable.folder_prefix(folder)
        )
        query.add(jvm.jclass("org.apache.lucene.search.PrefixQuery")(term), occur.SHOULD)
    return query.build()


def path_query(path: str) -> Any:
    """The query for the document of ``path`` (as the index keys it)."""
    return jvm.jclass("org.apache.lucene.search.TermQuery")(
        jvm.jclass("org.apache.lucene.index.Term")(schema.FILE_PATH, path)
    )


def document_id(searcher: Any, path: str) -> int:
    """The Lucene document id of ``path`` in ``searcher``'s reader.

    Raises:
        DocumentNotFoundError: when no indexed document has that path.
    """
    with jvm.java_errors():
        top = searcher.search(path_query(path), 1)
        if int(top.totalHits.value()) == 0:
            raise errors.DocumentNotFoundError.of(path)
        return int(top.scoreDocs[0].doc)
