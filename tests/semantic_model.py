"""Where the semantic tests' model is (scripts/ensure-test-model puts it there): worked out when
the tests are collected, before the session's fixtures point the cache folder elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _folder() -> Path:
    explicit = os.environ.get("PYLUCENE_MCP_TEST_MODEL")
    if explicit:
        return Path(explicit)
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pylucene-mcp" / "test-model" / "all-minilm-l6-v2"


MODEL = _folder()


def ensure() -> Path:
    """The model's folder, fetched first when it is missing (make test fetches it before)."""
    if not (MODEL / "model.safetensors").is_file():
        env = {**os.environ, "PYLUCENE_MCP_TEST_MODEL": str(MODEL)}
        script = ROOT / "scripts" / "ensure-test-model"
        subprocess.run([sys.executable, str(script)], check=True, env=env)
    return MODEL
