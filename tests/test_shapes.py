"""Result shapes: one definition gives the Python API's objects, the JSON the shim writes and
the tools' output schemas, and a result is read lazily from that JSON."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import pytest
from pydantic import TypeAdapter, ValidationError

from pylucene_mcp import Hit, Index, Passage, SearchResult
from pylucene_mcp.basics.shapes import (
    Encoded,
    camel,
    compact_size,
    field_names,
    to_dict,
    wire_type,
)
from pylucene_mcp.engine.core.info import DocumentDetails, document_details
from pylucene_mcp.server.fitting import fit_passages

EVERY_FIELD = {
    "file_path": "/shapes/report.pdf",
    "file_name": "report.pdf",
    "title": "Quarterly report",
    "author": ["Ann Lee", "Bo Chen"],
    "language": "en",
    "file_extension": "pdf",
    "file_type": "application/pdf",
    "ocr": "true",
    "file_size": 12345,
    "created_date": "2023-05-06T07:08:09Z",
    "modified_date": "2024-03-01T12:30:05Z",
    "content": "The quarterly figures. " * 30 + "Revenue grew in the third quarter.",
    "page_offsets": [0, 300],
}


@pytest.fixture
def report(fresh_index: Index) -> Index:
    with fresh_index.writer() as writer:
        writer.add(EVERY_FIELD)
    return fresh_index


#: a hit's keys as docs/tools.md promises them to clients (the `fields` parameter's list and the
#: id), written out here: the shape's own declaration is not the judge of itself
DOCUMENTED_HIT_KEYS = {
    "filePath", "fileName", "title", "author", "language", "fileExtension", "fileType", "ocr",
    "fileSize", "createdDate", "modifiedDate", "indexedDate", "score", "passages",
}  # fmt: skip
#: and those of a semantic or hybrid search's hits (docs/tools.md, mode)
SEMANTIC_HIT_KEYS = {"similarity", "chunk", "semanticRank", "lexicalRank", "lexicalScore"}


def test_the_shim_writes_every_hit_field_under_the_key_the_schema_declares(report: Index) -> None:
    hit = report.search("revenue").to_dict()["documents"][0]
    assert set(hit) == DOCUMENTED_HIT_KEYS  # every documented key, and nothing else
    # the output schema too, with the keys of a semantic search's hits
    assert set(wire_type(Hit).__annotations__) == DOCUMENTED_HIT_KEYS | SEMANTIC_HIT_KEYS
    assert hit["author"] == "Ann Lee; Bo Chen"
    assert hit["ocr"] is True  # the JSON true, not the text the index keeps
    assert hit["createdDate"] == "2023-05-06T07:08:09Z"
    assert hit["fileSize"] == 12345
    assert hit["passages"][0]["page"] == 2  # "Revenue" is after the second page's offset
    assert isinstance(hit["score"], float) and round(hit["score"], 4) == hit["score"]


def test_the_python_objects_read_the_same_json(report: Index) -> None:
    result = report.search("revenue")
    hit = result.documents[0]
    assert isinstance(hit, Hit) and isinstance(hit.passages[0], Passage)
    assert hit.file_path == "/shapes/report.pdf"
    assert hit.author == "Ann Lee; Bo Chen"
    assert hit.passages[0].matched_terms == ("Revenue",)  # as written in the text
    assert result.documents is result.documents  # built once, on first read
    assert result.partial_results is False and result.passages_omitted is None
    names = field_names(Hit)
    assert names[0] == "file_path" and names[names.index("score") + 1] == "passages"
    # each field as the document was written (EVERY_FIELD), read through the object
    assert hit.title == EVERY_FIELD["title"] and hit.language == EVERY_FIELD["language"]
    assert hit.file_size == EVERY_FIELD["file_size"] and hit.file_type == "application/pdf"
    assert hit.created_date == EVERY_FIELD["created_date"]
    assert hit.modified_date == EVERY_FIELD["modified_date"]
    assert "<em>Revenue</em> grew in the third quarter" in hit.passages[0].text


def test_results_are_frozen_and_compare_by_their_json(report: Index) -> None:
    first, second = report.search("revenue"), report.search("revenue")
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.documents[0].title = "changed"  # type: ignore[misc]
    assert first.documents[0] == second.documents[0]
    assert first.documents[0] != first  # a different shape
    assert "file_path='/shapes/report.pdf'" in repr(first.documents[0])
    with pytest.raises(AttributeError, match="no attribute 'titel'"):
        _ = first.documents[0].titel  # type: ignore[attr-defined]


def test_a_missing_key_reads_as_the_empty_value_of_its_type() -> None:
    passage = Passage(
        {"text": "x", "score": 1.0, "matchedTerms": [], "termCoverage": 0.0, "position": 0.0}
    )
    assert passage.page is None and passage.matched_terms == ()
    result = SearchResult({"documents": [], "facets": {}})
    assert result.partial_results is False and result.documents == () and result.facets == {}


def test_fitting_to_a_budget_leaves_the_result_whole(report: Index) -> None:
    sentences = [f"Quarterly revenue of region {n} grew by {n} percent." for n in range(40)]
    with report.writer() as writer:
        writer.add({"file_path": "/docs/regions.txt", "content": " Filler text. ".join(sentences)})
    result = report.search("region", max_passages=5)
    passages = len(result.documents[0].passages)
    assert passages >= 2
    fitted = fit_passages(result.to_dict(), compact_size(result.to_dict()) - 1)
    assert fitted["passagesOmitted"] >= 1
    assert len(result.documents[0].passages) == passages  # the object keeps its passages
    assert len(result.to_dict()["documents"][0]["passages"]) == passages
    roomy = fit_passages(result.to_dict(), 10**6)
    assert len(roomy["documents"][0]["passages"]) == passages and "passagesOmitted" not in roomy
    budget = len(sent_bytes(result.to_dict())) - 1  # one byte short of the whole answer
    tight = fit_passages(result.to_dict(), budget)
    assert len(sent_bytes(tight)) <= budget  # measured here, not by the fitter's own size
    assert tight["passagesOmitted"] == passages - len(tight["documents"][0]["passages"]) > 0


def sent_bytes(answer: dict[str, Any]) -> bytes:
    """The answer as compact JSON, as a client receives it."""
    return json.dumps(answer, ensure_ascii=False, separators=(",", ":")).encode()


def test_wire_types_follow_the_shape_and_refuse_what_it_does_not_allow() -> None:
    adapter: TypeAdapter[Any] = TypeAdapter(wire_type(SearchResult))
    minimal = {
        "documents": [{"filePath": "/a"}],  # `fields` may leave only the id
        "totalHits": 1,
        "page": 1,
        "pageSize": 10,
        "totalPages": 1,
        "hasNextPage": False,
        "facets": {},
        "activeFilters": [{"field": "language", "operator": "eq", "value": "de", "matchCount": 1}],
        "searchTimeMs": 1.5,
    }
    adapter.validate_python(minimal)
    with pytest.raises(ValidationError, match="documents.0.filePath"):
        adapter.validate_python({**minimal, "documents": [{"title": "no id"}]})
    with pytest.raises(ValidationError, match="totalHits"):
        adapter.validate_python({k: v for k, v in minimal.items() if k != "totalHits"})
    details = wire_type(DocumentDetails)
    assert "pageCount" in details.__optional_keys__ and "content" in details.__required_keys__


def test_json_keys_are_camel_case_and_a_dataclass_leaves_none_out(report: Index) -> None:
    assert camel("file_path") == "filePath" and camel("from_") == "from"
    found = document_details(report, "/shapes/report.pdf", length=10)
    details = to_dict(found)
    assert details["filePath"] == "/shapes/report.pdf" and details["hasMore"] is True
    assert details["pageCount"] == 2
    assert "pageCount" not in to_dict(dataclasses.replace(found, page_count=None))


def test_a_shape_can_name_a_json_key_itself(report: Index) -> None:
    assert "_actions" in wire_type(SearchResult).__optional_keys__
    action = {"why": "w", "tool": "search", "arguments": {}, "sameArguments": True}
    result = SearchResult({"documents": [], "_actions": [action]})
    (read,) = result.actions or ()
    assert (read.tool, read.same_arguments) == ("search", True)


def test_a_page_renders_as_a_table_in_jupyter(report: Index) -> None:
    with report.writer() as w:
        w.add({"file_path": "/shapes/<script>.txt", "content": "revenue <b>bold</b> claims"})
    table = report.search("revenue")._repr_html_()
    assert table.startswith("<p>2 hits, page 1 of 1</p><table>")
    assert "<em>Revenue</em>" in table or "<em>revenue</em>" in table  # the marks stay marks
    assert "<script>" not in table and "&lt;script&gt;" in table and "<b>" not in table


def test_results_pickle_copy_and_compare_whether_read_or_not(report: Index) -> None:
    import copy
    import pickle

    data = report.search("revenue").to_dict()
    unread = SearchResult({**data, "documents": Encoded(json.dumps(data["documents"]))})
    assert unread == SearchResult(data)  # hits still JSON text on one side
    restored = pickle.loads(pickle.dumps(unread))
    assert restored.documents[0].file_path == "/shapes/report.pdf"
    assert copy.deepcopy(restored.documents[0]) == restored.documents[0]


def test_a_shape_spells_its_json_keys_and_refuses_a_name_it_lacks() -> None:
    """``Shape.wire``: fields by their Python names, written under the keys the shape reads
    back (camelCase, or its own ``json_keys``), None left out, nested results as JSON."""
    from pylucene_mcp.engine.core.passages import Passage
    from pylucene_mcp.engine.core.results import Hit, SearchResult

    passage = Passage.wire(text="a <em>b</em>", score=0.5, matched_terms=("b",), page=None)
    assert passage == {"text": "a <em>b</em>", "score": 0.5, "matchedTerms": ["b"]}
    hit = Hit(Hit.wire(file_path="/a.txt", score=1.0, chunk=(3, 9), passages=[passage]))
    assert (hit.file_path, hit.chunk, hit.passages[0].matched_terms) == ("/a.txt", (3, 9), ("b",))
    assert SearchResult.wire(actions=[]) == {"_actions": []}  # its own key for the field
    with pytest.raises(TypeError, match="Hit has no field 'filePath'"):
        Hit.wire(filePath="/a.txt")
