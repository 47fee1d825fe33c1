"""The exceptions of pylucene-mcp. No Java here: ``jvm/`` maps Java exceptions onto these.

Every message says what was wrong and what to do instead, so that an AI client can correct its
own call::

    PyLuceneMcpError
    ├── JvmError                  no Java >= 21 runtime, missing jars, JVM failure
    ├── SetupError                a part fetched on first need (the Tika server jar) is missing
    ├── ExtractionError           a file could not be extracted (the reason recorded for it)
    │   ├── WorkerDiedError       Tika's parser died under the file (retried alone once)
    │   ├── TikaUnavailableError  no Tika to be had now (it did not start): not the file's fault
    │   └── FileVanishedError     the file was deleted between the walk and its extraction
    ├── ConfigError               a bad setting
    ├── IndexAccessError          the index cannot be opened or used
    │   ├── IndexLockedError      another process holds the write lock
    │   ├── IndexCorruptError     the files on disk cannot be read
    │   └── DiskFullError         no space left on the index's disk
    ├── InvalidRequestError       a bad parameter of a call
    │   ├── QuerySyntaxError      a malformed query (quotes it, suggests a fix)
    │   ├── UnknownFieldError     a field the schema does not have (lists the valid ones)
    │   ├── InvalidFilterError    a filter the field cannot take, a wrong date or number
    │   └── TooManyClausesError   a query that expands to too many terms
    ├── TryLaterError             a right request that cannot be served now
    │   ├── SearchTimeoutError    a query that found nothing within the time limit
    │   ├── CrawlerBusyError      a crawl is already running
    │   └── AdminBusyError        an administration operation or a crawl is running
    └── DocumentNotFoundError     a file path that is not in the index
"""

from __future__ import annotations

from collections.abc import Sequence

from pylucene_mcp.basics.redact import redact


class PyLuceneMcpError(Exception):
    """Base class of every error this package raises on purpose. Its text never holds a URL's
    credentials (:func:`~pylucene_mcp.basics.redact.redact`)."""

    #: the Java exception this error stands for, when it stands for one
    java_exception: BaseException | None = None

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class JvmError(PyLuceneMcpError):
    """The JVM could not start or failed in a way no more specific error describes."""


class SetupError(PyLuceneMcpError):
    """A part that is fetched on first need (the Tika server jar) could not be had."""


class ExtractionError(PyLuceneMcpError):
    """A file could not be extracted; the message is the reason recorded for it."""


class WorkerDiedError(ExtractionError):
    """Tika's parser process died while the file was in work: the file's fault or another's
    in flight beside it; the crawler retries it alone before it counts as failed."""


class TikaUnavailableError(ExtractionError):
    """Tika's parser process could not be started or was being closed (killed at start-up, a
    machine out of memory, a server shutting down): a failure of the moment, not of the file,
    which the next crawl tries again."""


class FileVanishedError(ExtractionError):
    """The file was deleted between the walk and its extraction."""

    def __init__(self) -> None:
        super().__init__("the file vanished before it was read")


class ConfigError(PyLuceneMcpError):
    """A setting is missing or has a value that cannot be used."""


class IndexAccessError(PyLuceneMcpError):
    """The index cannot be opened or used."""


class RemoteIndexError(IndexAccessError):
    """A remote index (a SolrCloud collection) cannot be reached, or refused a request; the
    message names the node, what it answered and what to change."""


class IndexLockedError(IndexAccessError):
    """Another writer (usually another pylucene-mcp process) holds the index's write lock."""


class IndexReadOnlyError(IndexAccessError):
    """The index folder cannot be written (a read-only file system, a backup, a folder of
    another user's): it can be searched, not changed."""


class IndexCorruptError(IndexAccessError):
    """The index files cannot be read."""


class DiskFullError(IndexAccessError):
    """No space is left on the device that holds the index; what was committed is kept."""


class InvalidRequestError(PyLuceneMcpError):
    """A parameter of a call is wrong; the message says how to fix it."""

    @classmethod
    def vectors_off(cls) -> InvalidRequestError:
        """The one answer to a semantic or hybrid search of a server or index without vectors
        (docs/semantic.md)."""
        return cls(
            "semantic search needs vectors: start the server with vectors: true (or "
            "PYLUCENE_MCP_VECTORS=on); lexical search works without them"
        )


class QuerySyntaxError(InvalidRequestError):
    """The query string does not parse.

    Attributes:
        query: the query as given.
        suggestion: a corrected query that parses, when one could be found.
    """

    def __init__(self, message: str, query: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.query = query
        self.suggestion = suggestion


class UnknownFieldError(InvalidRequestError):
    """A query or filter named a field the schema does not have."""

    def __init__(self, message: str, field: str, valid_fields: Sequence[str]) -> None:
        super().__init__(message)
        self.field = field
        self.valid_fields = tuple(valid_fields)


class InvalidFilterError(InvalidRequestError):
    """A filter cannot apply to its field, or its value is not a valid date or number."""


class TooManyClausesError(InvalidRequestError):
    """A query expanded to more clauses than Lucene allows."""


class TryLaterError(PyLuceneMcpError):
    """A request that is right but cannot be served now: the same call may succeed later (or
    with a larger time limit). Not the caller's mistake, so no ``InvalidRequestError``."""


#: what makes a search that ran out of time cheaper (the advice of a SearchTimeoutError)
CHEAPER = (
    "make the query cheaper: more letters before a * (vert* instead of v*), fewer or closer "
    "fuzzy terms (~1 instead of ~2), a simpler /regex/, fewer OR-terms, or filters "
    "(search_timeout_s, or the search's timeAllowedMs, sets the limit)"
)


class SearchTimeoutError(TryLaterError):
    """A search ran out of its time limit before it found anything (see ``search_timeout_s``)."""


class CrawlerBusyError(TryLaterError):
    """A crawl is already running."""


class AdminBusyError(TryLaterError):
    """An administration operation cannot start now; the message says when to retry."""


class DocumentNotFoundError(PyLuceneMcpError):
    """No indexed document has the given file path."""

    @classmethod
    def of(cls, path: str) -> DocumentNotFoundError:
        """The one answer for a path the index has no document of (or one the asker may not
        read: the same words, so that the answer does not tell the two apart)."""
        return cls(
            f"no indexed document has file_path {path!r}; search for it first "
            "(filePath values come from search results)"
        )
