"""Crash trials: writers killed with SIGKILL at random moments.

    python bench/crash.py [--api N] [--cli N] [--seed S]

- API trials: a process adds documents through the Python API in committed batches of 50 and
  prints the total after each commit; it is killed at a random moment. The index must open,
  hold at least every document reported committed, and only whole batches.
- CLI trials: ``pylucene-mcp crawl`` of 300 files is killed at a random moment. The index must
  open (or not exist yet), no Tika JVM may outlive the kill, and the next crawl must converge
  to exactly the files on disk.

Prints one line per trial and the totals; exits 1 when a trial failed. ``tests/test_crash.py``
runs a short version in CI.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.processes import tika_processes  # noqa: E402

BATCH = 50

WRITER = f"""
import sys
from pylucene_mcp import Index
index = Index.open(sys.argv[1])
print("ready", flush=True)
total = len(index)
while True:
    with index.writer() as w:
        for n in range(total, total + {BATCH}):
            w.add({{"file_path": f"/trial/{{n:06}}.txt", "content": f"document {{n}} of a trial"}})
    total += {BATCH}
    print("committed", total, flush=True)
"""


@dataclass
class Totals:
    trials: int = 0
    failures: list[str] = field(default_factory=list)
    recovery_ms: list[float] = field(default_factory=list)


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYLUCENE_MCP_")}
    env["PYLUCENE_MCP_HOME"] = str(home)
    return env


def _open_count(index_path: Path) -> tuple[int | None, float]:
    """Documents in the index (None when it has no commit yet), and how long opening took."""
    from pylucene_mcp import Index

    if not any(index_path.glob("segments_*")):
        return None, 0.0
    started = time.perf_counter()
    index = Index.open(index_path, read_only=True)
    try:
        return len(index), (time.perf_counter() - started) * 1000
    finally:
        index.close()


def api_trial(work: Path, rng: random.Random, totals: Totals) -> str:
    index_path = work / "api-index"
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, str(index_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=ROOT,
        env=_env(work / "home"),
        text=True,
    )
    assert proc.stdout is not None
    proc.stdout.readline()  # ready: the JVM is up and the index open
    delay = rng.uniform(0.05, 2.5)
    time.sleep(delay)
    proc.send_signal(signal.SIGKILL)
    reported = [int(line.split()[1]) for line in proc.stdout if line.startswith("committed")]
    proc.stdout.close()
    proc.wait()
    committed = max(reported, default=0)
    count, open_ms = _open_count(index_path)
    totals.trials += 1
    totals.recovery_ms.append(open_ms)
    count = count or 0
    if count < committed:
        totals.failures.append(f"api: {count} documents after the kill, {committed} committed")
    elif count % BATCH:
        totals.failures.append(f"api: {count} documents: a batch was half committed")
    return f"api  kill after {delay:.2f} s: {committed} reported committed, {count} in the index"


def cli_trial(work: Path, rng: random.Random, totals: Totals, folder: Path) -> str:
    index_path = work / f"cli-index-{totals.trials}"  # a first crawl each time
    env = _env(work / "home")
    command = [sys.executable, "-m", "pylucene_mcp", "crawl", str(folder), "--index"]
    before = tika_processes()
    proc = subprocess.Popen(
        [*command, str(index_path)],
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    delay = rng.uniform(0.3, 10.0)
    deadline = time.monotonic() + delay
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.02)
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:  # it finished first: the checks below hold all the same
        pass
    proc.wait()
    totals.trials += 1
    left = tika_processes() - before
    wait_until = time.monotonic() + 15  # the supervisor ends its Tika JVMs within seconds
    while left and time.monotonic() < wait_until:
        time.sleep(0.2)
        left = tika_processes() - before
    if left:
        totals.failures.append(f"cli: Tika JVMs {sorted(left)} outlived the kill")
        for pid in left:
            os.kill(pid, signal.SIGKILL)
    partial, open_ms = _open_count(index_path)
    totals.recovery_ms.append(open_ms)
    (folder / "added-later.txt").write_text("written while no one watched")
    finished = subprocess.run(
        [*command, str(index_path)], cwd=ROOT, env=env, capture_output=True, timeout=900
    )
    final, _ = _open_count(index_path)
    expected = len(list(folder.glob("*.txt")))
    (folder / "added-later.txt").unlink()
    if finished.returncode != 0:
        totals.failures.append(f"cli: the crawl after the kill failed: {finished.stderr[-300:]!r}")
    elif final != expected:
        totals.failures.append(f"cli: {final} documents after the next crawl, {expected} files")
    return (
        f"cli  kill after {delay:.2f} s: {partial if partial is not None else 'no'} documents "
        f"committed, {final} after the next crawl ({expected} files)"
    )


def run(api: int, cli: int, seed: int, out: object = sys.stdout) -> Totals:
    rng = random.Random(seed)
    totals = Totals()
    with tempfile.TemporaryDirectory(prefix="pylucene-mcp-crash-") as tmp:
        work = Path(tmp)
        folder = work / "docs"
        folder.mkdir()
        for n in range(300):
            (folder / f"doc{n:03}.txt").write_text(f"document {n} about lighthouses " * 30)
        for _ in range(api):
            print(api_trial(work, rng, totals), file=out, flush=True)  # type: ignore[call-overload]
        for _ in range(cli):
            print(cli_trial(work, rng, totals, folder), file=out, flush=True)  # type: ignore[call-overload]
    return totals


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--api", type=int, default=20)
    parser.add_argument("--cli", type=int, default=10)
    parser.add_argument("--seed", type=int, default=int(time.time()))
    args = parser.parse_args()
    print(f"seed {args.seed}")
    totals = run(args.api, args.cli, args.seed)
    slowest = max(totals.recovery_ms, default=0.0)
    print(
        f"{totals.trials} kill -9 trials, {len(totals.failures)} failed; slowest reopen "
        f"{slowest:.0f} ms"
    )
    for failure in totals.failures:
        print(f"  FAILED {failure}")
    return 1 if totals.failures else 0


if __name__ == "__main__":
    sys.exit(main())
