"""Crawler fixtures: one real Tika server for the session, real files made by real writers."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from pylucene_mcp import Index
from pylucene_mcp.crawler.extract import Extractor
from pylucene_mcp.crawler.pipeline import Crawler, CrawlSettings
from pylucene_mcp.crawler.tika_process import TikaProcess, TikaSettings
from tests.crawler.files import make_corpus


@pytest.fixture(scope="session")
def tika(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TikaProcess]:
    server = TikaProcess(TikaSettings(), log_dir=tmp_path_factory.mktemp("tika-logs"))
    yield server
    server.close()


@pytest.fixture(scope="session")
def corpus_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path | None]:
    return make_corpus(tmp_path_factory.mktemp("files") / "docs")


@pytest.fixture
def crawler(fresh_index: Index, tika: TikaProcess) -> Crawler:
    return Crawler(fresh_index, Extractor(tika), CrawlSettings(batch_size=5))
