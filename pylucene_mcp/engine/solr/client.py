"""A thin SolrCloud client over ``requests``: a list of node URLs tried in turn, basic auth and
TLS settings, JSON in and out, and Solr's refusals turned into the project's errors.

A request goes to the first node that answers; a node that cannot be reached (refused, timed
out, or a 503 while it starts or stops) is skipped and the next one tried, so a collection stays
usable while one node is down. Solr's own refusals (a 4xx, or a 5xx with an error body) are not
retried: the same request would fail on every node."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import requests

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.config import NEEDS_SOLR_URLS
from pylucene_mcp.basics.redact import redact, split_credentials

log = logging.getLogger(__name__)

#: answers of a node that is starting, stopping or has lost its cluster: try another node
_UNAVAILABLE = {502, 503, 504}


@dataclass(frozen=True)
class SolrSettings:
    """Where a collection is and how to reach it."""

    urls: tuple[str, ...]
    collection: str = "pylucene-mcp"
    username: str | None = None
    password: str | None = None
    #: True (the system's trust store), False (no check: never in production), or a CA bundle
    verify: bool | str = True
    timeout_s: float = 30.0
    #: how long a write waits for a node that can take it (a node restarting, a new leader)
    write_retry_s: float = 60.0

    def __post_init__(self) -> None:
        if not self.urls:
            raise errors.ConfigError(f"the Solr backend {NEEDS_SOLR_URLS}")
        for url in self.urls:
            if not url.startswith(("http://", "https://")):
                raise errors.ConfigError(
                    f"solr_urls: {url!r} is not an http(s) URL; give a node's base URL, such "
                    "as http://host:8983/solr"
                )
        self._take_credentials_out_of_the_urls()
        if (self.username is None) != (self.password is None):
            raise errors.ConfigError("solr_username and solr_password go together: set both")

    def _take_credentials_out_of_the_urls(self) -> None:
        """A node URL written as ``https://user:password@host/solr`` gives the credentials to
        ``username`` and ``password`` and is kept without them, so that no message shows them."""
        clean = []
        for url in self.urls:
            bare, user, password = split_credentials(url)
            clean.append(bare)
            if user is None:
                continue
            if self.username is None:
                object.__setattr__(self, "username", user)
                object.__setattr__(self, "password", password or "")
            elif (user, password or "") != (self.username, self.password or ""):
                raise errors.ConfigError(
                    f"solr_urls: {redact(url)} carries credentials other than solr_username and "
                    "solr_password; give them once, in solr_username and solr_password"
                )
        object.__setattr__(self, "urls", tuple(clean))


class SolrClient:
    """Requests to a SolrCloud cluster; thread-safe (one ``requests.Session`` per client)."""

    def __init__(self, settings: SolrSettings) -> None:
        self.settings = settings
        self.urls = [url.rstrip("/") for url in settings.urls]
        self._session = requests.Session()
        if settings.username is not None:
            self._session.auth = (settings.username, settings.password or "")
        self._session.verify = settings.verify
        self._preferred = 0

    def close(self) -> None:
        self._session.close()

    def collection(self, handler: str) -> str:
        """The path of ``handler`` (``select``, ``update`` …) of the configured collection."""
        return f"{self.settings.collection}/{handler}"

    def update(self, commands: Sequence[str], retry_s: float = 0.0) -> None:
        """Sends ``commands`` (each ``"verb":{…}``) to the configured collection as one JSON
        object whose keys repeat ("add", "delete" …): Solr applies them in order."""
        self.post(
            self.collection("update"),
            params={"failOnVersionConflicts": "false"},
            data=("{" + ",".join(commands) + "}").encode("utf-8"),
            retry_s=retry_s,
        )

    def commit(self, retry_s: float = 0.0) -> None:
        """Makes what was sent to the configured collection durable and searchable."""
        self.post(self.collection("update"), {"commit": {"waitSearcher": True}}, retry_s=retry_s)

    def get(self, path: str, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
        return self.request("GET", path, params=params)

    def post(
        self,
        path: str,
        body: Any = None,
        params: Mapping[str, Any] | None = None,
        *,
        data: bytes | None = None,
        content_type: str = "application/json",
        retry_s: float = 0.0,
    ) -> dict[str, Any]:
        payload = data if data is not None else json.dumps(body).encode("utf-8")
        return self.request(
            "POST",
            path,
            params=params,
            data=payload,
            headers={"Content-Type": content_type},
            retry_s=retry_s,
        )

    def request(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, Any] | None = None,
        data: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        nodes: Sequence[str] | None = None,
        retry_s: float = 0.0,
    ) -> dict[str, Any]:
        """The JSON answer of ``path`` (below a node's base URL) from the first node that
        answers, the last one that answered first. When none can serve it (down, starting, a
        shard electing its leader), the nodes are tried again for ``retry_s`` seconds, and so is
        a request they fail with a server error (for writes, which are idempotent: adds and
        deletes by path, commits; a leader fails a write whose replica is going down).

        Raises:
            RemoteIndexError: when no node answers, or Solr refuses the request (its message
                quoted, with what to do).
        """
        deadline = time.monotonic() + retry_s
        pause = 0.25
        while True:
            try:
                return self._once(method, path, params, data, headers, nodes, retry_s > 0)
            except _Unavailable as exc:
                if time.monotonic() + pause > deadline:
                    raise errors.RemoteIndexError(str(exc)) from None
                log.warning("%s; trying again in %.2f s", exc, pause)
                time.sleep(pause)
                pause = min(pause * 2, 2.0)

    def _once(
        self,
        method: str,
        path: str,
        params: Mapping[str, Any] | None,
        data: bytes | None,
        headers: Mapping[str, str] | None,
        nodes: Sequence[str] | None,
        retrying: bool,
    ) -> dict[str, Any]:
        order = list(nodes) if nodes is not None else self._rotation()
        failures = []
        for base in order:
            url = f"{base}/{path}"
            try:
                answer = self._session.request(
                    method,
                    url,
                    params={"wt": "json", **(params or {})},
                    data=data,
                    headers=dict(headers or {}),
                    timeout=self.settings.timeout_s,
                    # given with each request, solr_verify wins over REQUESTS_CA_BUNDLE and
                    # CURL_CA_BUNDLE (which requests lets override the session's choice)
                    verify=self.settings.verify,
                )
            except requests.exceptions.SSLError as exc:
                raise errors.RemoteIndexError(
                    f"TLS with {base} failed ({_first_line(exc)}); set solr_verify to the CA "
                    "bundle that signed the node's certificate"
                ) from None
            except requests.RequestException as exc:
                failures.append(f"{base}: {_first_line(exc)}")
                log.warning("Solr node %s did not answer: %s", base, _first_line(exc))
                continue
            if answer.status_code in _UNAVAILABLE or (retrying and answer.status_code >= 500):
                # starting, stopping, or a shard without a leader yet (and, for a write, a
                # replica going down under the leader that forwards it): another node, or later
                problem = _solr_error(answer)
                failures.append(f"{base}: HTTP {answer.status_code} {_message(problem)}".strip())
                continue
            if base in self.urls:
                self._preferred = self.urls.index(base)
            return self._answer(answer, base, path)
        raise _Unavailable(
            "no Solr node answered ("
            + "; ".join(failures)
            + "): check solr_urls (PYLUCENE_MCP_SOLR_URLS) and that the cluster runs"
        )

    def _rotation(self) -> list[str]:
        first = self._preferred
        return self.urls[first:] + self.urls[:first]

    def _answer(self, answer: requests.Response, base: str, path: str) -> dict[str, Any]:
        if answer.status_code == 401:
            raise errors.RemoteIndexError(
                f"{base} refused the credentials (HTTP 401): set solr_username and "
                "solr_password (PYLUCENE_MCP_SOLR_USERNAME, PYLUCENE_MCP_SOLR_PASSWORD) to a "
                "user of the cluster"
            )
        if answer.status_code == 403:
            raise errors.RemoteIndexError(
                f"{base} does not allow this user to call {path} (HTTP 403): give the user "
                "the read and update permissions on the collection"
            )
        try:
            body = answer.json()
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise errors.RemoteIndexError(
                f"{base}/{path} answered HTTP {answer.status_code} without JSON; is "
                f"{base} the base URL of a Solr node (ending in /solr)?"
            )
        problem = _solr_error(answer, body)
        if problem is not None:
            raise _refusal(problem, answer.status_code, base, path, self.settings.collection)
        return body


class _Unavailable(Exception):
    """No node could serve a request now (it may succeed later)."""


def _message(error: dict[str, Any] | None) -> str:
    if not error:
        return ""
    return str(error.get("msg") or "").strip().split("\n")[0][:200]


def _solr_error(
    answer: requests.Response, body: dict[str, Any] | None = None
) -> dict[str, Any] | None:
    if body is None:
        try:
            body = answer.json()
        except ValueError:
            return None
    if not isinstance(body, dict):
        return None
    error = body.get("error")
    if isinstance(error, dict):
        return error
    if answer.status_code >= 400:
        return {"msg": f"HTTP {answer.status_code}", "code": answer.status_code}
    return None


def _refusal(
    error: dict[str, Any], status: int, base: str, path: str, collection: str
) -> errors.PyLuceneMcpError:
    message = str(error.get("msg") or error.get("trace", "")).strip().split("\n")[0]
    if status == 404 and collection in path:
        return errors.RemoteIndexError(
            f"the collection '{collection}' does not exist on {base} ({message}): run "
            "`pylucene-mcp solr init`, or set solr_collection to an existing one"
        )
    if "Could not find collection" in message or "Collection not found" in message:
        return errors.RemoteIndexError(
            f"the collection '{collection}' does not exist ({message}): run "
            "`pylucene-mcp solr init`, or set solr_collection to an existing one"
        )
    if status == 400:
        return errors.InvalidRequestError(f"Solr refused the request: {message}")
    return errors.RemoteIndexError(f"{base}/{path} failed (HTTP {status}): {message}")


def _first_line(exc: BaseException) -> str:
    return str(exc).split("\n")[0][:300]
