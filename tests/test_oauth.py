"""MCP over HTTP as an OAuth 2.1 resource server: a real server process, a real authorization
server (tests/oauth_server.py: RFC 8414 metadata, dynamic registration, PKCE, resource
indicators, RS256 JWTs), and the SDK's own OAuth clients.

Checked: the 401 and the RFC 9728 metadata it points to; a token refused for each of its parts
(expiry, audience, signature, issuer, not-before); each tool group behind its scope (403
``insufficient_scope`` naming the scope); the authorization code flow with PKCE and the client
credentials flow end to end; static tokens made by ``pylucene-mcp token``; no token in any log."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from joserfc.jwk import RSAKey
from mcp import Client
from mcp.client.auth import OAuthClientProvider, TokenStorage
from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
from mcp.shared.auth import (
    AuthorizationCodeResult,
    OAuthClientInformationFull,
    OAuthClientMetadata,
    OAuthToken,
)
from mcp.shared.exceptions import MCPError

from tests.http_server import WORDS, HttpServer, authorized, holding, write_notes
from tests.oauth_server import AuthorizationServer, User, free_port
from tests.waiting import arrives

pytestmark = [pytest.mark.anyio, pytest.mark.slow]

USERS = {
    "alice": User(scopes=("search",), groups=("team-a",)),
    "bob": User(scopes=("search", "crawl", "admin"), groups=("team-b",)),
    "carol": User(scopes=("profile",)),
}
JSON_HEADERS = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}


def rpc(method: str, params: dict[str, Any] | None = None) -> str:
    return json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or {}})


INITIALIZE = rpc(
    "initialize",
    {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
)


@pytest.fixture(scope="module")
def issuer() -> Iterator[AuthorizationServer]:
    server = AuthorizationServer(USERS).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = tmp_path_factory.mktemp("docs")
    return write_notes(docs, 8)


class Protected:
    def __init__(self, server: HttpServer, home: Path) -> None:
        self.server, self.home, self.url = server, home, server.url
        origin = self.url.rsplit("/mcp", 1)[0]
        self.metadata_url = f"{origin}/.well-known/oauth-protected-resource/mcp"


@pytest.fixture(scope="module")
def protected(
    tmp_path_factory: pytest.TempPathFactory, issuer: AuthorizationServer, folder: Path
) -> Iterator[Protected]:
    port = free_port()
    home = tmp_path_factory.mktemp("home")
    running = HttpServer(
        home,
        folder,
        at=f"127.0.0.1:{port}",
        env={
            "PYLUCENE_MCP_OAUTH_ISSUER": issuer.issuer,
            "PYLUCENE_MCP_OAUTH_AUDIENCE": f"http://127.0.0.1:{port}/mcp",
            "PYLUCENE_MCP_READERS": json.dumps({str(folder): ["*"]}),  # every person reads all
        },
    )
    yield Protected(running, home)
    out = running.stop()
    assert out == b"", out[:200]


def post(url: str, body: str, token: str | None = None) -> requests.Response:
    headers = dict(JSON_HEADERS)
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    return requests.post(url, data=body, headers=headers, timeout=60)


def test_without_a_token_the_answer_points_to_the_metadata(
    protected: Protected, issuer: AuthorizationServer
) -> None:
    refused = post(protected.url, INITIALIZE)
    assert refused.status_code == 401
    challenge = refused.headers["WWW-Authenticate"]
    assert challenge.startswith("Bearer ")
    assert f'resource_metadata="{protected.metadata_url}"' in challenge
    metadata = requests.get(protected.metadata_url, timeout=30).json()
    assert metadata["resource"] == protected.url
    assert [s.rstrip("/") for s in metadata["authorization_servers"]] == [issuer.issuer]
    assert set(metadata["scopes_supported"]) == {"search", "crawl", "admin"}


def test_a_token_is_refused_for_each_wrong_part(
    protected: Protected, issuer: AuthorizationServer
) -> None:
    audience = protected.url
    stranger = RSAKey.generate_key(2048, parameters={"kid": "test-1"})  # the same kid, not the key
    wrong = {
        "expired": issuer.token("bob", audience, lifetime_s=-120),
        "for another server": issuer.token("bob", "http://127.0.0.1:1/mcp"),
        "without an audience": issuer.token("bob", None),
        "signed by another key": issuer.token("bob", audience, key=stranger),
        "from another issuer": issuer.token("bob", audience, issuer="http://127.0.0.1:2"),
        "not yet valid": issuer.token("bob", audience, not_before_s=600),
        "not a JWT": "plm_notatoken",
    }
    for why, token in wrong.items():
        refused = post(protected.url, INITIALIZE, token)
        assert refused.status_code == 401, why
        assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"], why
    good = post(protected.url, INITIALIZE, issuer.token("bob", audience))
    assert good.status_code == 200, good.text


def test_a_token_within_the_clock_leeway_is_taken(
    protected: Protected, issuer: AuthorizationServer
) -> None:
    # expired 10 s ago by the issuer's clock: within the 30 s of difference docs/team.md allows
    late = issuer.token("bob", protected.url, lifetime_s=-10)
    assert post(protected.url, INITIALIZE, late).status_code == 200
    too_late = issuer.token("bob", protected.url, lifetime_s=-60)
    assert post(protected.url, INITIALIZE, too_late).status_code == 401


async def test_a_token_without_a_subject_names_no_user(
    protected: Protected, issuer: AuthorizationServer
) -> None:
    from pylucene_mcp.server.caller import Caller
    from pylucene_mcp.server.jwt_tokens import JwtVerifier

    # a client's own token (client credentials) may carry no sub: its client id is no user
    token = issuer.token("bob", protected.url, client_id="alice", without=("sub",))
    checked = await JwtVerifier(issuer.issuer, protected.url).verify_token(token)
    assert checked is not None and checked.client_id == "alice" and checked.subject is None
    assert Caller(checked.subject, ()).principals == {"*"}


def test_json_nested_too_deep_is_a_bad_request_not_a_crash(
    protected: Protected, issuer: AuthorizationServer
) -> None:
    deep = "[" * 200_000 + "]" * 200_000
    refused = post(protected.url, deep, issuer.token("bob", protected.url))
    assert refused.status_code == 400, refused.text
    assert "nests too deep" in refused.text
    assert post(protected.url, INITIALIZE, issuer.token("bob", protected.url)).status_code == 200


def test_a_foreign_origin_is_refused_even_with_a_good_token(
    protected: Protected, issuer: AuthorizationServer
) -> None:
    token = issuer.token("bob", protected.url)
    headers = {**JSON_HEADERS, "Authorization": f"Bearer {token}"}
    evil = {**headers, "Origin": "http://evil.example"}
    foreign = requests.post(protected.url, data=INITIALIZE, headers=evil, timeout=60)
    assert foreign.status_code == 403
    good = requests.post(protected.url, data=INITIALIZE, headers=headers, timeout=60)
    assert good.status_code == 200


def test_each_tool_group_needs_its_scope(protected: Protected, issuer: AuthorizationServer) -> None:
    alice = issuer.token("alice", protected.url)  # search only
    crawl = rpc("tools/call", {"name": "startCrawl", "arguments": {}})
    refused = post(protected.url, crawl, alice)
    assert refused.status_code == 403
    challenge = refused.headers["WWW-Authenticate"]
    assert 'error="insufficient_scope"' in challenge
    assert 'scope="search crawl"' in challenge
    admin = rpc("tools/call", {"name": "indexAdmin", "arguments": {"action": "optimize"}})
    assert 'scope="search admin"' in post(protected.url, admin, alice).headers["WWW-Authenticate"]
    carol = issuer.token("carol", protected.url)  # a valid token without this server's scopes
    search = rpc("tools/call", {"name": "search", "arguments": {"query": "heron"}})
    assert post(protected.url, search, carol).status_code == 403
    assert post(protected.url, INITIALIZE, carol).status_code == 200  # no tool: no scope needed


class Memory(TokenStorage):
    def __init__(self) -> None:
        self.tokens: OAuthToken | None = None
        self.client: OAuthClientInformationFull | None = None

    async def get_tokens(self) -> OAuthToken | None:
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken) -> None:
        self.tokens = tokens

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        return self.client

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self.client = client_info


def browser_flow(issuer: AuthorizationServer, person: str, url: str) -> OAuthClientProvider:
    """The SDK's authorization code client; ``person`` signs in at the authorization server
    (the redirect followed as a browser would, the code handed back as the callback would)."""
    redirected: dict[str, str] = {}

    async def redirect(authorization_url: str) -> None:
        issuer.approver = person
        answer = requests.get(authorization_url, allow_redirects=False, timeout=30)
        assert answer.status_code == 302, answer.text
        query = urllib.parse.urlparse(answer.headers["Location"]).query
        redirected.update(urllib.parse.parse_qsl(query))

    async def callback() -> AuthorizationCodeResult:
        return AuthorizationCodeResult(code=redirected["code"], state=redirected.get("state"))

    return OAuthClientProvider(
        server_url=url,
        client_metadata=OAuthClientMetadata(
            client_name="pylucene-mcp tests",
            redirect_uris=["http://127.0.0.1:9/callback"],
            grant_types=["authorization_code", "refresh_token"],
            response_types=["code"],
        ),
        storage=Memory(),
        redirect_handler=redirect,
        callback_handler=callback,
    )


async def test_a_person_signs_in_with_pkce_and_searches_but_cannot_crawl(
    protected: Protected, issuer: AuthorizationServer, folder: Path
) -> None:
    flow = browser_flow(issuer, "alice", protected.url)
    async with authorized(protected.url, auth=flow) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert {"search", "startCrawl"} <= tools
        found = await client.call_tool("search", {"query": "*"})
        assert not found.is_error, found.content
        signed_in = issuer.token_requests
        # 403 insufficient_scope: the SDK signs alice in again asking for crawl too; she has
        # no crawl, the new token has none, and the call fails for good
        with pytest.raises(MCPError):
            await client.call_tool("startCrawl", {"wait": True})
        assert issuer.token_requests == signed_in + 1
        assert "crawl" in issuer.asked[-1] and "crawl" not in issuer.granted[-1]


async def test_a_service_with_client_credentials_crawls_and_finds(
    protected: Protected, issuer: AuthorizationServer, folder: Path
) -> None:
    client_id, secret = issuer.add_client("bob")
    auth = ClientCredentialsOAuthProvider(
        server_url=protected.url,
        storage=Memory(),
        client_id=client_id,
        client_secret=secret,
        scope="search crawl",
        issuer=issuer.issuer,
    )
    async with authorized(protected.url, auth=auth) as client:
        crawled = await client.call_tool("startCrawl", {"wait": True})
        assert not crawled.is_error, crawled.content
        for word in WORDS:
            found = await client.call_tool("search", {"query": word, "pageSize": 50})
            assert found.structured_content is not None
            paths = {hit["filePath"] for hit in found.structured_content["documents"]}
            assert paths == holding(folder, word)


def test_no_token_reaches_a_log(protected: Protected, issuer: AuthorizationServer) -> None:
    token = issuer.token("bob", protected.url)
    expired = issuer.token("bob", protected.url, lifetime_s=-120)
    assert post(protected.url, INITIALIZE, token).status_code == 200
    assert post(protected.url, INITIALIZE, expired).status_code == 401
    written = "".join(protected.server.said)
    for path in (protected.home / "logs").rglob("*"):
        if path.is_file():
            written += path.read_text(encoding="utf-8", errors="replace")
    for secret in (token, expired):
        assert secret not in written and secret.split(".")[2] not in written


async def settled(client: Client) -> None:
    """Waits until no admin operation of the server runs."""

    async def operations() -> list[dict[str, Any]]:
        status = await client.call_tool("getIndexAdminStatus", {})
        assert status.structured_content is not None, status.content
        return list(status.structured_content["operations"])

    await arrives(
        operations,
        lambda ops: not any(op["state"] == "running" for op in ops),
        120,
        "the end of every admin operation",
    )


def make_token(home: Path, *arguments: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", "token", *arguments],
        capture_output=True,
        text=True,
        env={**os.environ, "PYLUCENE_MCP_HOME": str(home)},
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


async def test_static_tokens_from_the_file_and_only_while_they_are_in_it(
    tmp_path: Path, folder: Path
) -> None:
    home = tmp_path / "home"
    searcher = make_token(home, "--subject", "dora", "--scopes", "search", "--groups", "g1")
    keeper = make_token(home, "--subject", "erik", "--scopes", "search,crawl,admin")
    tokens = home / "tokens.yaml"
    assert searcher not in tokens.read_text() and searcher.startswith("plm_")
    assert oct(tokens.stat().st_mode & 0o777) == "0o600"
    readers = json.dumps({str(folder): ["*"]})
    running = HttpServer(
        home, folder, env={"PYLUCENE_MCP_TOKENS_FILE": str(tokens), "PYLUCENE_MCP_READERS": readers}
    )
    try:
        url = running.url
        assert post(url, INITIALIZE).status_code == 401
        assert post(url, INITIALIZE, "plm_" + "x" * 43).status_code == 401
        assert post(url, INITIALIZE, searcher).status_code == 200
        crawl = rpc("tools/call", {"name": "startCrawl", "arguments": {}})
        assert post(url, crawl, searcher).status_code == 403
        headers = {"Authorization": f"Bearer {keeper}"}
        async with authorized(url, headers=headers) as client:
            crawled = await client.call_tool("startCrawl", {"wait": True})
            assert not crawled.is_error, crawled.content
        # a token lives 90 days unless said otherwise, and is refused once they are over
        entries = _entries(tokens)
        assert all(abs(e["expires"] - time.time() - 90 * 86_400) < 600 for e in entries)
        (erik,) = [e for e in entries if e["subject"] == "erik"]
        erik["expires"] = int(time.time()) - 1
        tokens.write_text(json.dumps({"tokens": entries}))
        assert post(url, INITIALIZE, keeper).status_code == 401
        # an entry of an older version, without a lifetime, is taken (each time), with a warning
        (dora,) = [e for e in entries if e["subject"] == "dora"]
        del dora["expires"]
        tokens.write_text(json.dumps({"tokens": entries}))
        for _ in range(2):
            assert post(url, INITIALIZE, searcher).status_code == 200
        # a token taken out of the file is refused from then on
        kept = [e for e in entries if e["subject"] != "dora"]
        tokens.write_text(json.dumps({"tokens": kept}))
        assert post(url, INITIALIZE, searcher).status_code == 401
    finally:
        assert running.stop() == b""


def _entries(path: Path) -> list[dict[str, Any]]:
    import yaml

    return list(yaml.safe_load(path.read_text())["tokens"])


def test_a_token_needs_known_scopes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", "token", "--subject", "x", "--scopes", "write"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYLUCENE_MCP_HOME": str(tmp_path)},
        timeout=60,
    )
    assert done.returncode != 0 and done.stdout == ""
    assert "search, crawl, admin" in done.stderr


def test_serving_beyond_loopback_needs_authentication(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "pylucene_mcp", "serve", "--http", "0.0.0.0:0"],
        capture_output=True,
        text=True,
        env={**os.environ, "PYLUCENE_MCP_HOME": str(tmp_path)},
        timeout=60,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "oauth_issuer" in done.stderr and "tokens_file" in done.stderr


APPS_HOST = Path(__file__).with_name("apps_host")
#: the folder tools' own answer on a server whose folders come from its environment
FROM_ENVIRONMENT = "the directories come from the environment variable PYLUCENE_MCP_DIRECTORIES"


async def test_the_typescript_sdk_client_signs_in_and_searches(
    protected: Protected, issuer: AuthorizationServer, folder: Path
) -> None:
    node = shutil.which("node")
    if node is None or not (APPS_HOST / "node_modules/@modelcontextprotocol/client").is_dir():
        pytest.skip("Node.js and tests/apps_host's packages (scripts/ensure-apps-host) needed")
    bob = {"Authorization": f"Bearer {issuer.token('bob', protected.url)}"}
    async with authorized(protected.url, headers=bob) as client:  # crawled by one who may
        crawled = await client.call_tool("startCrawl", {"wait": True})
        assert not crawled.is_error, crawled.content
    issuer.approver = "alice"
    done = subprocess.run(
        [node, "oauth_client.mjs", protected.url, "heron"],
        cwd=APPS_HOST,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    said = json.loads(done.stdout.strip().splitlines()[-1])
    assert said["redirected"] and said["scope"] == "search"
    assert {"search", "startCrawl"} <= set(said["tools"])
    assert set(said["paths"]) == holding(folder, "heron")
    assert said["crawl"].startswith("refused"), said["crawl"]


def test_doctor_says_who_may_call_and_never_a_token(
    tmp_path: Path, issuer: AuthorizationServer
) -> None:
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.doctor import FAIL, OK, check_http
    from pylucene_mcp.server.auth import add_static_token, read_static_tokens

    tokens = tmp_path / "tokens.yaml"
    made = add_static_token(tokens, "dora", ["search"], ["g1"])
    digest = read_static_tokens(tokens)[0].sha256
    settings = Settings(
        http="127.0.0.1:8080",
        tokens_file=tokens,
        oauth_issuer=issuer.issuer,
        oauth_audience="http://127.0.0.1:8080/mcp",
    )
    check = check_http(settings)
    assert check is not None and check.status == OK, check
    assert "1 static token(s)" in check.detail and f"{issuer.issuer}/jwks" in check.detail
    assert made not in check.detail and digest not in check.detail
    wide_open = check_http(Settings(http="0.0.0.0:8080"))
    assert wide_open is not None and wide_open.status == FAIL
    assert "without authentication" in wide_open.detail
    assert check_http(Settings()) is None


async def test_a_person_with_every_scope_uses_every_tool(
    protected: Protected, issuer: AuthorizationServer, folder: Path, tmp_path: Path
) -> None:
    """Every tool the server lists, called over HTTP with a token of the issuer's that holds
    search, crawl and admin: each answers (the folders, which this server takes from its
    environment, with the tool's own refusal to change them; the index is crawled again at the
    end, as the other tests of this server expect)."""
    bob = {"Authorization": f"Bearer {issuer.token('bob', protected.url)}"}
    extra = tmp_path / "more"
    extra.mkdir()
    (extra / "extra.txt").write_text("a heron elsewhere", encoding="utf-8")
    some, other = sorted(holding(folder, "heron"))[0], sorted(holding(folder, "otter"))[0]
    arguments: dict[str, dict[str, Any]] = {
        "search": {"query": "heron"},
        "getDocumentDetails": {"filePath": some},
        "profileQuery": {"query": "heron"},
        "explainMiss": {"query": "heron", "filePath": other},
        "locateQuote": {"quote": Path(some).read_text(encoding="utf-8")[:40]},
        "startCrawl": {"wait": True},
        "addCrawlableDirectory": {"path": str(extra), "crawlNow": False},
        "removeCrawlableDirectory": {"path": str(extra)},
        "unlockIndex": {"confirm": True},
    }
    answered: dict[str, bool] = {}
    async with authorized(protected.url, headers=bob) as client:
        assert not (await client.call_tool("startCrawl", {"wait": True})).is_error
        listed = [t.name for t in (await client.list_tools()).tools]
        for name in listed:
            if name == "purgeIndex":
                continue  # last: it empties the index
            result = await client.call_tool(name, arguments.get(name, {}))
            said = result.content[0].text if result.content else ""  # type: ignore[union-attr]
            answered[name] = not result.is_error or FROM_ENVIRONMENT in said
            await settled(client)  # an admin operation runs in the background: one at a time
        purged = await client.call_tool("purgeIndex", {"confirm": True})
        answered["purgeIndex"] = not purged.is_error
        await settled(client)
        assert not (await client.call_tool("startCrawl", {"wait": True})).is_error
    assert set(answered) == set(listed) and len(listed) >= 24
    failed = sorted(name for name, ok in answered.items() if not ok)
    assert failed == [], failed


def test_keys_out_of_reach_refuse_the_token_and_say_so(
    tmp_path: Path, issuer: AuthorizationServer, folder: Path
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    running = HttpServer(
        tmp_path / "home",
        folder,
        at=f"127.0.0.1:{port}",
        env={
            "PYLUCENE_MCP_OAUTH_ISSUER": issuer.issuer,
            "PYLUCENE_MCP_OAUTH_AUDIENCE": url,
            "PYLUCENE_MCP_OAUTH_JWKS_URL": f"http://127.0.0.1:{free_port()}/jwks",  # no one
        },
    )
    try:
        assert post(url, INITIALIZE, issuer.token("bob", url)).status_code == 401
    finally:
        assert running.stop() == b""
    logged = "".join(running.said) + "".join(
        p.read_text(encoding="utf-8") for p in (tmp_path / "home" / "logs").glob("*.log")
    )
    assert "the issuer's keys could not be fetched" in logged
