"""The contract of a Backend, written once and run against every implementation (the embedded
Lucene index, and a SolrCloud collection on the session's local cluster: conftest's
``solr_settings``).

Each test writes its documents through the backend's own writer and checks the answers against
plain Python over the same documents: which documents hold a word, how many per language, which
paths lie below a folder, what a document's text is. Nothing here knows how an implementation
stores or searches."""

from __future__ import annotations

import base64
import random
import re
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.basics.errors import DocumentNotFoundError, InvalidRequestError
from pylucene_mcp.engine.core.backend import Backend, SearchRequest
from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend
from pylucene_mcp.engine.solr.backend import SolrBackend

WORDS = (
    "harbour lantern quarry meadow orchard glacier canyon prairie lagoon tundra "
    "Hafen Laterne Steinbruch Wiese Obstgarten Gletscher Schlucht Steppe Lagune"
).split()
LANGUAGES = ("en", "de")


def _embedded(folder: Path, request: pytest.FixtureRequest) -> Backend:
    return EmbeddedBackend.open(folder, refresh_interval_s=0.05)


def _solr(folder: Path, request: pytest.FixtureRequest) -> Backend:
    """The session's SolrCloud collection (conftest's ``solr_settings``), emptied."""
    settings = request.getfixturevalue("solr_settings")
    backend = SolrBackend.open(settings, refresh_interval_s=0.05)
    with backend.writer() as writer:
        writer.delete_under("/")
    assert len(backend) == 0
    return backend


#: name → a function that opens a new, empty backend in a folder of the test's own
IMPLEMENTATIONS: dict[str, Callable[[Path, pytest.FixtureRequest], Backend]] = {
    "embedded": _embedded,
    "solr": _solr,
}


def make_documents(root: Path, count: int, seed: int) -> list[dict[str, Any]]:
    """``count`` documents in three folders, each of a few random words and one language."""
    chance = random.Random(seed)
    docs = []
    for n in range(count):
        folder = ("reports", "letters", "letters-old")[n % 3]
        words = chance.sample(WORDS, chance.randint(2, 6))
        docs.append(
            {
                "file_path": str(root / folder / f"doc{n:03}.txt"),
                "title": f"Document {n}",
                "language": LANGUAGES[n % 2],
                "content": " ".join(words) + ".",
                "file_size": 100 + n,
                "file_mtime": 1_700_000_000_000 + n,
                "content_hash": f"hash-{n % 7}",
            }
        )
    return docs


def holding(docs: list[dict[str, Any]], word: str) -> set[str]:
    """The oracle: the paths whose text has ``word`` as a whole word, case aside."""
    pattern = re.compile(rf"\b{re.escape(word)}\b", re.IGNORECASE)
    return {d["file_path"] for d in docs if pattern.search(d["content"])}


@pytest.fixture(params=sorted(IMPLEMENTATIONS))
def backend(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Backend]:
    opened = IMPLEMENTATIONS[request.param](tmp_path / "index", request)
    yield opened
    opened.close()


@pytest.fixture
def docs(backend: Backend, tmp_path: Path) -> list[dict[str, Any]]:
    written = make_documents(tmp_path / "files", 60, seed=7)
    with backend.writer() as writer:
        for doc in written:
            writer.add(doc)
    backend.refresh()
    return written


def all_paths(backend: Backend, query: str, **options: Any) -> set[str]:
    result = backend.search(SearchRequest(query, page_size=100, max_passages=0, **options))
    assert result.total_hits <= 100
    return {hit.file_path for hit in result.documents}


def test_every_written_document_is_counted_and_searchable(
    backend: Backend, docs: list[dict[str, Any]]
) -> None:
    assert len(backend) == len(docs)
    assert all_paths(backend, "*") == {d["file_path"] for d in docs}


@pytest.mark.parametrize("word", ["harbour", "Gletscher", "lagoon", "Steppe"])
def test_a_word_finds_exactly_the_documents_that_hold_it(
    backend: Backend, docs: list[dict[str, Any]], word: str
) -> None:
    expected = holding(docs, word)
    assert expected, "the corpus must hold the word for the test to mean anything"
    result = backend.search(SearchRequest(word, page_size=100, word_forms=False, max_passages=0))
    assert result.total_hits == len(expected)
    assert {hit.file_path for hit in result.documents} == expected


