"""Search through real Lucene: syntax, rewrites, filters, facets, sorting, paging, passages."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import (
    Index,
    InvalidFilterError,
    InvalidRequestError,
    QuerySyntaxError,
    SearchRequest,
    SearchResult,
    TooManyClausesError,
    UnknownFieldError,
)
from tests.corpus import LONG_DOC_NEEDLE, LONG_DOC_PAGES


def names(result: SearchResult) -> set[str]:
    return {Path(hit.file_path).name for hit in result.documents}


def all_passage_text(result: SearchResult) -> str:
    return " ".join(p.text for hit in result.documents for p in hit.passages)


# -- query syntax and rewrites ------------------------------------------------------------------


def test_leading_wildcard_finds_compound_ends(index: Index) -> None:
    result = index.search("*vertrag")
    assert names(result) == {"arbeitsvertrag.txt", "kaufvertrag.md", "mietvertrag.txt"}


def test_infix_wildcard_finds_compounds_anywhere(index: Index) -> None:
    result = index.search("*vertrag*")
    # Arbeitsvertrag, Kaufvertrag, Mietvertrag, Tarifvertrag, Vertragsbedingungen
    assert names(result) == {"arbeitsvertrag.txt", "kaufvertrag.md", "mietvertrag.txt"}
    text = all_passage_text(result)
    # an infix pattern reaches the compounds inside a document, at either end of the word
    assert "<em>Vertragsbedingungen</em>" in text
    assert "<em>Tarifvertrag</em>" in text


def test_passages_highlight_the_original_words_after_the_reverse_rewrite(index: Index) -> None:
    result = index.search("*vertrag")
    by_name = {Path(h.file_path).name: h for h in result.documents}
    text = " ".join(p.text for p in by_name["arbeitsvertrag.txt"].passages)
    assert "<em>Arbeitsvertrag</em>" in text
    matched = [p.matched_terms for p in by_name["arbeitsvertrag.txt"].passages]
    assert ("Arbeitsvertrag",) in matched  # the word as the document writes it
    assert all(t.endswith("vertrag") for terms in matched for t in terms)


def test_trailing_wildcard_and_prefix(index: Index) -> None:
    assert names(index.search("agreem*")) == {
        "service-agreement.txt",
        "lease-agreement.txt",
        "meeting-notes.md",
    }


def test_german_transliteration_both_ways(index: Index) -> None:
    # "Mueller" written with a digraph finds "Müller" and the literal "Mueller"
    assert names(index.search("Mueller")) == {
        "arbeitsvertrag.txt",
        "kaufvertrag.md",
        "lease-agreement.txt",
    }
    # "Strasse" finds "Straße" (ß) and "Strasse"; "Kaese" finds "Käse" and "Kaese"
    assert {"arbeitsvertrag.txt", "strassenverkehr.txt"} <= names(index.search("Strasse"))
    assert names(index.search("Kaese")) == {"kaufvertrag.md", "mietvertrag.txt"}
    assert names(index.search("Käse")) == {"kaufvertrag.md", "mietvertrag.txt"}


def test_transliteration_is_highlighted(index: Index) -> None:
    result = index.search("Mueller", filters=[{"field": "file_extension", "value": "txt"}])
    assert "<em>Müller</em>" in all_passage_text(result)


def test_folding_finds_words_without_diacritics(index: Index) -> None:
    assert names(index.search("muller")) >= {"arbeitsvertrag.txt", "lease-agreement.txt"}
    assert names(index.search("cafe")) == {"finance-report.txt"}
    assert names(index.search("creme brulee")) == {"finance-report.txt"}
    assert "<em>café</em>" in all_passage_text(index.search("cafe"))


def test_nfkc_ligature_is_found_by_plain_letters(index: Index) -> None:
    # the fixture writes "ﬁnance" with the U+FB01 ligature
    result = index.search("finance AND efficiency")
    assert names(result) == {"finance-report.txt"}


def test_phrase_and_proximity(index: Index) -> None:
    assert names(index.search('"contract was signed"')) == {"service-agreement.txt"}
    assert names(index.search('"contract signed"')) == set()
    # "contract was signed" (one word between) and "signed contract" (swapped: slop 2)
    assert names(index.search('"contract signed"~3')) == {
        "service-agreement.txt",
        "employment-contract.txt",
    }
    assert names(index.search('"contract signed"~1')) == {"service-agreement.txt"}
    assert "<em>" in all_passage_text(index.search('"contract signed"~3'))


def test_boolean_operators_and_required_prohibited(index: Index) -> None:
    assert names(index.search("contract AND Globex")) == {
        "service-agreement.txt",
        "meeting-notes.md",
    }
    assert names(index.search("contract -Globex")) == {"employment-contract.txt"}
    assert names(index.search("+agreement NOT lease")) == {
        "service-agreement.txt",
        "meeting-notes.md",
    }


def test_fuzzy(index: Index) -> None:
    assert "recipe.txt" in names(index.search("cinamon~1"))


def test_field_queries(index: Index) -> None:
    assert names(index.search("title:lease")) == {"lease-agreement.txt"}
    assert names(index.search("author:chen")) == {"finance-report.txt", "recipe.txt"}
    assert names(index.search("language:de AND *vertrag")) == {
        "arbeitsvertrag.txt",
        "kaufvertrag.md",
        "mietvertrag.txt",
    }
    assert names(index.search("file_extension:md")) == {"kaufvertrag.md", "meeting-notes.md"}


def test_date_and_size_ranges_in_the_query(index: Index) -> None:
    assert names(index.search("modified_date:[2024-01-01 TO 2024-03-31]")) == {
        "arbeitsvertrag.txt",
        "service-agreement.txt",
    }
    assert names(index.search("modified_date:2024-03-15")) == {"arbeitsvertrag.txt"}
    big = names(index.search("file_size:[2000 TO *]"))
    assert big == {"archive-manual.txt"}


def test_default_operator_and_can_be_overridden(index: Index) -> None:
    assert names(index.search("apple contract")) == set()
    assert names(index.search("apple contract", default_operator="OR")) >= {
        "recipe.txt",
        "employment-contract.txt",
    }


def test_match_all(index: Index) -> None:
    assert index.search("*").total_hits == len(index) == 11


# -- errors -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "suggestion"),
    [
        ('"signed contract', '"signed contract"'),
        ("(contract OR agreement", "(contract OR agreement)"),
        ("contract AND", "contract"),
        ("title:", "title"),
    ],
)
def test_malformed_query_quotes_the_problem_and_suggests_a_fix(
    index: Index, query: str, suggestion: str
) -> None:
    with pytest.raises(QuerySyntaxError) as info:
        index.search(query)
    assert repr(query) in str(info.value)
    assert info.value.suggestion == suggestion
    assert f"Try: {suggestion}" in str(info.value)
    index.search(suggestion)  # the suggestion parses


def test_unknown_query_field_lists_valid_fields(index: Index) -> None:
    with pytest.raises(UnknownFieldError) as info:
        index.search("year:2024")
    assert "year" in str(info.value) and "modified_date" in str(info.value)
    assert "content" in info.value.valid_fields


def test_wrong_date_in_query(index: Index) -> None:
    with pytest.raises(QuerySyntaxError, match="2024-01-01T10:30:00Z"):
        index.search("modified_date:[yesterday TO *]")


def test_bad_paging_and_sort(index: Index) -> None:
    with pytest.raises(InvalidRequestError, match="^page_size must be 1–100, got 101"):
        index.search("*", page_size=101)  # the Python caller's name, not the tool's
    with pytest.raises(InvalidRequestError, match="page must be 1–1000"):
        index.search("*", page=0)
    with pytest.raises(InvalidRequestError, match="sort must be one of"):
        index.search("*", sort="title")


# -- filters ----------------------------------------------------------------------------------


def test_filters_and_across_fields_or_within_a_facet(index: Index) -> None:
    result = index.search(
        "*",
        filters=[
            {"field": "language", "operator": "eq", "value": "en"},
            {"field": "author", "operator": "in", "values": ["Chen Wei", "Dana Archivist"]},
        ],
    )
    assert names(result) == {"finance-report.txt", "recipe.txt", "archive-manual.txt"}


def test_not_and_not_in(index: Index) -> None:
    result = index.search("*", filters=[{"field": "language", "operator": "not", "value": "en"}])
    assert names(result) == {
        "arbeitsvertrag.txt",
        "kaufvertrag.md",
        "mietvertrag.txt",
        "strassenverkehr.txt",
    }
    result = index.search(
        "*", filters=[{"field": "file_extension", "operator": "not_in", "values": ["txt"]}]
    )
    assert names(result) == {"kaufvertrag.md", "meeting-notes.md"}


def test_date_range_filters_take_dates_and_datetimes(index: Index) -> None:
    result = index.search(
        "*",
        filters=[
            {
                "field": "modified_date",
                "operator": "range",
                "from": "2024-03-03",
                "to": "2024-03-15",
            }
        ],
    )
    assert names(result) == {"arbeitsvertrag.txt", "service-agreement.txt"}
    result = index.search(
        "*",
        filters=[{"field": "modified_date", "operator": "range", "from": "2024-03-15T10:30:00Z"}],
    )
    assert "arbeitsvertrag.txt" not in names(result)  # modified at 09:30 that day
    assert "meeting-notes.md" in names(result)


def test_size_range_filter(index: Index, docs: dict[str, dict[str, Any]]) -> None:
    size = docs["recipe.txt"]["file_size"]
    result = index.search("*", filters=[{"field": "file_size", "operator": "range", "to": size}])
    assert "recipe.txt" in names(result)
    assert all(h.file_size is not None and h.file_size <= size for h in result.documents)


def test_active_filters_carry_match_counts(index: Index) -> None:
    result = index.search(
        "contract OR agreement OR *vertrag",
        default_operator="OR",
        filters=[
            {"field": "language", "operator": "eq", "value": "de"},
            {"field": "modified_date", "operator": "range", "from": "2023-01-01"},
        ],
    )
    counts = {a.filter.field: a.match_count for a in result.active_filters}
    assert counts == {"language": 3, "modified_date": 5}
    assert names(result) == {"arbeitsvertrag.txt", "kaufvertrag.md"}


@pytest.mark.parametrize(
    ("flt", "error", "words"),
    [
        (
            {"field": "year", "value": "2024"},
            UnknownFieldError,
            ["filterable fields", "modified_date"],
        ),
        (
            {"field": "title", "value": "Lease"},
            InvalidFilterError,
            ["analyzed text", "title:(", "Filterable fields: file_path, author, language"],
        ),
        (
            {"field": "content", "operator": "in", "values": ["x"]},
            InvalidFilterError,
            ["analyzed text"],
        ),
        (
            {"field": "modified_date", "operator": "range", "from": "last week"},
            InvalidFilterError,
            ["not a date", "2024-01-01"],
        ),
        (
            {"field": "modified_date", "operator": "range", "from": "20240102"},
            InvalidFilterError,
            ["not a date"],  # not silently 20,240,102 ms after 1970
        ),
        (
            {"field": "file_size", "operator": "range", "from": "big"},
            InvalidFilterError,
            ["number"],
        ),
        ({"field": "language", "operator": "range", "from": "a"}, InvalidFilterError, ["takes eq"]),
        (
            {"field": "language", "operator": "like", "value": "a"},
            InvalidFilterError,
            ["unknown operator"],
        ),
        ({"field": "language", "operator": "in"}, InvalidFilterError, ["values"]),
        ({"field": "modified_date", "operator": "range"}, InvalidFilterError, ["from"]),
        (
            {
                "field": "modified_date",
                "operator": "range",
                "from": "2025-01-01",
                "to": "2024-01-01",
            },
            InvalidFilterError,
            ["after"],
        ),
    ],
)
def test_bad_filters_say_what_to_do(
    index: Index, flt: dict[str, Any], error: type[Exception], words: list[str]
) -> None:
    with pytest.raises(error) as info:
        index.search("*", filters=[flt])
    for word in words:
        assert word in str(info.value)


# -- facets -----------------------------------------------------------------------------------


def test_facets_count_the_hits(index: Index) -> None:
    result = index.search("*vertrag OR agreement", default_operator="OR")
    language = {f.value: f.count for f in result.facets["language"]}
    assert language == {"de": 3, "en": 3}
    extensions = {f.value: f.count for f in result.facets["file_extension"]}
    assert extensions == {"txt": 4, "md": 2}


def test_drill_sideways_keeps_the_other_values_of_a_filtered_dimension(index: Index) -> None:
    result = index.search("*", filters=[{"field": "language", "value": "de"}])
    assert result.total_hits == 4
    language = {f.value: f.count for f in result.facets["language"]}
    assert language == {"de": 4, "en": 7}  # en still shown, with its count
    authors = {f.value: f.count for f in result.facets["author"]}
    assert authors == {"Anna Schmidt": 2, "Jürgen Mueller": 2}  # other dims follow the filter


def test_multi_valued_author_facet(index: Index) -> None:
    result = index.search("Phoenix")
    assert {f.value for f in result.facets["author"]} == {"Anna Schmidt", "Bob Jones"}
    assert result.documents[0].author == "Anna Schmidt; Bob Jones"


# -- sorting and paging -----------------------------------------------------------------------


def test_sort_by_date_both_ways(index: Index) -> None:
    newest = index.search("*", sort="modified_date", sort_order="desc", page_size=3)
    assert [Path(h.file_path).name for h in newest.documents] == [
        "meeting-notes.md",
        "finance-report.txt",
        "arbeitsvertrag.txt",
    ]
    oldest = index.search("*", sort="modified_date", sort_order="asc", page_size=2)
    assert [Path(h.file_path).name for h in oldest.documents] == [
        "archive-manual.txt",
        "strassenverkehr.txt",
    ]


def test_sort_by_size(index: Index) -> None:
    result = index.search("*", sort="file_size", sort_order="desc", page_size=100)
    sizes = [h.file_size for h in result.documents]
    assert sizes == sorted(sizes, reverse=True)  # type: ignore[type-var]


def test_paging_walks_all_hits_once(index: Index) -> None:
    seen: list[str] = []
    page = 1
    while True:
        result = index.search("*", page=page, page_size=4, sort="modified_date")
        assert result.total_pages == 3
        seen.extend(h.file_path for h in result.documents)
        if not result.has_next_page:
            break
        page += 1
    assert page == 3
    assert len(seen) == len(set(seen)) == 11


def test_scores_rank_better_matches_first(fresh_index: Index) -> None:
    """Of documents alike but for their words (same length, each word once), one with both
    words of ``contract OR agreement`` outranks those with one, and those with one outrank none
    (BM25 adds a positive weight per word found): a ranking worked out here from the texts, not
    the order the engine returns."""
    texts = {
        "/r/both.txt": "contract agreement harbour kestrel",
        "/r/contract.txt": "contract heron harbour kestrel",
        "/r/agreement.txt": "agreement heron harbour kestrel",
        "/r/neither.txt": "plover heron harbour kestrel",
    }
    with fresh_index.writer() as w:
        for path, text in texts.items():
            w.add({"file_path": path, "content": text})
    found = fresh_index.search("contract OR agreement", default_operator="OR").documents
    words = {path: len({"contract", "agreement"} & set(t.split())) for path, t in texts.items()}
    assert [h.file_path for h in found][0] == "/r/both.txt"
    assert sorted(h.file_path for h in found) == sorted(p for p, n in words.items() if n)
    ranked = [words[h.file_path] for h in found]
    assert ranked == sorted(ranked, reverse=True) and found[-1].score > 0


# -- passages ---------------------------------------------------------------------------------


def test_passages_are_short_windows_with_metadata(index: Index) -> None:
    result = index.search("archive OR shelves", default_operator="OR")
    hit = next(h for h in result.documents if h.file_path.endswith("archive-manual.txt"))
    assert 1 <= len(hit.passages) <= 3
    assert hit.passages[0].score == 1.0
    for passage in hit.passages:
        visible = passage.text.replace("<em>", "").replace("</em>", "")
        assert len(visible) <= 200
        assert "<em>" in passage.text
        assert 0.0 <= passage.term_coverage <= 1.0
        assert 0.0 <= passage.position <= 1.0
        assert passage.page is not None and 1 <= passage.page <= LONG_DOC_PAGES
        assert passage.matched_terms


def test_a_match_on_the_last_page_of_a_long_document_yields_a_passage(index: Index) -> None:
    result = index.search(LONG_DOC_NEEDLE)
    assert names(result) == {"archive-manual.txt"}
    (passage,) = result.documents[0].passages
    assert f"<em>{LONG_DOC_NEEDLE}</em>" in passage.text
    assert passage.position > 0.95
    assert passage.page == LONG_DOC_PAGES


def test_term_coverage_counts_the_query_terms_in_a_passage(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add(
            {
                "file_path": "/d/q.txt",
                "content": "The quokka was reading a book. A quokka sat alone here. "
                "Nobody else was reading today. The weather was fine.",
            }
        )
    (hit,) = fresh_index.search("quokka OR reading", default_operator="OR").documents
    coverage = {tuple(t.lower() for t in p.matched_terms): p.term_coverage for p in hit.passages}
    assert coverage[("quokka", "reading")] == 1.0  # both query terms in one passage
    assert coverage[("quokka",)] == 0.5
    assert coverage[("reading",)] == 0.5


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        ('"contract was signed"', 1.0),  # a phrase matches as one span
        ("sign*", 1.0),  # a pattern's match is the word it reached
        ('"contract signed"~3 AND parties', 1.0),
        ("sign* OR quokka", 0.5),
        ("Mueller", 1.0),  # the transliteration twin
    ],
)
def test_term_coverage_counts_phrases_and_patterns(
    fresh_index: Index, query: str, expected: float
) -> None:
    with fresh_index.writer() as w:
        w.add(
            {
                "file_path": "/d/c.txt",
                "content": "The contract was signed by both parties. Herr Müller agreed.",
            }
        )
    (hit,) = fresh_index.search(query, default_operator="OR").documents
    assert max(p.term_coverage for p in hit.passages) == expected


def test_passage_length_and_count_can_be_set(index: Index) -> None:
    result = index.search("archive", max_passages=1, passage_length=80)
    hit = result.documents[0]
    assert len(hit.passages) == 1
    assert len(hit.passages[0].text.replace("<em>", "").replace("</em>", "")) <= 80
    assert index.search("archive", max_passages=0).documents[0].passages == ()


def test_default_response_for_ten_hits_stays_under_10_kb(index: Index) -> None:
    result = index.search("the OR a OR and OR der OR die", default_operator="OR")
    assert len(result.documents) == 10
    payload = json.dumps(result.to_dict(), ensure_ascii=False)
    assert len(payload.encode("utf-8")) < 10_000, len(payload)


def test_a_metadata_only_match_gets_one_leading_passage_without_highlights(index: Index) -> None:
    (hit,) = index.search("title:lease").documents
    (passage,) = hit.passages
    assert passage.text.startswith("Commercial Lease Agreement")
    assert "<em>" not in passage.text
    assert passage.matched_terms == () and passage.term_coverage == 0.0


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("AND", "AND, OR and NOT are operators"),
        ("lease /[/", "the regular expression at position 6 is not valid"),
        ("modified_date:[2024 TO *]", "'2024' is not a date; use 2024-01-01"),
        ("/a{1,100000}/", "a repeat may count at most 100"),
        ("a{", "need a \\ before them"),
    ],
)
def test_a_query_error_says_what_to_do_and_suggests_only_what_means_the_same(
    index: Index, query: str, says: str
) -> None:
    with pytest.raises(QuerySyntaxError) as info:
        index.search(query)
    assert says in str(info.value)
    assert info.value.suggestion is None  # no escaped literal offered as "the" fix
    assert "Try:" not in str(info.value)


def test_a_long_query_is_quoted_up_to_200_characters(index: Index) -> None:
    query = "lease " * 300 + "("
    with pytest.raises(QuerySyntaxError) as info:
        index.search(query)
    message = str(info.value)
    assert "more characters)" in message
    assert len(message) < 1000
    assert "column 1801" in message  # the position of the problem


def test_a_query_with_too_many_clauses_says_so_without_echoing_it(index: Index) -> None:
    from pylucene_mcp import jvm
    from pylucene_mcp.engine.core.query import MAX_CLAUSES

    searcher = jvm.jclass("org.apache.lucene.search.IndexSearcher")
    searcher.setMaxClauseCount(
        1024
    )  # Lucene's default: 3,000 words pass it (see tests/test_clause_limit.py)
    try:
        with pytest.raises(TooManyClausesError) as info:
            index.search(" OR ".join(f"w{n}" for n in range(3000)))
    finally:
        searcher.setMaxClauseCount(MAX_CLAUSES)
    assert "split it into several searches" in str(info.value)
    assert len(str(info.value)) < 600


def test_the_python_search_takes_options_or_a_request_and_refuses_the_tools_names(
    index: Index,
) -> None:
    by_options = index.search("*", page_size=2, sort="file_size", sort_order="asc")
    request = SearchRequest("*", page_size=2, sort="file_size", sort_order="asc")
    by_request = index.search(request)
    assert [h.file_path for h in by_request.documents] == [
        h.file_path for h in by_options.documents
    ]
    assert by_request.page_size == 2 and by_request.total_hits > 2
    with pytest.raises(InvalidRequestError, match="no option 'pageSize'.*page_size"):
        index.search("*", pageSize=2)  # the MCP tool's name: the message lists the Python ones
    with pytest.raises(InvalidRequestError, match="not both"):
        index.search(request, page_size=3)


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ("NOT " * 24 + "a", "cannot parse query"),
        ("NOT " * 2400 + "a", "cannot parse query"),
        ("AND " * 5000, "AND, OR and NOT are operators"),
        ("(" * 3000 + "a" + ")" * 3000, "nests parentheses 3000 deep; at most 50"),
        ("NOT (" * 1000 + "a" + ")" * 1000, "nests parentheses 1000 deep"),
        ("a" + " " * 20000 + "AND", "Try: a"),
        ("x" * 20000 + ":", "cannot parse query"),
    ],
)
def test_a_hostile_query_is_refused_with_a_message(index: Index, query: str, says: str) -> None:
    """Operator runs, deep nesting and long space runs: each refused by the parser or before
    it."""
    with pytest.raises(QuerySyntaxError, match=re.escape(says)):
        index.search(query)


def test_parentheses_as_deep_as_allowed_still_parse(index: Index) -> None:
    assert index.search("(" * 50 + "quokka" + ")" * 50).total_hits == 1
    assert index.search('"((((" quokka \\( ' * 30).total_hits == 1  # quoted, escaped: no depth


@pytest.mark.parametrize("regex", ["/(a{1,100}){1,100}/", "/[^x]{0,100}[^y]{0,100}/"])
def test_a_regex_too_complex_to_match_says_what_to_write(index: Index, regex: str) -> None:
    """Within the repeat limit, yet too complex for Lucene's automaton: the product's words,
    no Java class name."""
    with pytest.raises(QuerySyntaxError, match="too complex to match") as info:
        index.search(regex)
    assert "org.apache" not in str(info.value) and "internal error" not in str(info.value)
    assert "wildcard" in str(info.value)


def test_a_sentence_the_document_repeats_is_one_passage(fresh_index: Index) -> None:
    """A running header of a PDF page, a signature under every mail: the same sentence three
    times had come back as three passages of one hit."""
    header = "Fit Neural Networks to Tabular Data."
    text = " ".join(
        [header, "Chapter one explains the data.", header, "Networks learn weights.", header]
    )
    with fresh_index.writer() as w:
        w.add({"file_path": "/docs/book.pdf", "content": text})
    (hit,) = fresh_index.search("networks", max_passages=5).documents
    shown = [re.sub(r"</?em>", "", p.text).strip() for p in hit.passages]
    assert len(shown) == len(set(shown)) >= 2, shown
    assert header in shown


@pytest.mark.anyio
async def test_a_search_that_found_nothing_says_a_lowercase_and_is_a_word(index: Index) -> None:
    """`miete and kaution` answered 0 hits and nothing else: the default AND requires the word
    "and". The answer says so, and not where nothing stands out."""
    from tests.mcp_client import call, connect

    async with connect(index) as client:
        missed = await call(client, "search", query="xqzmiete and xqzkaution")
        assert missed["totalHits"] == 0
        assert "'and' in lowercase is a word" in missed["hint"] and "AND" in missed["hint"]
        plain = await call(client, "search", query="xqzmiete AND xqzkaution")
        assert plain["totalHits"] == 0 and "hint" not in plain
        phrase = await call(client, "search", query='"xqzrock and xqzroll"')
        assert "hint" not in phrase
