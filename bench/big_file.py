"""One big text file crawled by the CLI: peak memory of the crawling process and of Tika's
process tree, and what was indexed, for several ``max_content_chars`` (issue: a 90 MB text
file took the server to 4.4 GB).

    python bench/big_file.py [--mb 90] [--caps 1000000,5000000,10000000,0]

A cap of 0 means none (the whole text): Tika's heap then runs out and its process ends, which
the crawl reports for the file, while the crawling process stays small.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parents[1]


def make_file(path: Path, size: int) -> None:
    rng = random.Random(1)
    words = ["".join(rng.choices("abcdefghijklmnopqrstuvwxyz", k=rng.randint(2, 10)))
             for _ in range(50_000)]  # fmt: skip
    written = 0
    with path.open("w", encoding="utf-8") as handle:
        while written < size:
            line = " ".join(rng.choices(words, k=12)) + "\n"
            handle.write(line)
            written += len(line)


def peak_while(proc: subprocess.Popen[bytes]) -> tuple[int, int]:
    """Peak RSS of ``proc`` alone and of the Tika processes below it, sampled every 50 ms."""
    own = tika = 0
    root = psutil.Process(proc.pid)
    while proc.poll() is None:
        try:
            own = max(own, root.memory_info().rss)
            below = sum(
                p.memory_info().rss
                for p in root.children(recursive=True)
                if "tika" in " ".join(p.cmdline())
            )
            tika = max(tika, below)
        except psutil.Error:
            pass
        time.sleep(0.05)
    return own, tika


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--mb", type=int, default=90)
    parser.add_argument("--caps", default="1000000,5000000,10000000,0")
    parser.add_argument("--json", type=Path, default=Path("bench-big_file.json"))
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="pylucene-mcp-big-"))
    (work / "docs").mkdir()
    make_file(work / "docs" / "huge.txt", args.mb * 1_000_000)
    rows = []
    print(f"{'max_content_chars':>18} {'crawler MB':>11} {'Tika MB':>8} {'s':>6}  outcome")
    for cap in (int(c) for c in args.caps.split(",")):
        home = work / f"home-{cap}"
        env = {**os.environ, "PYLUCENE_MCP_HOME": str(home)}
        env["PYLUCENE_MCP_MAX_CONTENT_CHARS"] = str(cap or 2_000_000_000)
        started = time.monotonic()
        proc = subprocess.Popen(
            [sys.executable, "-m", "pylucene_mcp", "crawl", str(work / "docs"), "--json",
             "--index", str(home / "index")],
            cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        peaks: list[tuple[int, int]] = []
        sampler = threading.Thread(target=lambda p=proc, out=peaks: out.append(peak_while(p)))
        sampler.start()
        out, _ = proc.communicate()
        sampler.join()
        seconds = time.monotonic() - started
        report = json.loads(out)
        outcome = (
            f"indexed ({report['added']})"
            if report["added"]
            else f"failed: {report['failures'][0]['reason'] if report['failures'] else '?'}"
        )
        own, tika = peaks[0]
        rows.append({"cap": cap, "crawler_mb": own / 1e6, "tika_mb": tika / 1e6,
                     "seconds": seconds, "outcome": outcome})  # fmt: skip
        print(
            f"{cap or 'none':>18} {own / 1e6:>11.0f} {tika / 1e6:>8.0f} {seconds:>6.1f}  {outcome}"
        )
    args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
