"""Names found by their parts (``ElementTree.write``, ``dhua.sty``, ``file_name``,
``getIndexStats``): each part finds the document, the whole name finds only the name, phrases
across a name still match, and the passage marks the part inside the name."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from pylucene_mcp import Index
from tests.mcp_client import call, connect

DOCS = {
    "/etree.html": "Call ElementTree.write() with the encoding argument to save the document.",
    "/letters.txt": "We write letters by hand. An element of surprise.",
    "/dhua.tex": "The package sets the page layout of the thesis.",
    "/api.py": "def getIndexStats(): returns the file_name of the HTTPServer, version 3.14",
}
TITLES = {"/dhua.tex": "dhua.sty manual"}


@pytest.fixture(scope="module")
def names(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Index]:
    index = Index.open(tmp_path_factory.mktemp("names") / "index")
    with index.writer() as w:
        for path, text in DOCS.items():
            w.add(
                {
                    "file_path": path,
                    "content": text,
                    **({"title": TITLES[path]} if path in TITLES else {}),
                }
            )
    yield index
    index.close()


def found(index: Index, query: str) -> set[str]:
    return {hit.file_path for hit in index.search(query, page_size=100, max_passages=0).documents}


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ("write", {"/etree.html", "/letters.txt"}),
        ("elementtree", {"/etree.html"}),
        ("tree", {"/etree.html"}),
        ("ElementTree.write", {"/etree.html"}),  # the whole name: only where it stands
        ("dhua", {"/dhua.tex"}),  # in the title only
        ("sty", {"/dhua.tex"}),
        ("dhua.sty", {"/dhua.tex"}),
        ("index AND stats", {"/api.py"}),
        ("getIndexStats", {"/api.py"}),
        ("file AND name", {"/api.py"}),
        ("http OR server", {"/api.py"}),
        ('"ElementTree.write with"', {"/etree.html"}),  # a phrase across the name
        ('"write with"', {"/etree.html"}),
        ("element", {"/etree.html", "/letters.txt"}),
        ("3", set()),  # numbers are not names: 3.14 stays whole
        ("3.14", {"/api.py"}),
    ],
)
def test_a_name_is_found_whole_and_by_each_part(
    names: Index, query: str, expected: set[str]
) -> None:
    assert found(names, query) == expected


def test_the_passage_marks_the_part_inside_the_name(names: Index) -> None:
    (hit,) = names.search("encoding AND write", max_passages=1).documents
    assert "ElementTree.<em>write</em>()" in hit.passages[0].text


@pytest.mark.anyio
async def test_the_search_tool_finds_them_too(names: Index) -> None:
    async with connect(names) as client:
        answer = await call(client, "search", query="sty")
    assert [doc["filePath"] for doc in answer["documents"]] == ["/dhua.tex"]
