"""Shared set-up of the benchmarks: the fixture corpus indexed into a temporary folder."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pylucene_mcp import Index  # noqa: E402
from tests.corpus import build_index  # noqa: E402


def fixture_index(folder: Path | None = None) -> Path:
    """Indexes the test corpus into ``folder`` (a new temporary one by default) and closes it."""
    base = folder or Path(tempfile.mkdtemp(prefix="pylucene-mcp-bench-"))
    index = Index.open(base / "index")
    build_index(index, base)
    index.close()
    return base / "index"


def summary(name: str, samples_ms: list[float]) -> str:
    ordered = sorted(samples_ms)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    return (
        f"{name}: median {statistics.median(ordered):.1f} ms, min {ordered[0]:.1f} ms, "
        f"p95 {p95:.1f} ms, max {ordered[-1]:.1f} ms (n={len(ordered)})"
    )