def test_one_request_with_the_engines_names_runs_on_every_backend(
    backend: Backend, docs: list[dict[str, Any]]
) -> None:
    """A backend takes one SearchRequest, checked when it is made: Python names only (the
    tool's are translated in server/), and a wrong one refused with the names it takes."""
    expected = holding(docs, "harbour") | holding(docs, "meadow")
    request = SearchRequest(
        "harbour meadow", page_size=100, default_operator="OR", word_forms=False, max_passages=0
    )
    assert {hit.file_path for hit in backend.search(request).documents} == expected
    with pytest.raises(InvalidRequestError, match="no option 'pageSize'; it takes filters, sort"):
        SearchRequest.of("harbour", pageSize=5)
    with pytest.raises(InvalidRequestError, match="page_size must be 1–100, got 0"):
        SearchRequest("harbour", page_size=0)


def test_and_or_and_not_combine_as_sets(backend: Backend, docs: list[dict[str, Any]]) -> None:
    a, b = holding(docs, "harbour"), holding(docs, "meadow")
    assert all_paths(backend, "harbour meadow", word_forms=False) == a & b
    assert all_paths(backend, "harbour OR meadow", word_forms=False) == a | b
    assert all_paths(backend, "harbour NOT meadow", word_forms=False) == a - b


def test_a_filter_keeps_the_documents_it_names(
    backend: Backend, docs: list[dict[str, Any]]
) -> None:
    german = {d["file_path"] for d in docs if d["language"] == "de"}
    found = all_paths(backend, "*", filters=[{"field": "language", "value": "de"}])
    assert found == german


def test_facet_counts_are_the_counts_of_the_match(
    backend: Backend, docs: list[dict[str, Any]]
) -> None:
    matching = holding(docs, "quarry") | holding(docs, "Wiese")
    expected = Counter(d["language"] for d in docs if d["file_path"] in matching)
    result = backend.search(SearchRequest("quarry OR Wiese", word_forms=False, max_passages=0))
    counted = {f.value: f.count for f in result.facets["language"]}
    assert counted == dict(expected)
    named, _, cut = backend.facet_counts(
        "*", facet_queries={"canyon": "canyon", "both": "canyon AND tundra"}, word_forms=False
    )
    assert not cut
    assert named == {
        "canyon": len(holding(docs, "canyon")),
        "both": len(holding(docs, "canyon") & holding(docs, "tundra")),
    }


@pytest.mark.parametrize("readable", [("letters",), ("reports", "letters-old"), ()])
def test_a_search_within_readable_folders_answers_as_if_nothing_else_existed(
    backend: Backend, docs: list[dict[str, Any]], tmp_path: Path, readable: tuple[str, ...]
) -> None:
    """``within``: the hits, total, facets, each filter's count, the facet queries and the
    pages of a reader who may read only some folders are those of an index holding only their
    documents (``letters`` is no prefix of ``letters-old``)."""
    folders = [str(tmp_path / "files" / name) for name in readable]
    seen = [d for d in docs if any(d["file_path"].startswith(f + "/") for f in folders)]
    paths = {d["file_path"] for d in seen}
    german = {d["file_path"] for d in seen if d["language"] == "de"}
    request = SearchRequest(
        "harbour OR meadow OR tundra",
        default_operator="OR",
        word_forms=False,
        page_size=100,
        max_passages=1,
        filters=[{"field": "language", "value": "de"}],
        facet_queries={"canyon": "canyon"},
        within=folders,
    )
    result = backend.search(request)
    matching = holding(seen, "harbour") | holding(seen, "meadow") | holding(seen, "tundra")
    assert {hit.file_path for hit in result.documents} == matching & german
    assert result.total_hits == len(matching & german)
    assert {f.value: f.count for f in result.facets["language"]} == dict(
        Counter(d["language"] for d in seen if d["file_path"] in matching)
    )
    assert [f.match_count for f in result.active_filters] == [len(matching & german)]
    assert result.facet_queries == {"canyon": len(holding(seen, "canyon") & matching & german)}
    everything = backend.search(SearchRequest("*", page_size=100, max_passages=0, within=folders))
    assert {hit.file_path for hit in everything.documents} == paths
    walked: list[str] = []
    cursor: str | None = "*"
    while cursor is not None:
        page = backend.search(
            SearchRequest("*", page_size=7, cursor=cursor, max_passages=0, within=folders)
        )
        walked += [hit.file_path for hit in page.documents]
        cursor = page.next_cursor
    assert sorted(walked) == sorted(paths)


