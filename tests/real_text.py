"""Real German and English text for the differential exactness test, from files on the machine:
the lines of OpenThesaurus (Debian's ``openthesaurus-de-text``: German compounds by the
thousand) and the docstrings of Python's own standard library (English prose)."""

from __future__ import annotations

import ast
import os
import re
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

THESAURUS = Path("/usr/share/openthesaurus-de/openthesaurus.txt")
INSTALL = "scripts/ensure-test-corpora (or: apt-get install openthesaurus-de-text)"

#: the letters the oracle folds as the analyzer does; other characters separate words
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]+")


def require_thesaurus() -> Path:
    """The thesaurus file; CI (``CI`` set) fails without it, elsewhere the test skips."""
    if not THESAURUS.is_file():
        message = f"{THESAURUS} is missing: run {INSTALL}"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return THESAURUS


def german_lines() -> Iterator[str]:
    with require_thesaurus().open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip() and not line.startswith("#"):
                yield line.replace(";", " ; ")


def english_docstrings() -> Iterator[str]:
    """The docstrings of the standard library's top-level modules, their classes and
    functions, in a fixed order."""
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(stdlib.glob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node)
                if doc and len(WORD.findall(doc)) >= 8:
                    yield doc


def words(text: str) -> list[str]:
    """``text``'s words as the test indexes them: letters only, one space apart, so that
    Lucene's tokenizer and the oracle see the same words."""
    return WORD.findall(text)
