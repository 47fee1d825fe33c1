"""pyserini's ``trectools`` (``TrecRun``, ``Qrels``) with its names and behaviour: a TREC run as
a pandas DataFrame of ``topic q0 docid rank score tag`` rows, read from and written to the
six-column text format, rescored and merged as pyserini's fusion does (:mod:`.fusion`).

Change ``from pyserini.trectools import TrecRun`` to ``from pylucene_mcp.research.trectools
import TrecRun`` and a script runs as it did (docs/repl.md, "Coming from pyserini"). Needs
pandas (``pip install 'pylucene-mcp[research]'``).
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Iterable, Sequence
from typing import Any

from pylucene_mcp.basics import errors

#: a pandas DataFrame (pandas is imported on first use, and has no type stubs here)
DataFrame = Any


def _pandas() -> Any:
    try:
        import pandas
    except ImportError as exc:  # pragma: no cover - a dependency of the research extra
        raise errors.SetupError(
            "runs and their fusion need pandas: pip install 'pylucene-mcp[research]'"
        ) from exc
    return pandas


class AggregationMethod(enum.Enum):
    """How :meth:`TrecRun.merge` combines a document's scores across runs."""

    SUM = "sum"


class RescoreMethod(enum.Enum):
    """How :meth:`TrecRun.rescore` replaces scores: ``RRF`` ``1 / (rrf_k + rank)``, ``SCALE``
    the score times a factor, ``NORMALIZE`` min-max within each topic (1 where all are equal)."""

    RRF = "rrf"
    SCALE = "scale"
    NORMALIZE = "normalize"


#: the six columns of a run
RUN_COLUMNS = ["topic", "q0", "docid", "rank", "score", "tag"]
#: the four columns of qrels
QRELS_COLUMNS = ["topic", "q0", "docid", "relevance_grade"]


class Qrels:
    """TREC relevance judgments: ``qrels_data``, a DataFrame of ``topic q0 docid
    relevance_grade``."""

    columns = QRELS_COLUMNS

    def __init__(self, filepath: str | None = None) -> None:
        self.filepath = filepath
        self.qrels_data: DataFrame = _pandas().DataFrame(columns=QRELS_COLUMNS)
        if filepath is not None:
            self.read_run(filepath)

    def read_run(self, filepath: str) -> None:
        """Reads the judgments of ``filepath`` (white space between columns)."""
        self.qrels_data = _pandas().read_csv(filepath, sep=r"\s+", names=QRELS_COLUMNS)

    def get_relevance_grades(self) -> set[Any]:
        """Every grade the judgments give."""
        return set(self.qrels_data["relevance_grade"].unique())

    def topics(self) -> set[Any]:
        """Every judged topic."""
        return set(self.qrels_data["topic"].unique())

    def get_docids(self, topic: Any, relevance_grades: Iterable[Any] | None = None) -> list[str]:
        """The documents judged for ``topic`` with one of ``relevance_grades`` (None: any)."""
        grades = self.get_relevance_grades() if relevance_grades is None else relevance_grades
        data = self.qrels_data
        chosen = data[(data["topic"] == topic) & data["relevance_grade"].isin(list(grades))]
        return [str(d) for d in chosen["docid"].tolist()]


