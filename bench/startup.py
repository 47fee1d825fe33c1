"""Process start → first MCP answers over real stdio, against a bare ``MCPServer`` of the same
SDK (``bench/bare_server.py``) spawned by the same client, interleaved.

1. spawn → ``tools/list`` answered, ours vs the bare server (target ≤ 1.1×);
2. spawn → first ``search`` answered on an index of ``--docs`` documents (default 100,000 of
   2–5 KB, the stream of ``bench/scale.py``; built once and kept in ``--index-dir``), minus the
   bare server's ``tools/list`` (target ≤ 1 s): the JVM start, the index opening and the first
   search are all on this path;
3. a first search sent 3 s after the handshake, when the background start has opened and primed
   the index.

Both run from compiled bytecode, as pip leaves an installed package (``compileall`` of the
checkout's package first: a checkout run under ``PYTHONDONTWRITEBYTECODE`` compiles every module
at each start, 60 ms here, which no installed server pays). Ours answers ``tools/list`` from the
tool descriptions its first start wrote (``pylucene_mcp.server.app.SearchServer``); the first
start after an install or upgrade is timed too ("ours tools/list, first start").

Ours runs with the JVM's class-data archive (``pylucene_mcp.engine.lucene.class_archive``, written
first if this machine has none, as a server does after its first 30 s) and, interleaved, without it.

Prints a table and writes the figures as JSON (``--json``).

    python bench/startup.py [--runs 15] [--docs 100000] [--index-dir DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import compileall
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from _common import scale_index, scale_options, write_json

from tests.stdio_peer import StdioPeer, handshake

BARE = [sys.executable, str(Path(__file__).with_name("bare_server.py"))]
QUERY = {"name": "search", "arguments": {"query": "program"}}


def spawn(
    program: list[str] | None,
    index: Path,
    until: str,
    wait_s: float = 0,
    env: dict[str, str] | None = None,
) -> float:
    """Milliseconds from spawning ``program`` to the answer of ``until`` (``tools/list`` or
    ``search``); with ``wait_s``, the search is sent that long after the handshake and only its
    own round trip is timed."""
    with tempfile.TemporaryDirectory() as home:
        started = time.perf_counter()
        peer = StdioPeer(index, Path(home), env, program=program)
        try:
            handshake(peer, "2025-11-25")
            peer.request("tools/list")
            if until == "search":
                if wait_s:
                    time.sleep(wait_s)
                    started = time.perf_counter()
                answer = peer.request("tools/call", QUERY, timeout=120)
                assert not answer["result"].get("isError"), answer
            return (time.perf_counter() - started) * 1000
        finally:
            peer.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--docs", type=int, default=100_000)
    scale_options(parser, "bench-startup.json")
    args = parser.parse_args()
    index = scale_index(args.index_dir, args.docs, args.cacm)
    import pylucene_mcp
    from pylucene_mcp.engine.lucene import class_archive

    compileall.compile_dir(Path(pylucene_mcp.__file__).parent, quiet=1)

    archive = class_archive.ensure()
    print(f"class-data archive: {archive or 'none (this runtime cannot write one)'}")
    empty = tempfile.mkdtemp(prefix="pylucene-mcp-no-archive-")
    without = {"PYLUCENE_MCP_CACHE": empty}
    samples: dict[str, list[float]] = {
        "bare tools/list": [],
        "ours tools/list": [],
        "ours tools/list, first start": [],
        "ours first search": [],
        "ours first search, no archive": [],
    }
    for _ in range(args.runs):  # interleaved, so that the machine's moods fall on all
        samples["bare tools/list"].append(spawn(BARE, index, "tools/list"))
        samples["ours tools/list"].append(spawn(None, index, "tools/list"))
        fresh = tempfile.mkdtemp(prefix="pylucene-mcp-first-start-")
        first = {"PYLUCENE_MCP_CACHE": fresh}  # no tool descriptions, no class-data archive
        samples["ours tools/list, first start"].append(spawn(None, index, "tools/list", env=first))
        shutil.rmtree(fresh, ignore_errors=True)
        samples["ours first search"].append(spawn(None, index, "search"))
        samples["ours first search, no archive"].append(spawn(None, index, "search", env=without))
    shutil.rmtree(empty, ignore_errors=True)
    settled = [spawn(None, index, "search", wait_s=3) for _ in range(max(3, args.runs // 3))]
    medians = {name: statistics.median(values) for name, values in samples.items()}
    bare = medians["bare tools/list"]
    ratio = medians["ours tools/list"] / bare
    above = medians["ours first search"] - bare
    print(f"{args.runs} interleaved runs; index of {args.docs:,} documents")
    print(f"{'':36}{'median ms':>10}{'min ms':>9}{'max ms':>9}")
    for name, values in samples.items():
        print(f"{name:36}{medians[name]:10.0f}{min(values):9.0f}{max(values):9.0f}")
    print(f"{'first search 3 s after the handshake':36}{statistics.median(settled):10.1f}")
    print(f"tools/list: {ratio:.2f}× the bare server (target ≤ 1.1×)")
    print(f"first search: {above:.0f} ms above the bare tools/list (target ≤ 1000 ms)")
    write_json(
        args.json,
        {
            "runs": args.runs,
            "docs": args.docs,
            "median_ms": {name: round(value, 1) for name, value in medians.items()},
            "settled_search_ms": round(statistics.median(settled), 1),
            "tools_list_ratio": round(ratio, 3),
            "first_search_above_bare_ms": round(above),
            "class_archive": str(archive) if archive else None,
        },
    )


if __name__ == "__main__":
    main()
