"""MCP over Streamable HTTP, beside stdio: the SDK's own transport (sessions, streams, the
protocol-version header) served by uvicorn, for clients that reach the server by URL
(``serve --http [HOST:]PORT``, or ``http`` in the settings).

Bound to 127.0.0.1 unless a host is given. Every request's ``Host`` header must name this server
(``http_hosts``; the loopback names and the bound host by default) and an ``Origin`` header, when
a browser sends one, must be allowed (``http_origins``; the loopback origins by default): a web
page elsewhere cannot reach the server through its visitor's browser (DNS rebinding). A request
body is at most :data:`MAX_BODY_BYTES`, as a line on stdio. Nothing is written to stdout: the
server's address goes to stderr, uvicorn's messages into the product's log.

Every request needs a bearer token (:mod:`pylucene_mcp.server.auth`): with ``oauth_issuer`` or
``tokens_file`` one of theirs, and each tool its scope; without them only a loopback bind is
allowed, and a request must carry the owner's token, which the server keeps in
``<home>/http-token`` for this user alone: a loopback port is open to every local account, so a
client must show it may read this user's files (docs/http.md).
"""

from __future__ import annotations

import logging
import socket
import sys
from collections.abc import Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.transport_security import TransportSecuritySettings

from pylucene_mcp.basics import errors

if TYPE_CHECKING:
    from starlette.applications import Starlette

    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.server.app import SearchServer
    from pylucene_mcp.server.auth import Access

log = logging.getLogger(__name__)

#: the largest request body taken (a stdio line has the same limit)
MAX_BODY_BYTES = 4 * 1024 * 1024
#: where the MCP endpoint is
PATH = "/mcp"
LOOPBACK_NAMES = ("127.0.0.1", "localhost", "[::1]")


def address(text: str) -> tuple[str, int]:
    """``[HOST:]PORT`` (``8080``, ``0.0.0.0:8080``, ``[::1]:8080``) as a host and a port; the
    host is 127.0.0.1 when none is given.

    Raises:
        ConfigError: for text that is no such address.
    """
    value = text.strip()
    host, port_text = "", value
    if value.startswith("["):  # [IPv6]:PORT
        host, separator, port_text = value[1:].partition("]:")
        port_text = port_text if separator else ""
    elif ":" in value:  # HOST:PORT; an IPv6 host without brackets leaves no number after it
        host, _, port_text = value.partition(":")
    port = int(port_text) if port_text.isdigit() else -1
    if not 0 <= port <= 65_535:
        raise errors.ConfigError(
            f"http is [HOST:]PORT, such as 8080, 127.0.0.1:8080 or [::1]:8080, not {text!r}"
        )
    return host or "127.0.0.1", port


