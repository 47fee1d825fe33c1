"""pyserini's ``fusion`` with its names and behaviour: runs (:class:`~.trectools.TrecRun`)
fused by reciprocal rank (Cormack et al., SIGIR 2009), by interpolation of two runs' scores, by
their average, or by the sum of their min-max normalized scores; and its command line:

    python -m pylucene_mcp.research.fusion --method rrf --runs a.txt b.txt --output fused.txt \\
        [--runtag TAG] [--rrf.k 60] [--alpha 0.5] [--depth 1000] [--k 1000] [--resort]

Change ``pyserini.fusion`` to ``pylucene_mcp.research.fusion`` and a script runs as it did.
Each fusion takes each topic's first ``depth`` documents of each run (None: all) and answers
the first ``k`` of the fused list (None: all), ordered by fused score, ties by docid.
"""

from __future__ import annotations

import argparse
import enum
from collections.abc import Sequence

from pylucene_mcp.basics import errors
from pylucene_mcp.research.trectools import AggregationMethod, RescoreMethod, TrecRun


class FusionMethod(enum.Enum):
    RRF = "rrf"
    INTERPOLATION = "interpolation"
    AVERAGE = "average"
    NORMALIZE = "normalize"


def reciprocal_rank_fusion(
    runs: Sequence[TrecRun], rrf_k: int = 60, depth: int | None = None, k: int | None = None
) -> TrecRun:
    """Each document scored ``sum(1 / (rrf_k + rank))`` over the runs that hold it."""
    rescored = [run.clone().rescore(RescoreMethod.RRF, rrf_k=rrf_k) for run in runs]
    return TrecRun.merge(rescored, AggregationMethod.SUM, depth=depth, k=k)


def interpolation(
    runs: Sequence[TrecRun], alpha: float = 0.5, depth: int | None = None, k: int | None = None
) -> TrecRun:
    """Exactly two runs: ``alpha * first + (1 - alpha) * second`` (a run without the document
    adds nothing).

    Raises:
        InvalidRequestError: for other than two runs.
    """
    if len(runs) != 2:
        raise errors.InvalidRequestError("Interpolation must be performed on exactly two runs.")
    scaled = [
        runs[0].clone().rescore(RescoreMethod.SCALE, scale=alpha),
        runs[1].clone().rescore(RescoreMethod.SCALE, scale=1 - alpha),
    ]
    return TrecRun.merge(scaled, AggregationMethod.SUM, depth=depth, k=k)


def average(runs: Sequence[TrecRun], depth: int | None = None, k: int | None = None) -> TrecRun:
    """The sum of the runs' scores divided by how many runs there are."""
    scaled = [run.clone().rescore(RescoreMethod.SCALE, scale=1 / len(runs)) for run in runs]
    return TrecRun.merge(scaled, AggregationMethod.SUM, depth=depth, k=k)


def normalize(runs: Sequence[TrecRun], depth: int | None = None, k: int | None = None) -> TrecRun:
    """The sum of the runs' scores, each run's min-max normalized within each topic first."""
    scaled = [run.clone().rescore(RescoreMethod.NORMALIZE) for run in runs]
    return TrecRun.merge(scaled, AggregationMethod.SUM, depth=depth, k=k)


def main(argv: Sequence[str] | None = None) -> None:
    """pyserini's ``python -m pyserini.fusion``: fuses run files into one."""
    parser = argparse.ArgumentParser(description="Fuse TREC run files into one.")
    parser.add_argument("--runs", type=str, nargs="+", default=[], required=True)
    parser.add_argument("--output", type=str, required=True)
    parser.add_argument("--runtag", type=str, default="pyserini.fusion")
    parser.add_argument("--method", type=FusionMethod, default=FusionMethod.RRF)
    parser.add_argument("--rrf.k", dest="rrf_k", type=int, default=60)
    parser.add_argument("--alpha", type=float, default=0.5)
    parser.add_argument("--depth", type=int, default=1000)
    parser.add_argument("--k", type=int, default=1000)
    parser.add_argument("--resort", action="store_true")
    args = parser.parse_args(argv)
    runs = [TrecRun(filepath=path, resort=args.resort) for path in args.runs]
    if args.method is FusionMethod.RRF:
        fused = reciprocal_rank_fusion(runs, rrf_k=args.rrf_k, depth=args.depth, k=args.k)
    elif args.method is FusionMethod.INTERPOLATION:
        fused = interpolation(runs, alpha=args.alpha, depth=args.depth, k=args.k)
    elif args.method is FusionMethod.AVERAGE:
        fused = average(runs, depth=args.depth, k=args.k)
    else:
        fused = normalize(runs, depth=args.depth, k=args.k)
    fused.save_to_txt(args.output, tag=args.runtag)


if __name__ == "__main__":
    main()
