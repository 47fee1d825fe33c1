"""The embedded index's term lists and duplicate groups, counted in Java (``Vocabulary``)."""

from __future__ import annotations

import json
from typing import Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core.vocabulary import (
    EMPTY_TEXT_HASH,
    MAX_LISTED,
    SUGGEST_MAX_SCAN,
    TOP_MAX_SCAN,
    DuplicateGroup,
    TermCount,
)
from pylucene_mcp.engine.lucene.index import LuceneIndex


def _vocabulary() -> Any:
    return jvm.jclass("io.github.pylucenemcp.search.Vocabulary")


def term_counts(
    index: LuceneIndex, name: str, prefix: str | None, limit: int
) -> tuple[list[TermCount], int, bool]:
    """The embedded index's :meth:`Terms.term_counts`, read in Java (at most
    :data:`SUGGEST_MAX_SCAN` terms for a prefix, :data:`TOP_MAX_SCAN` for a top list)."""
    with index.searcher() as searcher, jvm.java_errors():
        reader = searcher.getIndexReader()
        if prefix is None:
            answer = json.loads(str(_vocabulary().top(reader, name, limit, TOP_MAX_SCAN)))
        else:
            answer = json.loads(
                str(_vocabulary().suggest(reader, name, prefix, limit, SUGGEST_MAX_SCAN))
            )
    found = [TermCount(t[0], int(t[1]), int(t[2]) if len(t) > 2 else None) for t in answer["terms"]]
    return found, int(answer["scanned"]), bool(answer["complete"])


def duplicate_groups(
    index: LuceneIndex, min_group_size: int, under: str, offset: int, size: int
) -> tuple[int, list[DuplicateGroup], int]:
    """The embedded index's :meth:`Groups.duplicate_groups`, counted in Java."""
    with index.searcher() as searcher, jvm.java_errors():
        answer = json.loads(
            str(
                _vocabulary().duplicates(
                    searcher.getIndexReader(),
                    "content_hash",
                    schema.FILE_PATH,
                    "file_size",
                    "modified_date",
                    min_group_size,
                    under,
                    offset,
                    size,
                    MAX_LISTED,
                    EMPTY_TEXT_HASH,
                )
            )
        )
    groups = [DuplicateGroup(group) for group in answer["groups"]]
    return int(answer["total"]), groups, int(answer["apart"])
