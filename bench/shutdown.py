"""Closing stdin at random moments of ``pylucene-mcp serve``'s start-up crawl
(tests/shutdown_trials.py): for each trial, whether the server ended cleanly (exit 0, no error
in its stderr or log, no Tika process left, the index opens) and how many of the folder's
files were indexed by then (tests/crawler/test_shutdown.py runs five fixed moments in CI).

    python bench/shutdown.py [--trials 20] [--max-delay 8] [--seed N] [--json PATH]
"""

from __future__ import annotations

import argparse
import random
import tempfile
from pathlib import Path

from _common import write_json

from tests.shutdown_trials import FILES, make_folder, trial


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--max-delay", type=float, default=8.0)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--json", type=Path, default=Path("shutdown.json"))
    args = parser.parse_args()
    rng = random.Random(args.seed)
    root = Path(tempfile.mkdtemp(prefix="pylucene-mcp-shutdown-"))
    folder = make_folder(root / "docs")
    rows = []
    for n in range(args.trials):
        delay = round(rng.uniform(0, args.max_delay), 2)
        problems, indexed, exit_s = trial(folder, root / f"trial-{n}", delay)
        rows.append({"delay_s": delay, "indexed": indexed, "exit_s": exit_s, "problems": problems})
        print(f"trial {n:2}: closed at {delay:5.2f} s, {indexed:2}/{FILES} indexed, "
              f"exit {exit_s:4.2f} s after stdin closed, "
              f"{'clean' if not problems else '; '.join(problems)[:200]}")  # fmt: skip
    failed = sum(1 for row in rows if row["problems"])
    slowest = max(float(row["exit_s"]) for row in rows)
    print(f"{args.trials} trials, {failed} not clean, the slowest exit {slowest:.2f} s")
    write_json(args.json, {"trials": rows, "failed": failed})
    raise SystemExit(1 if failed else 0)


if __name__ == "__main__":
    main()
