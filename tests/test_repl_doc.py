"""docs/repl.md, every snippet, run as written: the blocks one after the other in one fresh
interpreter started in the checkout's root, as a researcher would paste them into a REPL (with
``CACM`` pointing at the evaluation data beside the checkout). A line whose comment states its
result (``cacm.delete("id:CACM-0001")  # …: 1``) is checked: the value must be that result."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CACM = ROOT.parent / "shared" / "eval" / "cacm"

pytestmark = pytest.mark.slow


def test_every_snippet_of_the_repl_guide_runs(tmp_path: Path) -> None:
    if not (CACM / "cacm.tar.gz").is_file():
        pytest.skip(f"no CACM collection at {CACM}")
    text = (ROOT / "docs" / "repl.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    assert len(blocks) >= 9
    lines, checked = checked_lines("\n".join(blocks))
    assert checked >= 5, "the guide's stated results are no longer found"
    done = subprocess.run(
        [sys.executable, "-c", "\n".join(lines)],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
        env={**os.environ, "CACM": str(CACM), "PYLUCENE_MCP_HOME": str(tmp_path / "home")},
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    printed = done.stdout
    assert printed.count("1 hits") == 2  # the two raw Lucene blocks
    figures = re.search(r"'AP': ([\d.]+).*'P@30': ([\d.]+)", printed)
    assert figures is not None, printed[-2000:]
    assert abs(float(figures[1]) - 0.3123) <= 0.002 and abs(float(figures[2]) - 0.1942) <= 0.002


_STATED = re.compile(r"^(?P<expr>[^#\s][^#]*?)\s+#(?:.*: | )(?P<result>[^:]+)$")


def checked_lines(code: str) -> tuple[list[str], int]:
    """The lines of ``code``, each top-level expression whose comment ends in a Python literal
    (the whole comment, or what follows its last ': ') turned into a check of that value."""
    lines, checked = [], 0
    for line in code.split("\n"):
        stated = _STATED.match(line)
        if stated and not line.startswith(("print(", " ")):
            try:
                result = ast.literal_eval(stated["result"].strip())
                ast.parse(stated["expr"], mode="eval")
            except (ValueError, SyntaxError):
                result = None
            else:
                said = f"the guide says {result!r}: {stated['expr']}"
                line = f"_seen = ({stated['expr']})\nassert _seen == {result!r}, (_seen, {said!r})"
                checked += 1
        lines.append(line)
    return lines, checked
