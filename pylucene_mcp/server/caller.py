"""Who asks, over HTTP with authentication, and what they may read (docs/team.md).

A call that comes with an access token (:mod:`pylucene_mcp.server.auth`) is a *restricted*
caller: its principals are ``user:<subject>``, ``group:<g>`` for each of its groups, and ``*``;
it may read the documents below the folders whose ``readers`` (a setting: folder → principals)
name one of them, and nothing else. On the embedded index every read tool answers it from a
view of those folders (``Backend.viewed``): counts, facets, terms, scores and explanations as an
index of those documents alone would give them. On a backend without views (Solr) its search is
trimmed (``SearchRequest.within``) and the other read tools refuse it. A call without a token
(stdio, loopback HTTP without authentication) is the index's owner and reads everything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pylucene_mcp.basics import errors, portable

if TYPE_CHECKING:
    from pylucene_mcp.engine.core.backend import Backend
    from pylucene_mcp.service.service import Service

#: the tools whose answers are trimmed to what a restricted caller may read without a view
TRIMMED = frozenset({"search", "getDocumentDetails"})
#: the groups of tools that read documents (the crawler's and admin's are for the operators
#: that hold the crawl and admin scopes: they answer about the whole index)
READING_GROUPS = frozenset({"search", "info", "debug", "observability"})


@dataclass(frozen=True)
class Caller:
    """A restricted caller: the token's subject and groups."""

    subject: str
    groups: tuple[str, ...] = ()

    @property
    def principals(self) -> frozenset[str]:
        return frozenset({f"user:{self.subject}", *(f"group:{g}" for g in self.groups), "*"})

    def folders(self, readers: Mapping[str, Sequence[str]]) -> tuple[str, ...]:
        """The folders of ``readers`` this caller may read."""
        mine = self.principals
        return tuple(folder for folder, who in readers.items() if mine & set(who))


def current() -> Caller | None:
    """The caller of the request being answered: None without an access token."""
    from mcp.server.auth.middleware.auth_context import get_access_token

    token = get_access_token()
    if token is None:
        return None
    claims = token.claims or {}
    groups = claims.get("groups") or []
    return Caller(token.subject or token.client_id, tuple(str(g) for g in groups))


def within(readers: Mapping[str, Sequence[str]]) -> tuple[str, ...] | None:
    """The folders the current caller may read (None: everything)."""
    caller = current()
    return None if caller is None else caller.folders(readers)


def check_readable(path: str, readers: Mapping[str, Sequence[str]]) -> None:
    """Nothing when the current caller may read ``path``.

    Raises:
        DocumentNotFoundError: as for a path the index does not hold, word for word.
    """
    folders = within(readers)
    if folders is not None and not any(portable.is_under(path, f) for f in folders):
        raise errors.DocumentNotFoundError.of(path)


def reading(
    index: Backend, readers: Mapping[str, Sequence[str]]
) -> tuple[Backend, tuple[str, ...] | None]:
    """The index as the current caller may read it, and the folders a search of it must still
    be trimmed to by its request's ``within`` (None: no trimming left; a backend without views
    leaves it to the search)."""
    folders = within(readers)
    if folders is None:
        return index, None
    view = index.viewed(folders)
    return (index, folders) if view is None else (view, None)


def readable(svc: Service) -> Backend:
    """``svc``'s index as the current caller may read it (see :func:`reading`)."""
    return reading(svc.index(), svc.settings.readers)[0]


def refusal(
    name: str, group: str, index: Callable[[], Backend], readers: Mapping[str, Sequence[str]]
) -> str | None:
    """Why the current caller may not call the tool ``name`` of ``group`` (None: it may): a
    read tool that neither a view of ``index()`` (opened only for a restricted caller) nor a
    trimmed search answers."""
    if group not in READING_GROUPS or name in TRIMMED:
        return None
    folders = within(readers)
    if folders is None or index().viewed(folders) is not None:
        return None
    return (
        f"{name} is not available to a caller whose answers are trimmed to the documents they "
        "may read on this backend: its answer would count documents they cannot read. search "
        "and getDocumentDetails answer within what you may read"
    )
