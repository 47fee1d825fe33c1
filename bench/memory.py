"""``serve``'s memory: RSS of the server process (and any children) once its background start
has settled with no search yet (idle), and after 1,000 searches, on an index of ``--docs``
documents (default 100,000, the stream of ``bench/scale.py``, built once and kept in
``--index-dir``). Target (issue 13): idle ≤ 300 MB.

The searches cycle through ten query types (terms, rare pseudo-words, AND, phrase, prefix,
leading and infix wildcards, fuzzy, a date filter, a facet filter); RSS is sampled after every
hundred. The crawl's memory (the Tika process tree) is measured by ``bench/crawl.py``.

    python bench/memory.py [--docs 100000] [--searches 1000] [--json PATH]
"""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path
from typing import Any

from _common import scale_index, scale_options, write_json
from scale import MINUTE_MS, RARE_RANK, START_MS, pseudo_word

from tests.stdio_peer import StdioPeer, handshake


def tree_rss_mb(pid: int) -> float:
    """RSS of ``pid`` and its descendants, from /proc."""
    total = 0.0
    pending = [pid]
    while pending:
        current = pending.pop()
        try:
            for line in Path(f"/proc/{current}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        pending.extend(int(c) for c in children)
    return total


def settled_rss(pid: int, quiet_s: float = 3.0, limit_s: float = 60.0) -> float:
    """The RSS once it has moved less than 2 MB for ``quiet_s`` seconds."""
    deadline = time.monotonic() + limit_s
    last, since = tree_rss_mb(pid), time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.25)
        now = tree_rss_mb(pid)
        if abs(now - last) >= 2:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= quiet_s:
            return now
    return last


def queries(docs: int) -> list[dict[str, Any]]:
    newer = [
        {
            "field": "modified_date",
            "operator": "range",
            "from": str(START_MS + docs // 2 * MINUTE_MS),
        }
    ]
    return [
        {"query": "program"},
        {"query": pseudo_word(RARE_RANK)},
        {"query": "algorithm AND language"},
        {"query": '"programming language"'},
        {"query": "comput*"},
        {"query": "*tion"},
        {"query": "*port*"},
        {"query": "algoritm~1"},
        {"query": "program", "filters": newer},
        {"query": "*", "filters": [{"field": "author", "value": "author7"}]},
    ]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--searches", type=int, default=1000)
    scale_options(parser, "bench-memory.json")
    args = parser.parse_args()
    index = scale_index(args.index_dir, args.docs, args.cacm)
    mix = queries(args.docs)
    samples: list[tuple[int, float]] = []
    with tempfile.TemporaryDirectory() as home:
        peer = StdioPeer(index, Path(home))
        try:
            handshake(peer, "2025-11-25")
            peer.request("tools/list")
            idle = settled_rss(peer.proc.pid)
            samples.append((0, idle))
            for n in range(1, args.searches + 1):
                arguments = mix[n % len(mix)]
                answer = peer.request("tools/call", {"name": "search", "arguments": arguments})
                assert not answer["result"].get("isError"), answer
                if n % 100 == 0:
                    samples.append((n, tree_rss_mb(peer.proc.pid)))
            after = settled_rss(peer.proc.pid)
        finally:
            peer.close()
    print(f"serve on an index of {args.docs:,} documents (RSS of the process tree, MB)")
    print(f"  idle, background start settled: {idle:7.0f}   (target ≤ 300)")
    for n, rss in samples[1:]:
        print(f"  after {n:5} searches:            {rss:7.0f}")
    print(f"  settled after {args.searches} searches:     {after:7.0f}")
    write_json(
        args.json,
        {
            "docs": args.docs,
            "idle_mb": round(idle),
            "after_searches_mb": round(after),
            "samples": [[n, round(rss)] for n, rss in samples],
        },
    )


if __name__ == "__main__":
    main()
