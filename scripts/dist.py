"""The sdist and the wheel into dist/, on a machine that has only Python and pip.

    python3 -P scripts/dist.py [--outdir dist]

``make dist`` runs this after Gradle has put the jars into ``pylucene_mcp/jars/``. It needs no
build tool installed beforehand: ``build`` and the setuptools backend are installed with
``pip install --target`` into ``.build-tools/`` (a folder of the checkout, outside any
environment, so that neither a system Python that refuses installs (PEP 668) nor a missing
``venv`` module stands in the way) and run from there without build isolation.

``-P`` keeps the working directory off ``sys.path``: Gradle's ``build/`` folder in a checkout
would otherwise be imported in place of the ``build`` package (``No module named
build.__main__``).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ROOT / ".build-tools"
#: What the build needs, as pyproject.toml's [build-system] requires (plus the frontend).
REQUIREMENTS = ("build>=1.2", "setuptools>=77", "packaging>=24.2")
STAMP = TOOLS / "requirements.txt"


def tools() -> Path:
    """``.build-tools/``, installed once (again when REQUIREMENTS change)."""
    wanted = "\n".join(REQUIREMENTS) + "\n"
    if STAMP.is_file() and STAMP.read_text(encoding="utf-8") == wanted:
        return TOOLS
    shutil.rmtree(TOOLS, ignore_errors=True)
    subprocess.run(
        [sys.executable, "-P", "-m", "pip", "install", "-q", "--disable-pip-version-check",
         "--target", str(TOOLS), *REQUIREMENTS],
        check=True,
        stdout=sys.stderr,
    )  # fmt: skip
    STAMP.write_text(wanted, encoding="utf-8")
    return TOOLS


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--outdir", type=Path, default=ROOT / "dist")
    args = parser.parse_args()
    jars = sorted((ROOT / "pylucene_mcp" / "jars").glob("*.jar"))
    if not jars:
        print(
            "pylucene_mcp/jars/ holds no jar: run `make jars` (or `make dist`, which does) first",
            file=sys.stderr,
        )
        return 2
    folder = tools()
    shutil.rmtree(args.outdir, ignore_errors=True)
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)
    environment = dict(os.environ)
    environment["PYTHONPATH"] = os.pathsep.join(
        [str(folder), *filter(None, [environment.get("PYTHONPATH")])]
    )
    done = subprocess.run(
        [sys.executable, "-P", "-m", "build", "--no-isolation", "--outdir", str(args.outdir),
         str(ROOT)],
        env=environment,
        cwd=ROOT,
        stdout=sys.stderr,
    )  # fmt: skip
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
