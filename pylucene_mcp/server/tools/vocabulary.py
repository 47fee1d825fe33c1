"""The observability tools: ``suggestTerms``, ``getTopTerms`` and ``findDuplicates``."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from pylucene_mcp.basics.shapes import to_dict
from pylucene_mcp.engine.core.backend import Duplicates, TermList, limits
from pylucene_mcp.server import caller
from pylucene_mcp.server.tools.output import ANSWER_BUDGET_BYTES, answers, fit_counted
from pylucene_mcp.server.tools.registry import Registry
from pylucene_mcp.service.service import Service


def fit_groups(data: dict[str, Any], max_bytes: int) -> dict[str, Any]:
    """Lists fewer documents per duplicate group until the answer fits ``max_bytes`` of compact
    JSON: the longest lists first, every group keeping one (its ``size`` still counts all)."""

    def groups(answer: dict[str, Any]) -> list[tuple[str, list[Any]]]:
        return [("documents", group["documents"]) for group in answer["groups"]]

    return fit_counted(data, groups, max_bytes, note=None)


def register_vocabulary(tools: Registry, svc: Service) -> None:
    """Records the vocabulary tools on ``tools``."""

    @tools.tool("observability", "Suggest terms", read_only=True)
    @answers(TermList)
    def suggestTerms(
        field: Annotated[str, Field(**limits.FIELD_NAME_CHARS.schema())] = "content",
        prefix: Annotated[str, Field(**limits.PREFIX_CHARS.schema())] = "",
        limit: Annotated[int, Field(**limits.TERM_LIMIT.schema())] = 20,
    ) -> TermList:
        """Terms of a field that start with a prefix, most documents first: to see how the
        index spells a word (Mü finds muller and mueller) before writing a query or wildcard.
        The prefix is normalized like the field (lowercased, accents folded)."""
        return caller.readable(svc).suggest_terms(field, prefix, limit)

    @tools.tool("observability", "Top terms", read_only=True)
    @answers(TermList)
    def getTopTerms(
        field: Annotated[str, Field(**limits.FIELD_NAME_CHARS.schema())] = "content",
        limit: Annotated[int, Field(**limits.TERM_LIMIT.schema())] = 20,
        skipCommon: Annotated[
            bool,
            Field(description="leave out English and German stop words, numbers, letters"),
        ] = True,
    ) -> TermList:
        """The most frequent terms of a field (documents and total occurrences): what a
        collection is about. By default without the words every text has (the, und, 1, a);
        skipCommon: false lists those too, to see which words are too common to narrow a
        search."""
        return caller.readable(svc).top_terms(field, limit, skip_common=skipCommon)

    @tools.tool("observability", "Find duplicates", read_only=True)
    @answers(Duplicates)
    def findDuplicates(
        minGroupSize: Annotated[int, Field(**limits.GROUP_SIZE.schema())] = 2,
        directory: Annotated[str | None, Field(**limits.PATH_CHARS.schema())] = None,
        page: Annotated[int, Field(**limits.PAGE.schema())] = 1,
        pageSize: Annotated[int, Field(**limits.GROUP_PAGE_SIZE.schema())] = 10,
    ) -> dict[str, Any]:
        """Groups of indexed documents whose text is the same (one content hash), largest
        first: each with its size and up to 20 of its documents (path, size, modified date);
        directory limits it to documents below that folder."""
        found = caller.readable(svc).find_duplicates(minGroupSize, directory, page, pageSize)
        return fit_groups(to_dict(found), ANSWER_BUDGET_BYTES)
