"""Where the settings' index lives, and what can be done to it whether or not it opens: its
health for doctor, emptying it without opening it (a corrupt index cannot be opened), its lock
and the process that holds it, the writer to ask instead of starting a JVM.

:func:`place` is the one function that asks which backend the settings choose: the command
line, doctor, the service and its admin operations take an :class:`IndexPlace` and never ask
(``tests/test_architecture.py`` forbids it elsewhere). The embedded index's folder is a
:class:`Folder`, a SolrCloud collection a :class:`Collection`.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pylucene_mcp import jvm
from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import Settings, flag_or_text
from pylucene_mcp.engine.core.backend import Backend

if TYPE_CHECKING:
    from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend, Owner


def _embedded() -> type[EmbeddedBackend]:
    """The embedded index's class, imported when a place first needs it (not at the server's
    start: tools/list is answered before any of the engine's modules load)."""
    from pylucene_mcp.engine.lucene.embedded import EmbeddedBackend

    return EmbeddedBackend


class IndexPlace(Protocol):
    """An index as it is found, before or without opening it."""

    @property
    def location(self) -> str:
        """Where it is, said for a person (a folder's path; a collection and its first node)."""

    def open(self, *, create: bool = True, read_only: bool = False) -> Backend:
        """The index itself."""

    def health(self) -> tuple[bool, str]:
        """Whether it is usable, and what doctor says of it."""

    def documents(self) -> int | None:
        """How many documents it has (None: it cannot be read)."""

    def clear(self) -> None:
        """Leaves it empty without needing it to open: a folder's index is removed and created
        anew, a collection keeps its schema and loses its documents. Whoever has it open
        closes it first."""

    def holder(self) -> Owner | None:
        """The process recorded as the index's writer (None: none, or no such record)."""

    def unlock(self) -> tuple[bool, str]:
        """Removes a write lock that no live process holds: whether it did, and what it says."""

    def ask_writer(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        """The answer of the server that writes the index, when one runs on this machine and
        can be asked without a JVM (None: ask the index itself)."""


def place(settings: Settings) -> IndexPlace:
    """The index the settings choose: the embedded one at ``index_path``, or the SolrCloud
    collection of ``solr_urls`` and ``solr_collection`` (``backend: solr``)."""
    if settings.backend == "solr":
        return Collection(settings)
    return Folder(settings.index_path, settings.refresh_interval_s)


class Folder:
    """The embedded index in a folder of this machine."""

    def __init__(self, path: Path, refresh_interval_s: float = 1.0) -> None:
        self.path = path
        self.refresh_interval_s = refresh_interval_s

    @property
    def location(self) -> str:
        return str(self.path)

    def open(self, *, create: bool = True, read_only: bool = False) -> Backend:
        return _embedded().open(
            self.path,
            create=create,
            read_only=read_only,
            refresh_interval_s=self.refresh_interval_s,
        )

    def health(self) -> tuple[bool, str]:
        if not any(self.path.glob("segments_*")):
            return True, f"{self.path} does not exist yet; the server creates it"
        owner = self.holder()
        busy = (
            f"; in use by `{owner.command}` (pid {owner.pid})"
            if owner is not None and owner.alive
            else ""
        )
        try:
            index = self.open(read_only=True)
        except errors.PyLuceneMcpError as exc:
            return False, f"{self.path}: {exc}"
        try:
            count = len(index)
            reindex = "; a reindex is due (schema changed)" if index.needs_reindex else ""
        finally:
            index.close()
        return True, f"{self.path}: {count} documents{busy}{reindex}"

    def documents(self) -> int | None:
        return _count(lambda: self.open(read_only=True))

    def clear(self) -> None:
        _embedded().wipe(self.path)
        self.open().close()

    def holder(self) -> Owner | None:
        return _embedded().holder(self.path)

    def unlock(self) -> tuple[bool, str]:
        message = _embedded().unlock(self.path)
        return "removed" in message, message

    def ask_writer(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        from pylucene_mcp.service.sharing import ask_writer

        return ask_writer(self.path.expanduser().resolve(), tool, arguments)


class Collection:
    """A SolrCloud collection (``backend: solr``)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    @property
    def location(self) -> str:
        first = self.settings.solr_urls[0] if self.settings.solr_urls else "(no solr_urls)"
        return f"SolrCloud collection '{self.settings.solr_collection}' at {first}"

    def solr_settings(self) -> Any:
        """The settings' SolrCloud part (a ``SolrSettings``).

        Raises:
            ConfigError: for URLs that are not http(s), or a user without a password.
        """
        from pylucene_mcp.engine import solr

        s = self.settings
        return solr.SolrSettings(
            urls=s.solr_urls,
            collection=s.solr_collection,
            username=s.solr_username,
            password=s.solr_password,
            verify=flag_or_text(s.solr_verify),
            timeout_s=s.solr_timeout_s,
        )

    def init(self, shards: int, replicas: int) -> str:
        """``pylucene-mcp solr init``: uploads the configset and creates or updates the
        collection; says what it did."""
        from pylucene_mcp.engine import solr

        client = solr.SolrClient(self.solr_settings())
        try:
            return solr.init(client, shards=shards, replicas=replicas).summary()
        finally:
            client.close()

    @staticmethod
    def plugin_jars() -> list[Path]:
        """The jars every Solr node needs for the product's plugin."""
        from pylucene_mcp.engine import solr

        return solr.plugin_jars(jvm.jars_dir())

    def open(self, *, create: bool = True, read_only: bool = False) -> Backend:
        from pylucene_mcp.engine import solr

        jvm.start(self.settings.max_heap)  # the queries are parsed, and passages found, here
        return solr.SolrBackend.open(
            self.solr_settings(), refresh_interval_s=self.settings.refresh_interval_s
        )

    def health(self) -> tuple[bool, str]:
        from pylucene_mcp.engine import solr

        client = solr.SolrClient(self.solr_settings())
        try:
            found = solr.health(client)
        finally:
            client.close()
        problems = found.problems(self.settings.solr_collection)
        summary = (
            f"SolrCloud at {client.urls[0]}: {len(found.live_nodes)} live node(s); "
            f"collection '{self.settings.solr_collection}'"
        )
        if found.exists:
            summary += (
                f": {found.shards} shard(s), {found.active_replicas} of {found.replicas} "
                f"replica(s) active, configset {found.configset}"
            )
        return not problems, "; ".join([summary, *problems])

    def documents(self) -> int | None:
        return _count(self.open)

    def clear(self) -> None:
        index = self.open()
        try:
            with index.writer() as writer:
                writer.delete_all()
            index.purge()
        finally:
            index.close()

    def holder(self) -> Owner | None:
        return None  # the nodes hold their own locks

    def unlock(self) -> tuple[bool, str]:
        return False, (
            "a SolrCloud collection has no index lock of this product's: there is nothing to unlock"
        )

    def ask_writer(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
        return None  # no writer of this machine's: the collection answers itself


def _count(opening: Callable[[], Backend]) -> int | None:
    """The documents of the index ``opening`` opens (None: it cannot be read: corrupt, or
    none there)."""
    try:
        index = opening()
    except errors.PyLuceneMcpError:
        return None
    try:
        return len(index)
    finally:
        index.close()
