"""The SolrCloud backend beside the embedded index, on a real 2-node cluster (conftest's
``solr_settings``: 2 shards × 2 replicas): the same documents give the same tokens, field by
field, through Solr's analysis API; the same queries give the same hits in the same order, the
same facets and the same passages; a cursor walks the whole match once; ``solr init`` and
doctor speak through the command line."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.basics import schema
from pylucene_mcp.basics.errors import InvalidRequestError
from pylucene_mcp.engine.core import analysis
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend
from pylucene_mcp.engine.solr import SolrBackend, SolrSettings
from tests.corpus import corpus_docs

ROOT = Path(__file__).resolve().parents[1]


def _written_to_both(
    docs: list[dict[str, Any]], folder: Path, urls: tuple[str, ...], name: str, replicas: int
) -> tuple[EmbeddedBackend, SolrBackend]:
    """``docs`` written to an embedded index in ``folder`` and to a 2-shard collection ``name``
    of the cluster at ``urls``."""
    from pylucene_mcp.engine.solr import SolrClient, init

    settings = SolrSettings(urls, collection=name)
    client = SolrClient(settings)
    init(client, shards=2, replicas=replicas)
    client.close()
    embedded = EmbeddedBackend.open(folder / "index", refresh_interval_s=0.05)
    solr = SolrBackend.open(settings)
    for backend in (embedded, solr):
        with backend.writer() as writer:
            writer.delete_all()
            for doc in docs:
                writer.add(doc)
        backend.refresh()
    return embedded, solr


@pytest.fixture(scope="module")
def both(
    solr_settings: SolrSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[EmbeddedBackend, SolrBackend, list[dict[str, Any]]]]:
    """The fixture corpus written to an embedded index and to a collection of its own."""
    folder = tmp_path_factory.mktemp("corpus")
    docs = corpus_docs(folder)
    embedded, solr = _written_to_both(docs, folder, solr_settings.urls, "corpus", replicas=2)
    yield embedded, solr, docs
    embedded.close()
    solr.close()


#: queries of every kind the syntax has, each with the search options it is run with
QUERIES: list[tuple[str, dict[str, Any]]] = [
    ("*vertrag*", {}),
    ("*vertrag", {}),
    ("vertrag*", {}),
    ("Mietv?rtrag", {}),
    ('"reading room"~2', {}),
    ('"signed contract"', {}),
    ("Mueller OR Vertrag", {"default_operator": "OR"}),
    ("Müller", {}),
    ("Ortschaft", {}),
    ("Ortschaften", {"word_forms": False}),
    ("apple", {}),
    ("contract AND NOT lease", {}),
    ("signed contract OR lease agreement", {}),
    ("archive~1", {}),
    ("/arch[a-z]+/", {}),
    ("title:manual", {}),
    ("quokka", {"max_passages": 1}),
    ("*", {"filters": [{"field": "language", "value": "de"}], "sort": "modified_date"}),
    ("*", {"filters": [{"field": "language", "operator": "not", "value": "de"}]}),
    (
        "*",
        {
            "filters": [
                {"field": "modified_date", "operator": "range", "from": "2020-01-01"},
                {"field": "file_extension", "operator": "in", "values": ["txt", "md"]},
            ],
            "sort": "file_size",
            "sort_order": "asc",
        },
    ),
    (
        "the",
        {
            "default_operator": "OR",
            "facet_queries": {"german": "language:de", "contract": "contract OR Vertrag"},
            "range_facets": [
                {
                    "field": "modified_date",
                    "start": "2018-01-01",
                    "end": "2024-12-31",
                    "gap": "year",
                }
            ],
        },
    ),
]


def _comparable(result: dict[str, Any]) -> dict[str, Any]:
    """The answer without its timing, each score to 3 places (Solr's sums of the same BM25
    terms may differ in the last float digits), hits of one score in path order (the embedded
    index breaks ties by its document numbers, the collection by path)."""
    out = {k: v for k, v in result.items() if k != "searchTimeMs"}
    hits = [
        {
            **{k: v for k, v in d.items() if k not in ("score", "passages", "indexedDate")},
            "score": round(d["score"], 3),
            "passages": [p["text"] for p in d.get("passages", [])],
        }
        for d in result["documents"]
    ]
    out["documents"] = sorted(hits, key=lambda d: (-d["score"], d["filePath"]))
    return out


@pytest.mark.parametrize(("query", "options"), QUERIES, ids=[q for q, _ in QUERIES])
def test_the_same_query_gives_the_same_answer(
    both: tuple[EmbeddedBackend, SolrBackend, list[dict[str, Any]]],
    query: str,
    options: dict[str, Any],
) -> None:
    embedded, solr, docs = both
    expected = embedded.search(SearchRequest(query, page_size=20, **options)).to_dict()
    found = solr.search(SearchRequest(query, page_size=20, **options)).to_dict()
    assert expected["totalHits"] > 0, "a query must find something for the test to mean anything"
    assert _comparable(found) == _comparable(expected)
    # both backends mark passages with the same highlighter: what it marks is checked apart,
    # against the documents' own text
    _passages_are_the_documents_text(found, docs)


def _passages_are_the_documents_text(answer: dict[str, Any], docs: list[dict[str, Any]]) -> None:
    """Each passage, its marks and ellipses taken out, is a run of its document's text (white
    space as one space); a passage may mark nothing (a match in the title or the path)."""
    contents = {d["file_path"]: " ".join(str(d.get("content", "")).split()) for d in docs}
    for hit in answer["documents"]:
        text = contents[hit["filePath"]]
        for passage in hit.get("passages", []):
            bare = passage["text"].replace("<em>", "").replace("</em>", "")
            for run in bare.split("…"):
                run = " ".join(run.split())
                assert run in text, (hit["filePath"], run)


def test_a_cursor_walks_the_whole_match_once(
    both: tuple[EmbeddedBackend, SolrBackend, list[dict[str, Any]]],
) -> None:
    embedded, solr, docs = both
    for sort in ("_score", "file_size"):
        walked = []
        cursor: str | None = "*"
        pages = 0
        while cursor is not None:
            page = solr.search(
                SearchRequest("*", cursor=cursor, page_size=3, sort=sort, max_passages=0)
            )
            walked += [hit.file_path for hit in page.documents]
            cursor = page.next_cursor
            pages += 1
            assert pages <= len(docs), "the walk does not end"
        assert sorted(walked) == sorted(d["file_path"] for d in docs)
        assert len(walked) == len(set(walked))


TEXTS = [
    "ElementTree.write() und die Müller-Straße: ﬁnance ＦＵＬＬ",
    "Die Häuser der Arbeitsverträge; locks locked signed Silbentrennungen",
    "Annual_Report-2024.pdf dhua.sty getIndexStats",
]
FIELDS = [
    schema.CONTENT,
    schema.CONTENT_REVERSED,
    schema.CONTENT_TRANSLIT_DE,
    schema.CONTENT_LEMMA_EN,
    schema.CONTENT_LEMMA_DE,
    schema.FILE_NAME,
    "title",
]


@pytest.mark.parametrize("field", FIELDS)
def test_the_configset_analyses_as_the_embedded_index(
    solr_settings: SolrSettings, field: str
) -> None:
    """Solr's analysis API gives, field by field, the tokens the embedded index makes: term,
    offsets and position."""
    from pylucene_mcp.engine.solr import SolrClient

    client = SolrClient(solr_settings)
    try:
        for text in TEXTS:
            answer = client.get(
                f"{solr_settings.collection}/analysis/field",
                {"analysis.fieldname": field, "analysis.fieldvalue": text},
            )
            stages = answer["analysis"]["field_names"][field]["index"]
            last = stages[-1]
            solr_tokens = [(t["text"], t["start"], t["end"], t["position"] - 1) for t in last]
            ours = [(t.term, t.start, t.end, t.position) for t in analysis.analyze(text, field)]
            assert solr_tokens == ours, (field, text)
    finally:
        client.close()


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        cwd=ROOT,
        timeout=300,
    )


def test_solr_init_is_idempotent_and_doctor_checks_the_cluster(
    solr_settings: SolrSettings,
) -> None:
    env = {
        "PYLUCENE_MCP_BACKEND": "solr",
        "PYLUCENE_MCP_SOLR_URLS": ",".join(solr_settings.urls),
        "PYLUCENE_MCP_SOLR_COLLECTION": "cli-made",
    }
    first = _cli("solr", "init", "--shards", "1", "--replicas", "2", env=env)
    assert first.returncode == 0, first.stderr
    assert "created" in first.stdout
    again = _cli("solr", "init", "--shards", "1", "--replicas", "2", env=env)
    assert "already current" in again.stdout, again.stdout
    doctor = _cli("doctor", "--json", env=env)
    checks = {c["name"]: c for c in json.loads(doctor.stdout)["checks"]}
    assert checks["index"]["status"] == "ok", checks["index"]
    assert "2 live node(s)" in checks["index"]["detail"]
    missing = _cli("doctor", "--json", env={**env, "PYLUCENE_MCP_SOLR_COLLECTION": "absent"})
    index = {c["name"]: c for c in json.loads(missing.stdout)["checks"]}["index"]
    assert index["status"] == "failed" and "solr init" in index["detail"]


def test_purge_rebuild_and_unlock_work_on_a_collection_as_on_a_folder(
    solr_settings: SolrSettings, tmp_path: Path
) -> None:
    """The command line asks the index place, not the backend: a full purge and a rebuild
    empty the collection (they were refused for want of a folder), unlock says there is no
    lock to remove."""
    env = {
        "PYLUCENE_MCP_BACKEND": "solr",
        "PYLUCENE_MCP_SOLR_URLS": ",".join(solr_settings.urls),
        "PYLUCENE_MCP_SOLR_COLLECTION": "cli-purged",
        "PYLUCENE_MCP_HOME": str(tmp_path),  # a home of its own: no folders configured
    }
    assert _cli("solr", "init", "--shards", "1", "--replicas", "1", env=env).returncode == 0
    settings = SolrSettings(solr_settings.urls, collection="cli-purged")
    backend = SolrBackend.open(settings)
    try:
        with backend.writer() as writer:
            for n in range(3):
                writer.add({"file_path": f"/purged/{n}.txt", "content": "a lantern"})
        purged = _cli("purge", "--yes", "--full", env=env)
        assert purged.returncode == 0, purged.stderr
        assert "deleted 3 documents; SolrCloud collection 'cli-purged'" in purged.stdout
        backend.refresh()
        assert len(backend) == 0
        with backend.writer() as writer:
            writer.add({"file_path": "/purged/again.txt", "content": "a lantern"})
        rebuilt = _cli("rebuild", env=env)
        assert rebuilt.returncode == 0, rebuilt.stderr
        backend.refresh()
        assert len(backend) == 0  # no folders configured: emptied, nothing crawled
        unlocked = _cli("unlock", env=env)
        assert "no index lock" in unlocked.stdout, unlocked.stdout
    finally:
        backend.close()


def test_the_plugin_jars_are_listed_and_exist() -> None:
    listed = _cli("solr", "plugin", env={})
    jars = [Path(line) for line in listed.stdout.splitlines()]
    assert jars and all(jar.is_file() for jar in jars), listed.stdout
    assert jars[0].name == "pylucene-mcp-solr.jar"
    assert any("german-pos-dict" in jar.name for jar in jars)


@pytest.fixture(scope="module")
def many_forms(
    solr_settings: SolrSettings, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[EmbeddedBackend, SolrBackend]]:
    """Documents of 64 words ``bana`` and two letters (within two edits of ``banana``), each in
    one or two documents, 86 in all: patterns and fuzzy words that reach more than their 50
    best terms, with every hit on one page (ties are compared as sets)."""
    rng = random.Random(5)
    words: list[str] = []
    while len(words) < 64:
        word = "bana" + "".join(rng.choice("abcdfgklmnprstz") for _ in range(2))
        if word not in words:
            words.append(word)
    docs = []
    for n, word in enumerate(words):
        for copy in range(1 + (n % 3 == 0)):
            filler = " ".join(rng.sample(["ripe", "yellow", "fruit", "market", "stall"], 3))
            docs.append({"file_path": f"/forms/{word}-{copy}.txt", "content": f"{word} {filler}"})
    folder = tmp_path_factory.mktemp("forms")
    embedded, solr = _written_to_both(docs, folder, solr_settings.urls, "forms", replicas=1)
    yield embedded, solr
    embedded.close()
    solr.close()


@pytest.mark.parametrize("query", ["banana~2", "bana*", "bana?*", "ba*"])
def test_patterns_past_their_best_terms_rank_as_on_one_index(
    many_forms: tuple[EmbeddedBackend, SolrBackend], query: str
) -> None:
    """More terms than the 50 a ranked pattern scores by: the collection picks the same best
    terms over all its shards and blends the same statistics, so the order is the embedded
    index's (each shard alone would pick its own)."""
    embedded, solr = many_forms
    expected = embedded.search(
        SearchRequest(query, page_size=100, max_passages=0, word_forms=False)
    ).to_dict()
    found = solr.search(
        SearchRequest(query, page_size=100, max_passages=0, word_forms=False)
    ).to_dict()
    assert 50 < expected["totalHits"] <= 100, "more than the best terms, all on one page"
    assert _comparable(found) == _comparable(expected)


