"""What pyserini's searchers and index reader over a research index share: the errors and the
warning that carry pyserini's own classes, the stored ``Document`` and the hit (``ScoredDoc``),
which fields play ``contents`` and ``id``, and Anserini's retrieval over a reader."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any, TypeVar

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.research.index import ResearchIndex

#: ``analyzer=`` left out: the index's own analyzer for the field
DEFAULT: Any = object()


_T = TypeVar("_T")


class FeedbackNeedsText(errors.InvalidRequestError, NotImplementedError):
    """A Lucene query searched with RM3 or Rocchio set: the project's error, and pyserini's
    ``NotImplementedError`` for a script that catches that."""


class PyseriniAnswer(UserWarning):
    """Where pyserini answers None (or -1) and a script tests for it, these classes answer the
    same; this warning says why (what our own API would have raised)."""


class NeedsTermVectors(errors.InvalidRequestError, TypeError):
    """Work that reads term vectors asked of a field without them: the project's error, and
    pyserini's ``TypeError`` for a script that catches that."""


def need_term_vectors(index: ResearchIndex, field: str, whose: str) -> None:
    """Raises NeedsTermVectors when ``field`` has no term vectors, which the work that reads
    ``whose`` term vectors needs."""
    if not index.fields[field].term_vectors:
        raise NeedsTermVectors(
            f"this reads {whose} term vectors, and field {field!r} has none: index it with "
            "FieldSpec.text(analyzer, term_vectors=True)"
        )


def anserini_retrieval(
    index: ResearchIndex, fields: Fields, reader: Any, similarity: Any, analyzer: Any = None
) -> Any:
    """Anserini's retrieval (``Retrieval``) over ``reader``: ``similarity``, the searched and the
    id field, query texts analysed by ``analyzer`` (None: the index's own)."""
    with jvm.java_errors():
        return jvm.jclass("io.github.pylucenemcp.research.Retrieval")(
            reader,
            similarity,
            index.query_analyzer if analyzer is None else analyzer,
            fields.contents,
            fields.id,
        )


def as_pyserini(value: _T, why: str) -> _T:
    """``value``, pyserini's answer, with ``why`` as a :class:`PyseriniAnswer` warning."""
    warnings.warn(why, PyseriniAnswer, stacklevel=3)
    return value


class Document:
    """A stored document, as pyserini's ``Document`` reads it."""

    def __init__(self, java: Any, id_field: str, contents_field: str) -> None:
        self._java = java
        self._id = id_field
        self._contents = contents_field

    def docid(self) -> str | None:
        return self.get(self._id)

    def id(self) -> str | None:
        return self.docid()

    def contents(self) -> str | None:
        return self.get(self._contents)

    def raw(self) -> str | None:
        """The stored ``raw`` field, or the contents when the index has no such field."""
        raw = self.get("raw")
        return raw if raw is not None else self.contents()

    def get(self, field: str) -> str | None:
        value = self._java.get(field)
        return None if value is None else str(value)

    def lucene_document(self) -> Any:
        return self._java


class ScoredDoc:
    """One hit, as pyserini's ``JScoredDoc``: the collection's id, Lucene's id, the score (a
    plain class with slots: a batch of a thousand hits a query makes many)."""

    __slots__ = ("_reader", "docid", "lucene_docid", "score")

    def __init__(self, docid: str, lucene_docid: int, score: float, reader: Any = None) -> None:
        self.docid = docid
        self.lucene_docid = lucene_docid
        self.score = score
        self._reader = reader  # the index reader the hit was found in

    @property
    def lucene_document(self) -> Any:
        """The stored Lucene ``Document`` (read when asked for)."""
        with jvm.java_errors():
            return self._reader.storedFields().document(self.lucene_docid)

    def _key(self) -> tuple[str, int, float]:
        return self.docid, self.lucene_docid, self.score

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ScoredDoc) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"ScoredDoc(docid={self.docid!r}, lucene_docid={self.lucene_docid}, "
            f"score={self.score!r})"
        )


class Fields:
    """Which fields of a research index play pyserini's ``contents``, ``id`` and ``raw``."""

    def __init__(self, index: ResearchIndex) -> None:
        text = [n for n, s in index.fields.items() if s.kind == "text"]
        keyword = [n for n, s in index.fields.items() if s.kind == "keyword"]
        if not text or not keyword:
            raise errors.InvalidRequestError(
                f"the index at {index.path} needs a text field to search and a keyword field "
                f"for the collection's ids; it has {', '.join(index.fields) or 'no fields'}"
            )
        self.contents = "contents" if "contents" in text else text[0]
        self.id = "id" if "id" in keyword else keyword[0]


def open_index(index_dir: str | Path | ResearchIndex) -> tuple[ResearchIndex, bool]:
    if isinstance(index_dir, ResearchIndex):
        return index_dir, False
    return ResearchIndex.open(index_dir, read_only=True), True
