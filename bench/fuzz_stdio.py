"""Raw JSON-RPC fuzzing of ``pylucene-mcp serve`` over real stdio, long: ``--calls`` pipelined
lines (requests with every kind of id, refused ids, notifications, junk, deep nesting, hostile
queries) against an index of the test corpus; prints how many went unanswered, were answered
twice, and whether the server died (tests/test_wire_fuzz.py runs 400 in CI).

    python bench/fuzz_stdio.py [--calls 10000] [--seed N] [--json PATH]
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
from pathlib import Path

from _common import fixture_index, write_json

from tests.wire_fuzz import fuzz, summary


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--json", type=Path, default=Path("fuzz_stdio.json"))
    args = parser.parse_args()
    home = Path(tempfile.mkdtemp(prefix="pylucene-mcp-fuzz-"))
    outcome = fuzz(fixture_index(home), home, args.calls, args.seed)
    print(summary(outcome))
    figures = dataclasses.asdict(outcome)
    figures.pop("expected")
    figures.pop("answered")
    write_json(args.json, figures)
    raise SystemExit(1 if outcome.deaths or outcome.unanswered or outcome.duplicated else 0)


if __name__ == "__main__":
    main()