HOSTILE: list[tuple[str, dict[str, Any]]] = [
    ("{!lucene}*:*", {}),
    ('"}{!xmlparser v=\\"<MatchAllDocsQuery/>\\"}"', {}),
    ("*", {"filters": [{"field": "language", "value": "} OR {!lucene}*:*"}]}),
    ("*", {"filters": [{"field": "file_path", "value": '{!join from=file_path to=title}x"'}]}),
    ("*", {"filters": [{"field": "author", "operator": "in", "values": ["}{!", "$q"]}]}),
]


@pytest.mark.parametrize(("query", "options"), HOSTILE, ids=[q for q, _ in HOSTILE])
def test_user_text_never_becomes_solr_syntax(
    both: tuple[EmbeddedBackend, SolrBackend, list[dict[str, Any]]],
    query: str,
    options: dict[str, Any],
) -> None:
    """Local params and Solr syntax in a query or a filter value are text to the product's
    parser (the embedded index's answer), never a Solr parser's instruction."""
    embedded, solr, _ = both
    try:
        expected: Any = _comparable(
            embedded.search(SearchRequest(query, page_size=20, **options)).to_dict()
        )
    except InvalidRequestError as exc:
        expected = type(exc)
    try:
        found: Any = _comparable(
            solr.search(SearchRequest(query, page_size=20, **options)).to_dict()
        )
    except InvalidRequestError as exc:
        found = type(exc)
    assert found == expected
