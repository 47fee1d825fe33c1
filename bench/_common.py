"""Shared set-up of the benchmarks: the fixture corpus indexed into a temporary folder, and the
CACM abstracts read from their archive."""

from __future__ import annotations

import argparse
import html
import json
import random
import re
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pylucene_mcp import Index  # noqa: E402
from tests.corpus import build_index  # noqa: E402

#: pyserini as its virtualenv has it: the release, without its dependencies (its sdist carries
#: Anserini's jar; its dense retrieval wants torch), and what its Lucene searcher needs
PYSERINI = ["pyserini==1.6.0"]
PYSERINI_NEEDS = ["pyjnius", "numpy", "scipy", "tqdm", "pandas"]


def pyserini_venv(folder: Path) -> Path:
    """The python of pyserini's own virtualenv at ``folder`` (made on first use)."""
    python = folder / "bin" / "python"
    if not python.exists():
        subprocess.run([sys.executable, "-m", "venv", str(folder)], check=True)
        pip = [str(python), "-m", "pip", "install", "-q"]
        subprocess.run([*pip, "--no-deps", *PYSERINI], check=True, stdout=sys.stderr)
        subprocess.run([*pip, *PYSERINI_NEEDS], check=True, stdout=sys.stderr)
    return python


def anserini_html_index(python: Path, source: Path, index: Path, env: dict[str, str]) -> None:
    """pyserini's own indexer (Anserini's ``HtmlCollection`` over the HTML files or archives in
    ``source``, one thread: Lucene's ids in their order) into ``index``, as Anserini's prebuilt
    CACM index is made: positions, document vectors, the raw HTML and the contents stored. Its
    lock file goes: the index travels as files."""
    subprocess.run(
        [
            str(python),
            "-m",
            "pyserini.index.lucene",
            "-collection",
            "HtmlCollection",
            "-input",
            str(source),
            "-index",
            str(index),
            "-generator",
            "DefaultLuceneDocumentGenerator",
            "-threads",
            "1",
            "-storePositions",
            "-storeDocvectors",
            "-storeRaw",
            "-storeContents",
        ],  # fmt: skip
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    (index / "write.lock").unlink(missing_ok=True)


def fixture_index(folder: Path | None = None) -> Path:
    """Indexes the test corpus into ``folder`` (a new temporary one by default) and closes it."""
    base = folder or Path(tempfile.mkdtemp(prefix="pylucene-mcp-bench-"))
    index = Index.open(base / "index")
    build_index(index, base)
    index.close()
    return base / "index"


def cacm_pages(archive: Path) -> Iterator[tuple[str, str, list[str]]]:
    """Each CACM abstract of ``archive`` (``cacm.tar.gz``): its file name (``CACM-0001.html``),
    its HTML, and the non-empty lines of its text (the first is the paper's title)."""
    with tarfile.open(archive) as tar:
        for member in tar.getmembers():
            raw = tar.extractfile(member) if member.name.endswith(".html") else None
            if raw is None:
                continue
            page = raw.read().decode("utf-8", "replace")
            text = html.unescape(re.sub(r"<[^>]+>", " ", page))
            lines = [line.strip() for line in text.splitlines() if line.strip()]
            yield Path(member.name).name, page, lines


def summary(name: str, samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{name}: median {statistics.median(ordered):.1f} ms, min {ordered[0]:.1f} ms, "
        f"p95 {p95:.1f} ms, max {ordered[-1]:.1f} ms (n={len(ordered)})"
    )


def joined_text(rng: random.Random, abstracts: list[str]) -> str:
    """A text of 2,000–5,000 characters: ``abstracts`` joined in ``rng``'s order."""
    target = rng.randint(2000, 5000)
    parts: list[str] = []
    size = 0
    while size < target:
        part = rng.choice(abstracts)
        parts.append(part)
        size += len(part) + 1
    return " ".join(parts)[:target]


def write_json(path: Path, figures: object) -> None:
    """Writes a bench's ``figures`` to ``path`` and says where."""
    path.write_text(json.dumps(figures, indent=1))
    print(f"figures: {path}")


def scale_index(folder: Path, docs: int, cacm: Path) -> Path:
    """The index of ``docs`` documents of ``bench/scale.py``'s stream kept in ``folder``,
    written first when there is none."""
    path = folder / f"scale-{docs}" / "index"
    if not (path.parent / "done").exists():
        from scale import write  # scale.py imports this module

        from pylucene_mcp import jvm

        jvm.start()
        write(docs, [" ".join(lines) for _, _, lines in cacm_pages(cacm)], path)
    return path


def scale_options(parser: argparse.ArgumentParser, json_name: str) -> None:
    """The options of the benches that use the kept indexes of ``bench/scale.py``."""
    parser.add_argument("--index-dir", type=Path, default=ROOT / "bench-data")
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm/cacm.tar.gz")
    parser.add_argument("--json", type=Path, default=Path(json_name))


def interleaved(
    searcher: Any, runs: int, queries: dict[tuple[str, str], Callable[[], Any]]
) -> tuple[dict[tuple[str, str], list[float]], dict[tuple[str, str], int]]:
    """Each query of ``queries`` (by (case, form), a function that builds it) searched for its
    10 best hits and its exact count, all in turn, ``runs`` times after three warm-up rounds, so
    that every form sees the same machine: the milliseconds of each run and each total."""
    samples: dict[tuple[str, str], list[float]] = {}
    totals: dict[tuple[str, str], int] = {}
    for run in range(runs + 3):
        for key, build in queries.items():
            q = build()
            started = time.perf_counter()
            searcher.search(q, 10)
            total = int(searcher.count(q))
            elapsed = (time.perf_counter() - started) * 1000
            if run >= 3:
                samples.setdefault(key, []).append(elapsed)
            totals[key] = total
    return samples, totals


def uncached_searcher(folder: Path) -> Any:
    """An ``IndexSearcher`` over the index in ``folder`` without Lucene's query cache, so that
    each run does the work again (close ``searcher.getIndexReader()`` when done)."""
    from pylucene_mcp import jvm

    jvm.start()
    j = jvm.jclass
    reader = j("org.apache.lucene.index.DirectoryReader").open(
        j("org.apache.lucene.store.FSDirectory").open(
            j("java.nio.file.Paths").get(str(folder), jvm.jarray("String", []))
        )
    )
    searcher = j("org.apache.lucene.search.IndexSearcher")(reader)
    searcher.setQueryCache(None)
    return searcher
