"""Java exceptions as the project's errors (:mod:`pylucene_mcp.basics.errors`): what a caller
can act on gets its own type and a message that says what to do."""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Callable, Iterator
from typing import Any

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.jvm._convert import _jclass_cached

log = logging.getLogger(__name__)

# Java exception class → Python error factory, most specific first.
_Mapper = Callable[[Any], errors.PyLuceneMcpError]


def _unknown_field(exc: Any) -> errors.PyLuceneMcpError:
    return errors.UnknownFieldError(
        str(exc.getMessage()), str(exc.getField()), [str(f) for f in exc.getValidFields()]
    )


def _message(exc: Any) -> str:
    message = exc.getMessage()
    return str(message) if message is not None else str(exc.getClass().getSimpleName())


_MAPPING: list[tuple[str, _Mapper]] = [
    ("io.github.pylucenemcp.queryparser.UnknownFieldException", _unknown_field),
    (
        "org.apache.lucene.util.automaton.TooComplexToDeterminizeException",
        lambda e: errors.QuerySyntaxError(
            "the regular expression is too complex to match: the automaton Lucene builds for it "
            "grows past its limit (nested repeats such as (a{1,100}){1,100}, or long runs of "
            "negated classes, multiply its states); write fewer or smaller repeats, or a "
            "wildcard (pyth*) instead",
            query="",
        ),
    ),
    (
        "org.apache.lucene.queryparser.classic.ParseException",
        lambda e: errors.QuerySyntaxError(_message(e), query=""),
    ),
    (
        "org.apache.lucene.search.IndexSearcher$TooManyClauses",
        lambda e: errors.TooManyClausesError(
            f"{_message(e)}: the query has too many parts (each word counts once for every "
            "field it searches: text, title, file name, word forms), or a wildcard, fuzzy or "
            "regex term matches too many words; split the query into several searches, give "
            "more leading letters (vert* instead of v*), or use ~1 instead of ~2"
        ),
    ),
    (
        "io.github.pylucenemcp.search.SearchTimeoutException",
        lambda e: errors.SearchTimeoutError(f"{_message(e)}; {errors.CHEAPER}"),
    ),
    (
        "org.apache.lucene.store.LockObtainFailedException",
        lambda e: errors.IndexLockedError(
            f"the index is locked by another writer ({_message(e)}); stop the other "
            "pylucene-mcp process, or unlock the index if that process is gone"
        ),
    ),
    (
        "org.apache.lucene.index.CorruptIndexException",
        lambda e: errors.IndexCorruptError(
            f"the index is corrupt ({_message(e)}): rebuild it from your folders with "
            "`pylucene-mcp rebuild` (it removes the index and crawls the configured folders again)"
        ),
    ),
    (
        "org.apache.lucene.index.IndexFormatTooOldException",
        lambda e: errors.IndexCorruptError(
            f"the index is too old ({_message(e)}): rebuild it from your folders with "
            "`pylucene-mcp rebuild`"
        ),
    ),
    (
        "org.apache.lucene.index.IndexNotFoundException",
        lambda e: errors.IndexAccessError(f"no index found: {_message(e)}"),
    ),
]

_ILLEGAL_ARGUMENT = "java.lang.IllegalArgumentException"


def translate(exc: BaseException, caller_input: bool = False) -> errors.PyLuceneMcpError | None:
    """The project's error for a Java exception, or None when ``exc`` is not one.

    An ``IllegalArgumentException`` is the caller's mistake (``InvalidRequestError``) only where
    ``caller_input`` says that the Java code was handed what the caller gave (a query, a
    document, a date); anywhere else it is a bug of this package (``JvmError``), not something
    the caller could correct.
    """
    import jpype

    if not isinstance(exc, jpype.JException):
        return None
    chain = [exc]
    while chain[-1].getCause() is not None and len(chain) < 8:
        chain.append(chain[-1].getCause())
    for link in chain:  # a full disk shows as an IOException, often under AlreadyClosedException
        message = link.getMessage()
        if message is not None and portable.disk_full(str(message)):
            return errors.DiskFullError(f"no space left on device ({message})")
    for link in chain:  # the process ran out of descriptors: a moment's state, not a bug
        message = link.getMessage()
        if message is not None and "Too many open files" in str(message):
            return errors.IndexAccessError(
                f"no file descriptor left in this process ({_message(link)}): too many files "
                "or connections are open; the next call tries again"
            )
    for link in chain:  # the index's folder cannot be written: it can still be searched
        if isinstance(link, _jclass_cached("java.nio.file.AccessDeniedException")) or (
            isinstance(link, _jclass_cached("java.nio.file.FileSystemException"))
            and portable.read_only_file_system(str(link.getMessage()))
        ):
            return errors.IndexReadOnlyError(f"cannot write {_message(link)}")
    for name, factory in _MAPPING:
        java_class = _jclass_cached(name)
        for link in chain:
            if isinstance(link, java_class):
                return factory(link)
    if caller_input and isinstance(exc, _jclass_cached(_ILLEGAL_ARGUMENT)):
        return errors.InvalidRequestError(_message(exc))
    return errors.JvmError(
        f"{exc.getClass().getName()}: {_message(exc)} (an internal error of pylucene-mcp; the "
        "log has the Java stack trace)"
    )


@contextlib.contextmanager
def java_errors(caller_input: bool = False) -> Iterator[None]:
    """Translates Java exceptions raised inside the block into the project's errors, once, at
    the boundary; ``caller_input``: the block hands Java what the caller gave (see
    :func:`translate`)."""
    try:
        yield
    except errors.PyLuceneMcpError:
        raise
    except Exception as exc:
        mapped = translate(exc, caller_input)
        if mapped is None:
            raise
        if isinstance(mapped, errors.JvmError):
            log.error("unexpected Java exception", exc_info=exc)
        # the project's error alone, one message in a REPL: the Java exception stays on it (and
        # an unexpected one's stack in the log)
        mapped.java_exception = exc
        raise mapped from None
