"""Silent wrong answers that are now right or refused: keyword fields in any case, dates given
as numbers, empty queries, the field statistics of page_offsets."""

from __future__ import annotations

import pytest

from pylucene_mcp import Index, InvalidFilterError, QuerySyntaxError
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.lucene.info import field_infos


def paths(result: object) -> set[str]:
    return {h.file_path for h in result.documents}  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("query", "lowered"),
    [
        ("language:DE", "language:de"),
        ("file_extension:TXT", "file_extension:txt"),
        ('file_type:"TEXT/PLAIN"', 'file_type:"text/plain"'),
        ("file_type:TEXT*", "file_type:text*"),
    ],
)
def test_keyword_fields_match_in_any_case(index: Index, query: str, lowered: str) -> None:
    found = paths(index.search(query))
    assert found, lowered
    assert found == paths(index.search(lowered))


@pytest.mark.parametrize(
    "flt",
    [
        {"field": "language", "value": "DE"},
        {"field": "language", "operator": "in", "values": ["De", "XX"]},
        {"field": "file_extension", "value": ".TXT"},
    ],
)
def test_filters_on_keyword_fields_match_in_any_case(index: Index, flt: dict[str, object]) -> None:
    lowered = {
        k: (v.lower().lstrip(".") if isinstance(v, str) and k == "value" else v)
        for k, v in flt.items()
    }
    if "values" in flt:
        lowered["values"] = [str(v).lower() for v in flt["values"]]  # type: ignore[attr-defined]
    found = paths(index.search("*", filters=[flt]))
    assert found and found == paths(index.search("*", filters=[lowered]))


def test_a_document_written_in_upper_case_is_found_in_lower_case(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add(
            {"file_path": "/d/A.TXT", "content": "x", "language": "EN", "file_type": "Text/Plain"}
        )
    assert paths(fresh_index.search('language:en AND file_type:"text/plain"')) == {"/d/A.TXT"}
    assert paths(fresh_index.search('file_path:"/d/A.TXT"')) == {"/d/A.TXT"}
    assert not fresh_index.search('file_path:"/d/a.txt"').documents  # paths keep their case
    facet = fresh_index.search("*").facets["language"]
    assert [(v.value, v.count) for v in facet] == [("en", 1)]


@pytest.mark.parametrize("bound", [2024, 20240101, 1.5])
def test_a_date_bound_given_as_a_number_is_refused_with_the_forms(
    index: Index, bound: object
) -> None:
    flt = {"field": "modified_date", "operator": "range", "from": bound}
    with pytest.raises(InvalidFilterError, match="is not a date; give it as text: 2024-01-01"):
        index.search("*", filters=[flt])


def test_a_date_in_the_query_accepts_only_the_documented_forms(index: Index) -> None:
    with pytest.raises(QuerySyntaxError, match="2024-01-01T10:30:00Z"):
        index.search("modified_date:[2024 TO *]")
    assert index.search("modified_date:[2024-01-01 TO *]").total_hits > 0


@pytest.mark.parametrize("query", ["", "   ", "\t\n"])
def test_an_empty_query_is_an_error_that_names_star(index: Index, query: str) -> None:
    with pytest.raises(QuerySyntaxError, match="use '\\*'") as info:
        index.search(query)
    assert info.value.suggestion == "*"
    assert index.search("*").total_hits == len(index)


def test_page_offsets_are_counted_in_the_field_statistics(index: Index) -> None:
    fields = {f.name: f for f in field_infos(index)}
    assert fields[schema.PAGE_OFFSETS].documents_with_field == 1  # the 40-page document
