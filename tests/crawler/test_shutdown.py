"""A clean end at any moment of the start-up crawl (tests/shutdown_trials.py): stdin closed
before the JVM is up, while Tika starts, in the middle of the crawl and after it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.shutdown_trials import make_folder, trial

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("delay_s", [0.0, 0.7, 2.5, 3.7, 4.2])
def test_closing_stdin_at_any_moment_ends_cleanly(tmp_path: Path, delay_s: float) -> None:
    folder = make_folder(tmp_path / "docs")
    problems, _, _ = trial(folder, tmp_path / "server", delay_s)
    assert problems == []
