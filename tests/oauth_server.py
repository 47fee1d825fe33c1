"""A real OAuth 2.1 authorization server for the tests, on loopback HTTP in a thread of the test
process: RFC 8414 metadata, a JWKS, dynamic client registration (RFC 7591), the authorization
code grant with PKCE (S256, authlib's), refresh tokens, the client credentials grant and
resource indicators (RFC 8707: a token's ``aud`` is the ``resource`` it was asked for).
Access tokens are JWTs signed RS256 with a key made at start (joserfc).

The person who approves at ``/authorize`` is :attr:`AuthorizationServer.approver` (the tests'
stand-in for someone signing in); each user has the scopes and groups the test gives it, and a
token gets the scopes asked for that the user has."""

from __future__ import annotations

import base64
import secrets
import socket
import threading
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

import uvicorn
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from joserfc import jwt
from joserfc.jwk import KeySet, RSAKey
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from tests.waiting import until


@dataclass(frozen=True)
class User:
    scopes: tuple[str, ...]
    groups: tuple[str, ...] = ()


@dataclass
class _Client:
    client_id: str
    secret: str | None
    redirect_uris: list[str]
    user: str | None = None  # a client credentials client acts as this user


@dataclass
class _Code:
    client_id: str
    redirect_uri: str
    challenge: str
    user: str
    scopes: list[str]
    resource: str | None
    made: float = field(default_factory=time.monotonic)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _error(error: str, description: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": error, "error_description": description}, status_code=status)


class AuthorizationServer:
    """Started by :meth:`start`, stopped by :meth:`stop`; :attr:`issuer` is its URL."""

    def __init__(self, users: dict[str, User], lifetime_s: int = 300) -> None:
        self.users = users
        self.lifetime_s = lifetime_s
        self.key = RSAKey.generate_key(2048, parameters={"kid": "test-1", "use": "sig"})
        self.approver: str | None = None
        self.clients: dict[str, _Client] = {}
        self.codes: dict[str, _Code] = {}
        self.refresh: dict[str, tuple[str, list[str], str | None, str]] = {}
        self.port = free_port()
        self.issuer = f"http://127.0.0.1:{self.port}"
        self.token_requests = 0
        #: the scopes each authorization asked for, and those it granted
        self.asked: list[list[str]] = []
        self.granted: list[list[str]] = []
        app = Starlette(
            routes=[
                Route("/.well-known/oauth-authorization-server", self._metadata),
                Route("/jwks", self._jwks),
                Route("/register", self._register, methods=["POST"]),
                Route("/authorize", self._authorize),
                Route("/token", self._token, methods=["POST"]),
            ]
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_config=None)
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, daemon=True)

    def start(self) -> AuthorizationServer:
        self._thread.start()
        until(lambda: self._server.started, 30, "the authorization server's start")
        return self

    def stop(self) -> None:
        self._server.should_exit = True
        self._thread.join(10)

    def add_client(self, user: str) -> tuple[str, str]:
        """A confidential client for the client credentials grant, acting as ``user``."""
        client_id, secret = "svc-" + secrets.token_hex(4), secrets.token_urlsafe(24)
        self.clients[client_id] = _Client(client_id, secret, [], user)
        return client_id, secret

    def token(
        self,
        user: str,
        audience: str | None,
        *,
        scopes: list[str] | None = None,
        lifetime_s: int | None = None,
        not_before_s: int = 0,
        key: RSAKey | None = None,
        issuer: str | None = None,
        client_id: str = "direct",
        without: tuple[str, ...] = (),
    ) -> str:
        """A signed access token for ``user``; the tests' wrong ones change one part."""
        now = int(time.time())
        granted = self.users[user].scopes if scopes is None else scopes
        claims: dict[str, Any] = {
            "iss": issuer or self.issuer,
            "sub": user,
            "client_id": client_id,
            "iat": now,
            "nbf": now + not_before_s,
            "exp": now + (self.lifetime_s if lifetime_s is None else lifetime_s),
            "scope": " ".join(granted),
            "groups": list(self.users[user].groups),
            "jti": secrets.token_hex(8),
        }
        if audience is not None:
            claims["aud"] = audience
        for name in without:
            del claims[name]
        signing = key or self.key
        header = {"alg": "RS256", "kid": signing.kid or "test-1", "typ": "at+jwt"}
        return jwt.encode(header, claims, signing)

    # the endpoints

    async def _metadata(self, request: Request) -> Response:
        return JSONResponse(
            {
                "issuer": self.issuer,
                "authorization_endpoint": f"{self.issuer}/authorize",
                "token_endpoint": f"{self.issuer}/token",
                "registration_endpoint": f"{self.issuer}/register",
                "jwks_uri": f"{self.issuer}/jwks",
                "response_types_supported": ["code"],
                "grant_types_supported": [
                    "authorization_code",
                    "refresh_token",
                    "client_credentials",
                ],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": [
                    "client_secret_post",
                    "client_secret_basic",
                    "none",
                ],
                "scopes_supported": sorted({s for u in self.users.values() for s in u.scopes}),
            }
        )

    async def _jwks(self, request: Request) -> Response:
        return JSONResponse(KeySet([self.key]).as_dict(private=False))

    async def _register(self, request: Request) -> Response:
        data = await request.json()
        uris = [str(u) for u in data.get("redirect_uris", [])]
        method = data.get("token_endpoint_auth_method", "client_secret_basic")
        client_id = "dyn-" + secrets.token_hex(6)
        secret = None if method == "none" else secrets.token_urlsafe(24)
        self.clients[client_id] = _Client(client_id, secret, uris)
        answer = {**data, "client_id": client_id, "client_id_issued_at": int(time.time())}
        answer["token_endpoint_auth_method"] = method
        if secret is not None:
            answer["client_secret"] = secret
            answer["client_secret_expires_at"] = 0
        return JSONResponse(answer, status_code=201)

    async def _authorize(self, request: Request) -> Response:
        q = request.query_params
        client = self.clients.get(q.get("client_id", ""))
        if client is None or q.get("redirect_uri") not in client.redirect_uris:
            return _error("invalid_request", "unknown client or redirect_uri")
        if q.get("response_type") != "code" or q.get("code_challenge_method") != "S256":
            return _error("invalid_request", "response_type code with PKCE S256 only")
        if self.approver is None:
            return _error("access_denied", "no one is signed in", 403)
        user = self.users[self.approver]
        asked = q.get("scope", "").split() or list(user.scopes)
        self.asked.append(asked)
        self.granted.append([s for s in asked if s in user.scopes])
        code = secrets.token_urlsafe(16)
        self.codes[code] = _Code(
            client.client_id,
            q["redirect_uri"],
            q.get("code_challenge", ""),
            self.approver,
            [s for s in asked if s in user.scopes],
            q.get("resource"),
        )
        back = {"code": code, **({"state": q["state"]} if "state" in q else {})}
        return RedirectResponse(f"{q['redirect_uri']}?{urllib.parse.urlencode(back)}", 302)

    def _client_of(self, request: Request, form: dict[str, str]) -> _Client | None:
        client_id, secret = form.get("client_id"), form.get("client_secret")
        header = request.headers.get("authorization", "")
        if header.lower().startswith("basic "):
            decoded = base64.b64decode(header[6:]).decode()
            client_id, _, secret = (urllib.parse.unquote(p) for p in decoded.partition(":"))
        client = self.clients.get(client_id or "")
        if client is None or (client.secret is not None and client.secret != secret):
            return None
        return client

    def _issued(
        self, user: str, scopes: list[str], resource: str | None, client_id: str
    ) -> Response:
        access = self.token(user, resource, scopes=scopes, client_id=client_id)
        refresh = secrets.token_urlsafe(24)
        self.refresh[refresh] = (user, scopes, resource, client_id)
        return JSONResponse(
            {
                "access_token": access,
                "token_type": "Bearer",
                "expires_in": self.lifetime_s,
                "scope": " ".join(scopes),
                "refresh_token": refresh,
            },
            headers={"Cache-Control": "no-store"},
        )

    async def _token(self, request: Request) -> Response:
        self.token_requests += 1
        form = {k: str(v) for k, v in (await request.form()).items()}
        client = self._client_of(request, form)
        if client is None:
            return _error("invalid_client", "unknown client or wrong secret", 401)
        grant = form.get("grant_type")
        resource = form.get("resource")
        if grant == "authorization_code":
            code = self.codes.pop(form.get("code", ""), None)
            if code is None or code.client_id != client.client_id:
                return _error("invalid_grant", "unknown or used code")
            if code.redirect_uri != form.get("redirect_uri"):
                return _error("invalid_grant", "redirect_uri differs")
            if create_s256_code_challenge(form.get("code_verifier", "")) != code.challenge:
                return _error("invalid_grant", "PKCE verifier does not match")
            if resource is not None and code.resource not in (None, resource):
                return _error("invalid_target", "resource differs from the authorization's")
            return self._issued(code.user, code.scopes, resource or code.resource, client.client_id)
        if grant == "refresh_token":
            known = self.refresh.pop(form.get("refresh_token", ""), None)
            if known is None:
                return _error("invalid_grant", "unknown refresh token")
            user, scopes, was, client_id = known
            return self._issued(user, scopes, resource or was, client_id)
        if grant == "client_credentials" and client.user is not None:
            user = self.users[client.user]
            asked = form.get("scope", "").split() or list(user.scopes)
            scopes = [s for s in asked if s in user.scopes]
            return self._issued(client.user, scopes, resource, client.client_id)
        return _error("unsupported_grant_type", f"{grant} is not offered")