def test_pages_cover_the_match_once(backend: Backend, docs: list[dict[str, Any]]) -> None:
    seen: list[str] = []
    for page in range(1, 8):
        result = backend.search(
            SearchRequest(
                "*", page=page, page_size=10, sort="file_size", sort_order="asc", max_passages=0
            )
        )
        seen += [hit.file_path for hit in result.documents]
    assert seen == [d["file_path"] for d in sorted(docs, key=lambda d: d["file_size"])]


@pytest.mark.parametrize(
    "forged",
    ["1e+e:/x", "...:/x", "--:/x", "E:/x", "5|1e+e", "0:1e+e:/x", "-1:--:/x", ""],
)
def test_a_forged_or_edited_cursor_is_refused_in_plain_words(
    backend: Backend, docs: list[dict[str, Any]], forged: str
) -> None:
    """Issue: cursors with a malformed number (``1e+e:/x`` …) answered a Java
    NumberFormatException as an internal error. A cursor is signed: whatever was not handed out
    is "not one this server gave", before any of it is read."""
    options: dict[str, Any] = {"sort": "file_size", "sort_order": "asc", "page_size": 10}
    cursor = backend.search(SearchRequest("*", cursor="*", **options)).next_cursor
    assert cursor is not None
    text = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
    version, owner, rest = text.split("|", 2)
    for made_up in (
        f"{version}|{owner}|{forged}|{rest.rsplit('|', 1)[1]}",  # the position changed
        f"2|{owner}|{forged}",  # the unsigned cursors of before
        f"s1|{owner}|0|{forged}",
    ):
        encoded = base64.urlsafe_b64encode(made_up.encode()).decode().rstrip("=")
        with pytest.raises(InvalidRequestError, match="cursor is not one this server gave"):
            backend.search(SearchRequest("*", cursor=encoded, **options))
    again = backend.search(
        SearchRequest("*", cursor=cursor, **options)
    )  # the real one still walks on
    assert [h.file_path for h in again.documents] == [
        d["file_path"] for d in sorted(docs, key=lambda d: d["file_size"])[10:20]
    ]


def test_details_give_back_the_text_and_name_a_missing_document(
    backend: Backend, docs: list[dict[str, Any]]
) -> None:
    doc = docs[5]
    details = backend.document_details(doc["file_path"])
    assert details.content == doc["content"]
    assert details.fields["title"] == doc["title"]
    with pytest.raises(DocumentNotFoundError):
        backend.document_details(doc["file_path"] + ".gone")


def test_a_malformed_query_is_the_caller_s_mistake(backend: Backend, docs: Any) -> None:
    with pytest.raises(InvalidRequestError):
        backend.search(SearchRequest('"unclosed phrase'))
    with pytest.raises(InvalidRequestError):
        backend.search(SearchRequest("harbour", filters=[{"field": "no_such_field", "value": "x"}]))


def test_deletes_remove_exactly_what_they_name(
    backend: Backend, docs: list[dict[str, Any]], tmp_path: Path
) -> None:
    letters = str(tmp_path / "files" / "letters")
    one = docs[0]["file_path"]
    with backend.writer() as writer:
        writer.delete(one)
        writer.delete_under(letters)
    backend.refresh()
    kept = {
        d["file_path"]
        for d in docs
        if d["file_path"] != one and not d["file_path"].startswith(letters + "/")
    }
    assert all_paths(backend, "*") == kept
    assert any("letters-old" in p for p in kept)  # a sibling whose name starts the same stays


def test_a_delete_under_a_folder_keeps_the_folders_inside_it_that_stay(
    backend: Backend, docs: list[dict[str, Any]], tmp_path: Path
) -> None:
    files = tmp_path / "files"
    with backend.writer() as writer:
        writer.delete_under(str(files), keep=[str(files / "letters")])
    backend.refresh()
    letters = str(files / "letters") + "/"
    assert all_paths(backend, "*") == {
        d["file_path"] for d in docs if d["file_path"].startswith(letters)
    }


