"""Research indexes open again with the schema they keep (fields, analyzers, similarity), read-only
beside a writer, and refuse a create with another schema; misuse gets the project's errors."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

from pylucene_mcp import (
    DocumentNotFoundError,
    Index,
    IndexAccessError,
    IndexLockedError,
    InvalidRequestError,
    UnknownFieldError,
    jvm,
)
from pylucene_mcp.research import Analyzer, FieldSpec, ResearchIndex, Similarity

DOCS = [
    {"id": "d1", "body": "The Apples of the orchards", "year": 1970},
    {"id": "d2", "body": "a pear tart and one apple", "year": 1975},
    {"id": "d3", "body": "plums, sugar and butter", "year": 1980},
]


def fields() -> dict[str, FieldSpec]:
    english = Analyzer.custom(
        "standard", ["lowercase", {"stop": {"ignoreCase": "true"}}, "porterStem"]
    )
    return {
        "id": FieldSpec.keyword(doc_values=True),
        "body": FieldSpec.text(english, stored=True),
        "lemma": FieldSpec.text(Analyzer.product("lemma_en")),
        "year": FieldSpec.long(),
    }


def build(path: Path) -> None:
    with ResearchIndex.create(path, fields(), Similarity.bm25(0.9, 0.4)) as index:
        index.add_many([{**d, "lemma": d["body"]} for d in DOCS])


def test_an_index_opens_with_the_schema_it_keeps(tmp_path: Path) -> None:
    build(tmp_path / "x")
    with ResearchIndex.open(tmp_path / "x") as index:
        assert {n: s.kind for n, s in index.fields.items()} == {
            "id": "keyword",
            "body": "text",
            "lemma": "text",
            "year": "long",
        }
        assert index.fields["body"].stored and index.fields["id"].doc_values
        # the analyzers: English stemming with stop words, the product's lemmas
        assert index.terms("The Apples", "body") == ["appl"]
        assert index.terms("apples locked", "lemma") == ["apple", "locked", "lock"]
        # the similarity: d1's BM25(0.9, 0.4) score for "apples", worked out by hand (appl in
        # d1 and d2; body lengths 2, 4 and 3 terms once the stop words are gone)
        hit = index.search("apples", field="body").hits[0]
        idf = math.log(1 + (3 - 2 + 0.5) / (2 + 0.5))
        expected = idf * 1 / (1 + 0.9 * (1 - 0.4 + 0.4 * 2 / 3))
        assert hit.fields["id"] == "d1" and hit.score == pytest.approx(expected, rel=1e-6)
        assert index.search("year:[1971 TO 1990]").total_hits == 2  # longs stay longs
        index.add_many([{"id": "d4", "body": "apple juice"}])
    with ResearchIndex.open(tmp_path / "x", read_only=True) as again:
        assert len(again) == 4


def test_read_only_handles_read_beside_a_writer_and_refuse_to_write(tmp_path: Path) -> None:
    build(tmp_path / "x")
    writer = ResearchIndex.open(tmp_path / "x")
    first = ResearchIndex.open(tmp_path / "x", read_only=True)
    second = ResearchIndex.open(tmp_path / "x", read_only=True)
    try:
        assert len(first) == len(second) == 3
        with pytest.raises(InvalidRequestError, match="read-only: it cannot add documents"):
            first.add_many([{"id": "d9"}])
        with pytest.raises(InvalidRequestError, match="read-only: it cannot delete documents"):
            first.delete_ids(["d1"])
        with pytest.raises(IndexLockedError, match=r"open for writing elsewhere.*read_only=True"):
            ResearchIndex.open(tmp_path / "x")
        writer.add_many([{"id": "d4", "body": "apple juice"}])
        assert len(first) == 4  # a read-only handle sees each new commit
    finally:
        for index in (writer, first, second):
            index.close()


def test_create_on_an_index_with_another_schema_shows_both_and_keeps_the_index(
    tmp_path: Path,
) -> None:
    build(tmp_path / "x")
    with pytest.raises(InvalidRequestError) as refused:
        ResearchIndex.create(tmp_path / "x", {"id": FieldSpec.keyword()}, Similarity.bm25())
    message = str(refused.value)
    assert "it has body: text (stored)" in message and '"porterStem"' in message
    assert 'create was given id: keyword (stored); similarity {"bm25": {"b": 0.75' in message
    with ResearchIndex.open(tmp_path / "x", read_only=True) as index:
        assert len(index) == 3 and set(index.fields) == {"id", "body", "lemma", "year"}
    # the same schema again opens the index
    with ResearchIndex.create(tmp_path / "x", fields(), Similarity.bm25(0.9, 0.4)) as index:
        assert len(index) == 3


def test_analyzers_of_other_classes_come_back_by_class_or_are_asked_for(tmp_path: Path) -> None:
    english = jvm.jclass("org.apache.lucene.analysis.en.EnglishAnalyzer")()
    stop = jvm.jclass("org.apache.lucene.analysis.core.StopAnalyzer")(
        jvm.jclass("org.apache.lucene.analysis.CharArraySet")(
            jvm.jclass("java.util.List").of("the"), True
        )
    )
    spec = {
        "a": FieldSpec.text(english),
        "b": FieldSpec.text(stop),
        "c": FieldSpec.text(),
    }
    with ResearchIndex.create(tmp_path / "y", spec, Similarity.lm_dirichlet(500)) as index:
        index.add_many([{"a": "running dogs", "b": "The cat", "c": "The Cat"}])
    with pytest.raises(InvalidRequestError, match=r"StopAnalyzer.*analyzers=\{'b'"):
        ResearchIndex.open(tmp_path / "y")
    with ResearchIndex.open(tmp_path / "y", analyzers={"b": stop}) as index:
        assert index.terms("running dogs", "a") == ["run", "dog"]  # EnglishAnalyzer again
        assert index.terms("The cat", "b") == ["cat"]
        assert index.terms("The Cat", "c") == ["the", "cat"]  # StandardAnalyzer
        assert float(index.similarity.getMu()) == 500.0


def test_what_is_no_research_index_is_refused_with_what_to_do(tmp_path: Path) -> None:
    with pytest.raises(IndexAccessError, match="folder does not exist; create one"):
        ResearchIndex.open(tmp_path / "none")
    (tmp_path / "empty").mkdir()
    with pytest.raises(IndexAccessError, match="the folder is empty; create one"):
        ResearchIndex.open(tmp_path / "empty")
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.txt").write_text("not an index")
    with pytest.raises(IndexAccessError, match="holds no Lucene index"):
        ResearchIndex.open(tmp_path / "notes")
    product = Index.open(tmp_path / "product")
    with product.writer() as writer:
        writer.add({"file_path": "/p/a.txt", "content": "a note"})
    product.close()
    with pytest.raises(IndexAccessError, match="product's own .* pylucene_mcp.Index.open"):
        ResearchIndex.open(tmp_path / "product")
    with pytest.raises(InvalidRequestError, match="no research index .the product's own"):
        ResearchIndex.create(tmp_path / "product", fields())  # never added to
    kept = Index.open(tmp_path / "product")
    assert len(kept) == 1
    kept.close()
    # an index of another program: what it holds is named
    j = jvm.jclass
    directory = j("org.apache.lucene.store.FSDirectory").open(
        j("java.nio.file.Paths").get(str(tmp_path / "foreign"), jvm.jarray("String", []))
    )
    config = j("org.apache.lucene.index.IndexWriterConfig")(
        j("org.apache.lucene.analysis.standard.StandardAnalyzer")()
    )
    writer = j("org.apache.lucene.index.IndexWriter")(directory, config)
    for n in range(3):
        document = j("org.apache.lucene.document.Document")()
        store = j("org.apache.lucene.document.Field$Store").YES
        document.add(j("org.apache.lucene.document.StringField")("key", f"d{n}", store))
        document.add(j("org.apache.lucene.document.TextField")("body", "some text", store))
        writer.addDocument(document)
    writer.close()
    directory.close()
    with pytest.raises(
        IndexAccessError, match="Lucene 10 index of 3 documents with the fields body, key"
    ):
        ResearchIndex.open(tmp_path / "foreign", read_only=True)


def test_misuse_raises_the_projects_errors(tmp_path: Path) -> None:
    index = ResearchIndex.create(tmp_path / "z", fields())
    with pytest.raises(InvalidRequestError, match="not one document: wrap it in a list"):
        index.add_many({"id": "d1", "body": "x"})  # type: ignore[arg-type]
    with pytest.raises(InvalidRequestError, match="a document is a dict"):
        index.add_many(["d1"])  # type: ignore[list-item]
    index.add_many([{"id": "d1", "body": None, "year": None}])
    assert index.search("None", field="body").total_hits == 0  # not the text "None"
    assert next(iter(index)) == {"id": "d1"}
    index.close()
    index.close()  # twice: no error
    with pytest.raises(IndexAccessError, match="is closed; open it again"):
        len(index)
    with pytest.raises(IndexAccessError, match="is closed"):
        index.search("apple")
    with pytest.raises(InvalidRequestError, match="illegal k1 value"):
        Similarity.bm25(-1)
    with pytest.raises(InvalidRequestError, match="must be a number"):
        Similarity.lm_dirichlet("1000")  # type: ignore[arg-type]
    with pytest.raises(InvalidRequestError, match="takes a Java Analyzer, not 'english'"):
        FieldSpec.text("english")


def test_searches_name_what_is_wrong_instead_of_finding_nothing(tmp_path: Path) -> None:
    with ResearchIndex.create(
        tmp_path / "s", {"id": FieldSpec.keyword(), "body": FieldSpec.text()}
    ) as index:
        index.add_many([{"id": "a", "body": "hello world"}])
        with pytest.raises(UnknownFieldError, match="'title' is no text field.*: body"):
            index.search("hello", field="title")
        with pytest.raises(UnknownFieldError, match="'title' is no text field"):
            index.batch_search({"q": "hello"}, "title", "id")
        with pytest.raises(UnknownFieldError, match="'nid' is no keyword field.*: id"):
            index.batch_search({"q": "hello"}, "body", "nid")
        with pytest.raises(InvalidRequestError, match="a query is a text or a Lucene Query"):
            index.search(123)
        with pytest.raises(InvalidRequestError, match="k is a whole number"):
            index.search("hello", k="3")  # type: ignore[arg-type]
        with pytest.raises(InvalidRequestError, match="doc is a Lucene document id"):
            index.explain("hello", "a")  # type: ignore[arg-type]
        with pytest.raises(InvalidRequestError, match=r"not one id .*delete_ids\(\['a'\]\)"):
            index.delete_ids("a")
        assert len(index) == 1  # nothing went
        with pytest.raises(DocumentNotFoundError, match="no document 7"):
            index.term_vector(7, "body")
        with pytest.raises(UnknownFieldError, match="unknown field 'title'"):
            index.term_vector(0, "title")


def test_a_missing_word_list_is_the_callers_error_and_the_repl_shows_one_message() -> None:
    # in a fresh interpreter with no logging set up, as a REPL: the error reaches the caller,
    # with no Java stack on it and nothing printed of the package's log
    code = (
        "from pylucene_mcp.research import Analyzer\n"
        "try:\n"
        "    Analyzer.custom('standard', [{'stop': {'words': 'no-such-list.txt'}}])\n"
        "except Exception as e:\n"
        "    print(type(e).__name__, e.__cause__ is None, e.java_exception is not None)\n"
        "    print(e)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    first, message = done.stdout.splitlines()[:2]
    assert first == "InvalidRequestError True True"
    assert "could not read its file" in message and "no-such-list.txt" in message
    noise = [line for line in done.stderr.splitlines() if not line.startswith("JVM: ")]
    assert noise == []
