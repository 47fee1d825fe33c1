"""A view of the embedded index (``LuceneIndex.viewed``: what a reader of some folders sees)
against an index holding those folders' documents alone, written separately: every answer of
every read question must be the same, scores and statistics included. The second index is the
oracle: what "as if the other documents did not exist" means, built without the view's code."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.basics.errors import DocumentNotFoundError, InvalidRequestError
from pylucene_mcp.basics.shapes import to_dict
from pylucene_mcp.engine.core.backend import SearchRequest
from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend

WORDS = (
    "harbour lantern quarry meadow orchard glacier canyon prairie lagoon tundra heron otter "
    "kingfisher willow birch falcon"
).split()
FOLDERS = ("sales", "eng", "public", "hr")
READABLE = ("sales", "public")


def documents(root: Path) -> list[dict[str, Any]]:
    chance = random.Random(11)
    docs = []
    for n in range(240):
        folder = FOLDERS[n % 4]
        # the hidden folders use some words far more, so that their statistics differ
        weights = [5 if folder in READABLE or i % 3 else 40 for i in range(len(WORDS))]
        words = chance.choices(WORDS, weights=weights, k=chance.randint(3, 30))
        docs.append(
            {
                "file_path": str(root / folder / f"doc{n:03}.txt"),
                "title": f"{words[0]} report {n}",
                "language": ("en", "de")[n % 2],
                "author": ("Ada", "Bo", "Cy")[n % 3],
                "content": " ".join(words) + ".",
                "file_size": 100 + n,
                "content_hash": f"hash-{n % 9}",
                "indexed_date": 1_760_000_000_000,  # the same in both indexes, whenever written
                "modified_date": 1_700_000_000_000 + n * 86_400_000,  # the last are hidden ones
            }
        )
    return docs


@pytest.fixture(scope="module")
def trio(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any, Any]]:
    """The whole index, its view of the readable folders, and those documents alone."""
    base = tmp_path_factory.mktemp("views")
    root = base / "files"
    docs = documents(root)
    full = EmbeddedBackend.open(base / "full", refresh_interval_s=0.05)
    alone = EmbeddedBackend.open(base / "alone", refresh_interval_s=0.05)
    readable = [str(root / f) for f in READABLE]
    for block in range(0, len(docs), 60):  # several segments: a block a commit
        with full.writer() as writer:
            for doc in docs[block : block + 60]:
                writer.add(doc)
    with alone.writer() as writer:
        for doc in docs:
            if any(doc["file_path"].startswith(f + "/") for f in readable):
                writer.add(doc)
    full.refresh()
    alone.refresh()
    yield full, full.viewed(readable), alone
    full.close()
    alone.close()


@pytest.fixture(scope="module")
def indexes(trio: tuple[Any, Any, Any]) -> tuple[Any, Any]:
    """The view, and the index of its documents alone."""
    return trio[1], trio[2]


QUERIES = [
    "heron",
    "heron otter",
    '"heron otter"',
    "kingfisher OR willow",
    "falc*",
    "*",
    "harbor~1",
]


@pytest.mark.parametrize("query", QUERIES)
def test_a_search_of_the_view_is_the_search_of_those_documents_alone(
    indexes: tuple[Any, Any], query: str
) -> None:
    view, alone = indexes
    request = SearchRequest(
        query,
        default_operator="OR",
        page_size=100,
        facet_queries={"otter": "otter"},
        filters=[
            {"field": "author", "operator": "in", "values": ["Ada", "Bo"]},
            {"field": "file_size", "operator": "range", "from": 150},
        ],
        range_facets=[
            {"field": "modified_date", "start": "2023-11-01", "end": "2024-07-01", "gap": "month"}
        ],
    )
    seen, truth = view.search(request).to_dict(), alone.search(request).to_dict()
    for answer in (seen, truth):
        answer.pop("searchTimeMs", None)
        # equal scores rank by document number, which differs between the two indexes' segments
        answer["documents"].sort(key=lambda hit: (-hit["score"], hit["filePath"]))
    assert seen == truth


def test_vocabulary_duplicates_and_statistics_are_those_of_the_documents_alone(
    indexes: tuple[Any, Any],
) -> None:
    view, alone = indexes
    assert len(view) == len(alone) > 0
    assert to_dict(view.suggest_terms("content", "h")) == to_dict(
        alone.suggest_terms("content", "h")
    )
    assert to_dict(view.top_terms("content", 30)) == to_dict(alone.top_terms("content", 30))
    assert to_dict(view.top_terms("author", 5)) == to_dict(alone.top_terms("author", 5))
    assert to_dict(view.find_duplicates(page_size=50)) == to_dict(
        alone.find_duplicates(page_size=50)
    )
    counts = {f.name: f.documents_with_field for f in view.field_infos()}
    assert counts == {f.name: f.documents_with_field for f in alone.field_infos()}
    stats, truth = to_dict(view.index_stats()), to_dict(alone.index_stats())
    assert stats["documentCount"] == truth["documentCount"] and stats["deletedDocuments"] == 0
    assert stats["dateRanges"] == truth["dateRanges"]
    assert "sizeBytes" not in stats  # the whole index's size would tell of the rest


def test_a_miss_is_explained_as_by_the_documents_alone(indexes: tuple[Any, Any]) -> None:
    view, alone = indexes
    visible = next(h.file_path for h in alone.search(SearchRequest("otter", page_size=1)).documents)
    hidden = visible.replace("/sales/", "/hr/").replace("/public/", "/hr/")
    seen = uncosted(to_dict(view.explain_miss("heron AND kingfisher", visible)))
    truth = uncosted(to_dict(alone.explain_miss("heron AND kingfisher", visible)))
    assert seen == truth
    said = []
    for index in (view, alone):  # a hidden document is as missing as one never written
        with pytest.raises(DocumentNotFoundError) as refused:
            index.explain_miss("heron", hidden)
        said.append(str(refused.value))
    assert said[0] == said[1]


@pytest.mark.parametrize("query", ["heron otter", "kingfisher", "falc*"])
def test_a_profile_and_its_explanations_are_those_of_the_documents_alone(
    indexes: tuple[Any, Any], query: str
) -> None:
    view, alone = indexes
    options = {"analyze_document_scoring": True, "max_doc_explanations": 3}
    seen = uncosted(to_dict(view.profile_query(query, **options)))
    truth = uncosted(to_dict(alone.profile_query(query, **options)))
    assert seen == truth


def uncosted(answer: Any) -> Any:
    """``answer`` without its times and Lucene's cost estimates: a conjunction's estimate is
    the least of its clauses' in each segment, summed, so an index of several segments (the
    view's) estimates otherwise than one of a single segment, whatever it holds."""
    if isinstance(answer, dict):
        return {k: uncosted(v) for k, v in answer.items() if k not in ("cost", "profileTimeMs")}
    if isinstance(answer, list):
        return [uncosted(v) for v in answer]
    return answer