def test_a_delete_outside_folders_removes_what_none_of_them_covers(
    backend: Backend, docs: list[dict[str, Any]], tmp_path: Path
) -> None:
    files = tmp_path / "files"
    with backend.writer() as writer:
        writer.add({"file_path": str(tmp_path / "elsewhere" / "x.txt"), "content": "stray"})
        writer.add({"file_path": "/reports-elsewhere/y.txt", "content": "stray"})
    backend.refresh()
    with backend.writer() as writer:
        writer.delete_outside([str(files / "reports"), str(files / "letters")])
    backend.refresh()
    kept = {
        d["file_path"]
        for d in docs
        if d["file_path"].startswith((str(files / "reports") + "/", str(files / "letters") + "/"))
    }
    assert all_paths(backend, "*") == kept  # letters-old and the strays went


def test_a_block_that_raises_writes_nothing(backend: Backend, docs: list[dict[str, Any]]) -> None:
    before = len(backend)
    with pytest.raises(RuntimeError, match="planted"):
        with backend.writer() as writer:
            writer.delete(docs[1]["file_path"])
            raise RuntimeError("planted")
    backend.refresh()
    assert len(backend) == before
    assert docs[1]["file_path"] in all_paths(backend, "*")


def test_touch_records_the_mtime_seen_and_adds_nothing(
    backend: Backend, docs: list[dict[str, Any]]
) -> None:
    path, missing = docs[0]["file_path"], docs[0]["file_path"] + ".never-written"
    before = backend.file_states_of([path])[path]
    assert before.mtime_ms == docs[0]["file_mtime"]
    with backend.writer() as writer:
        writer.touch(path, 1_800_000_000_000)
        writer.touch(missing, 1_800_000_000_000)
    backend.refresh()
    states = backend.file_states_of([path, missing])
    assert set(states) == {path}
    assert states[path].mtime_ms == 1_800_000_000_000
    assert states[path].content_hash == before.content_hash
    assert len(backend) == len(docs)


def test_file_states_are_what_was_written(
    backend: Backend, docs: list[dict[str, Any]], tmp_path: Path
) -> None:
    reports = str(tmp_path / "files" / "reports")
    states = backend.file_states([reports])
    expected = {d["file_path"]: d for d in docs if d["file_path"].startswith(reports + "/")}
    assert set(states) == set(expected)
    for path, state in states.items():
        assert state.content_hash == expected[path]["content_hash"]
    some = [docs[0]["file_path"], docs[1]["file_path"], str(tmp_path / "never-written.txt")]
    assert set(backend.file_states_of(some)) == set(some[:2])


def test_vocabulary_counts_documents(backend: Backend, docs: list[dict[str, Any]]) -> None:
    top = {t.term: t.doc_freq for t in backend.top_terms("content", limit=50).terms}
    for word in ("harbour", "lantern", "glacier"):
        assert top[word] == len(holding(docs, word))
    suggested = [t.term for t in backend.suggest_terms("content", "la", limit=20).terms]
    assert set(suggested) == {w.lower() for w in WORDS if w.lower().startswith("la")}


def test_the_top_terms_can_leave_the_common_words_out(backend: Backend, tmp_path: Path) -> None:
    """getTopTerms had topped out at "in, 1, 2, an, a, to, the": the words that tell documents
    apart come first once the stop words of English and German, numbers and letters are out."""
    texts = [
        "the harbour and the lantern 1 2 a",
        "the harbour und der Hafen für 1 b",
        "the glacier and die Welt 2 c",
    ]
    with backend.writer() as writer:
        for n, text in enumerate(texts):
            writer.add({"file_path": str(tmp_path / f"t{n}.txt"), "content": text})
    backend.refresh()
    every = [t.term for t in backend.top_terms("content", limit=6).terms]
    assert "the" in every  # all words, as before, by default of the Python API
    kept = {t.term: t.doc_freq for t in backend.top_terms("content", 5, skip_common=True).terms}
    assert kept == {"harbour": 2, "lantern": 1, "hafen": 1, "glacier": 1, "welt": 1}


def test_duplicates_group_the_same_text(backend: Backend, docs: list[dict[str, Any]]) -> None:
    by_hash = Counter(d["content_hash"] for d in docs)
    found = backend.find_duplicates(min_group_size=2, page_size=50)
    sizes = sorted(group.size for group in found.groups)
    assert sizes == sorted(n for n in by_hash.values() if n >= 2)


