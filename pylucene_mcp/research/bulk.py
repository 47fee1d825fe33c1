"""A research index's bulk writes: each row handed to Java in one crossing, and the next batch
built in Python while Java analyses the one before."""

from __future__ import annotations

import concurrent.futures
import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors

if TYPE_CHECKING:
    from pylucene_mcp.research.components import FieldSpec

_WHOLE = re.compile(r"\s*-?\d{1,18}\s*")


def add_all(
    writer: Any,
    fields: Mapping[str, FieldSpec],
    documents: Iterable[Mapping[str, str]],
    batch: int,
    threads: int,
) -> int:
    """Adds ``documents`` (mappings of field name to text) through ``writer`` (an
    ``IndexWriter``) and commits; returns how many. They cross ``batch`` at a time as one text
    and its values' lengths (``BulkWriter``), analysed on ``threads`` Java threads, while the
    next batch is built.

    Raises:
        InvalidRequestError: for a document that is no mapping, or a number field's text that
            is no whole number; UnknownFieldError for a field the schema lacks.
    """
    names = list(fields)
    position = {name: i for i, name in enumerate(names)}
    with jvm.java_errors(caller_input=True):
        specs = [fields[n] for n in names]
        bulk = jvm.jclass("io.github.pylucenemcp.research.BulkWriter")(
            writer,
            jvm.jarray("String", names),
            jvm.jarray("String", [spec.kind for spec in specs]),
            jvm.jarray("boolean", [spec.stored for spec in specs]),
            jvm.jarray("boolean", [spec.term_vectors for spec in specs]),
            jvm.jarray("boolean", [spec.doc_values for spec in specs]),
        )
        count = 0
        row: list[str | None] = []
        with OneAhead() as ahead:  # Java analyses a batch while Python builds the next
            for document in documents:
                if not isinstance(document, Mapping):
                    raise errors.InvalidRequestError(
                        f"a document is a dict of field to text, not {document!r}"
                    )
                values: list[str | None] = [None] * len(names)
                for name, value in document.items():
                    if value is None:
                        continue  # no value: the field is absent, not the text "None"
                    if name not in position:
                        raise errors.UnknownFieldError(
                            f"unknown field '{name}'; this index has: {', '.join(names)}",
                            name,
                            names,
                        )
                    if fields[name].kind == "long" and not _WHOLE.fullmatch(str(value)):
                        raise errors.InvalidRequestError(
                            f"field '{name}' holds whole numbers, not {value!r}"
                        )
                    values[position[name]] = str(value)
                row.extend(values)
                count += 1
                if count % batch == 0:
                    ahead.call(bulk.add, *joined(row), threads)
                    row = []
            if row:
                ahead.call(bulk.add, *joined(row), threads)
        writer.commit()
    return count


def joined(values: list[str | None]) -> tuple[str, Any]:
    """``values`` as ``BulkWriter.add`` takes them in one crossing: one text, and each value's
    length in Java's UTF-16 units (-1 for an absent one)."""
    lengths = [
        -1
        if v is None
        else len(v)
        if v.isascii()
        else len(v.encode("utf-16-le", "surrogatepass")) // 2
        for v in values
    ]
    joined = "".join(v for v in values if v is not None)
    try:
        text = jvm.jclass("java.lang.String")(joined)  # converted here: the error is the caller's
    except UnicodeEncodeError as exc:
        raise errors.InvalidRequestError(
            f"a value holds {joined[exc.start : exc.end]!a}, a lone surrogate, which is no text: "
            "decode the source with errors='replace' (or fix it) before adding it"
        ) from None
    return text, jvm.jarray("int", lengths)


class OneAhead:
    """Calls made one at a time on a thread of their own, in order, while the caller goes on:
    a Java call frees the interpreter, so the next batch is built meanwhile. At most one call
    runs; its error is raised by the next ``call`` or on leaving the ``with`` block, which
    waits for it."""

    def __init__(self) -> None:
        self._pool = concurrent.futures.ThreadPoolExecutor(1, "research-bulk")
        self._pending: concurrent.futures.Future[Any] | None = None

    def call(self, function: Any, *args: Any) -> None:
        self._wait()
        self._pending = self._pool.submit(function, *args)

    def _wait(self) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.result()

    def __enter__(self) -> OneAhead:
        return self

    def __exit__(self, kind: object, *rest: object) -> None:
        try:
            if kind is None:
                self._wait()
            elif self._pending is not None:  # the caller's error wins; the call still ends
                concurrent.futures.wait([self._pending])
        finally:
            self._pool.shutdown()
