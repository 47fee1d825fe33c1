"""What trimming answers to what a person may read costs: the documents of ``bench/scale.py``'s
stream (default 100,000) spread over 100 team folders (``/team/gNN/``, one group each), searched
by the owner (the whole index) and through views of 1, 10 and 50 groups' folders
(``LuceneIndex.viewed``, what a restricted caller of the team server gets), interleaved.

Per view: the first search after the view is made (its visible documents and the field
statistics are counted then), and p50/p95 of the query mix once warm, beside the owner's;
then the first search of a view after a refresh that changed one segment (the other segments'
counts are kept). Prints a table; ``--json`` writes the figures.

    python bench/trimming.py [--docs 100000] [--rounds 20] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path
from typing import Any

from _common import cacm_pages, scale_options, write_json
from scale import stream

from pylucene_mcp.engine.core.backend import SearchRequest
from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend

GROUPS = 100
QUERIES = ["program", "algorithm", '"computer system"', "matrix inversion", "compil*", "*"]


def team_index(folder: Path, docs: int, cacm: Path) -> EmbeddedBackend:
    """The kept index of ``docs`` documents in ``GROUPS`` folders (written first if none)."""
    path = folder / f"team-{docs}" / "index"
    done = path.parent / "done"
    index = EmbeddedBackend.open(path, refresh_interval_s=60.0)
    if not done.exists():
        abstracts = [" ".join(lines) for _, _, lines in cacm_pages(cacm)]
        with index.writer() as writer:
            rows = []
            for n, doc in enumerate(stream(docs, abstracts)):
                doc["file_path"] = f"/team/g{n % GROUPS:02}/{n:08}.txt"
                rows.append(doc)
                if len(rows) == 5000:
                    writer.add_many(rows)
                    rows = []
            writer.add_many(rows)
        index.refresh()
        done.write_text("")
    return index


def timed(index: Any, query: str) -> float:
    started = time.perf_counter()
    index.search(SearchRequest(query, max_passages=1))
    return (time.perf_counter() - started) * 1000


def folders(count: int) -> list[str]:
    return [f"/team/g{k:02}" for k in range(count)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=20)
    scale_options(parser, "bench-trimming.json")
    args = parser.parse_args()
    index = team_index(args.index_dir, args.docs, args.cacm)
    print(f"{len(index):,} documents in {GROUPS} folders", flush=True)
    for query in QUERIES * 3:  # the owner's searches warm the JVM's compiler first
        timed(index, query)
    sizes = (1, 10, 50)
    first = {}
    views: dict[str, Any] = {"owner": index}
    for size in sizes:
        started = time.perf_counter()
        view = index.viewed(folders(size))
        view.search(SearchRequest(QUERIES[0], max_passages=1))
        first[size] = (time.perf_counter() - started) * 1000
        views[f"{size} groups"] = view
    samples: dict[str, list[float]] = {name: [] for name in views}
    for _ in range(args.rounds):
        for query in QUERIES:
            for name, view in views.items():
                samples[name].append(timed(view, query))
    figures: dict[str, Any] = {"docs": len(index), "first_search_ms": {}, "searches": {}}
    print(f"{'':12} {'visible':>8} {'first ms':>9} {'p50 ms':>8} {'p95 ms':>8}")
    for name, view in views.items():
        ordered = sorted(samples[name])
        p50 = statistics.median(ordered)
        p95 = ordered[round(0.95 * (len(ordered) - 1))]
        size = None if name == "owner" else int(name.split()[0])
        made = first.get(size) if size else None
        figures["searches"][name] = {"visible": len(view), "p50_ms": p50, "p95_ms": p95}
        if made is not None:
            figures["first_search_ms"][name] = made
        shown = f"{made:9.1f}" if made is not None else f"{'':9}"
        print(f"{name:12} {len(view):8,} {shown} {p50:8.2f} {p95:8.2f}")
    # one more document: one new segment; each view counts that one alone again
    with index.writer() as writer:
        writer.add({"file_path": "/team/g00/new.txt", "content": "program counter"})
    index.refresh()
    for size in sizes:
        started = time.perf_counter()
        index.viewed(folders(size)).search(SearchRequest(QUERIES[0], max_passages=1))
        after = (time.perf_counter() - started) * 1000
        figures["first_search_ms"][f"{size} groups, after a refresh"] = after
        print(f"{size} groups: first search after a refresh {after:.1f} ms")
    with index.writer() as writer:
        writer.delete("/team/g00/new.txt")
    index.close()
    write_json(args.json, figures)


if __name__ == "__main__":
    main()