def test_statistics_and_fields(backend: Backend, docs: list[dict[str, Any]]) -> None:
    stats = backend.index_stats()
    assert stats.document_count == len(docs)
    languages = backend.search(SearchRequest("*", max_passages=0)).facets["language"]
    assert {f.value: f.count for f in languages} == dict(Counter(d["language"] for d in docs))
    names = {f.name for f in backend.field_infos()}
    assert {"content", "title", "language", "file_path"} <= names


def test_explanations_name_the_document_s_terms(
    backend: Backend, docs: list[dict[str, Any]]
) -> None:
    path = sorted(holding(docs, "orchard"))[0]
    explained = backend.explain("orchard", path)
    assert explained.matched and explained.score > 0
    outsider = sorted({d["file_path"] for d in docs} - holding(docs, "orchard"))[0]
    miss = backend.explain_miss("orchard", outsider)
    assert not miss.matches_query and miss.reasons
    profile = backend.profile_query("orchard OR prairie")
    assert profile.matching == len(holding(docs, "orchard") | holding(docs, "prairie"))
    assert profile.documents == len(docs)


#: Documents whose words stand in different fields: the text, the title, the file name.
FIELDED = [
    {"file_path": "/f/listed.txt", "content": "The files are listed here."},
    {"file_path": "/f/one.txt", "content": "Only one file is listed."},
    {"file_path": "/f/notes.txt", "content": "The debian release."},
    {"file_path": "/f/titled.pdf", "title": "Debian notes", "content": "release notes"},
    {"file_path": "/f/debian-notes.txt", "content": "plain notes"},
    {"file_path": "/f/upstream.txt", "content": "notes about upstream"},
    {"file_path": "/f/errors.pdf", "title": "Exceptions", "content": "handling errors"},
]


def _words(doc: dict[str, Any]) -> set[str]:
    """The oracle's words of a document in any field searched: its text, its title and its
    file name's parts (split at ``. - _ /``), lower case."""
    name = doc["file_path"].rsplit("/", 1)[-1]
    text = " ".join([doc.get("content", ""), doc.get("title", ""), re.sub(r"[.\-_]", " ", name)])
    return set(re.findall(r"\w+", text.lower()))


def oracle(clauses: list[tuple[bool, str]]) -> set[str]:
    """The documents where each clause holds, each on its own: (True, w) needs the word in any
    field, (False, w) its absence from every field; ``*`` is every document."""
    return {
        d["file_path"]
        for d in FIELDED
        if all((w == "*" or w in _words(d)) == wanted for wanted, w in clauses)
    }


@pytest.mark.parametrize(
    ("query", "clauses"),
    [
        ("* -debian", [(True, "*"), (False, "debian")]),
        ("-debian", [(False, "debian")]),
        ("notes -debian", [(True, "notes"), (False, "debian")]),
        ("*:* -debian", [(True, "*"), (False, "debian")]),
        ("debian AND *:*", [(True, "debian")]),
        ("debian release", [(True, "debian"), (True, "release")]),
        ("NOT notes", [(False, "notes")]),
        ("-*:*", [(False, "*")]),
    ],
)
def test_a_clause_holds_in_any_field_and_a_negation_in_none(
    backend: Backend, query: str, clauses: list[tuple[bool, str]]
) -> None:
    """Issue: ``* -debian`` returned documents with "debian" in their text (the title's
    alternative let them in), and ``*:*`` could not stand inside a query. Each clause is searched
    in every field (text, title, file name) on its own: a positive one holds when any field has
    it, a negated one when none has it."""
    with backend.writer() as writer:
        for doc in FIELDED:
            writer.add(doc)
    backend.refresh()
    assert all_paths(backend, query, word_forms=False) == oracle(clauses)


def test_word_forms_off_reaches_fielded_words_and_every_field(backend: Backend) -> None:
    """Issue: ``wordForms: false`` was ignored for ``content:files`` (which found "file") and for
    the title's alternative ("exception" found a title with "Exceptions")."""
    with backend.writer() as writer:
        for doc in FIELDED:
            writer.add(doc)
    backend.refresh()
    assert all_paths(backend, "content:files", word_forms=False) == {"/f/listed.txt"}
    assert all_paths(backend, "files", word_forms=False) == {"/f/listed.txt"}
    assert all_paths(backend, "exception", word_forms=False) == set()
    named, _, _ = backend.facet_counts(
        "*", facet_queries={"files": "content:files", "none": "-*:*"}, word_forms=False
    )
    assert named == {"files": 1, "none": 0}
    # with word forms, the other forms count (on the text's lemma fields)
    assert all_paths(backend, "content:files") == {"/f/listed.txt", "/f/one.txt"}


