"""pyserini's fusion resources through ours: the two runs of its own fusion tests fused by each
method with the options its tests give, each output compared byte for byte with pyserini's
verify file, and ``TrecRun``'s read and normalize likewise (docs/repl.md, "Fusion").

Its resources are its, not ours: give a checkout of pyserini 1.6.0's tests (``git clone --depth
1 --branch pyserini-1.6.0 https://github.com/castorini/pyserini`` where GitHub is reachable):

    python bench/pyserini_fusion.py --resources PYSERINI_CHECKOUT/tests/resources
"""

from __future__ import annotations

import argparse
import filecmp
import subprocess
import sys
import tempfile
from pathlib import Path

#: method, its options in pyserini's test, pyserini's verify file
CASES = [
    ("rrf", [], "simple_trec_run_rrf_verify.txt"),
    ("interpolation", ["--alpha", "0.4"], "simple_trec_run_interpolation_verify.txt"),
    ("average", [], "simple_trec_run_average_verify.txt"),
    ("normalize", [], "simple_fusion_normalize_verify.txt"),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--resources", type=Path, required=True)
    args = parser.parse_args()
    resources: Path = args.resources
    runs = [str(resources / f"simple_trec_run_fusion_{n}.txt") for n in (1, 2)]
    failed = 0
    with tempfile.TemporaryDirectory() as work:
        for method, options, verify in CASES:
            out = Path(work) / f"{method}.txt"
            command = [sys.executable, "-m", "pylucene_mcp.research.fusion", "--method", method]
            command += [*options, "--runs", *runs, "--output", str(out), "--runtag", "test"]
            subprocess.run(command, check=True)
            same = filecmp.cmp(out, resources / verify, shallow=False)
            failed += not same
            print(f"{method}: {'identical to' if same else 'DIFFERS from'} {verify}")
        from pylucene_mcp.research.trectools import RescoreMethod, TrecRun

        out = Path(work) / "read.txt"
        TrecRun(str(resources / "simple_trec_run_read.txt")).save_to_txt(str(out))
        same = filecmp.cmp(out, resources / "simple_trec_run_read_verify.txt", shallow=False)
        failed += not same
        print(f"TrecRun read: {'identical' if same else 'DIFFERS'}")
        run = TrecRun(str(resources / "simple_trec_run_fusion_1.txt"))
        run.rescore(RescoreMethod.NORMALIZE).save_to_txt(str(out))
        same = filecmp.cmp(out, resources / "simple_trec_run_normalize_verify.txt", shallow=False)
        failed += not same
        print(f"TrecRun normalize: {'identical' if same else 'DIFFERS'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