class TrecRun:
    """A TREC run: ``run_data``, a DataFrame of ``topic q0 docid rank score tag`` (the
    documents' ids read as text); with ``resort``, each topic's rows are ordered by score and
    ranked again from 1 as read."""

    columns = RUN_COLUMNS

    def __init__(self, filepath: str | None = None, resort: bool = False) -> None:
        self.reset_data()
        self.filepath = filepath
        self.resort = resort
        if filepath is not None:
            self.read_run(filepath, resort)

    def reset_data(self) -> None:
        self.run_data: DataFrame = _pandas().DataFrame(columns=RUN_COLUMNS)

    def read_run(self, filepath: str, resort: bool = False) -> None:
        """Reads the run of ``filepath``; ``resort``: ranks from the scores, not the file."""
        data = _pandas().read_csv(
            filepath, sep=r"\s+", names=RUN_COLUMNS, dtype={"docid": "str", "score": "float"}
        )
        if resort:
            data = data.sort_values(["topic", "score"], ascending=[True, False])
            data["rank"] = data.groupby("topic")["score"].rank(ascending=False, method="first")
        self.run_data = data

    def topics(self) -> set[Any]:
        """Every topic of the run."""
        return set(self.run_data["topic"].unique())

    def clone(self) -> TrecRun:
        """A deep copy."""
        return copy.deepcopy(self)

    def save_to_txt(self, output_path: str, tag: str | None = None) -> None:
        """Writes the run, its rows by topic and then by score, highest first; ``tag``
        replaces every row's tag.

        Raises:
            InvalidRequestError: for an empty run.
        """
        if len(self.run_data) == 0:
            raise errors.InvalidRequestError("Nothing to save. TrecRun is empty")
        if tag is not None:
            self.run_data["tag"] = tag
        self.run_data = self.run_data.sort_values(by=["topic", "score"], ascending=[True, False])
        self.run_data.to_csv(output_path, sep=" ", header=False, index=False)

    def get_docs_by_topic(self, topic: Any, max_docs: int | None = None) -> DataFrame:
        """The rows of ``topic``, the first ``max_docs`` of them (None: all)."""
        rows = self.run_data[self.run_data["topic"] == topic]
        return rows if max_docs is None else rows.head(max_docs)

    def rescore(
        self, method: RescoreMethod, rrf_k: int | None = None, scale: float | None = None
    ) -> TrecRun:
        """Replaces the scores as ``method`` says (in place); returns the run.

        Raises:
            InvalidRequestError: for ``RRF`` without ``rrf_k`` or ``SCALE`` without ``scale``.
        """
        data = self.run_data
        if method is RescoreMethod.RRF:
            if rrf_k is None:
                raise errors.InvalidRequestError('Parameter "rrf_k" must be a valid integer.')
            data["score"] = 1 / (rrf_k + data["rank"].to_numpy(dtype=float))
        elif method is RescoreMethod.SCALE:
            if scale is None:
                raise errors.InvalidRequestError('Parameter "scale" must not be none.')
            data["score"] = data["score"].to_numpy(dtype=float) * scale
        elif method is RescoreMethod.NORMALIZE:
            data["score"] = data.groupby("topic")["score"].transform(_min_max)
        else:
            raise errors.InvalidRequestError(f"no rescoring {method!r}")
        return self

    def to_numpy(self) -> Any:
        """The rows as a NumPy array (a copy)."""
        return self.run_data.to_numpy(copy=True)

    def discard_qrels(self, qrels: Qrels, clone: bool = True) -> TrecRun:
        """The run without the documents ``qrels`` judges, topic by topic (the topics it does
        not judge go too); ``clone``: a new run, else this one changed."""
        return self._filter_from_qrels(qrels, keep=False, clone=clone)

    def retain_qrels(self, qrels: Qrels, clone: bool = True) -> TrecRun:
        """The run with only the documents ``qrels`` judges, topic by topic."""
        return self._filter_from_qrels(qrels, keep=True, clone=clone)

    def _filter_from_qrels(self, qrels: Qrels, keep: bool, clone: bool) -> TrecRun:
        judged_topics = qrels.topics()
        kept = []
        for topic in self.topics():
            if topic not in judged_topics:
                continue
            rows = self.run_data[self.run_data["topic"] == topic]
            judged = rows["docid"].isin(qrels.get_docids(topic))
            kept.append(rows[judged] if keep else rows[~judged])
        return TrecRun.from_dataframes(kept, TrecRun() if clone else self)

    @staticmethod
    def get_all_topics_from_runs(runs: Iterable[TrecRun]) -> set[Any]:
        """Every topic of any of ``runs``."""
        return set().union(*(run.topics() for run in runs))

    @staticmethod
    def merge(
        runs: Sequence[TrecRun],
        aggregation: AggregationMethod,
        depth: int | None = None,
        k: int | None = None,
    ) -> TrecRun:
        """One run of the documents of ``runs``: each topic's first ``depth`` rows of each run
        (None: all), a document's scores summed, ordered by score (highest first, ties by
        docid), the first ``k`` of each topic (None: all), ranked from 1, tagged ``merge_sum``.

        Raises:
            InvalidRequestError: for fewer than two runs, or an aggregation other than SUM.
        """
        if len(runs) < 2:
            raise errors.InvalidRequestError("Merge requires at least 2 runs.")
        if aggregation is not AggregationMethod.SUM:
            raise errors.InvalidRequestError(f"no aggregation {aggregation!r}")
        pd = _pandas()
        parts = []
        for run in runs:
            rows = run.run_data
            if depth is not None:
                rows = rows.groupby("topic", sort=False).head(depth)
            parts.append(rows[["topic", "docid", "score"]])
        summed = (
            pd.concat(parts, ignore_index=True)
            .groupby(["topic", "docid"], as_index=False, sort=False)["score"]
            .sum()
            .sort_values(["topic", "score", "docid"], ascending=[True, False, True])
        )
        if k is not None:
            summed = summed.groupby("topic", sort=False).head(k)
        summed = summed.reset_index(drop=True)
        merged = pd.DataFrame(
            {
                "topic": summed["topic"],
                "q0": "Q0",
                "docid": summed["docid"],
                "rank": summed.groupby("topic", sort=False).cumcount() + 1,
                "score": summed["score"],
                "tag": "merge_sum",
            }
        )
        result = TrecRun()
        result.run_data = merged
        return result

    @staticmethod
    def from_dataframes(frames: Sequence[DataFrame], run: TrecRun | None = None) -> TrecRun:
        """``run`` (None: a new one) holding the rows of ``frames``."""
        result = TrecRun() if run is None else run
        result.reset_data()
        if frames:
            result.run_data = _pandas().concat(list(frames))
        return result

    @staticmethod
    def from_list(rows: Sequence[tuple[Any, ...]], run: TrecRun | None = None) -> TrecRun:
        """``run`` (None: a new one) holding ``rows``, each ``(topic, 'Q0', docid, rank,
        score, tag)``."""
        result = TrecRun() if run is None else run
        result.run_data = _pandas().DataFrame(list(rows), columns=RUN_COLUMNS)
        return result

    @staticmethod
    def from_search_results(
        docid_score_pair: Iterable[tuple[str, float]], topic: Any = 1
    ) -> TrecRun:
        """A run of one topic from ``(docid, score)`` pairs in rank order, tagged
        ``searcher``."""
        return TrecRun.from_list(
            [
                (topic, "Q0", docid, rank, score, "searcher")
                for rank, (docid, score) in enumerate(docid_score_pair, start=1)
            ]
        )

    @staticmethod
    def concat(runs: Sequence[TrecRun]) -> TrecRun:
        """A new run of the rows of ``runs``, one after the other."""
        result = TrecRun()
        result.run_data = _pandas().concat([run.run_data for run in runs])
        return result


def _min_max(scores: Any) -> Any:
    """``scores`` scaled to 0–1 (all 1 where they are equal)."""
    import numpy as np

    values = scores.to_numpy(dtype=float)
    low, high = values.min(), values.max()
    return np.ones_like(values) if high == low else (values - low) / (high - low)