#: Texts with joined names, and the words a reader sees in them (the oracle's own split:
#: at dots and underscores, then at each capital after a small letter)
NAMED = [
    {"file_path": "/n/dhua.txt", "content": "dhua.sty for German abbreviations using LaTeX"},
    {"file_path": "/n/tree.txt", "content": "Call ElementTree.write now with the file_name."},
    {"file_path": "/n/words.txt", "content": "the tree write element of sty for dhua"},
    {"file_path": "/n/twice.txt", "content": "very very good"},
]


def _reader_words(text: str) -> list[list[str]]:
    """Each word of ``text`` as the set of words it stands for at its position: itself and the
    pieces of a joined name."""
    out = []
    for word in re.findall(r"[\w.]+\w|\w", text):
        chunks = re.split(r"[._]", word)
        pieces = [p for chunk in chunks for p in re.findall(r"[A-Z]?[a-z]+|[A-Z]+", chunk)]
        out.append([w.lower() for w in (word, *chunks, *pieces)])
    return out


def _name_phrase_oracle(phrase: list[str]) -> set[str]:
    """The documents where the phrase's words stand one after the other, neighbouring words
    that are pieces of one name standing at its position (never two same words)."""

    def stands(words: list[list[str]], i: int, at: int) -> bool:
        if i == len(phrase):
            return True
        for j in range(i + 1, len(phrase) + 1):
            if at >= len(words) or phrase[j - 1] not in words[at]:
                break
            if j - 1 > i and phrase[j - 1] == phrase[j - 2]:
                break
            if stands(words, j, at + 1):
                return True
        return False

    found = set()
    for doc in NAMED:
        words = _reader_words(doc["content"])
        if any(stands(words, 0, at) for at in range(len(words))):
            found.add(doc["file_path"])
    return found


@pytest.mark.parametrize(
    "phrase",
    [
        "dhua sty for German abbreviations using",
        "dhua.sty for",
        "sty for",
        "call element tree write now",
        "elementtree write",
        "tree write",
        "with the file name",
        "very good",
        "very very",
        "write element",
    ],
)
def test_a_phrase_finds_a_name_by_its_parts(backend: Backend, phrase: str) -> None:
    """Issue: "dhua sty for German abbreviations using" found nothing, though the text has
    "dhua.sty for German abbreviations using": the name's parts stand at its position."""
    with backend.writer() as writer:
        for doc in NAMED:
            writer.add(doc)
    backend.refresh()
    expected = _name_phrase_oracle(re.findall(r"[\w.]+\w|\w", phrase.lower()))
    assert expected  # each phrase stands somewhere: the test is not one of empty answers
    assert all_paths(backend, f'"{phrase}"', word_forms=False) == expected


def test_a_documents_matches_are_the_querys_words_in_its_text(backend: Backend) -> None:
    """getDocumentDetails with a query: where it matches the whole text, the same on both
    backends (the oracle: the words found in the text by a regular expression)."""
    text = "Harbour lights. The harbour was calm; a lantern in the harbours. Lanterns, quarry."
    with backend.writer() as writer:
        writer.add({"file_path": "/m/one.txt", "content": text, "language": "en"})
    backend.refresh()
    details = backend.document_details("/m/one.txt", query="harbour OR lantern*", word_forms=False)

    def spans(pattern: str) -> list[list[int]]:
        return [[m.start(), m.end() - m.start()] for m in re.finditer(pattern, text, re.IGNORECASE)]

    expected = sorted(spans(r"\bharbour\b") + spans(r"\blantern\w*"))
    assert details.matches == expected
    assert details.content == text[:5000] and details.page_offsets is None
    phrase = backend.document_details("/m/one.txt", query='"the harbour"', word_forms=False)
    assert phrase.matches == spans(r"\bthe harbour\b")
    assert backend.document_details("/m/one.txt").matches is None  # no query, no matches