def test_a_view_outlives_a_new_writer(tmp_path: Path) -> None:
    """After a rollback (what a failed commit does: the writer closed, a new one opened) a
    view asked for again is of the new writer's documents."""
    index = EmbeddedBackend.open(tmp_path / "index", refresh_interval_s=0.05)
    with index.writer() as writer:
        writer.add({"file_path": "/a/x.txt", "content": "heron"})
        writer.add({"file_path": "/b/y.txt", "content": "heron"})
    index.refresh()
    assert len(index.viewed(["/a"])) == 1
    index._rollback()
    with index.writer() as writer:
        writer.add({"file_path": "/a/z.txt", "content": "heron"})
    index.refresh()
    found = index.viewed(["/a"]).search(SearchRequest("heron", max_passages=0))
    assert {hit.file_path for hit in found.documents} == {"/a/x.txt", "/a/z.txt"}
    index.close()


def test_a_cursor_belongs_to_the_view_it_was_made_in(trio: tuple[Any, Any, Any]) -> None:
    owner, view, _ = trio
    walk = owner.search(SearchRequest("*", page_size=5, cursor="*", max_passages=0))
    assert walk.next_cursor is not None
    with pytest.raises(InvalidRequestError, match="cursor"):
        view.search(SearchRequest("*", page_size=5, cursor=walk.next_cursor, max_passages=0))
    mine = view.search(SearchRequest("*", page_size=5, cursor="*", max_passages=0))
    assert mine.next_cursor is not None
    following = view.search(
        SearchRequest("*", page_size=5, cursor=mine.next_cursor, max_passages=0)
    )
    assert len(following.documents) == 5
