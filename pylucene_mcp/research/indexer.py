"""pyserini's on-the-fly indexer (``pyserini.index.lucene.LuceneIndexer``, Anserini's
``SimpleIndexer``), so that a script that indexes in-process documents runs with its import
changed::

    from pylucene_mcp.research import LuceneIndexer

    indexer = LuceneIndexer("indexes/notes")          # a new index (one already there is replaced)
    indexer.add_doc_dict({"id": "d1", "contents": "semantic networks"})
    indexer.add_batch_raw(['{"id": "d2", "contents": "parallel sorting"}'])
    indexer.close()

The index is Anserini's: ``id`` (a keyword with sorted doc values, stored), ``contents`` (stored,
with term vectors: the document vectors RM3 and Rocchio read), analysed by Anserini's English
analyzer, or split at white space with ``-pretokenized``. ``append=True`` (or ``-append``) adds
to an index already there instead of replacing it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from pylucene_mcp.basics import errors
from pylucene_mcp.research.components import Analyzer, FieldSpec
from pylucene_mcp.research.index import ResearchIndex, commit_data

#: the arguments of Anserini's indexer that take a value, and those that are flags, as read here
_VALUED = {"-index", "-threads", "-input", "-collection", "-generator"}
_FLAGS = {"-pretokenized", "-append", "-storePositions", "-storeDocvectors", "-storeRaw"}


class LuceneIndexer:
    """Indexes documents given in Python into an Anserini-style research index."""

    def __init__(
        self,
        index_dir: str | Path | None = None,
        args: Sequence[str] | None = None,
        append: bool = False,
        threads: int = 8,
    ) -> None:
        """Raises:
        InvalidRequestError: without a folder, for an argument Anserini's indexer does not
            take here, or for a folder whose index has another schema.
        """
        options = _options(list(args or ()))
        folder = index_dir if index_dir is not None else options.get("-index")
        if folder is None:
            raise errors.InvalidRequestError(
                "LuceneIndexer needs the index folder: LuceneIndexer('path') or args=['-index', "
                "'path']"
            )
        self.index_dir = str(folder)
        self.threads = int(options.get("-threads", threads))
        self.append = bool(append or "-append" in options)
        if "-pretokenized" in options:
            analyzer = Analyzer.custom("whitespace")
        else:
            from pylucene_mcp.research.querybuilder import get_lucene_analyzer

            analyzer = get_lucene_analyzer()
        fields = {
            "id": FieldSpec.keyword(doc_values=True),
            "contents": FieldSpec.text(analyzer, stored=True, term_vectors=True),
        }
        if not self.append:  # Anserini's indexer replaces what was there
            _remove_index(Path(self.index_dir))
        self._index = ResearchIndex.create(Path(self.index_dir), fields)

    def add_doc_raw(self, doc: str) -> None:
        """Adds a document given as JSON text (``{"id": …, "contents": …}``)."""
        self.add_batch_raw([doc])

    def add_doc_dict(self, doc: Mapping[str, str]) -> None:
        """Adds a document given as a dict with ``id`` and ``contents``."""
        self.add_batch_dict([doc])

    def add_batch_raw(self, docs: Iterable[str]) -> None:
        """Adds documents given as JSON texts."""
        self.add_batch_dict(_parsed(doc) for doc in docs)

    def add_batch_dict(self, docs: Iterable[Mapping[str, str]]) -> None:
        """Adds documents given as dicts with ``id`` and ``contents``."""
        rows = [_row(doc) for doc in docs]
        self._index.add_many(rows, threads=max(1, min(self.threads, 2)))

    def add_doc_json(self, node: Any) -> None:
        """Not here: pyserini's Jackson JSON nodes. Give the document as a dict or JSON text."""
        raise errors.InvalidRequestError(
            "Jackson JSON nodes are not taken here: add_doc_dict(dict) or add_doc_raw(json_text)"
        )

    add_batch_json = add_doc_json

    def close(self) -> None:
        """Commits every document added and closes the index."""
        self._index.close()

    def __enter__(self) -> LuceneIndexer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _remove_index(folder: Path) -> None:
    """Removes the Lucene index in ``folder`` (its files), refusing a folder that holds
    anything else: only an index is replaced, never a folder of other files.

    Raises:
        InvalidRequestError: for a folder with other things in it, or the product's own index.
    """
    if not folder.is_dir():
        return
    entries = list(folder.iterdir())
    if not entries:
        return
    data = commit_data(folder)
    if data is not None and "schema_version" in data:
        raise errors.InvalidRequestError(
            f"{folder} is the product's own index (the crawler's): the indexer does not replace "
            "it; give another folder"
        )
    if data is None or any(not entry.is_file() for entry in entries):
        raise errors.InvalidRequestError(
            f"{folder} holds other things than an index: the indexer replaces only an index; "
            "give an empty or new folder, or append=True to add to the index there"
        )
    for entry in entries:
        entry.unlink()


def _options(args: list[str]) -> dict[str, str]:
    options: dict[str, str] = {}
    i = 0
    while i < len(args):
        name = args[i]
        if name in _FLAGS:
            options[name] = ""
            i += 1
        elif name in _VALUED and i + 1 < len(args):
            options[name] = args[i + 1]
            i += 2
        else:
            raise errors.InvalidRequestError(
                f"{name!r} is no argument of the indexer here; it takes "
                f"{', '.join(sorted(_VALUED | _FLAGS))}"
            )
    return options


def _parsed(doc: str) -> Mapping[str, str]:
    try:
        value = json.loads(doc)
    except json.JSONDecodeError as exc:
        raise errors.InvalidRequestError(f"a raw document is JSON text: {exc}") from exc
    if not isinstance(value, dict):
        raise errors.InvalidRequestError("a raw document is a JSON object with id and contents")
    return value


def _row(doc: Mapping[str, str]) -> dict[str, str]:
    if "id" not in doc or "contents" not in doc:
        raise errors.InvalidRequestError(
            f"a document has an id and contents, this one has {', '.join(map(str, doc))}"
        )
    return {"id": str(doc["id"]), "contents": str(doc["contents"])}
