"""Fixtures: one JVM per session, real Lucene indexes over a small English + German corpus."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import Index, jvm
from tests.corpus import build_index, corpus_docs


@pytest.fixture(scope="session", autouse=True)
def _jvm(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Starts the JVM once, on the main thread (JPype shuts it down only from there). The
    JVM's class-data archive (pylucene_mcp.engine.lucene.class_archive) lives in a cache of the
    session's own, also for the servers the tests spawn: none is used unless a test writes it. So is
    the product's home (config, logs, private temp folders): nothing goes into the
    ``~/.pylucene-mcp`` of whoever runs the tests. Nor do the settings of whoever runs them: their
    ``PYLUCENE_MCP_<KEY>`` variables (``PYLUCENE_MCP_OCR=off``, ``PYLUCENE_MCP_VECTORS=on``) go,
    so that a test reads the defaults it was written against, here as in CI."""
    from pylucene_mcp.basics import config

    for key in config.KEYS:
        os.environ.pop(config.variable(key), None)
    os.environ["XDG_CACHE_HOME"] = str(tmp_path_factory.mktemp("cache"))
    os.environ["PYLUCENE_MCP_HOME"] = str(tmp_path_factory.mktemp("home"))
    os.environ.pop("PYLUCENE_MCP_CACHE", None)
    jvm.start()


@pytest.fixture
def anyio_backend() -> str:
    """The MCP SDK's client runs on asyncio here."""
    return "asyncio"


@pytest.fixture(scope="session")
def corpus_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("corpus")


@pytest.fixture(scope="session")
def index(tmp_path_factory: pytest.TempPathFactory, corpus_dir: Path) -> Iterator[Index]:
    """A shared, read-mostly index over the corpus. Tests that write use ``fresh_index``."""
    idx = Index.open(tmp_path_factory.mktemp("index"))
    build_index(idx, corpus_dir)
    yield idx
    idx.close()


@pytest.fixture(scope="session")
def docs(corpus_dir: Path, index: Index) -> dict[str, dict[str, Any]]:
    return {Path(d["file_path"]).name: d for d in corpus_docs(corpus_dir)}


@pytest.fixture
def fresh_index(tmp_path: Path) -> Iterator[Index]:
    idx = Index.open(tmp_path / "index")
    yield idx
    idx.close()


@pytest.fixture(scope="session")
def closed_index_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An index over the corpus that no process holds open: for subprocess tests."""
    folder = tmp_path_factory.mktemp("closed")
    idx = Index.open(folder / "index")
    build_index(idx, folder)
    idx.close()
    return folder / "index"


#: Figures that reliability tests record (name → value), printed at the end of the run.
FIGURES: dict[str, object] = {}


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if FIGURES:
        terminalreporter.section("figures (reliability, evaluation)")
        for name, value in FIGURES.items():
            terminalreporter.write_line(f"{name}: {value}")


@pytest.fixture(scope="session")
def solr_cluster() -> Iterator[Any]:
    """A 2-node SolrCloud in a JVM of its own (``tests.solr_cluster``), with the product's
    configset uploaded, for the whole session."""
    from tests.solr_cluster import LocalCluster

    cluster = LocalCluster(2)
    try:
        yield cluster
    finally:
        cluster.close()


@pytest.fixture(scope="session")
def solr_settings(solr_cluster: Any) -> Any:
    """The settings of a collection ``tests`` of two shards with two replicas each."""
    from pylucene_mcp.engine.solr import configset
    from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings

    settings = SolrSettings(tuple(solr_cluster.urls), collection="tests")
    client = SolrClient(settings)
    try:
        configset.init(client, shards=2, replicas=2)
    finally:
        client.close()
    return settings
