"""pyserini's dense and learned-sparse encoders import torch and transformers, which its Lucene
searcher never uses: ``stand_in()`` puts a module in their place, so that
``pyserini.search.lucene`` imports without them (in pyserini's own virtualenv)."""

from __future__ import annotations

import sys
import types

_ENCODERS = [
    "QueryEncoder", "CachedDataQueryEncoder", "SlimQueryEncoder", "SpladeQueryEncoder",
    "UniCoilQueryEncoder", "TokFreqQueryEncoder", "AggretrieverQueryEncoder",
]  # fmt: skip


def stand_in() -> None:
    stub = types.ModuleType("pyserini.encode")
    for name in _ENCODERS:
        setattr(stub, name, type(name, (), {}))
    sys.modules["pyserini.encode"] = stub
