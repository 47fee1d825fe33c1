"""pyserini's fusion and TrecRun (pylucene_mcp.research.fusion, .trectools) against a plain-Python
oracle: random runs with ties and documents that only some runs hold, fused by each method with
and without a depth and a k, through the functions and through the command line."""

from __future__ import annotations

import random
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from pylucene_mcp.basics.errors import InvalidRequestError
from pylucene_mcp.research import fusion
from pylucene_mcp.research.trectools import Qrels, TrecRun

Row = tuple[str, str, int, float]  # topic, docid, rank, score


def random_run(chance: random.Random, topics: list[str], tag: str) -> list[Row]:
    rows: list[Row] = []
    for topic in topics:
        docs = chance.sample([f"d{n:03}" for n in range(60)], chance.randint(5, 40))
        scores = sorted((round(chance.uniform(0, 30), 1) for _ in docs), reverse=True)
        rows += [(topic, d, r, s) for r, (d, s) in enumerate(zip(docs, scores, strict=True), 1)]
    return rows


def write(path: Path, rows: list[Row], tag: str) -> str:
    path.write_text("".join(f"{t} Q0 {d} {r} {s} {tag}\n" for t, d, r, s in rows))
    return str(path)


def oracle(
    runs: list[list[Row]], method: str, depth: int | None, k: int | None, alpha: float = 0.5
) -> dict[str, list[tuple[str, float]]]:
    """Each topic's fused (docid, score) list, best first, ties by docid."""
    fused: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    for n, run in enumerate(runs):
        by_topic: dict[str, list[Row]] = defaultdict(list)
        for row in run:
            by_topic[row[0]].append(row)
        for topic, rows in by_topic.items():
            scores = [s for _, _, _, s in rows]
            low, high = min(scores), max(scores)
            for _, docid, rank, score in rows[:depth]:
                if method == "rrf":
                    value = 1 / (60 + rank)
                elif method == "interpolation":
                    value = score * (alpha if n == 0 else 1 - alpha)
                elif method == "average":
                    value = score / len(runs)
                else:  # normalize: min-max over the whole topic of the run
                    value = 1.0 if high == low else (score - low) / (high - low)
                fused[topic][docid] += value
    return {
        topic: sorted(docs.items(), key=lambda pair: (-pair[1], pair[0]))[:k]
        for topic, docs in fused.items()
    }


@pytest.mark.parametrize("method", ["rrf", "interpolation", "average", "normalize"])
@pytest.mark.parametrize(("depth", "k"), [(None, None), (10, 5)])
def test_each_fusion_is_the_oracles(
    tmp_path: Path, method: str, depth: int | None, k: int | None
) -> None:
    chance = random.Random(f"{method}{depth}")
    topics = ["1", "2", "30"]
    rows = [random_run(chance, topics, f"r{n}") for n in range(2)]
    runs = [TrecRun(write(tmp_path / f"r{n}.txt", r, f"r{n}")) for n, r in enumerate(rows)]
    functions = {
        "rrf": fusion.reciprocal_rank_fusion,
        "interpolation": fusion.interpolation,
        "average": fusion.average,
        "normalize": fusion.normalize,
    }
    fused = functions[method](runs, depth=depth, k=k)
    expected = oracle(rows, method, depth, k)
    data = fused.run_data
    for topic in topics:
        got = data[data["topic"] == int(topic)]
        assert list(got["docid"]) == [d for d, _ in expected[topic]]
        assert list(got["score"]) == pytest.approx([s for _, s in expected[topic]])
        assert list(got["rank"]) == list(range(1, len(got) + 1))


def test_the_command_line_writes_the_fused_run_as_pyserini_s_does(tmp_path: Path) -> None:
    chance = random.Random(4)
    rows = [random_run(chance, ["7", "8"], f"r{n}") for n in range(3)]
    paths = [write(tmp_path / f"r{n}.txt", r, f"r{n}") for n, r in enumerate(rows)]
    out = tmp_path / "fused.txt"
    command = [sys.executable, "-m", "pylucene_mcp.research.fusion", "--method", "rrf"]
    command += ["--runs", *paths, "--output", str(out), "--runtag", "mine", "--k", "4"]
    subprocess.run(command, check=True, capture_output=True)
    lines = [line.split() for line in out.read_text().splitlines()]
    expected = oracle(rows, "rrf", 1000, 4)
    assert [(t, d) for t, _, d, *_ in lines] == [(t, d) for t in ("7", "8") for d, _ in expected[t]]
    assert all(q0 == "Q0" and tag == "mine" for _, q0, _, _, _, tag in lines)
    assert [float(s) for *_, s, _ in lines] == pytest.approx(
        [s for t in ("7", "8") for _, s in expected[t]]
    )


def test_qrels_keep_and_discard_the_judged_documents(tmp_path: Path) -> None:
    run_rows: list[Row] = [("1", "a", 1, 3.0), ("1", "b", 2, 2.0), ("1", "c", 3, 1.0)]
    run_rows += [("2", "a", 1, 5.0), ("9", "z", 1, 1.0)]
    run = TrecRun(write(tmp_path / "run.txt", run_rows, "t"))
    (tmp_path / "qrels.txt").write_text("1 0 a 1\n1 0 c 0\n2 0 q 2\n")
    qrels = Qrels(str(tmp_path / "qrels.txt"))
    assert qrels.get_docids(1, [1]) == ["a"] and sorted(qrels.get_docids(1)) == ["a", "c"]
    kept = run.retain_qrels(qrels).run_data
    assert sorted(zip(kept["topic"], kept["docid"], strict=True)) == [(1, "a"), (1, "c")]
    dropped = run.discard_qrels(qrels).run_data
    assert sorted(zip(dropped["topic"], dropped["docid"], strict=True)) == [(1, "b"), (2, "a")]
    assert len(run.run_data) == 5  # cloned: the run itself unchanged


def test_wrong_fusions_say_what_they_need(tmp_path: Path) -> None:
    run = TrecRun(write(tmp_path / "r.txt", [("1", "a", 1, 1.0)], "t"))
    with pytest.raises(InvalidRequestError, match="exactly two runs"):
        fusion.interpolation([run, run, run])
    with pytest.raises(InvalidRequestError, match="at least 2 runs"):
        fusion.reciprocal_rank_fusion([run])
    with pytest.raises(InvalidRequestError, match="TrecRun is empty"):
        TrecRun().save_to_txt(str(tmp_path / "none.txt"))
