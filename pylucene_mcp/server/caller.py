"""Who asks, over HTTP with authentication, and what they may read (docs/team.md).

A call that comes with an access token (:mod:`pylucene_mcp.server.auth`) is a *restricted*
caller: its principals are ``user:<subject>``, ``group:<g>`` for each of its groups, and ``*``.
It may read the documents below the folders whose ``readers`` (a setting: folder → principals)
name one of them; and, below none of those folders, the files whose owner, group and mode let
one of its principals read them, as the crawler recorded them (``file_readers``, on by default;
crawler/readers.py). Nothing else. On the embedded index every read tool answers it from a view
of those documents (``Backend.viewed``): counts, facets, terms, scores and explanations as an
index of those documents alone would give them. On a backend without views (Solr, which records
no readers) its search is trimmed to its folders (``SearchRequest.within``) and the other read
tools refuse it. A call without a token (stdio) is the index's owner and reads everything; so
does one with a loopback server's owner token
(:class:`~pylucene_mcp.server.auth.OwnerToken`). A token without a subject names no user: its
caller has its groups and ``*`` only.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.engine.core import backend as engine

if TYPE_CHECKING:
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.engine.core.backend import Backend, Readable
    from pylucene_mcp.service.service import Service

#: the tools whose answers are trimmed to what a restricted caller may read without a view
TRIMMED = frozenset({"search", "getDocumentDetails", "locateQuote"})
#: the groups of tools that read documents (the crawler's and admin's are for the operators
#: that hold the crawl and admin scopes: they answer about the whole index)
READING_GROUPS = frozenset({"search", "info", "debug", "observability"})


@dataclass(frozen=True)
class Caller:
    """A restricted caller: the token's subject (None: a token that names no one, such as a
    client's own without ``sub``: it is no user, only its groups and anyone) and groups."""

    subject: str | None
    groups: tuple[str, ...] = ()

    @property
    def principals(self) -> frozenset[str]:
        user = () if self.subject is None else (f"user:{self.subject}",)
        return frozenset({*user, *(f"group:{g}" for g in self.groups), "*"})

    def readable(self, settings: Settings) -> Readable:
        """What this caller may read under ``settings`` (``readers``, ``file_readers``)."""
        mine = self.principals
        folders = [folder for folder, who in settings.readers.items() if mine & set(who)]
        if not settings.file_readers:
            return engine.Readable(tuple(folders))
        return engine.Readable(tuple(folders), tuple(mine), tuple(settings.readers))


def current() -> Caller | None:
    """The caller of the request being answered: None without an access token, or with the
    owner's (a loopback server's own, :class:`~pylucene_mcp.server.auth.OwnerToken`)."""
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    if token is None:
        return None
    claims = token.claims or {}
    if claims.get("owner") is True:
        return None
    groups = claims.get("groups") or []
    return Caller(token.subject, tuple(str(g) for g in groups))


#: what would tell a restricted caller of documents it may not read: how long the work took
#: (a word in 20,000 hidden documents takes longer than in none), where the index is, and how
#: many documents of the whole index wait for vectors
UNSEEN_KEYS = frozenset(
    {"searchTimeMs", "profileTimeMs", "facetCost", "timeMs", "ms", "indexPath", "vectorsWaiting"}
)


def unseen(data: Mapping[str, Any]) -> Mapping[str, Any]:
    """A tool's answer ``data`` as the current caller may see it: for a restricted caller,
    without :data:`UNSEEN_KEYS` at any depth (every such field is optional in its shape)."""
    if current() is None:
        return data
    return cast("Mapping[str, Any]", _without(data))


def _without(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {k: _without(v) for k, v in value.items() if k not in UNSEEN_KEYS}
    if isinstance(value, list):
        return [_without(v) for v in value]
    return value


def within(settings: Settings) -> Readable | None:
    """What the current caller may read (None: everything)."""
    caller = current()
    return None if caller is None else caller.readable(settings)


def check_readable(path: str, trim: Readable | None) -> None:
    """Nothing when a caller whose searches are trimmed to ``trim`` (None: not trimmed) may
    read ``path``: below one of its folders (a backend without views records no readers).

    Raises:
        DocumentNotFoundError: as for a path the index does not hold, word for word.
    """
    if trim is not None and not any(portable.is_under(path, f) for f in trim.folders):
        raise errors.DocumentNotFoundError.of(path)


def reading(index: Backend, settings: Settings) -> tuple[Backend, Readable | None]:
    """The index as the current caller may read it, and what a search of it must still be
    trimmed to by its request's ``within`` (None: no trimming left; a backend without views
    leaves it to the search)."""
    chosen = within(settings)
    if chosen is None:
        return index, None
    view = index.viewed(chosen)
    return (index, chosen) if view is None else (view, None)


def readable(svc: Service) -> Backend:
    """``svc``'s index as the current caller may read it (see :func:`reading`)."""
    return reading(svc.index(), svc.settings)[0]


def refusal(name: str, group: str, index: Callable[[], Backend], settings: Settings) -> str | None:
    """Why the current caller may not call the tool ``name`` of ``group`` (None: it may): a
    read tool that neither a view of ``index()`` (opened only for a restricted caller) nor a
    trimmed search answers."""
    if group not in READING_GROUPS or name in TRIMMED:
        return None
    chosen = within(settings)
    if chosen is None or index().viewed(chosen) is not None:
        return None
    return (
        f"{name} is not available to a caller whose answers are trimmed to the documents they "
        "may read on this backend: its answer would count documents they cannot read. search "
        "and getDocumentDetails answer within what you may read"
    )
