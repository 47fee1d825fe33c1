"""The vocabulary tools: terms by prefix normalized like the field, the most frequent terms,
groups of documents with the same text; through the Python API and the SDK's client, within the
10 KB budget at their defaults on heavy data."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import pytest
from mcp import Client

from pylucene_mcp import Index, InvalidRequestError, UnknownFieldError
from pylucene_mcp.engine.core.vocabulary import find_duplicates, suggest_terms, top_terms
from tests.mcp_client import call, connect, error


@pytest.fixture
def words(fresh_index: Index) -> Index:
    with fresh_index.writer() as w:
        for n in range(12):
            w.add(
                {
                    "file_path": f"/docs/{'a' if n < 6 else 'b'}/{n:02}.txt",
                    "content": "Müller wrote the contract. "
                    + ("The same text again." if n % 4 == 0 else f"Note number {n} on contracts."),
                    "language": "DE" if n % 2 else "en",
                    "file_size": 100 + n,
                    "modified_date": f"2024-01-{n + 1:02}",
                }
            )
    return fresh_index


def test_a_prefix_is_normalized_like_the_field(words: Index) -> None:
    found = suggest_terms(words, "content", "MÜ")
    assert found.prefix == "mu"
    assert [(t.term, t.doc_freq) for t in found.terms] == [("muller", 12)]
    assert [t.term for t in suggest_terms(words, "language", "D").terms] == ["de"]


def test_terms_come_most_documents_first(words: Index) -> None:
    found = suggest_terms(words, "content", "contract", limit=5)
    assert [(t.term, t.doc_freq) for t in found.terms] == [("contract", 12), ("contracts", 9)]
    assert found.complete and found.scanned == 2


def test_top_terms_count_documents_and_occurrences(words: Index) -> None:
    top = {t.term: (t.doc_freq, t.total_term_freq) for t in top_terms(words, "content", 4).terms}
    assert top["contract"] == (12, 12) and top["the"] == (12, 15) and top["muller"] == (12, 12)


def test_fields_without_words_are_refused_with_what_to_use(words: Index) -> None:
    with pytest.raises(InvalidRequestError, match="holds dates, not words"):
        suggest_terms(words, "modified_date")
    with pytest.raises(UnknownFieldError, match="terms can be listed for: file_path"):
        top_terms(words, "year")
    with pytest.raises(InvalidRequestError, match="limit must be 1–100"):
        top_terms(words, "content", 0)


def test_duplicates_are_grouped_largest_first_and_by_folder(words: Index) -> None:
    found = find_duplicates(words)
    assert found.total_groups == 1
    (group,) = found.groups
    assert [(d.file_path, d.file_size, d.modified_date) for d in group.documents] == [
        ("/docs/a/00.txt", 100, "2024-01-01T00:00:00Z"),
        ("/docs/a/04.txt", 104, "2024-01-05T00:00:00Z"),
        ("/docs/b/08.txt", 108, "2024-01-09T00:00:00Z"),
    ]
    assert group.size == 3
    assert find_duplicates(words, directory="/docs/a").groups[0].size == 2
    assert find_duplicates(words, min_group_size=4).total_groups == 0
    with words.writer() as w:
        w.delete("/docs/a/04.txt")
    assert find_duplicates(words).groups[0].size == 2  # deleted documents do not count


@pytest.fixture
async def client(words: Index) -> AsyncIterator[Client]:
    async with connect(words) as connected:
        yield connected


@pytest.mark.anyio
async def test_the_tools_answer_in_camel_case_within_the_budget(
    client: Client, words: Index
) -> None:
    suggested = await call(client, "suggestTerms", prefix="contr")
    assert suggested["terms"][0] == {"term": "contract", "docFreq": 12}
    top = await call(client, "getTopTerms", limit=100)
    assert {"term", "docFreq", "totalTermFreq"} <= set(top["terms"][0])
    groups = await call(client, "findDuplicates")
    assert groups["groups"][0]["size"] == 3 and groups["totalGroups"] == 1
    assert groups["groups"][0]["documents"][0] == {
        "filePath": "/docs/a/00.txt",
        "fileSize": 100,
        "modifiedDate": "2024-01-01T00:00:00Z",
    }
    assert "holds numbers" in await error(client, "suggestTerms", field="file_size")
    with words.writer() as w:  # long terms and paths, 60 groups of two: a heavy default answer
        for n in range(120):
            w.add(
                {
                    "file_path": f"/very/long/folder/name/for/the/budget/{n:03}/{'x' * 60}.txt",
                    "title": f"{'y' * 60}{n:03}",
                    "content": f"shared text {n // 2}",
                }
            )
    for tool, args in (
        ("getTopTerms", {"field": "title"}),
        ("suggestTerms", {"field": "title", "prefix": "y"}),
        ("findDuplicates", {}),
    ):
        result = await client.call_tool(tool, args)
        assert not result.is_error
        structured = result.structured_content
        assert structured is not None
        assert len(structured.get("terms", structured.get("groups"))) >= 10  # a full default page
        text = result.content[0].text  # type: ignore[union-attr]
        wire = json.dumps(structured, ensure_ascii=False, separators=(",", ":"))
        assert len(text.encode()) <= 10_000 and len(wire.encode()) <= 10_000, (tool, len(wire))


@pytest.mark.anyio
async def test_big_duplicate_groups_list_fewer_documents_to_fit_the_budget(
    client: Client, words: Index
) -> None:
    with words.writer() as w:  # 12 groups of 25 copies with long paths: 300 documents
        for n in range(300):
            w.add(
                {
                    "file_path": f"/copies/{'deep/' * 20}{n % 12:02}/{n:03}-{'z' * 40}.txt",
                    "content": f"copied text number {n % 12}",
                    "file_size": 5000 + n,
                    "modified_date": "2024-02-02",
                }
            )
    result = await client.call_tool("findDuplicates", {})
    assert not result.is_error and result.structured_content is not None
    groups = result.structured_content["groups"]
    assert len(groups) == 10 and all(g["size"] == 25 for g in groups)
    listed = [len(g["documents"]) for g in groups]
    assert all(1 <= n < 20 for n in listed), listed  # shortened, each keeps some
    assert max(listed) - min(listed) <= 1  # the longest lists gave up documents first
    text = result.content[0].text  # type: ignore[union-attr]
    assert len(text.encode()) <= 10_000


def test_documents_without_text_are_no_duplicates_of_each_other(fresh_index: Index) -> None:
    """Six unrelated files with no extracted text (scans, images) shared the hash of the empty
    text: they were the largest "group". They are counted apart, and paging is unchanged."""
    with fresh_index.writer() as w:
        for n in range(6):
            w.add({"file_path": f"/scans/{n}.png", "content": ""})
        for n in range(6):  # three real groups of two
            w.add({"file_path": f"/docs/{n}.txt", "content": f"the same text {n % 3}"})
    found = find_duplicates(fresh_index, page_size=2)
    assert found.total_groups == 3 and found.empty_documents == 6
    assert [g.size for g in found.groups] == [2, 2] and found.has_next_page
    second = find_duplicates(fresh_index, page=2, page_size=2)
    assert [g.size for g in second.groups] == [2] and not second.has_next_page
    assert {d.file_path for g in found.groups + second.groups for d in g.documents} == {
        f"/docs/{n}.txt" for n in range(6)
    }
    assert find_duplicates(fresh_index, directory="/scans").empty_documents == 6
    assert find_duplicates(fresh_index, directory="/docs").empty_documents == 0
    assert find_duplicates(fresh_index, min_group_size=7).empty_documents == 6
