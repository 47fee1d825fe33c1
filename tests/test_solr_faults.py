"""The SolrCloud backend when the cluster fails under it, on a 2-node cluster of this module's own
(its nodes are stopped and started): a node stopped before a query makes the answer partial
instead of failing, and says so; a node stopped during writes does not lose them (they go to the
other node, and what was committed stays); a wrong URL, a missing collection, a node that
answers something else and missing or wrong credentials give errors that name the fix."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from pylucene_mcp.basics.errors import RemoteIndexError
from pylucene_mcp.engine.core.request import SearchRequest
from pylucene_mcp.engine.solr import SolrBackend, SolrClient, SolrSettings, init
from pylucene_mcp.engine.solr.configset import collections
from tests.solr_cluster import LocalCluster, basic_auth
from tests.waiting import until

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    started = LocalCluster(2)
    try:
        yield started
    finally:
        started.close()


def _collection(cluster: LocalCluster, name: str, replicas: int) -> SolrSettings:
    settings = SolrSettings(tuple(cluster.urls), collection=name, write_retry_s=90)
    client = SolrClient(settings)
    try:
        init(client, shards=2, replicas=replicas)
    finally:
        client.close()
    return settings


def _docs(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        {"file_path": f"/faults/doc{n:04}.txt", "content": f"harbour lantern number{n}"}
        for n in range(start, start + count)
    ]


def _node_of(settings: SolrSettings, cluster: LocalCluster, shard: str) -> int:
    """The index (in the cluster's URLs) of the node that holds ``shard``'s replica."""
    client = SolrClient(settings)
    try:
        state = collections(client)[settings.collection]
    finally:
        client.close()
    replica = next(iter(state["shards"][shard]["replicas"].values()))
    return cluster.urls.index(replica["base_url"])


def test_a_stopped_node_makes_the_answer_partial_and_says_so(cluster: LocalCluster) -> None:
    settings = _collection(cluster, "partial", replicas=1)  # each shard on one node only
    backend = SolrBackend.open(settings)
    written = _docs(40)
    with backend.writer() as writer:
        for doc in written:
            writer.add(doc)
    whole = backend.search(SearchRequest("harbour", page_size=100, max_passages=0))
    assert whole.total_hits == len(written) and not whole.partial_results
    down = _node_of(settings, cluster, "shard2")
    cluster.stop_node(down)
    try:
        partial = backend.search(SearchRequest("harbour", page_size=100, max_passages=0))
        assert partial.partial_results
        assert 0 < partial.total_hits < len(written), "the other shard's hits still come"
        assert partial.partial_details and "shard" in partial.partial_details
    finally:
        cluster.start_node(down)
    until(lambda: len(backend) == len(written), 120, "the shard's replica to recover")
    assert not backend.search(SearchRequest("harbour", max_passages=0)).partial_results
    backend.close()


def test_writes_survive_a_node_stopped_under_them(cluster: LocalCluster) -> None:
    settings = _collection(cluster, "writes", replicas=2)
    backend = SolrBackend.open(settings)
    committed = _docs(50)
    with backend.writer() as writer:
        for doc in committed:
            writer.add(doc)
    stopped = threading.Event()

    def stop_first_node() -> None:
        cluster.stop_node(0)  # the node the client tries first
        stopped.set()

    later = _docs(200, start=50)
    try:
        stopper = threading.Thread(target=stop_first_node)
        for n in range(0, len(later), 20):  # one block of writes after another, as a crawl
            if n == 40:
                stopper.start()
            with backend.writer() as writer:
                for doc in later[n : n + 20]:
                    writer.add(doc)
        stopper.join()
        assert stopped.is_set()
        assert len(backend) == len(committed) + len(later), "no write lost while a node was down"
    finally:
        cluster.start_node(0)
    until(lambda: len(backend) == len(committed) + len(later), 120, "the node to recover")
    # the node that was stopped serves every document again, alone
    alone = SolrBackend.open(SolrSettings((cluster.urls[0],), collection="writes"))
    until(lambda: len(alone) == len(committed) + len(later), 120, "node 0 to serve them all")
    alone.close()
    backend.close()


def test_a_wrong_url_names_the_setting() -> None:
    settings = SolrSettings(("http://127.0.0.1:9/solr",), timeout_s=2)
    with pytest.raises(RemoteIndexError, match="solr_urls"):
        SolrBackend.open(settings)


def test_a_missing_collection_names_solr_init(cluster: LocalCluster) -> None:
    settings = SolrSettings(tuple(cluster.urls), collection="never-made")
    with pytest.raises(RemoteIndexError, match="solr init"):
        SolrBackend.open(settings)


def test_a_url_that_is_no_solr_node_says_so(cluster: LocalCluster) -> None:
    node = cluster.urls[0].removesuffix("/solr")
    settings = SolrSettings((node + "/nothing-here",))
    with pytest.raises(RemoteIndexError, match="base URL"):
        SolrBackend.open(settings)


def test_credentials_are_asked_for_and_checked(cluster: LocalCluster) -> None:
    """The cluster is secured for this test only: open again after it, whatever the order."""
    settings = _collection(cluster, "secured", replicas=1)
    cluster.secure(basic_auth({"searcher": "right-password"}))
    try:
        _check_credentials(settings)
    finally:
        cluster.secure({})  # no authentication

        def opens_anonymously() -> bool:
            try:
                SolrBackend.open(settings).close()
            except RemoteIndexError:
                return False
            return True

        until(opens_anonymously, 60, "the nodes to drop the security.json")


def _check_credentials(settings: SolrSettings) -> None:
    allowed = SolrSettings(
        settings.urls, collection="secured", username="searcher", password="right-password"
    )

    def refuses_anonymous() -> bool:
        try:
            SolrBackend.open(settings).close()
        except RemoteIndexError as exc:
            return "solr_username" in str(exc)
        return False

    until(refuses_anonymous, 60, "the nodes to load the security.json")
    wrong = SolrSettings(settings.urls, collection="secured", username="searcher", password="x")
    with pytest.raises(RemoteIndexError, match="solr_password"):
        SolrBackend.open(wrong)
    backend = SolrBackend.open(allowed)
    try:
        with backend.writer() as writer:
            writer.add({"file_path": "/secured/a.txt", "content": "a lantern"})
        assert [h.file_path for h in backend.search(SearchRequest("lantern")).documents] == [
            "/secured/a.txt"
        ]
    finally:
        backend.close()
