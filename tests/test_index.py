"""The index: writing, replacing, deleting, rollback, NRT visibility, locking, schema version."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from pylucene_mcp import (
    Index,
    IndexAccessError,
    IndexLockedError,
    InvalidRequestError,
    UnknownFieldError,
    jvm,
)
from pylucene_mcp.basics import schema
from pylucene_mcp.engine.core.info import document_details
from pylucene_mcp.engine.lucene.info import field_infos, index_stats
from tests.waiting import until


def test_add_then_search(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "hello lucene"})
    assert len(fresh_index) == 1
    assert fresh_index.search("lucene").total_hits == 1


def test_add_replaces_by_file_path(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "first version"})
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "second version"})
    assert len(fresh_index) == 1
    assert fresh_index.search("first").total_hits == 0
    assert fresh_index.search("second").total_hits == 1


def test_delete(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "x"})
        w.add({"file_path": "/d/b.txt", "content": "x"})
    with fresh_index.writer() as w:
        w.delete("/d/a.txt")
    assert [h.file_path for h in fresh_index.search("x").documents] == ["/d/b.txt"]


def test_an_error_in_a_writer_block_rolls_back_and_keeps_what_was_committed(
    fresh_index: Index,
) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/kept.txt", "content": "committed"})
    with pytest.raises(RuntimeError), fresh_index.writer() as w:
        w.add({"file_path": "/d/lost.txt", "content": "uncommitted"})
        w.delete("/d/kept.txt")
        raise RuntimeError("boom")
    fresh_index.refresh()
    assert [h.file_path for h in fresh_index.search("*").documents] == ["/d/kept.txt"]
    with fresh_index.writer() as w:  # the writer works again after the rollback
        w.add({"file_path": "/d/after.txt", "content": "again"})
    assert len(fresh_index) == 2


def test_bad_documents_are_refused_with_a_reason(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/ok.txt", "content": "ok"})
    with pytest.raises(UnknownFieldError, match="'year'"), fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "year": 2024})
    with pytest.raises(InvalidRequestError, match="file_path"), fresh_index.writer() as w:
        w.add({"content": "no path"})
    with pytest.raises(InvalidRequestError, match="not a date"), fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "modified_date": "soon"})
    with pytest.raises(InvalidRequestError, match="derived"), fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content_reversed": "x"})
    assert len(fresh_index) == 1  # the committed document survived every failure


@pytest.mark.parametrize(
    "value",
    [
        dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC),
        "2024-01-02T03:04:05Z",
        "2024-01-02T04:04:05+01:00",
        1704164645000,
    ],
)
def test_dates_in_every_accepted_form(fresh_index: Index, value: object) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "x", "modified_date": value})
    (hit,) = fresh_index.search("x").documents
    assert hit.modified_date == "2024-01-02T03:04:05Z"


def test_derived_fields(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/Report.PDF", "content": "x"})
    (hit,) = fresh_index.search("x").documents
    assert (hit.file_name, hit.file_extension, hit.file_type) == (
        "Report.PDF",
        "pdf",
        "application/pdf",
    )
    assert hit.language == "unknown"


def test_schema_version_is_in_the_commit_user_data(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "x"})
    assert fresh_index.schema_version == schema.SCHEMA_VERSION
    assert not fresh_index.needs_reindex


def test_a_second_writer_is_refused_with_advice(fresh_index: Index) -> None:
    with pytest.raises(IndexLockedError, match="another"):
        Index.open(fresh_index.path)


def test_read_only_opens_beside_a_writer_and_sees_its_commits(fresh_index: Index) -> None:
    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "one"})
    reader = Index.open(fresh_index.path, read_only=True)
    try:
        assert len(reader) == 1
        with fresh_index.writer() as w:
            w.add({"file_path": "/d/b.txt", "content": "two"})
        reader.refresh()
        assert len(reader) == 2
        with pytest.raises(IndexAccessError, match="read-only"), reader.writer():
            pass
    finally:
        reader.close()


def test_opening_a_missing_index_without_create(tmp_path: Path) -> None:
    with pytest.raises(IndexAccessError, match="no index"):
        Index.open(tmp_path / "nothing", create=False)


def test_nrt_searcher_sees_changes_within_the_refresh_interval(fresh_index: Index) -> None:
    # Changes made on the raw IndexWriter (not through writer()) show up by themselves.

    with fresh_index.writer() as w:
        w.add({"file_path": "/d/a.txt", "content": "x"})
    doc = jvm.jclass("org.apache.lucene.document.Document")()
    store = jvm.jclass("org.apache.lucene.document.Field$Store").YES
    doc.add(jvm.jclass("org.apache.lucene.document.StringField")("file_path", "/d/b.txt", store))
    # the schema's key also has sorted doc values (Lucene refuses a field indexed two ways)
    key = jvm.jclass("org.apache.lucene.util.BytesRef")("/d/b.txt")
    doc.add(jvm.jclass("org.apache.lucene.document.SortedDocValuesField")("file_path", key))
    fresh_index.java_writer.addDocument(doc)
    until(lambda: len(fresh_index) >= 2, 10 * fresh_index.refresh_interval_s, "the refresh")
    assert len(fresh_index) == 2


def test_stats_fields_and_details(index: Index) -> None:
    stats = index_stats(index)
    assert stats.document_count == 11
    assert stats.lucene_version.startswith("10.")
    assert stats.date_ranges["modified_date"].earliest == "2018-06-30T00:00:00Z"
    assert stats.date_ranges["modified_date"].latest == "2024-09-10T00:00:00Z"
    fields = {f.name: f for f in field_infos(index)}
    assert fields["content"].documents_with_field == 11
    assert fields["modified_date"].documents_with_field == 11
    assert fields["language"].facet and fields["modified_date"].sortable


def test_document_details_pages_through_the_content(index: Index, corpus_dir: Path) -> None:
    path = str(corpus_dir / "archive-manual.txt")
    first = document_details(index, path, offset=0, length=100)
    assert first.length == 100 and first.has_more and first.page_count == 40
    assert first.fields["title"] == "Archive manual"
    rest = document_details(index, path, offset=first.content_length - 50, length=1000)
    assert rest.length == 50 and not rest.has_more


def test_document_details_only_for_indexed_documents(index: Index) -> None:
    from pylucene_mcp import DocumentNotFoundError

    with pytest.raises(DocumentNotFoundError, match="search for it first"):
        document_details(index, "/etc/passwd")


def test_add_many_writes_batches_on_several_threads_as_add_does(fresh_index: Index) -> None:
    docs = [
        {
            "file_path": f"/many/{n:04}.txt",
            "content": f"document number {n} about {'locks' if n % 2 else 'keys'}",
            "author": ["Ann", "Bob"] if n % 3 == 0 else "Cy",
            "language": "en",
            "modified_date": "2024-01-02",
            "file_size": n,
            "page_offsets": [0, 5] if n == 7 else None,
        }
        for n in range(1000)
    ]
    with fresh_index.writer() as w:
        assert w.add_many(docs, batch=100) == 1000
        w.add_many(docs[:10])  # replaced, not added twice
    assert len(fresh_index) == 1000
    assert fresh_index.search("key").total_hits == 500  # "keys", through its lemma field
    assert fresh_index.search("key", word_forms=False).total_hits == 0
    result = fresh_index.search("*", filters=[{"field": "author", "value": "Ann"}])
    assert result.total_hits == 334
    # the chosen dimension still counts its other values (DrillSideways)
    counts = {f.value: f.count for f in result.facets["author"]}
    assert counts == {"Ann": 334, "Bob": 334, "Cy": 666}
    sized = fresh_index.search("file_size:[10 TO 19]")
    assert sized.total_hits == 10
    details = document_details(fresh_index, "/many/0007.txt")
    assert details.fields["modified_date"] == "2024-01-02T00:00:00Z"
    assert details.page_count == 2


def test_a_bad_document_in_a_batch_names_itself_and_nothing_of_the_block_stays(
    fresh_index: Index,
) -> None:
    good = [{"file_path": f"/b/{n}.txt", "content": "fine"} for n in range(300)]
    immense = "x" * 40_000  # one token longer than Lucene's 32,766 bytes, in a keyword field
    with pytest.raises(InvalidRequestError) as info, fresh_index.writer() as w:
        w.add_many([*good, {"file_path": "/b/bad.txt", "content": "y", "content_hash": immense}])
    assert "/b/bad.txt" in str(info.value)
    assert len(fresh_index) == 0
