"""The short version of bench/crash.py: Python API writes and CLI crawls killed with SIGKILL at
random moments; the index opens, nothing committed is lost, the next crawl converges and no Tika
JVM outlives the kill."""

from __future__ import annotations

import io
import random
import sys

import pytest

from tests.conftest import FIGURES
from tests.stdio_peer import ROOT

pytestmark = pytest.mark.slow


def test_kill_9_at_random_moments_loses_nothing_committed() -> None:
    sys.path.insert(0, str(ROOT / "bench"))
    import crash

    seed = random.randrange(1 << 30)
    log = io.StringIO()
    totals = crash.run(api=4, cli=2, seed=seed, out=log)
    FIGURES["kill -9 trials"] = (
        f"{totals.trials} (seed {seed}), {len(totals.failures)} failed, slowest reopen "
        f"{max(totals.recovery_ms):.0f} ms"
    )
    assert not totals.failures, f"seed {seed}:\n{log.getvalue()}\n{totals.failures}"
