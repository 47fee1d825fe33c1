"""A cheap search behind concurrent expensive ones, through the MCP server (the SDK's in-memory
client): how long the one-word search takes alone, and sent after N pattern searches, with the
server's bound on concurrent expensive calls (``expensive_limit``) and without it.

    python bench/cheap_past.py [--expensive 45] [--docs 20000]
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pylucene_mcp import Index  # noqa: E402
from pylucene_mcp.server import app  # noqa: E402
from tests.mcp_client import connect  # noqa: E402

PATTERN = "*e* OR *a*"


async def run(index: Index, expensive: int) -> tuple[float, float, int]:
    """The cheap search's time alone, then behind ``expensive`` pattern searches (seconds), and
    how many of those failed."""
    failed = 0
    async with connect(index) as client:
        await client.call_tool("search", {"query": "kittiwakes"})
        started = time.perf_counter()
        await client.call_tool("search", {"query": "kittiwakes"})
        alone = time.perf_counter() - started
        behind = 0.0

        async def pattern() -> None:
            nonlocal failed
            result = await client.call_tool("search", {"query": PATTERN, "maxPassages": 0})
            failed += bool(result.is_error)

        async def cheap() -> None:
            nonlocal behind
            begun = time.perf_counter()
            await client.call_tool("search", {"query": "kittiwakes"})
            behind = time.perf_counter() - begun

        async with anyio.create_task_group() as group:
            for _ in range(expensive):
                group.start_soon(pattern)
            for _ in range(20):
                await anyio.sleep(0)
            group.start_soon(cheap)
    return alone, behind, failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--expensive", type=int, default=45)
    parser.add_argument("--docs", type=int, default=20_000)
    args = parser.parse_args()
    rng = random.Random(3)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(4, 9)))
             for _ in range(200_000)]  # fmt: skip
    index = Index.open(Path(tempfile.mkdtemp(prefix="pylucene-mcp-cheap-")) / "index")
    with index.writer() as writer:
        writer.add_many(
            {"file_path": f"/d/{n:06}.txt", "content": " ".join(rng.choices(words, k=60))}
            for n in range(args.docs)
        )
        writer.add({"file_path": "/d/cheap.txt", "content": "the one note about kittiwakes"})
    bound = app.expensive_limit
    print(f"{'server':<28} {'alone ms':>9} {'behind ms':>10} {'patterns failed':>16}")
    for name, limit in (("unbounded", lambda: 10_000), (f"expensive_limit {bound()}", bound)):
        app.expensive_limit = limit  # type: ignore[assignment]
        alone, behind, failed = anyio.run(run, index, args.expensive)
        print(
            f"{name:<28} {alone * 1000:>9.1f} {behind * 1000:>10.1f} {failed:>13}/{args.expensive}"
        )
    index.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
