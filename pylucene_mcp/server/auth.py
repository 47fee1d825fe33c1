"""OAuth 2.1 for MCP over HTTP: this server is a resource server, as the MCP authorization
specification says (docs/team.md).

- Every request to ``/mcp`` carries a bearer token; without a valid one the answer is ``401``
  with ``WWW-Authenticate: Bearer … resource_metadata="…"``, which points the client to this
  server's RFC 9728 metadata (``/.well-known/oauth-protected-resource/mcp``) and from there to
  the authorization server.
- An access token from the authorization server is a JWT
  (:class:`~pylucene_mcp.server.jwt_tokens.JwtVerifier`): its signature checked with the
  issuer's keys (the JWKS the issuer's RFC 8414 or OpenID metadata names, or
  ``oauth_jwks_url``), its ``iss``, its ``aud`` (this server's resource URL, RFC 8707), ``exp``
  and ``nbf``.
- A small team without an identity provider gives each person a static token
  (:class:`StaticTokens`): the file keeps only each token's SHA-256, with its subject, scopes
  and groups (``pylucene-mcp token`` makes one).
- A tool needs its group's scope (:data:`SCOPES`): ``search`` for the tools that read,
  ``crawl`` for the crawler's, ``admin`` for the admin tools; a call without it is answered
  ``403`` with ``error="insufficient_scope"`` and the scope it needs (:class:`ScopeGuard`).

A token is never logged, nor put into an error or doctor's output: a refusal says why (expired,
wrong audience, bad signature) and nothing of the token.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import os
import secrets
import stat
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp.server.auth.middleware.bearer_auth import AuthenticatedUser
from mcp.server.auth.provider import AccessToken
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from pylucene_mcp.basics import portable
from pylucene_mcp.basics.errors import ConfigError
from pylucene_mcp.server.jwt_tokens import JwtVerifier

log = logging.getLogger(__name__)

#: the scope each group of tools needs (a group not named here needs ``search``)
SCOPES: dict[str, str] = {
    "search": "search",
    "info": "search",
    "debug": "search",
    "observability": "search",
    "crawler": "crawl",
    "admin": "admin",
}
#: every scope this server knows, as its metadata lists them
ALL_SCOPES = ("search", "crawl", "admin")
#: the signing algorithms a token may use (asymmetric only: the server holds no shared secret)
#: the longest a static token may live, and how long one lives unless said otherwise
MAX_TOKEN_DAYS = 366
DEFAULT_TOKEN_DAYS = 90


def scope_of(group: str) -> str:
    """The scope a tool of ``group`` needs."""
    return SCOPES.get(group, "search")


@dataclass(frozen=True)
class StaticToken:
    """One entry of the static tokens file: the SHA-256 of a token, never the token."""

    sha256: str
    subject: str
    scopes: tuple[str, ...]
    groups: tuple[str, ...] = ()
    #: when it stops being taken (seconds since the epoch); None: an entry made before tokens
    #: had a lifetime, taken with a warning until it is replaced
    expires: int | None = None


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def read_static_tokens(path: Path) -> list[StaticToken]:
    """The entries of the static tokens file (YAML: a list of ``sha256``, ``subject``,
    ``scopes``, ``groups``).

    Raises:
        ConfigError: when the file cannot be read or an entry lacks what it needs.
    """
    from pylucene_mcp.basics.config import read_mapping

    try:
        data = read_mapping(path) if path.is_file() else {"tokens": []}
    except OSError as exc:
        raise ConfigError(f"cannot read the tokens file {path}: {exc}") from exc
    entries = data.get("tokens", [])
    if not isinstance(entries, list):
        raise ConfigError(f"{path}: tokens must be a list of entries")
    found = []
    for n, entry in enumerate(entries, 1):
        digest = str(entry.get("sha256", "")) if isinstance(entry, dict) else ""
        if len(digest) != 64 or not all(c in "0123456789abcdef" for c in digest):
            raise ConfigError(
                f"{path}: entry {n} needs sha256, the token's SHA-256 in hex (make entries "
                "with `pylucene-mcp token`)"
            )
        assert isinstance(entry, dict)
        found.append(
            StaticToken(
                sha256=digest,
                subject=str(entry.get("subject", "")),
                scopes=tuple(str(s) for s in entry.get("scopes", ()) or ()),
                groups=tuple(str(g) for g in entry.get("groups", ()) or ()),
                expires=_expiry(path, n, entry.get("expires")),
            )
        )
    return found


def _expiry(path: Path, n: int, value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{path}: entry {n}: expires is seconds since the epoch, not {value!r}")
    return value


def add_static_token(
    path: Path,
    subject: str,
    scopes: Sequence[str],
    groups: Sequence[str] = (),
    days: float = DEFAULT_TOKEN_DAYS,
) -> str:
    """Makes a new token for ``subject``, good for ``days``, writes its digest into ``path``
    (this user's alone, 0600) and returns the token: the one time it is seen.

    Raises:
        ConfigError: for an unknown scope, or a file that cannot be written.
    """
    import yaml

    unknown = sorted(set(scopes) - set(ALL_SCOPES))
    if unknown or not scopes:
        raise ConfigError(
            f"scopes are some of {', '.join(ALL_SCOPES)}, not {', '.join(unknown) or 'none'}"
        )
    if not 0 < days <= MAX_TOKEN_DAYS:
        raise ConfigError(
            f"a token lives more than 0 and at most {MAX_TOKEN_DAYS} days, not {days:g}"
        )
    entries = read_static_tokens(path)
    token = "plm_" + secrets.token_urlsafe(32)
    expires = int(time.time() + days * 86_400)
    entries.append(StaticToken(token_digest(token), subject, tuple(scopes), tuple(groups), expires))
    rows = [
        {
            "sha256": e.sha256,
            "subject": e.subject,
            "scopes": list(e.scopes),
            "groups": list(e.groups),
            **({} if e.expires is None else {"expires": e.expires}),
        }
        for e in entries
    ]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        portable.write_private(path, yaml.safe_dump({"tokens": rows}, sort_keys=False))
    except OSError as exc:
        raise ConfigError(f"cannot write the tokens file {path}: {exc}") from exc
    return token


class StaticTokens:
    """Checks a token against the static tokens file, read again when it changes. A token
    lives until its ``expires`` or until its entry is removed from the file, whichever comes
    first."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._seen: tuple[int, int] | None = None
        self._entries: list[StaticToken] = []
        self._warned: set[str] = set()  # the entries without a lifetime, said once each

    def _current(self) -> list[StaticToken]:
        try:
            status = self.path.stat()
            seen = (status.st_mtime_ns, status.st_size)
        except OSError:
            seen = (0, 0)
        if seen != self._seen:
            self._entries = read_static_tokens(self.path)
            self._seen = seen
        return self._entries

    async def verify_token(self, token: str) -> AccessToken | None:
        digest = token_digest(token)
        try:
            entries = self._current()
        except ConfigError as exc:
            log.warning("the static tokens are not usable: %s", exc)
            return None
        for entry in entries:
            if hmac.compare_digest(entry.sha256, digest):
                if entry.expires is None:
                    if entry.sha256 not in self._warned:
                        self._warned.add(entry.sha256)
                        log.warning(
                            "a static token of %s has no lifetime (made by an older version): "
                            "replace it with one from `pylucene-mcp token`",
                            entry.subject,
                        )
                elif entry.expires <= time.time():
                    log.info("a static token of %s was refused: expired", entry.subject)
                    return None
                return AccessToken(
                    token=token,
                    client_id=entry.subject,
                    scopes=list(entry.scopes),
                    expires_at=entry.expires,
                    subject=entry.subject,
                    claims={"iss": None, "groups": list(entry.groups)},
                )
        return None


class OwnerToken:
    """The token of the user who started the server, for an HTTP server on loopback without
    ``oauth_issuer`` or ``tokens_file``: a port there is open to every local account, so a
    request must show that it comes from someone who may read this user's files. The token
    is kept in ``<home>/http-token`` (this user's alone, 0600; made on the first start, kept
    for the next, deleted to make another); a request with it is the index's owner, as a
    stdio client is (:func:`~pylucene_mcp.server.caller.current`)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._digest = token_digest(read_or_make_owner_token(path))

    async def verify_token(self, token: str) -> AccessToken | None:
        if not hmac.compare_digest(token_digest(token), self._digest):
            return None
        return AccessToken(
            token=token, client_id=OWNER, scopes=list(ALL_SCOPES), claims={OWNER: True}
        )


#: the client id, and the claim, of the owner's token
OWNER = "owner"


def read_or_make_owner_token(path: Path) -> str:
    """The owner's token in ``path``, made there first when there is none.

    Raises:
        ConfigError: when it cannot be read or written, or is not this user's alone.
    """
    from pylucene_mcp.basics.private import private_dir

    try:
        private_dir(path.parent)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o600)
    except FileExistsError:
        pass
    except OSError as exc:
        raise ConfigError(f"cannot write the server's token {path}: {exc.strerror}") from exc
    else:
        with os.fdopen(fd, "w", encoding="ascii") as handle:
            handle.write("plo_" + secrets.token_urlsafe(32))
    try:
        status = os.lstat(path)
        token = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the server's token {path}: {exc}") from exc
    getuid = getattr(os, "getuid", None)
    if getuid is not None and (
        not stat.S_ISREG(status.st_mode) or status.st_uid != getuid() or status.st_mode & 0o077
    ):
        raise ConfigError(
            f"{path} must be a file of this user's that no one else may read (0600); remove it "
            "and start the server again to make a new one"
        )
    if len(token) < 32:
        raise ConfigError(f"{path} holds no token; remove it and start the server again")
    return token


class Verifiers:
    """The first of ``verifiers`` that takes a token (static tokens, then the issuer's)."""

    def __init__(self, verifiers: Iterable[Any]) -> None:
        self.verifiers = list(verifiers)

    async def verify_token(self, token: str) -> AccessToken | None:
        for verifier in self.verifiers:
            found: AccessToken | None = await verifier.verify_token(token)
            if found is not None:
                return found
        return None


def needed_scopes(body: bytes, groups: Mapping[str, str]) -> set[str]:
    """The scopes a request body's messages need: a ``tools/call``'s tool needs its group's
    (:data:`SCOPES`); anything else (initialize, the tool list, the apps) needs none beyond a
    valid token. A body that is not JSON needs none here: the SDK refuses it.

    Raises:
        ValueError: for JSON nested too deep to read (the SDK could not read it either).
    """
    try:
        data = json.loads(body)
    except RecursionError as exc:
        raise ValueError("the request's JSON nests too deep") from exc
    except ValueError:
        return set()
    messages = data if isinstance(data, list) else [data]
    needed = set()
    for message in messages:
        if isinstance(message, dict) and message.get("method") == "tools/call":
            params = message.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            if isinstance(name, str):
                needed.add(scope_of(groups.get(name, "search")))
    return needed


class ScopeGuard:
    """ASGI: a ``tools/call`` whose token lacks the tool's scope is answered ``403`` with
    ``WWW-Authenticate: Bearer error="insufficient_scope", scope="…"`` (the token's scopes and
    the missing one: what the client asks for when it authorizes again). Runs after the SDK's
    authentication, before its transport; the body it reads is handed on unchanged."""

    def __init__(
        self,
        app: ASGIApp,
        groups: Mapping[str, str],
        metadata_url: str | None,
        max_body_bytes: int,
    ) -> None:
        self.app = app
        self.groups = dict(groups)
        self.metadata_url = metadata_url
        self.max_body_bytes = max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        user = scope.get("user")
        if scope["type"] != "http" or scope.get("method") != "POST":
            await self.app(scope, receive, send)
            return
        if not isinstance(user, AuthenticatedUser):
            await self.app(scope, receive, send)  # the SDK answers 401
            return
        chunks: list[bytes] = []
        size, more = 0, True
        while more and size <= self.max_body_bytes:
            message = await receive()
            if message["type"] != "http.request":
                break
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            more = message.get("more_body", False)
        body = b"".join(chunks)
        try:
            needed = needed_scopes(body, self.groups)
        except ValueError as exc:
            await _bad_request(send, str(exc))
            return
        missing = sorted(needed - set(user.scopes))
        if missing:
            await self._refuse(send, [*user.scopes, *missing], missing)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return {"type": "http.request", "body": body, "more_body": more}
            return await receive()

        await self.app(scope, replay, send)

    async def _refuse(self, send: Send, wanted: list[str], missing: list[str]) -> None:
        description = f"this call needs the scope {' '.join(missing)}"
        parts = [
            'error="insufficient_scope"',
            f'scope="{" ".join(dict.fromkeys(wanted))}"',
            f'error_description="{description}"',
        ]
        if self.metadata_url:
            parts.append(f'resource_metadata="{self.metadata_url}"')
        await _answer(
            send,
            403,
            {"error": "insufficient_scope", "error_description": description},
            [(b"www-authenticate", ("Bearer " + ", ".join(parts)).encode())],
        )


async def _bad_request(send: Send, description: str) -> None:
    failure = {"code": -32700, "message": description}
    await _answer(send, 400, {"jsonrpc": "2.0", "id": None, "error": failure})


async def _answer(
    send: Send, status: int, data: Mapping[str, Any], headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    """An HTTP answer of ``status`` with ``data`` as its JSON body (and ``headers``)."""
    body = json.dumps(data).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


LOOPBACK_HOSTS = ("127.0.0.1", "::1", "localhost")


def owner_token_path() -> Path:
    """Where the owner's token of a loopback server without authentication is kept."""
    from pylucene_mcp.basics.config import home_dir

    return home_dir() / "http-token"


@dataclass(frozen=True)
class Access:
    """Who may call an HTTP server: the token check, this server's resource URL (the tokens'
    audience, and what its metadata names) and the issuer (None with static tokens alone)."""

    verifier: Verifiers
    resource: str
    issuer: str | None

    @property
    def owner_token(self) -> Path | None:
        """Where the owner's token is kept, when it is the one this server takes."""
        found = [v.path for v in self.verifier.verifiers if isinstance(v, OwnerToken)]
        return found[0] if found else None

    def server_options(self) -> dict[str, Any]:
        """The SDK server's options for it: the token verifier, and the authorization settings
        that put the SDK's bearer check (401 with the metadata's URL) before ``/mcp``. The
        token's audience is checked by the verifier; the metadata is :func:`metadata_routes`."""
        from mcp.server.auth.settings import AuthSettings

        auth = AuthSettings(
            issuer_url=self.issuer or self.resource,  # type: ignore[arg-type]
            resource_server_url=self.resource,  # type: ignore[arg-type]
            validate_token_resource=False,
        )
        return {"auth": auth, "token_verifier": self.verifier}


def access(settings: Any, host: str, port: int) -> Access:
    """The access of an HTTP server on ``host``:``port`` from ``settings`` (``oauth_*``,
    ``tokens_file``); when neither is set and ``host`` is loopback, the owner's token
    (:class:`OwnerToken`).

    Raises:
        ConfigError: for a server beyond loopback without either (it would serve every
            document to whoever reaches the port), or an issuer without a resource URL that
            clients can use.
    """
    issuer: str | None = settings.oauth_issuer
    tokens: Path | None = settings.tokens_file
    named = f"[{host}]" if ":" in host else host
    resource = settings.oauth_audience or f"http://{named}:{port}/mcp"
    if issuer is None and tokens is None:
        if host not in LOOPBACK_HOSTS:
            raise ConfigError(
                f"serving MCP over HTTP on {host} without authentication would let whoever "
                "reaches the port call every tool and read every document; set oauth_issuer "
                "(PYLUCENE_MCP_OAUTH_ISSUER) with oauth_audience, or tokens_file "
                "(PYLUCENE_MCP_TOKENS_FILE; `pylucene-mcp token` makes tokens), or serve on "
                "127.0.0.1 (docs/team.md)"
            )
        return Access(Verifiers([OwnerToken(owner_token_path())]), resource, None)
    if (
        issuer is not None
        and settings.oauth_audience is None
        and (port == 0 or host in ("0.0.0.0", "::"))
    ):
        raise ConfigError(
            "with oauth_issuer, set oauth_audience (PYLUCENE_MCP_OAUTH_AUDIENCE) to this "
            "server's URL as clients reach it, e.g. https://search.example/mcp: the tokens "
            f"must be issued for it, and http://{named}:{port}/mcp is no such URL"
        )
    verifiers: list[Any] = []
    if tokens is not None:
        read_static_tokens(tokens)  # a broken file is said before the server starts
        verifiers.append(StaticTokens(tokens))
    if issuer is not None:
        verifiers.append(JwtVerifier(issuer, resource, settings.oauth_jwks_url))
    return Access(Verifiers(verifiers), resource, issuer)