def _named(host: str) -> str:
    """``host`` as a URL and a Host header write it (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host


def security(
    host: str, hosts: Sequence[str] = (), origins: Sequence[str] = ()
) -> TransportSecuritySettings:
    """The SDK's transport security for a server bound to ``host``: the ``Host`` headers it
    answers (the loopback names, ``host`` unless it is a wildcard, and ``hosts``; any port) and
    the ``Origin`` headers it takes (the loopback origins and ``origins``, as given)."""
    names = [*LOOPBACK_NAMES]
    if host not in ("0.0.0.0", "::"):
        names.append(_named(host))
    names += [h for h in hosts if h]
    allowed_hosts = [p for name in dict.fromkeys(names) for p in (name, f"{name}:*")]
    allowed_origins = [f"http://{name}:*" for name in LOOPBACK_NAMES]
    allowed_origins += [f"http://{name}" for name in LOOPBACK_NAMES]
    allowed_origins += [o.rstrip("/") for o in origins if o]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
    )


def protect(app: Starlette, access: Access, groups: Mapping[str, str]) -> None:
    """Completes the SDK's resource server in ``app`` (built with ``access.server_options()``):
    each tool's scope checked before the transport (:class:`~pylucene_mcp.server.auth.ScopeGuard`),
    and the RFC 9728 metadata naming every scope this server knows; with static tokens alone,
    no metadata (no issuer to point to) and no pointer to it in a 401."""
    from mcp.server.auth.middleware.bearer_auth import RequireAuthMiddleware
    from mcp.server.auth.routes import build_resource_metadata_url, create_protected_resource_routes
    from starlette.routing import Route

    from pylucene_mcp.server.auth import ALL_SCOPES, ScopeGuard

    # the SDK's settings keep a URL as written (an issuer without a path gets no "/" added: RFC
    # 8414 compares issuers as strings)
    auth = access.server_options()["auth"]
    metadata = str(build_resource_metadata_url(auth.resource_server_url))
    routes: list[Any] = []
    for route in app.router.routes:
        path = getattr(route, "path", "")
        if path.startswith("/.well-known/oauth-protected-resource"):
            continue  # the SDK's, without the scopes
        if isinstance(route, Route) and path == PATH:
            required = route.app
            if isinstance(required, RequireAuthMiddleware) and access.issuer is None:
                required.resource_metadata_url = None
            route.app = ScopeGuard(
                required, groups, metadata if access.issuer else None, MAX_BODY_BYTES
            )
        routes.append(route)
    if access.issuer is not None:
        routes += create_protected_resource_routes(
            resource_url=auth.resource_server_url,
            authorization_servers=[auth.issuer_url],
            scopes_supported=list(ALL_SCOPES),
            resource_name="pylucene-mcp",
        )
    app.router.routes[:] = routes


async def serve_http(
    server: SearchServer,
    host: str,
    port: int,
    *,
    hosts: Sequence[str] = (),
    origins: Sequence[str] = (),
    access: Access | None = None,
    settings: Settings | None = None,
    sockets: list[socket.socket] | None = None,
) -> None:
    """Runs ``server`` over Streamable HTTP at ``http://host:port/mcp`` until cancelled; says
    the address it listens on (the port chosen when ``port`` is 0) on stderr once it does.
    With ``access``, ``server`` must have been built with it (``build_server``). ``settings``
    give the bounds on connections and sessions (server/guard.py; the defaults without them);
    ``sockets``, those to listen on (by default every loopback address for a loopback
    ``host``, :func:`~pylucene_mcp.server.guard.loopback_sockets`).

    Raises:
        ConfigError: when a loopback address at ``port`` is another process's.
    """
    import uvicorn

    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.server import guard

    bounds = settings or Settings.model_construct()
    app = server.streamable_http_app(
        streamable_http_path=PATH,
        max_request_body_size=MAX_BODY_BYTES,
        transport_security=security(host, hosts, origins),
        host=host,
        session_idle_timeout=bounds.http_session_idle_s,
        max_sessions=bounds.http_max_sessions,
    )
    guard.limit_sessions(server.session_manager, bounds.http_max_sessions_per_caller)
    if access is not None:
        protect(app, access, server.tools.groups)  # each tool's group: the scope it needs
    limits = guard.Limits(
        guard.descriptor_budget(bounds.http_max_connections),
        bounds.http_max_connections_per_peer,
        bounds.http_request_timeout_s,
    )
    if sockets is None:
        sockets = guard.loopback_sockets(host, port)
    # log_config=None: uvicorn's loggers go to the product's log and stderr, never to stdout
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,
        access_log=False,
        http=guard.guarded_protocol(limits),
        backlog=min(2048, limits.connections * 2),
    )
    web = uvicorn.Server(config)
    async with anyio.create_task_group() as group:
        group.start_soon(partial(web.serve, sockets=sockets))
        while not web.started:
            if web.should_exit:
                return
            await anyio.sleep(0.02)
        bound = web.servers[0].sockets[0].getsockname()[1] if web.servers else port
        url = f"http://{_named(host)}:{bound}{PATH}"
        log.info("serving MCP over HTTP at %s", url)
        owner = access.owner_token if access is not None else None
        how = f" (Authorization: Bearer <the token in {owner}>)" if owner else ""
        print(f"pylucene-mcp: serving MCP over HTTP at {url}{how}", file=sys.stderr, flush=True)
