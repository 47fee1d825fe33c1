"""A real crawl (real Tika, the crawler's corpus of every format) with vectors on: every document
gets its chunks and vectors from the text the index stores, and a chunk of a PDF keeps its page."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pylucene_mcp.basics.config import Settings
from pylucene_mcp.crawler.pipeline import Crawler
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.service.embedding import Embedding
from tests.crawler.files import LONG_PDF_PAGES
from tests.semantic_model import ensure


def _crawled(crawler: Crawler, tmp_path: Path, corpus_files: dict[str, Path | None]) -> Embedding:
    """The corpus crawled into the crawler's index, and an embedder for it."""
    source = next(p for p in corpus_files.values() if p is not None).parent
    shutil.copytree(source, tmp_path / "docs", symlinks=True)
    crawler.crawl([str(tmp_path / "docs")])
    index = crawler.index
    settings = Settings(index_path=index.path, vectors=True, embedding_model=str(ensure()))
    return Embedding(settings, lambda: index, lambda: True)


def test_a_crawl_gives_every_document_its_vectors(
    crawler: Crawler, tmp_path: Path, corpus_files: dict[str, Path | None]
) -> None:
    embedding = _crawled(crawler, tmp_path, corpus_files)
    index = crawler.index
    progress = embedding.reconcile()
    hashes = index.content_hashes()
    assert progress.failed == 0 and progress.waiting == 0
    # what runs the model, and how fast this round went, as getCrawlerStatus says them
    threads = os.cpu_count()  # every core: they run nicer than the searches on Linux
    assert progress.runtime == f"CPUExecutionProvider, {threads} thread(s), fp32"
    assert progress.per_second is not None and progress.per_second > 0
    assert progress.done_in_s == 0
    assert embedding.store().states() == {p: h or "" for p, h in hashes.items()}
    # the last page of the long PDF says it saw a flock of zebra finches in the warehouse
    vector = embedding.query_vector("a flock of small birds was seen in the storeroom")
    answer = index.search(
        SearchRequest(
            "birds", mode="semantic", vector=vector, similarity_threshold=-1, page_size=100
        )
    ).to_dict()
    assert answer["totalHits"] == len(hashes)  # every document has a chunk
    pdf = next(h for h in answer["documents"] if h["filePath"].endswith("lagerhandbuch.pdf"))
    page = pdf["passages"][0]["page"]
    stored = index.stored_document(pdf["filePath"])
    starts = [int(p) for p in (stored.pages or "").split(",") if p]
    assert len(starts) == LONG_PDF_PAGES
    bounds = [*starts, len(stored.content)]
    assert bounds[page - 1] <= pdf["chunk"][0] < bounds[page]  # the page its chunk starts on
    # a second reconcile finds nothing to do
    again = embedding.reconcile()
    assert (again.embedded, again.waiting) == (len(hashes), 0)
    # nor does the same model spelled otherwise: a trailing slash, "~", a link to its folder
    model = ensure()
    link = tmp_path / "model-link"
    link.symlink_to(model)
    spellings = [f"{model}/", str(link)]
    if model.is_relative_to(Path.home()):
        spellings.append(f"~/{model.relative_to(Path.home())}")
    for spelled in spellings:
        assert index.vectors is not None
        index.vectors.close()  # as after a restart: the store opened anew, with this spelling
        index.vectors = None
        other = Embedding(
            Settings(index_path=index.path, vectors=True, embedding_model=spelled),
            lambda: index,
            lambda: True,
        )
        # the chunks read as made with this model: nothing to make again
        assert other.store().states() == {p: h or "" for p, h in hashes.items()}, spelled


def test_a_document_counts_as_embedded_only_once_its_vectors_are_searchable(
    crawler: Crawler,
    tmp_path: Path,
    corpus_files: dict[str, Path | None],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A client waits for ``embedded == documentCount`` before it searches by meaning: every
    document so counted must be searchable then (its vectors committed), on every backend."""
    embedding = _crawled(crawler, tmp_path, corpus_files)
    index = crawler.index
    real = embedding.store()
    committed: set[str] = set()
    written: set[str] = set()
    seen: list[tuple[int, int]] = []  # (embedded as reported, committed) at each write

    class Watched:
        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def replace(self, path: str, digest: str, chunks: object) -> None:
            seen.append((embedding.progress.embedded, len(committed)))
            real.replace(path, digest, chunks)
            written.add(path)

        def commit(self) -> None:
            real.commit()
            committed.update(written)

    monkeypatch.setattr(embedding, "store", lambda: Watched())
    monkeypatch.setattr("pylucene_mcp.service.embedding.COMMIT_EVERY", 2)
    progress = embedding.reconcile()
    assert len(seen) == len(index.content_hashes()) > 2
    assert all(reported <= done for reported, done in seen), seen
    assert (progress.embedded, progress.waiting) == (len(committed), 0)
