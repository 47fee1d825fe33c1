"""An access token of an OAuth authorization server, checked as a resource server checks it: a
JWT whose signature verifies with the issuer's keys (the JWKS its RFC 8414 or OpenID metadata
names, or ``oauth_jwks_url``), whose ``iss`` is the issuer, whose ``aud`` is this server's
resource URL (RFC 8707), and whose ``exp`` and ``nbf`` hold (docs/team.md)."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any

import anyio
from mcp.server.auth.provider import AccessToken

from pylucene_mcp.basics.errors import ConfigError

log = logging.getLogger(__name__)

#: the algorithms a token may be signed with
ALGORITHMS = ["RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA"]
#: how far the clocks of this server and the issuer may differ, in seconds
LEEWAY_S = 30


def _scopes(claims: Mapping[str, Any]) -> list[str]:
    """A token's scopes: ``scope`` (RFC 9068, space-separated) or ``scp`` (a list)."""
    value = claims.get("scope", claims.get("scp", ""))
    if isinstance(value, str):
        return value.split()
    return [str(item) for item in value] if isinstance(value, list) else []


def _groups(claims: Mapping[str, Any]) -> list[str]:
    value = claims.get("groups", [])
    if isinstance(value, str):
        return [value]
    return [str(item) for item in value] if isinstance(value, list) else []


def _get_json(url: str, timeout_s: float) -> dict[str, Any]:
    """The JSON object at ``url``, HTTPS checked as every download of the product is
    (:func:`~pylucene_mcp.basics.web.ssl_context`: the system's trust store)."""
    import urllib.request

    from pylucene_mcp.basics.web import ssl_context

    request = urllib.request.Request(url, headers={"Accept": "application/json"})
    handlers: list[Any] = [urllib.request.ProxyHandler()]
    if url.startswith("https://"):
        handlers.append(urllib.request.HTTPSHandler(context=ssl_context()))
    with urllib.request.build_opener(*handlers).open(request, timeout=timeout_s) as answer:
        data = json.loads(answer.read())
    if not isinstance(data, dict):
        raise ValueError(f"{url} did not answer a JSON object")
    return data


def metadata_urls(issuer: str) -> list[str]:
    """Where an issuer's metadata may be: RFC 8414's well-known URL (its path after the
    well-known part), then OpenID Connect's (appended to the issuer)."""
    from urllib.parse import urlsplit

    parts = urlsplit(issuer)
    path = parts.path.rstrip("/")
    origin = f"{parts.scheme}://{parts.netloc}"
    return [
        f"{origin}/.well-known/oauth-authorization-server{path}",
        f"{issuer.rstrip('/')}/.well-known/openid-configuration",
    ]


def discover_jwks(issuer: str, timeout_s: float = 10.0) -> str:
    """The ``jwks_uri`` of ``issuer``'s metadata, whose ``issuer`` must be ``issuer``.

    Raises:
        ConfigError: when no metadata names one; says to set ``oauth_jwks_url``.
    """
    problems = []
    for url in metadata_urls(issuer):
        try:
            data = _get_json(url, timeout_s)
        except Exception as exc:  # the next place, then one error for all
            problems.append(f"{url}: {type(exc).__name__}")
            continue
        if data.get("issuer") != issuer:
            problems.append(f"{url}: names the issuer {data.get('issuer')!r}")
            continue
        if isinstance(data.get("jwks_uri"), str):
            return str(data["jwks_uri"])
        problems.append(f"{url}: names no jwks_uri")
    raise ConfigError(
        f"the keys of the issuer {issuer} could not be found ({'; '.join(problems)}); check "
        "oauth_issuer (PYLUCENE_MCP_OAUTH_ISSUER), or give the keys' URL in oauth_jwks_url "
        "(PYLUCENE_MCP_OAUTH_JWKS_URL)"
    )


class JwtVerifier:
    """Checks a JWT access token: signature (the issuer's keys, fetched and kept, fetched again
    for a key it does not know), ``iss``, ``aud``, ``exp`` and ``nbf``. Its scopes, subject and
    ``groups`` claim go into the SDK's ``AccessToken``."""

    def __init__(self, issuer: str, audience: str, jwks_url: str | None = None) -> None:
        self.issuer = issuer
        self.audience = audience
        self._jwks_url = jwks_url
        self._keys: Any = None  # a jwt.PyJWKClient, made on first use
        self._making = anyio.Lock()

    async def _client(self) -> Any:
        async with self._making:
            if self._keys is None:
                import jwt

                from pylucene_mcp.basics.web import ssl_context

                url: str = self._jwks_url or ""
                if not url:
                    url = await anyio.to_thread.run_sync(discover_jwks, self.issuer)
                self._keys = jwt.PyJWKClient(
                    url, lifespan=300, timeout=10, cooldown_duration=30, ssl_context=ssl_context()
                )
            return self._keys

    async def verify_token(self, token: str) -> AccessToken | None:
        import jwt

        try:
            keys = await self._client()
            key = await anyio.to_thread.run_sync(keys.get_signing_key_from_jwt, token)
            claims = jwt.decode(
                token,
                key.key,
                algorithms=ALGORITHMS,
                audience=self.audience,
                issuer=self.issuer,
                leeway=LEEWAY_S,
                options={"require": ["exp", "iss", "aud"]},
            )
        except ConfigError as exc:
            log.warning("a bearer token could not be checked: %s", exc)
            return None
        except jwt.PyJWKClientConnectionError as exc:  # the issuer's keys out of reach
            log.warning("the issuer's keys could not be fetched: %s", type(exc).__name__)
            return None
        except jwt.PyJWTError as exc:
            # the reason only ("Signature has expired", "Audience doesn't match"): never the token
            log.info("a bearer token was refused: %s", type(exc).__name__)
            return None
        audience = claims.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        return AccessToken(
            token=token,
            client_id=str(claims.get("client_id", claims.get("azp", claims.get("sub", "")))),
            scopes=_scopes(claims),
            # the SDK refuses a token past expires_at itself: the leeway of the check above
            expires_at=int(claims["exp"]) + LEEWAY_S,
            resource=self.audience if self.audience in audiences else None,
            subject=str(claims["sub"]) if "sub" in claims else None,
            claims={"iss": claims.get("iss"), "groups": _groups(claims)},
        )
