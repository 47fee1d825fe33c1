"""pyserini's own tests, run against our classes with only their imports changed, and against
pyserini itself as the control: its ``tests/core`` suites of search, index reader, query
builder, analysis and on-the-fly indexing (``test_search``, ``test_index_reader``,
``test_querybuilder``, ``test_analysis``, ``test_index_otf``) at tag pyserini-1.6.0.

Their tests are theirs, not ours: give a checkout of them (``git clone --depth 1 --branch
pyserini-1.6.0 https://github.com/castorini/pyserini`` where GitHub is reachable) with
``--tests``. They are copied into a work folder; for ours, each ``pyserini`` import (and the
module run by ``python -m pyserini.index.lucene``) becomes ours by the table ``IMPORTS`` below;
the test bodies are not touched. Their CACM index, which they download, is built here by
pyserini's own indexer (Anserini's ``HtmlCollection`` over the CACM of the evaluation data, as
Anserini's prebuilt ``lucene9-index.cacm`` is), and a ``conftest.py`` serves it for their
``urlretrieve``: both sides open the same Lucene 9 index, pyserini's.

Each failure of ours is either one of the deliberate differences (``DELIBERATE``, each said in
docs/repl.md) or a defect; the run prints which, and exits non-zero on a defect.

    python bench/pyserini_tests.py --tests PYSERINI_CHECKOUT/tests [--venv DIR] [--json PATH]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from _common import ROOT, anserini_html_index, pyserini_venv, write_json

from pylucene_mcp.jvm import find_java_home

CACM = ROOT.parent / "shared" / "eval" / "cacm"
SUITES = [
    "test_search", "test_index_reader", "test_querybuilder", "test_analysis", "test_index_otf",
]  # fmt: skip
#: what their tests need beside pyserini: installed in pyserini's virtualenv; on our side, asked
#: for (scikit-learn is no dependency of the project)
NEEDS = ["pytest", "scikit-learn"]

#: pyserini's modules and the ones of ours that stand for them; the only change made to the tests
IMPORTS = {
    "pyserini.search.lucene": "pylucene_mcp.research.pyserini",
    "pyserini.index.lucene": "pylucene_mcp.research.pyserini",
    "pyserini.analysis": "pylucene_mcp.research.pyserini",
    "pyserini.pyclass": "pylucene_mcp.research.pyserini",
    "pyserini.vectorizer": "pylucene_mcp.research.vectorizer",
    "pyserini.fusion": "pylucene_mcp.research.fusion",
    "pyserini.trectools": "pylucene_mcp.research.trectools",
}

#: the tests that fail on ours on purpose, with the reason (docs/repl.md, "Coming from pyserini")
DELIBERATE: dict[str, str] = {}

_CONFTEST = '''
import shutil
import sys
import urllib.request

if {control!r}:  # pyserini's side: its encoders (torch) stood in for
    sys.path.append({bench!r})
    from _pyserini_encode import stand_in
    stand_in()

def _local(url, filename=None, *args, **kwargs):
    """The network stand-in: their CACM index, built here by pyserini's indexer."""
    if not url.endswith("lucene9-index.cacm.tar.gz"):
        raise OSError("no network here: " + url)
    shutil.copyfile({tarball!r}, filename)
    return filename, None

