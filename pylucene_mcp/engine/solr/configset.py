"""The product's configset (``configset/``: the schema and solrconfig of a collection) and
``solr init``: upload it under a name of its content's hash, then create the collection or point
it at the new configset, and wait until every shard has an active replica.

Named by content hash because Solr keeps a core on the schema it loaded: re-uploading a changed
configset under the same name leaves the cores on the old one until they are reloaded, and a
node that restarts in between would load the new one beside its peers on the old. A new name is
a new configset, and MODIFYCOLLECTION plus RELOAD moves every core at once."""

from __future__ import annotations

import hashlib
import io
import time
import zipfile
from dataclasses import dataclass
from importlib import resources
from typing import Any

from pylucene_mcp.basics import errors
from pylucene_mcp.engine.solr.client import SolrClient

FILES = ("schema.xml", "solrconfig.xml")
PREFIX = "pylucene-mcp-"


def files() -> dict[str, bytes]:
    """The configset's files, by name."""
    folder = resources.files("pylucene_mcp.engine.solr") / "configset"
    return {name: (folder / name).read_bytes() for name in FILES}


def name() -> str:
    """The configset's name in the cluster: ``pylucene-mcp-`` and its content's hash."""
    digest = hashlib.sha256()
    for file_name, content in sorted(files().items()):
        digest.update(file_name.encode() + b"\0" + content + b"\0")
    return PREFIX + digest.hexdigest()[:12]


def archive() -> bytes:
    """The configset as the zip that Solr's configset API takes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as zipped:
        for file_name, content in files().items():
            zipped.writestr(file_name, content)
    return buffer.getvalue()


@dataclass(frozen=True)
class InitReport:
    """What ``solr init`` did."""

    collection: str
    configset: str
    uploaded: bool
    created: bool
    updated: bool
    shards: int
    replicas: int

    def summary(self) -> str:
        done = "created" if self.created else "updated" if self.updated else "already current"
        upload = "uploaded" if self.uploaded else "already there"
        return (
            f"collection '{self.collection}' {done} ({self.shards} shard(s) × {self.replicas} "
            f"replica(s)); configset {self.configset} {upload}"
        )


def init(client: SolrClient, shards: int = 2, replicas: int = 2, wait_s: float = 120) -> InitReport:
    """Uploads the configset when the cluster lacks it, then creates the collection with
    ``shards`` × ``replicas`` or moves an existing one to the configset; idempotent.

    Raises:
        InvalidRequestError: for fewer than one shard or replica.
        RemoteIndexError: when the cluster refuses (the plugin jar missing on a node, say).
    """
    if shards < 1 or replicas < 1:
        raise errors.InvalidRequestError("--shards and --replicas must be 1 or more")
    config = name()
    collection = client.settings.collection
    known = client.get("admin/configs", {"action": "LIST"}).get("configSets", [])
    uploaded = config not in known
    if uploaded:
        client.post(
            "admin/configs",
            params={"action": "UPLOAD", "name": config},
            data=archive(),
            content_type="application/octet-stream",
        )
    created, updated = _create_or_move(client, collection, config, shards, replicas)
    state = wait_until_active(client, collection, wait_s)
    return InitReport(collection, config, uploaded, created, updated, *_layout(state))


def _create_or_move(
    client: SolrClient, collection: str, config: str, shards: int, replicas: int
) -> tuple[bool, bool]:
    """Creates ``collection`` on ``config`` with ``shards`` × ``replicas`` when the cluster
    lacks it, or moves it to ``config`` and reloads it when it is on another. Returns whether
    it was created, and whether it was moved.

    Raises:
        RemoteIndexError: when the cluster refuses to create it.
    """
    existing = collections(client).get(collection)
    if existing is None:
        try:
            client.get(
                "admin/collections",
                {
                    "action": "CREATE",
                    "name": collection,
                    "numShards": shards,
                    "replicationFactor": replicas,
                    "collection.configName": config,
                    "waitForFinalState": "true",
                },
            )
        except errors.PyLuceneMcpError as exc:
            raise errors.RemoteIndexError(
                f"creating the collection '{collection}' failed: {exc}. If a class "
                "io.github.pylucenemcp.solr.* is not found, put the plugin jars on every node "
                "(`pylucene-mcp solr plugin` lists them; docs/scale-out.md)"
            ) from None
        return True, False
    if existing.get("configName") == config:
        return False, False
    client.get(
        "admin/collections",
        {"action": "MODIFYCOLLECTION", "collection": collection, "collection.configName": config},
    )
    client.get("admin/collections", {"action": "RELOAD", "name": collection})
    return False, True


def _layout(state: dict[str, Any]) -> tuple[int, int]:
    """A collection's number of shards and the most replicas a shard has (CLUSTERSTATUS)."""
    shards = state.get("shards", {})
    return len(shards), max((len(s.get("replicas", {})) for s in shards.values()), default=0)


