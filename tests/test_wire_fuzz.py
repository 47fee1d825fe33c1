"""Raw JSON-RPC over real stdio (tests/wire_fuzz.py): every request of a few hundred pipelined
lines of every kind gets exactly one answer with its id, every other line its error with id
null, and the server lives to the end. bench/fuzz_stdio.py runs 10,000."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import FIGURES
from tests.wire_fuzz import fuzz, summary

pytestmark = pytest.mark.slow


def test_every_line_gets_its_answer_and_the_server_lives(
    closed_index_path: Path, tmp_path: Path
) -> None:
    outcome = fuzz(closed_index_path, tmp_path, calls=400, seed=20261201)
    FIGURES["raw JSON-RPC fuzz (stdio)"] = summary(outcome)
    assert outcome.deaths == 0, summary(outcome)
    assert not outcome.unanswered and not outcome.duplicated, summary(outcome)
    assert outcome.null_answers == outcome.null_expected, summary(outcome)
    assert len(outcome.expected) > 250