urllib.request.urlretrieve = _local
'''


def cacm_index(python: Path, work: Path) -> Path:
    """Anserini's CACM index as its prebuilt ``lucene9-index.cacm``, built by pyserini's
    indexer, as the tarball their tests download."""
    html = work / "cacm-html"  # the archive itself: Lucene's ids in its order, as theirs
    html.mkdir()
    shutil.copyfile(CACM / "cacm.tar.gz", html / "cacm.tar.gz")
    index = work / "lucene9-index.cacm"
    anserini_html_index(python, html, index, _java_env(python))
    tarball = work / "lucene9-index.cacm.tar.gz"
    with tarfile.open(tarball, "w:gz") as tar:
        tar.add(index, arcname="lucene9-index.cacm")
    return tarball


def _java_env(python: Path) -> dict[str, str]:
    """The environment for a side: Java 21 or later, and the side's own ``python`` first on the
    path (their tests run ``python -m …`` with ``os.system``)."""
    path = f"{python.parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "JAVA_HOME": str(find_java_home()), "PATH": path}


def rewrite(text: str) -> str:
    """The test file ``text`` with pyserini's modules replaced by ours (imports only)."""
    for theirs, ours in IMPORTS.items():
        text = re.sub(rf"\b{re.escape(theirs)}\b", ours, text)
    return text


def run_side(name: str, python: Path, tests: Path, tarball: Path, work: Path) -> dict[str, str]:
    """Runs the suites on one side; each test's outcome (passed, failed, error, skipped)."""
    side = work / name
    shutil.copytree(tests, side / "tests")
    for suite in SUITES:
        path = side / "tests" / "core" / f"{suite}.py"
        if name == "ours":
            path.write_text(rewrite(path.read_text(encoding="utf-8")), encoding="utf-8")
    (side / "collections").mkdir()  # where their checkout keeps collections and dumps
    (side / "conftest.py").write_text(
        _CONFTEST.format(tarball=str(tarball), control=name != "ours", bench=str(ROOT / "bench")),
        encoding="utf-8",
    )
    report = side / "junit.xml"
    files = [f"tests/core/{suite}.py" for suite in SUITES]
    subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            f"--junitxml={report}",
            *files,
        ],  # fmt: skip
        cwd=side,
        env=_java_env(python),
        check=False,
        stdout=sys.stderr,
    )
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        test = f"{case.get('classname', '').rsplit('.', 1)[-1]}.{case.get('name')}"
        kinds = [child.tag for child in case]
        outcome = next((k for k in ("failure", "error", "skipped") if k in kinds), "passed")
        outcomes[test] = outcome
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--tests", type=Path, required=True, help="pyserini's tests/ folder")
    parser.add_argument("--venv", type=Path, default=ROOT / "bench-data" / "pyserini-venv")
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    if importlib.util.find_spec("sklearn") is None:
        raise SystemExit(
            "pyserini's index-reader tests import scikit-learn: pip install scikit-learn here"
        )
    theirs = pyserini_venv(args.venv)
    subprocess.run([str(theirs), "-m", "pip", "install", "-q", *NEEDS], check=True)
    with tempfile.TemporaryDirectory() as folder:
        work = Path(folder)
        tarball = cacm_index(theirs, work)
        control = run_side("pyserini", theirs, args.tests, tarball, work)
        mine = run_side("ours", Path(sys.executable), args.tests, tarball, work)
    defects = report(control, mine)
    if args.json:
        write_json(args.json, {"pyserini": control, "ours": mine})
    raise SystemExit(1 if defects else 0)


def report(control: dict[str, str], mine: dict[str, str]) -> int:
    """Prints each side's count and every test that fails on ours; the number of defects."""

    def passed(outcomes: dict[str, str]) -> int:
        return sum(o == "passed" for o in outcomes.values())

    print(f"pyserini's tests: {len(control)}")
    print(f"  on pyserini 1.6.0: {passed(control)} passed")
    print(f"  on ours:           {passed(mine)} passed")
    defects = 0
    for test, outcome in sorted(mine.items()):
        if outcome == "passed":
            continue
        why = DELIBERATE.get(test)
        if control.get(test) != "passed":
            print(f"  {test}: {outcome} (fails on pyserini too)")
        elif why is not None:
            print(f"  {test}: {outcome}, deliberate: {why}")
        else:
            defects += 1
            print(f"  {test}: {outcome}, a DEFECT")
    print(f"defects: {defects}")
    return defects


if __name__ == "__main__":
    main()