#: the collection of a collection's chunks and vectors (docs/semantic.md)
VECTORS_SUFFIX = "-vectors"


def ensure_beside(client: SolrClient, suffix: str, wait_s: float = 120) -> str:
    """The collection named as the configured one with ``suffix``, created with its configset
    and its shards and replicas when the cluster lacks it (moved to its configset when on
    another). Returns its name.

    Raises:
        RemoteIndexError: when the configured collection does not exist, or the cluster
            refuses.
    """
    main = client.settings.collection
    name_beside = main + suffix
    existing = collections(client)
    if main not in existing:
        raise errors.RemoteIndexError(
            f"the collection '{main}' does not exist: run `pylucene-mcp solr init`"
        )
    shards, replicas = _layout(existing[main])
    config = str(existing[main]["configName"])  # CLUSTERSTATUS gives each its configset
    _create_or_move(client, name_beside, config, max(1, shards), max(1, replicas))
    wait_until_active(client, name_beside, wait_s)
    return name_beside


def collections(client: SolrClient) -> dict[str, dict[str, Any]]:
    """The cluster's collections with their state (CLUSTERSTATUS), by name."""
    status = client.get("admin/collections", {"action": "CLUSTERSTATUS"})
    found: dict[str, dict[str, Any]] = status.get("cluster", {}).get("collections", {}) or {}
    return found


def wait_until_active(client: SolrClient, collection: str, wait_s: float) -> dict[str, Any]:
    """The collection's state once each shard has an active leader (or after ``wait_s``).

    Raises:
        RemoteIndexError: when a shard has no active replica by then.
    """
    deadline = time.monotonic() + wait_s
    while True:
        state = collections(client).get(collection)
        if state is not None and _all_shards_led(state):
            return state
        if time.monotonic() > deadline:
            raise errors.RemoteIndexError(
                f"the collection '{collection}' has a shard without an active replica after "
                f"{wait_s:.0f} s; see the nodes' logs"
            )
        time.sleep(0.2)


def _all_shards_led(state: dict[str, Any]) -> bool:
    shards = state.get("shards", {})
    return bool(shards) and all(_led(shard) for shard in shards.values())


def _led(shard: dict[str, Any]) -> bool:
    """Whether the shard (of CLUSTERSTATUS) has an active leader."""
    return any(
        r.get("state") == "active" and r.get("leader") == "true"
        for r in shard.get("replicas", {}).values()
    )


@dataclass(frozen=True)
class Health:
    """What ``doctor`` reports of the cluster and the collection."""

    live_nodes: tuple[str, ...]
    exists: bool
    configset: str | None
    current: bool
    shards: int
    active_replicas: int
    replicas: int
    leaderless: tuple[str, ...]

    def problems(self, collection: str) -> list[str]:
        """What is wrong, each with what to do (empty: healthy)."""
        if not self.exists:
            return [f"the collection '{collection}' does not exist: run `pylucene-mcp solr init`"]
        found = []
        if not self.current:
            found.append(
                f"the collection uses the configset {self.configset}, not this version's "
                f"{name()}: run `pylucene-mcp solr init` (and reindex when the schema changed)"
            )
        if self.leaderless:
            found.append(
                f"shard(s) {', '.join(self.leaderless)} have no active leader: start their nodes"
            )
        return found


def health(client: SolrClient) -> Health:
    """The live nodes, and the collection's configset and replicas (CLUSTERSTATUS)."""
    status = client.get("admin/collections", {"action": "CLUSTERSTATUS"}).get("cluster", {})
    state = (status.get("collections") or {}).get(client.settings.collection)
    nodes = tuple(status.get("live_nodes", []))
    if state is None:
        return Health(nodes, False, None, False, 0, 0, 0, ())
    shards = state.get("shards", {})
    replicas = [r for shard in shards.values() for r in shard.get("replicas", {}).values()]
    return Health(
        live_nodes=nodes,
        exists=True,
        configset=state.get("configName"),
        current=state.get("configName") == name(),
        shards=len(shards),
        active_replicas=sum(r.get("state") == "active" for r in replicas),
        replicas=len(replicas),
        leaderless=tuple(shard_name for shard_name, shard in shards.items() if not _led(shard)),
    )
