"""What passages cost: the search tool with its default passages against the same search with
``maxPassages: 0``, through MCP over real stdio, on real files crawled by the product (issue
23; target: every query within 3×).

The corpus, as the side-by-side comparison with MCPLuceneServer had it: 80 LaTeX manuals (PDF,
Debian's ``texlive-latex-base-doc``), 80 pages of the Python documentation (HTML,
``python3.11-doc``) and 30 German texts (lines of OpenThesaurus, ``openthesaurus-de-text``;
``scripts/ensure-bench-corpora`` and ``scripts/ensure-test-corpora`` install them). It is copied
and crawled once into ``--index-dir``. Then one server answers 20 typical queries, each with and
without passages, interleaved, ``--rounds`` times; printed: the medians, their ratio, the worst
and the median ratio, and the 95th percentile of the round trips.

    python bench/passage_cost.py [--rounds 7] [--index-dir DIR] [--files DIR] [--json PATH]

``--files DIR`` crawls that folder instead (the tests run it on their own corpus, one round).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import ROOT, write_json

from tests.real_text import german_lines
from tests.stdio_peer import StdioPeer, handshake, server_env

QUERIES = [
    "encod*", "comput*", "*tion", "encoding", "hyphenation OR Silbentrennung", "written",
    "*vertrag*", "thread*", "locked", "Verträge", "table", "font", "package",
    '"regular expression"', "socket AND timeout", "Haus", "graphic*", "bibliography", "unicode",
    "class OR function",
]  # fmt: skip
LATEX = Path("/usr/share/doc/texlive-doc/latex")
PYTHON_DOCS = Path("/usr/share/doc/python3.11/html/library")


def corpus(folder: Path, per_kind: int = 80, german: int = 30) -> Path:
    """The three kinds of files, copied into ``folder`` (made once)."""
    if folder.is_dir():
        return folder
    pdfs = sorted(LATEX.rglob("*.pdf"))[:per_kind]
    pages = sorted(PYTHON_DOCS.glob("*.html"))[:per_kind]
    if len(pdfs) < per_kind or len(pages) < per_kind:
        raise SystemExit("install the corpora first: scripts/ensure-bench-corpora")
    for kind, files in (("latex", pdfs), ("python", pages)):
        (folder / kind).mkdir(parents=True)
        for file in files:
            shutil.copy(file, folder / kind / file.name)
    lines = list(german_lines())
    (folder / "german").mkdir()
    for n in range(german):
        text = "\n".join(lines[n * 200 : (n + 1) * 200])
        (folder / "german" / f"dokument{n:02}.txt").write_text(text, encoding="utf-8")
    return folder


def crawl(files: Path, index: Path) -> None:
    if index.is_dir():
        return
    with tempfile.TemporaryDirectory() as home:
        subprocess.run(
            [sys.executable, "-m", "pylucene_mcp", "crawl", "--index", str(index), str(files)],
            cwd=ROOT,
            env=server_env(Path(home)),
            check=True,
            stdout=subprocess.DEVNULL,
        )


def measure(
    index: Path, queries: list[str], rounds: int
) -> dict[str, tuple[list[float], list[float]]]:
    """Round trips in ms of each query with its default passages and without, interleaved."""
    samples: dict[str, tuple[list[float], list[float]]] = {q: ([], []) for q in queries}
    with tempfile.TemporaryDirectory() as home:
        peer = StdioPeer(index, Path(home))
        try:
            handshake(peer, "2025-11-25")

            def call(query: str, passages: bool) -> float:
                arguments: dict[str, Any] = {"query": query}
                if not passages:
                    arguments["maxPassages"] = 0
                started = time.perf_counter()
                answer = peer.request("tools/call", {"name": "search", "arguments": arguments})
                assert not answer["result"].get("isError"), answer
                return (time.perf_counter() - started) * 1000

            for query in queries:  # warm-up
                call(query, True)
                call(query, False)
            for _ in range(rounds):
                for query in queries:
                    samples[query][0].append(call(query, True))
                    samples[query][1].append(call(query, False))
        finally:
            peer.close()
    return samples


def report(samples: dict[str, tuple[list[float], list[float]]]) -> dict[str, Any]:
    print(f"{'query':34}{'passages ms':>12}{'none ms':>9}{'ratio':>7}")
    ratios = {}
    for query, (with_, without) in samples.items():
        a, b = statistics.median(with_), statistics.median(without)
        ratios[query] = a / b
        print(f"{query:34}{a:12.1f}{b:9.1f}{a / b:7.1f}")
    every = sorted(ms for with_, _ in samples.values() for ms in with_)
    p95 = every[min(len(every) - 1, int(0.95 * len(every)))]
    worst = max(ratios.values())
    middle = statistics.median(ratios.values())
    print(f"worst ratio {worst:.1f}× (target ≤ 3×), median ratio {middle:.1f}×")
    print(f"p95 of the round trips with passages: {p95:.0f} ms")
    return {"ratios": ratios, "worst": worst, "median": middle, "p95_ms": p95}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--index-dir", type=Path, default=ROOT / "bench-data" / "passages")
    parser.add_argument("--files", type=Path, default=None, help="crawl this folder instead")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    files = args.files or corpus(args.index_dir / "files")
    crawl(files, args.index_dir / "index")
    figures = report(measure(args.index_dir / "index", QUERIES, args.rounds))
    if args.json:
        write_json(args.json, figures)


if __name__ == "__main__":
    main()
