"""Indexing and search at scale (issue 13): indexes of 10k, 100k and 1M documents of 2–5 KB,
written through ``Writer.add_many`` from a stream (nothing held in memory), then p50 and p99 of
each query type through the Python API, the index size and the process's RSS per size.

The text: CACM abstracts joined in random order (real English), with two pseudo-words a
document drawn from an open, Zipf-distributed vocabulary (syllables spelling the rank), so that
the term dictionary grows with the collection as a real one does (Heaps' law); a fixed
vocabulary would flatter the patterns that scan it (``*port*``).

Each index written is kept in ``--index-dir`` (replacing an older one of its size), where
``bench/search_latency.py``, ``bench/startup.py`` and ``bench/memory.py`` find it.

    python bench/scale.py [--sizes 10000,100000,1000000] [--runs 50] [--index-dir DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import random
import shutil
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from _common import cacm_pages, joined_text, scale_options, write_json

SYLLABLES = ["ka", "ro", "ti", "mu", "sel", "van", "dor", "pi", "len", "qua", "zo", "bri"]

QUERIES = {
    "term": "program",
    "rare term": "RARE",  # a pseudo-word in about 3 of 10k documents, 300 of 1M
    "AND": "algorithm AND language",
    "phrase": '"programming language"',
    "prefix": "comput*",
    "leading wildcard": "*tion",
    "infix wildcard": "*port*",
    "fuzzy": "algoritm~1",
    "filtered": "program",
    "faceted": "*",
}
RARE_RANK = 120  # Zipf: P(rank r) ≈ 0.8 r^-1.8, two words a document
WARM_UP_ROUNDS = 20
MINUTE_MS = 60_000
START_MS = 1_700_000_000_000


def pseudo_word(rank: int) -> str:
    letters = []
    while True:
        rank, digit = divmod(rank, len(SYLLABLES))
        letters.append(SYLLABLES[digit])
        if rank == 0:
            return "".join(letters)


def stream(count: int, abstracts: list[str], seed: int = 7) -> Iterator[dict[str, object]]:
    rng = random.Random(seed)
    for n in range(count):
        words = [pseudo_word(int(rng.paretovariate(0.8))) for _ in range(2)]
        text = joined_text(rng, abstracts) + " " + " ".join(words)
        yield {
            "file_path": f"/scale/{n:08}.txt",
            "content": text,
            "language": "en",
            "author": f"author{n % 50}",
            "modified_date": START_MS + n * MINUTE_MS,
            "file_size": len(text),
        }


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def write(size: int, abstracts: list[str], kept: Path) -> dict[str, object]:
    """Writes ``size`` documents into a new index through ``add_many``, keeps it at ``kept``
    and returns the indexing figures."""
    from pylucene_mcp import Index
    from pylucene_mcp.engine.lucene.index import INDEXING_THREADS

    work = Path(tempfile.mkdtemp(prefix=f"pylucene-mcp-scale-{size}-"))
    # a bulk load refreshes its searchers every minute, as the crawler's first crawl does
    # (bulk_refresh_interval_s): a refresh writes a segment of whatever is buffered, and
    # once a second that costs a quarter of the throughput (30,000 documents: 542 → 722/s)
    index = Index.open(work / "index", refresh_interval_s=60.0)
    started = time.perf_counter()
    text_bytes = 0

    def counted(docs: Iterator[dict[str, object]]) -> Iterator[dict[str, object]]:
        nonlocal text_bytes
        for doc in docs:
            text_bytes += len(str(doc["content"]))
            yield doc

    with index.writer() as writer:
        writer.add_many(counted(stream(size, abstracts)), batch=512)
    seconds = time.perf_counter() - started
    index.close()
    index_mb = sum(p.stat().st_size for p in (work / "index").rglob("*") if p.is_file()) / 1e6
    print(
        f"{size:,} documents ({text_bytes / 1e6:.0f} MB of text) indexed in {seconds:.0f} s: "
        f"{size / seconds:.0f} docs/s, {text_bytes / 1e6 / seconds:.2f} MB/s "
        f"({INDEXING_THREADS} threads); index {index_mb:.0f} MB; RSS {rss_mb():.0f} MB"
    )
    shutil.rmtree(kept.parent, ignore_errors=True)
    kept.parent.mkdir(parents=True)
    shutil.move(work / "index", kept)
    (kept.parent / "done").write_text("")
    shutil.rmtree(work, ignore_errors=True)
    return {
        "index_seconds": round(seconds, 1),
        "docs_per_s": round(size / seconds, 1),
        "mb_per_s": round(text_bytes / 1e6 / seconds, 2),
        "index_mb": round(index_mb, 1),
        "rss_mb": round(rss_mb()),
    }


def measure(path: Path, size: int, runs: int) -> dict[str, dict[str, object]]:
    """p50 and p99 of each query type on the index at ``path``."""
    from pylucene_mcp import Index

    index = Index.open(path, read_only=True)
    filters = {  # the newer half of the documents; one facet value
        "filtered": [
            {
                "field": "modified_date",
                "operator": "range",
                "from": str(START_MS + size // 2 * MINUTE_MS),
            }
        ],
        "faceted": [{"field": "author", "value": "author7"}],
    }
    arguments = {
        name: (pseudo_word(RARE_RANK) if query == "RARE" else query, filters.get(name, []))
        for name, query in QUERIES.items()
    }
    for _ in range(WARM_UP_ROUNDS):  # the JIT compiles search and highlighting code first
        for query, filter_list in arguments.values():
            index.search(query, filters=filter_list)
    samples: dict[str, list[float]] = {name: [] for name in QUERIES}
    hits: dict[str, int] = {}
    for _ in range(runs):  # round-robin: every query type sees the same moods of the machine
        for name, (query, filter_list) in arguments.items():
            t = time.perf_counter()
            hits[name] = index.search(query, filters=filter_list).total_hits
            samples[name].append((time.perf_counter() - t) * 1000)
    latencies: dict[str, dict[str, object]] = {}
    for name, values in samples.items():
        values.sort()
        p50 = statistics.median(values)
        p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
        latencies[name] = {"p50_ms": round(p50, 2), "p99_ms": round(p99, 2), "hits": hits[name]}
        print(f"  {name:18} p50 {p50:8.2f} ms  p99 {p99:8.2f} ms  {hits[name]:>9,} hits")
    index.close()
    return latencies


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", default="10000,100000,1000000")
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--reuse", action="store_true", help="search the kept indexes only")
    scale_options(parser, "bench-scale.json")
    args = parser.parse_args()
    from pylucene_mcp import jvm

    jvm.start()
    abstracts = [" ".join(lines) for _, _, lines in cacm_pages(args.cacm)]
    figures: dict[str, dict[str, object]] = {}
    for size in (int(s) for s in args.sizes.split(",")):
        kept = args.index_dir / f"scale-{size}" / "index"
        if args.reuse and (kept.parent / "done").exists():
            print(f"{size:,} documents: the kept index {kept}")
            figures[str(size)] = {}
        else:
            figures[str(size)] = write(size, abstracts, kept)
        figures[str(size)]["queries"] = measure(kept, size, args.runs)
        figures[str(size)]["rss_after_searches_mb"] = round(rss_mb())
        write_json(args.json, figures)
    sizes = list(figures)
    if len(sizes) > 1:
        first, last = figures[sizes[0]]["queries"], figures[sizes[-1]]["queries"]
        print(f"p50 growth {sizes[0]} → {sizes[-1]} documents:")
        for name in QUERIES:
            a, b = first[name]["p50_ms"], last[name]["p50_ms"]  # type: ignore[index]
            print(f"  {name:18} {b / a:6.1f}×")


if __name__ == "__main__":
    main()