def test_a_quote_is_located_exactly_normalized_or_nearly_in_real_text(backend: Backend) -> None:
    """locateQuote on every backend: quotes drawn from real English prose (the standard
    library's docstrings), as written, changed as an assistant changes them, and with a word
    changed, each found at its true place; a quote from nowhere is not said to stand."""
    import itertools

    from tests.quote_cases import drawn, places, variants
    from tests.real_text import english_docstrings

    texts = list(itertools.islice(english_docstrings(), 400))[::5]
    docs = [
        {"file_path": f"/prose/doc{n:03}.txt", "title": f"Prose {n}", "content": text}
        for n, text in enumerate(texts)
    ]
    with backend.writer() as writer:
        for doc in docs:
            writer.add(doc)
    backend.refresh()
    chance = random.Random(7)
    for case in drawn(docs, 6, seed=11):
        truth = places(docs, case.quote)
        assert (case.path, case.start) in truth
        found = backend.locate_quote(case.quote, max_results=50)
        exact = {(m.file_path, m.start) for m in found.matches if m.match == "exact"}
        assert exact == truth, case
        for changed in variants(case, chance):
            found = backend.locate_quote(changed.quote)
            best = found.matches[0]
            assert (best.file_path, best.match) == (case.path, changed.kind), changed
            assert (best.start, best.end) == (case.start, case.end), changed
            assert best.text == docs[int(case.path[-7:-4])]["content"][case.start : case.end]
            if changed.kind == "near":
                assert best.similarity >= 0.8
                assert any(d.quote == changed.changed for d in best.differences or ()), best
    nowhere = backend.locate_quote("the lighthouse keeper fed seventeen cats every evening")
    assert nowhere.matches == () and nowhere.closest is not None
    assert all(m.match == "near" and m.similarity < 0.8 for m in nowhere.closest)
    with pytest.raises(InvalidRequestError, match="letters or digits"):
        backend.locate_quote("a b")


@pytest.fixture(scope="module")
def parsers(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Any, Any]]:
    """Tika's text process and its OCR process (Tesseract: installed by CI)."""
    from pylucene_mcp.crawler.tesseract import find_tesseract
    from pylucene_mcp.crawler.tika_process import OcrSettings, TikaProcess, TikaSettings

    program = find_tesseract()
    if program is None:
        pytest.skip("Tesseract is not installed (scripts/ensure-tesseract)")
    logs = tmp_path_factory.mktemp("tika-logs")
    text = TikaProcess(TikaSettings(), log_dir=logs)
    recognising = TikaProcess(
        TikaSettings(ocr=OcrSettings("eng", 60, 300, Path(program).parent)), log_dir=logs
    )
    yield text, recognising
    text.close()
    recognising.close()


def test_a_scan_s_recognised_text_reaches_the_index_at_its_page(
    backend: Backend, tmp_path: Path, parsers: tuple[Any, Any]
) -> None:
    """OCR on every backend: a PDF of a typed page and a scanned one, crawled, then recognised;
    the scanned page's words are found at its page, the document says its text is recognised."""
    from pylucene_mcp.crawler import ocr
    from pylucene_mcp.crawler.extract import Extractor
    from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
    from tests.crawler.scans import mixed_pdf

    letter = ["The tenant pays the monthly rent of 850 euros before the third working day."]
    folder = tmp_path / "scans"
    folder.mkdir()
    mixed_pdf(folder / "contract.pdf", "A typed page about invoices.", letter)
    text, recognising = parsers
    crawler = Crawler(backend, Extractor(text), CrawlSettings())
    worker = ocr.OcrWorker(
        backend, Extractor(text), Extractor(recognising), ocr.OcrQueue(), max_pages=10
    )
    crawler.ocr = worker
    assert crawler.crawl([str(folder)]).added == 1
    assert worker.wait_idle(300), "OCR did not finish"
    backend.refresh()
    found = backend.search(SearchRequest('"monthly rent of 850 euros"'))
    assert [(h.file_name, h.ocr) for h in found.documents] == [("contract.pdf", True)]
    assert [p.page for p in found.documents[0].passages] == [2]
    typed = backend.search(SearchRequest("invoices")).documents[0]
    assert [p.page for p in typed.passages] == [1]
    facets = backend.search(SearchRequest("*")).facets["ocr"]
    assert {f.value: f.count for f in facets} == {"true": 1}
