"""The semantic path's cost and worth (issue 36, docs/semantic.md).

``--cost`` (the default): the encoder alone. Documents of 2–5 KB of real text (CACM abstracts
joined until each reaches its drawn length) cut into chunks and embedded with late and with
plain chunking, interleaved, and queries embedded one at a time: ms per document, tokens per
second, ms per query (p50/p95).

``--scale N``: N such documents in the product's index, then their vectors made by the
server's embedder: seconds per document, the size on disk of the index and of its vectors,
the process's RSS with vectors off and on, and p50/p95 of lexical, semantic and hybrid
searches (CACM titles as queries), interleaved.

``--crosslingual``: the Debian Reference (Debian's ``debian-reference-de`` and ``-en``: the same
book in German and English, its sections under the same ids), each section a document with its
language; each section's German title as a query among the English sections, and each English
title among the German ones: whether the same section comes first (MRR@10) and among the first
ten (success@10), for lexical (the title's words ORed), semantic and hybrid search.

``--walk N``: the vector search alone, on N chunk vectors (384 numbers, drawn around 2,000
topic centres, 12 to a document) in the product's vector store: p50/p95 of the product's exact
scan and of its walk of the HNSW graph of 7-bit vectors (``--candidates``, 6,000 as the product
takes, rescored in full precision), with the share of each query's exact top ten documents
(numpy) each finds, the store's size on disk and the process's RSS. With ``--solr``, the store is
a collection (2 shards, 1 replica each) of ``tests/solr_cluster.py``'s local 2-node SolrCloud:
its exact scan (the plugin's ``vectorsAbove``) and Solr's ``knn`` on each shard's graph of
full-precision vectors.

``--contention N``: N such documents in the product's index; lexical searches (CACM titles'
words ORed) at rest and while the server's embedder embeds them: p50/p95 and the ratio of the
p95s.

``--relevance``: the 3,204 CACM abstracts in the product's index (through the Python API), their
chunks embedded by the server's own embedder; the 64 CACM queries run lexically (their words
ORed, as an AI client starts), semantically (mode semantic, every document ranked), and fused
(mode hybrid: reciprocal rank fusion, k=60, of the two first hundred); MAP and P@30 over the
first 100 of each (``ir-measures``), with late and with plain chunking; and the seed's lexical gap:
of the relevant documents that share no content word with their query, the share each run
finds in its first 100.

    python bench/semantic.py [--cost] [--scale N] [--walk N] [--contention N] [--relevance]
                             [--crosslingual] [--candidates K] [--threads T]
                             [--docs N]
                             [--queries Q] [--model FOLDER]

The model is the tests' all-MiniLM-L6-v2 (``scripts/ensure-test-model``) unless ``--model``
names another folder (or a known model's name: ``multilingual-e5-small`` is fetched once).
"""

from __future__ import annotations

import argparse
import contextlib
import itertools
import random
import re
import statistics
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from _common import ROOT, cacm_pages, joined_text

from tests.semantic_model import MODEL


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cost", action="store_true")
    parser.add_argument("--relevance", action="store_true")
    parser.add_argument("--scale", type=int, default=0)
    parser.add_argument("--crosslingual", action="store_true")
    parser.add_argument("--walk", type=int, default=0)
    parser.add_argument("--reference", type=Path, default=Path("/usr/share/debian-reference"))
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--model", default=str(MODEL))
    parser.add_argument("--contention", type=int, default=0, help="documents to embed")
    parser.add_argument("--full-precision", action="store_true", help="--walk: float graph")
    parser.add_argument(
        "--solr", action="store_true", help="--walk: a collection of a local 2-node SolrCloud"
    )
    parser.add_argument("--latent", type=int, default=0, help="--walk: the vectors' dimensions")
    parser.add_argument(
        "--candidates", default="6000", help="--walk: graph candidates, several comma-separated"
    )
    parser.add_argument("--threads", type=int, default=0, help="the model's threads (0: half)")
    parser.add_argument("--int8", action="store_true", help="int8 beside fp32: speed, vectors")
    parser.add_argument(
        "--precisions", default="fp32", help="--relevance: fp32, int8 or both (comma-separated)"
    )
    parser.add_argument(
        "--chunkings", default="late,plain", help="--relevance: late, plain or both"
    )
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm")
    args = parser.parse_args()
    chosen = (args.relevance, args.scale, args.crosslingual, args.walk, args.contention, args.int8)
    if args.cost or not any(chosen):
        cost(args)
    if args.int8:
        int8(args)
    if args.crosslingual:
        crosslingual(args)
    if args.scale:
        scale(args)
    if args.contention:
        contention(args)
    if args.walk:
        walk(args)
    if args.relevance:
        relevance(args)


def sections(reference: Path, language: str) -> dict[str, tuple[str, str]]:
    """The Debian Reference's sections in ``language``: id → (title without its number, text)."""
    found: dict[str, tuple[str, str]] = {}
    for page in sorted(reference.glob(f"*.{language}.html")):
        html = page.read_text(encoding="utf-8")
        heads = list(re.finditer(r'<h3 class="title"><a id="([^"]+)"/>([^<]*)</h3>', html))
        for n, head in enumerate(heads):
            end = heads[n + 1].start() if n + 1 < len(heads) else len(html)
            text = re.sub(r"<[^>]+>", " ", html[head.end() : end])
            title = re.sub(r"^[\d.A-Z]+\.\s*", "", head.group(2).strip())
            found[head.group(1)] = (title, " ".join(text.split()))
    return found


def overlap(one: str, other: str) -> float:
    """The share of distinct words two texts have in common (Jaccard)."""
    a, b = set(re.findall(r"\w+", one.lower())), set(re.findall(r"\w+", other.lower()))
    return len(a & b) / max(1, len(a | b))


def crosslingual(args: argparse.Namespace) -> None:
    from pylucene_mcp import Index
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.service.embedding import Embedding

    books = {lang: sections(args.reference, lang) for lang in ("en", "de")}
    both = sorted(set(books["en"]) & set(books["de"]))
    # the German book leaves some sections in English: only those translated count, their
    # titles different and their texts sharing under a third of their words
    shared = [
        key
        for key in both
        if books["de"][key][0] != books["en"][key][0]
        and overlap(books["de"][key][1], books["en"][key][1]) < 1 / 3
    ]
    print(
        f"Debian Reference: {len(both)} sections in both books, {len(shared)} of them "
        "translated into German"
    )
    with tempfile.TemporaryDirectory() as work:
        index = Index.open(Path(work) / "index")
        with index.writer() as writer:
            for lang, book in books.items():
                for number, key in enumerate(shared):
                    title, text = book[key]
                    writer.add(
                        {
                            # a number, not the section's id: the id is English, and a file's
                            # name is searched too
                            "file_path": f"/{lang}/{number}.html",
                            "title": title,
                            "content": f"{title}. {text}",
                            "language": lang,
                        }
                    )
        index.refresh()
        settings = Settings(index_path=index.path, vectors=True, embedding_model=args.model)
        embedding = Embedding(settings, lambda: index, lambda: True)
        started = time.perf_counter()
        embedding.reconcile()
        print(f"embedded in {time.perf_counter() - started:.0f} s")
        print("| queries → documents | search | MRR@10 | success@10 |")
        print("| --- | --- | ---: | ---: |")
        for asked, found in (("de", "en"), ("en", "de")):
            scores: dict[str, list[float]] = {"lexical": [], "semantic": [], "hybrid": []}
            for number, key in enumerate(shared):
                title = books[asked][key][0]
                vector = embedding.query_vector(title)
                for mode, got in scores.items():
                    request = SearchRequest(
                        words_of(title) or "*",
                        default_operator="OR",
                        filters=[{"field": "language", "operator": "eq", "value": found}],
                        page_size=10,
                        max_passages=0,
                        **(
                            {}
                            if mode == "lexical"
                            else {
                                "mode": mode,
                                "vector": vector,
                                "similarity_threshold": embedding.threshold(),
                            }
                        ),
                        **({"similarity_threshold": -1} if mode != "lexical" else {}),
                    )
                    hits = index.search(request).to_dict()["documents"]
                    paths = [h["filePath"] for h in hits]
                    want = f"/{found}/{number}.html"
                    got.append(1 / (paths.index(want) + 1) if want in paths else 0.0)
            for mode, got in scores.items():
                mrr = sum(got) / len(got)
                success = sum(1 for g in got if g > 0) / len(got)
                print(f"| {asked} → {found} | {mode} | {mrr:.3f} | {success:.3f} |")
        index.close()


def folder_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def rss_mb() -> float:
    import psutil

    return psutil.Process().memory_info().rss / 1e6


def scale(args: argparse.Namespace) -> None:
    from pylucene_mcp import Index
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.service.embedding import Embedding

    pages = list(cacm_pages(args.cacm / "cacm.tar.gz"))
    abstracts = [" ".join(lines) for _, _, lines in pages]
    titles = [lines[0] for _, _, lines in pages][: args.queries]
    rng = random.Random(36)
    with tempfile.TemporaryDirectory() as work:
        index = Index.open(Path(work) / "index")
        with index.writer() as writer:
            for n in range(args.scale):
                writer.add(
                    {"file_path": f"/bench/{n:07}.txt", "content": joined_text(rng, abstracts)}
                )
        index.refresh()
        off_mb = rss_mb()
        settings = Settings(index_path=index.path, vectors=True, embedding_model=args.model)
        embedding = Embedding(settings, lambda: index, lambda: True)
        started = time.perf_counter()
        progress = embedding.reconcile()
        spent = time.perf_counter() - started
        on_mb = rss_mb()
        print(
            f"{progress.embedded} documents embedded in {spent:.0f} s: "
            f"{spent / max(1, progress.embedded) * 1000:.0f} ms a document"
        )
        vectors_mb = folder_mb(Path(work) / "index-vectors")
        print(
            f"index {folder_mb(index.path):.1f} MB; its vectors {vectors_mb:.1f} MB; "
            f"RSS {off_mb:.0f} MB with vectors off, {on_mb:.0f} MB on (the model loaded)"
        )
        times: dict[str, list[float]] = {"lexical": [], "semantic": [], "hybrid": []}
        for title in titles:
            words = words_of(title)
            vector = embedding.query_vector(title)
            for mode, samples in times.items():
                request = SearchRequest(
                    words,
                    default_operator="OR",
                    **(
                        {}
                        if mode == "lexical"
                        else {
                            "mode": mode,
                            "vector": vector,
                            "similarity_threshold": embedding.threshold(),
                        }
                    ),
                )
                t = time.perf_counter()
                index.search(request)
                samples.append((time.perf_counter() - t) * 1000)
        print("| search | p50 ms | p95 ms |")
        print("| --- | ---: | ---: |")
        for mode, samples in times.items():
            ordered = sorted(samples)
            p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
            print(f"| {mode} | {statistics.median(ordered):.1f} | {p95:.1f} |")
        index.close()


def contention(args: argparse.Namespace) -> None:
    """Lexical searches at rest and while the server's embedder embeds the index (its own
    thread, its runtime's threads, its niceness): p50/p95 of each, alternated in rounds of ten,
    and the ratio of the p95s (issue 49's target: 1.5 or less)."""
    from pylucene_mcp import Index
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.service.embedding import Embedding

    pages = list(cacm_pages(args.cacm / "cacm.tar.gz"))
    abstracts = [" ".join(lines) for _, _, lines in pages]
    titles = [words_of(lines[0]) for _, _, lines in pages][: args.queries]
    rng = random.Random(49)
    with tempfile.TemporaryDirectory() as work:
        index = Index.open(Path(work) / "index")
        with index.writer() as writer:
            writer.add_many(
                {"file_path": f"/bench/{n:07}.txt", "content": joined_text(rng, abstracts)}
                for n in range(args.contention)
            )
        index.refresh()
        settings = Settings(
            index_path=index.path,
            vectors=True,
            embedding_model=args.model,
            embedding_threads=args.threads,
        )
        embedding = Embedding(settings, lambda: index, lambda: True)

        def searches(samples: list[float]) -> None:
            for title in titles:
                t = time.perf_counter()
                index.search(SearchRequest(title, default_operator="OR"))
                samples.append((time.perf_counter() - t) * 1000)

        for _ in range(2):  # warm: the JIT, the caches
            searches([])
        rest: list[float] = []
        busy: list[float] = []
        searches(rest)
        embedding.start()
        deadline = time.monotonic() + 120
        while embedding.progress.runtime is None or not embedding.progress.waiting:
            assert time.monotonic() < deadline, "the embedder did not start"
            time.sleep(0.05)
        rounds = 0
        while embedding.progress.waiting > len(titles) // 4 and rounds < 10:
            searches(busy)
            rounds += 1
        print(f"embedder: {embedding.progress.runtime}")
        embedding.stop()
        searches(rest)
        print("| lexical search (a CACM title's words ORed) | p50 ms | p95 ms |")
        print("| --- | ---: | ---: |")
        p95s = []
        for name, samples in (("at rest", rest), ("while the embedder embeds", busy)):
            ordered = sorted(samples)
            p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
            p95s.append(p95)
            print(f"| {name} (n={len(samples)}) | {statistics.median(ordered):.1f} | {p95:.1f} |")
        print(f"p95 while embedding ÷ at rest: {p95s[1] / p95s[0]:.2f} (target ≤ 1.5)")
        index.close()


def walk(args: argparse.Namespace) -> None:
    """The vector search alone at scale: N synthetic chunk vectors (384 numbers drawn around
    2,000 topic centres, 12 to a document) in the product's vector store; each query's exact top
    ten documents by numpy; the product's exact scan and its walk of the HNSW graph of 7-bit
    vectors (rescored in full precision), alternated: p50/p95, the share of the exact top ten
    each finds, the store's size on disk and the process's RSS."""
    import numpy as np

    import pylucene_mcp.engine.core.semantic as shared
    from pylucene_mcp.engine.lucene import vectors as store_module
    from pylucene_mcp.engine.lucene.vectors import LuceneVectorStore

    rng = np.random.default_rng(36)
    per_document = 12
    documents = args.walk // per_document
    vectors = np.empty((documents * per_document, 384), dtype=np.float32)
    # isotropic: 2,000 centres, noise in every one of the 384 dimensions (the hard case: a
    # cluster's members nearly equidistant); --latent D: the noise in a D-dimensional subspace
    # and a little outside it, as sentence embeddings lie near a space of few dimensions
    latent = args.latent or 384
    basis = np.linalg.qr(rng.normal(size=(384, latent)))[0].astype(np.float32).T
    centres = rng.normal(size=(2000, latent)).astype(np.float32) @ basis
    for start in range(0, len(vectors), 100_000):  # in parts: a million at once is 3 GB of temps
        part = vectors[start : start + 100_000]
        part[:] = centres[rng.integers(0, len(centres), len(part))]
        part += rng.normal(scale=0.9, size=(len(part), latent)).astype(np.float32) @ basis
        if args.latent:
            part += rng.normal(scale=0.05, size=part.shape).astype(np.float32)
        part /= np.linalg.norm(part, axis=1, keepdims=True)
    store_module.QUANTIZED = not args.full_precision
    with tempfile.TemporaryDirectory() as work, contextlib.ExitStack() as stack:
        store: Any
        if args.solr:
            store = stack.enter_context(_solr_store(Path(work)))
        else:
            store = LuceneVectorStore(Path(work) / "vectors", "synthetic")
        started = time.perf_counter()
        for document in range(documents):
            first = document * per_document
            chunks = [_Chunk(n, n + 1, vectors[n]) for n in range(first, first + per_document)]
            store.replace(f"/walk/{document:07}", "h", chunks)
        store.commit()
        stored_s = time.perf_counter() - started
        started = time.perf_counter()
        if not args.solr:
            with jvm_errors():
                store._writer.forceMerge(1)
            store.commit()
        on_disk = folder_mb(Path(work))
        print(
            f"{len(vectors):,} chunks ({documents:,} documents) stored in {stored_s:.0f} s, "
            f"merged into one segment in {time.perf_counter() - started:.0f} s; "
            f"{on_disk:,.0f} MB on disk "
            f"({len(vectors) * 384 * 4 / 2**20:,.0f} MB of full-precision vectors)"
        )
        queries = vectors[rng.integers(0, len(vectors), args.queries)]
        queries = queries + rng.normal(scale=0.3, size=queries.shape).astype(np.float32)
        queries /= np.linalg.norm(queries, axis=1, keepdims=True)
        counts = [int(c) for c in str(args.candidates).split(",")]
        paths = [("exact", 10**12, 0)] + [(f"graph {c}", 0, c) for c in counts]
        samples: dict[str, list[float]] = {how: [] for how, _, _ in paths}
        found = dict.fromkeys(samples, 0)
        for query in queries:
            best = (vectors @ query).reshape(documents, per_document).max(axis=1)
            truth = {f"/walk/{n:07}" for n in np.argsort(-best)[:10]}
            for how, limit, candidates in paths:  # alternated
                shared.EXACT_CHUNKS = limit
                shared.CANDIDATES = candidates
                t = time.perf_counter()
                hits = store.nearest(query.tolist(), 0.0)
                samples[how].append((time.perf_counter() - t) * 1000)
                found[how] += len({h.path for h in hits[:10]} & truth)
        print("| vector search, top ten documents | p50 ms | p95 ms | exact top ten found |")
        print("| --- | ---: | ---: | ---: |")
        bits = "32-bit" if args.full_precision or args.solr else "7-bit"
        kind = "Solr knn, " if args.solr else ""
        names = {"exact": "exact scan (the product up to EXACT_CHUNKS)"} | {
            f"graph {c}": f"{kind}HNSW of {bits} vectors, {c:,} candidates" for c in counts
        }
        for how in samples:
            ordered = sorted(samples[how])
            p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
            share = found[how] / (10 * len(queries))
            print(f"| {names[how]} | {statistics.median(ordered):.1f} | {p95:.1f} | {share:.3f} |")
        held = vectors.nbytes / 2**20
        print(f"RSS {rss_mb():,.0f} MB (the vectors in numpy among it: {held:,.0f} MB)")
        if not args.solr:
            store.close()


@contextlib.contextmanager
def _solr_store(work: Path) -> Iterator[Any]:
    """A vector store on a collection of a local 2-node SolrCloud (2 shards, 1 replica each)."""
    from pylucene_mcp.engine.solr import configset
    from pylucene_mcp.engine.solr.client import SolrClient, SolrSettings
    from pylucene_mcp.engine.solr.vectors import SolrVectorStore
    from tests.solr_cluster import LocalCluster

    cluster = LocalCluster(2, work / "cluster")
    try:
        settings = SolrSettings(tuple(cluster.urls), collection="walk")
        client = SolrClient(settings)
        configset.init(client, shards=2, replicas=1)
        client.close()
        store = SolrVectorStore(settings, "synthetic")
        try:
            yield store
        finally:
            store.close()
    finally:
        cluster.close()


def jvm_errors() -> object:
    from pylucene_mcp import jvm

    return jvm.java_errors()


class _Chunk:
    def __init__(self, start: int, end: int, vector: object) -> None:
        self.start, self.end, self.vector = start, end, vector


def cost(args: argparse.Namespace) -> None:
    from pylucene_mcp.semantic import chunks, models
    from pylucene_mcp.semantic.encoder import Encoder

    located = models.locate(args.model)
    started = time.perf_counter()
    encoder = Encoder(
        located.path, located.query_prefix, located.passage_prefix, threads=args.threads
    )
    load_s = time.perf_counter() - started
    pages = list(cacm_pages(args.cacm / "cacm.tar.gz"))
    abstracts = [" ".join(lines) for _, _, lines in pages]
    titles = [lines[0] for _, _, lines in pages]
    rng = random.Random(36)
    texts = [joined_text(rng, abstracts) for _ in range(args.docs)]
    tokens = sum(len(encoder.tokenizer.encode(t, add_special_tokens=False).ids) for t in texts)
    print(
        f"model {located.path.name}: loaded in {load_s:.2f} s; {encoder.max_tokens} tokens a "
        f"window; run by {encoder.provider} on {encoder.threads} thread(s)"
    )
    print(
        f"{args.docs} documents, {sum(map(len, texts)) / args.docs:.0f} characters and "
        f"{tokens / args.docs:.0f} tokens each on average"
    )
    spent = {"late": 0.0, "plain": 0.0, "runtime": 0.0}
    count = {"late": 0, "plain": 0, "runtime": 0}
    # ONNX Runtime's own speed on the same texts: plain windows of 254 tokens, batches of 32
    # across documents, mean-pooled, nothing else
    windows = []
    for text in texts:
        ids = encoder.tokenizer.encode(text, add_special_tokens=False).ids
        windows += [encoder.wrap(ids[i : i + 254]) for i in range(0, len(ids), 254)]
    rounds = 2
    for _ in range(rounds):  # alternated: the machine's noise falls on each
        t = time.perf_counter()
        states = encoder.states_many(windows)
        count["runtime"] += len([s.mean(0) for s in states])
        spent["runtime"] += time.perf_counter() - t
        for text in texts:
            for how in ("late", "plain"):
                t = time.perf_counter()
                count[how] += len(chunks.chunks(encoder, text, how))  # type: ignore[arg-type]
                spent[how] += time.perf_counter() - t
    done = args.docs * rounds
    print("| encoding | ms per document | documents/s | tokens/s | vectors per document |")
    print("| --- | ---: | ---: | ---: | ---: |")
    names = {
        "late": "the embedder: late chunking (the default)",
        "plain": "the embedder: plain chunking",
        "runtime": "ONNX Runtime alone: 254-token windows, batches of 32",
    }
    for how in ("late", "plain", "runtime"):
        print(
            f"| {names[how]} | {spent[how] / done * 1000:.0f} | {done / spent[how]:.2f} | "
            f"{tokens * rounds / spent[how]:.0f} | {count[how] / done:.1f} |"
        )
    print(
        f"late chunking at {spent['runtime'] / spent['late']:.2f}x the documents a second of "
        "ONNX Runtime alone (issue 49's target: 0.6x or more)"
    )
    samples = []
    for title in titles[: args.queries]:
        t = time.perf_counter()
        encoder.embed(title)
        samples.append((time.perf_counter() - t) * 1000)
    ordered = sorted(samples)
    p95 = ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]
    print(
        f"a query (a CACM title): p50 {statistics.median(ordered):.1f} ms, p95 {p95:.1f} ms "
        f"(n={len(ordered)})"
    )


def int8(args: argparse.Namespace) -> None:
    """The model with its dense layers in int8 beside fp32, on the same texts: late chunking's
    ms per document (alternated) and how near each chunk's int8 vector is to its fp32 one."""
    import numpy as np

    from pylucene_mcp.semantic import chunks, models
    from pylucene_mcp.semantic.encoder import Encoder

    located = models.locate(args.model)
    encoders = {
        p: Encoder(
            located.path,
            located.query_prefix,
            located.passage_prefix,
            threads=args.threads,
            precision=p,
        )
        for p in ("fp32", "int8")
    }
    abstracts = [" ".join(lines) for _, _, lines in cacm_pages(args.cacm / "cacm.tar.gz")]
    rng = random.Random(49)
    texts = [joined_text(rng, abstracts) for _ in range(args.docs)]
    spent = dict.fromkeys(encoders, 0.0)
    cosines: list[float] = []
    for text in texts:
        made = {}
        for precision, encoder in encoders.items():  # alternated
            t = time.perf_counter()
            made[precision] = chunks.chunks(encoder, text, "late")
            spent[precision] += time.perf_counter() - t
        for one, other in zip(made["fp32"], made["int8"], strict=True):
            cosines.append(float(np.dot(one.vector, other.vector)))
    threads = encoders["fp32"].threads
    print(f"{args.docs} documents of CACM abstracts, late chunking, {threads} thread(s)")
    print("| precision | ms per document |")
    print("| --- | ---: |")
    for precision in encoders:
        print(f"| {precision} | {spent[precision] / len(texts) * 1000:.0f} |")
    ordered = sorted(cosines)
    print(
        f"{len(cosines)} chunks: cosine of int8 to fp32 vectors: min {ordered[0]:.4f}, "
        f"5th percentile {ordered[len(ordered) // 20]:.4f}, mean {statistics.mean(ordered):.4f}"
    )


def relevance(args: argparse.Namespace) -> None:
    from pylucene_mcp import Index
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.engine.core.request import SearchRequest
    from pylucene_mcp.research import evaluate, html_text, read_qrels, read_topics
    from pylucene_mcp.service.embedding import Embedding

    topics = read_topics(args.cacm / "topics.cacm.txt")
    qrels = read_qrels(args.cacm / "qrels.cacm.txt")
    measures = ("AP", "P@30", "P@5")
    rows: list[tuple[str, dict[str, float]]] = []
    words_in: dict[str, set[str]] = {}
    with tempfile.TemporaryDirectory() as work:
        index = Index.open(Path(work) / "index")
        with index.writer() as writer:
            for name, page, lines in cacm_pages(args.cacm / "cacm.tar.gz"):
                text = html_text(page)
                words_in[Path(name).stem] = set(re.findall(r"\w+", text.lower()))
                writer.add(
                    {
                        "file_path": f"/cacm/{Path(name).stem}",
                        "content": text,
                        "title": lines[0] if lines else "",
                    }
                )
        index.refresh()
        gap = lexical_gap(topics, qrels, words_in)

        def ids(hits: list[dict[str, object]]) -> list[tuple[str, float]]:
            return [(str(h["filePath"]).rsplit("/", 1)[-1], float(h["score"])) for h in hits]  # type: ignore[arg-type]

        lexical = {}
        for qid, text in topics.items():
            request = SearchRequest(
                words_of(text), default_operator="OR", page_size=100, max_passages=0
            )
            lexical[qid] = ids(index.search(request).to_dict()["documents"])
        figures = with_gap(evaluate(lexical, qrels, measures), lexical, gap)
        rows.append(("lexical (the words ORed)", figures))
        for how, precision in itertools.product(
            args.chunkings.split(","), args.precisions.split(",")
        ):
            settings = Settings(
                index_path=index.path,
                vectors=True,
                embedding_model=args.model,
                chunking=how,
                embedding_precision=precision,
            )
            embedding = Embedding(settings, lambda: index, lambda: True)
            label = f"{how} chunking" + ("" if precision == "fp32" else f", {precision}")
            if index.vectors is not None:  # made again with the other chunking
                index.vectors.delete(list(index.vectors.states()))
                index.vectors.commit()
            started = time.perf_counter()
            progress = embedding.reconcile()
            spent = time.perf_counter() - started
            print(f"{label}: {progress.embedded} documents embedded in {spent:.0f} s")
            runs: dict[str, dict[str, list[tuple[str, float]]]] = {"semantic": {}, "hybrid": {}}
            own = embedding.threshold()  # the model's, as a server without the setting has it
            at_own: dict[str, list[tuple[str, float]]] = {}
            for qid, text in topics.items():
                vector = embedding.query_vector(text)
                for mode, run in runs.items():
                    request = SearchRequest(
                        words_of(text),
                        mode=mode,  # type: ignore[arg-type]
                        vector=vector,
                        similarity_threshold=-1,
                        default_operator="OR",
                        page_size=100,
                        max_passages=0,
                    )
                    run[qid] = ids(index.search(request).to_dict()["documents"])
                request = SearchRequest(
                    words_of(text),
                    mode="semantic",
                    vector=vector,
                    similarity_threshold=own,
                    page_size=100,
                    max_passages=0,
                )
                at_own[qid] = ids(index.search(request).to_dict()["documents"])
            for mode, run in runs.items():
                name = f"{mode}{' (RRF)' if mode == 'hybrid' else ''}, {label}"
                rows.append((name, with_gap(evaluate(run, qrels, measures), run, gap)))
            name = f"semantic at the model's threshold ({own:g}), {label}"
            rows.append((name, with_gap(evaluate(at_own, qrels, measures), at_own, gap)))
            empty = sum(1 for found in at_own.values() if not found)
            print(f"{label}: threshold {own:g}; {empty} of {len(at_own)} queries find none")
        index.close()
    print(f"model {Path(args.model).name}; {len(topics)} CACM queries; the first 100 of each run")
    pairs = sum(len(docs) for docs in gap.values())
    print(f"lexical gap: {pairs} relevant documents share no content word with their query")
    print("| run | MAP | P@30 | P@5 | lexical gap found |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, figures in rows:
        print(
            f"| {name} | {figures['AP']:.4f} | {figures['P@30']:.4f} | {figures['P@5']:.4f} "
            f"| {figures['gap']:.3f} |"
        )


#: words a CACM query asks with rather than about (English function words and the queries'
#: own phrasing: "articles", "papers", "interested" …): not content words
NOT_CONTENT = set(
    """a an and are as at be but by for if in into is it no not of on or such that the their
    then there these they this to was will with what which who whom how why where when do does
    did about any all also can from i me my we our you your some more most other than so very
    articles article papers paper exist exists deal deals dealing interested want need find
    describe described description describing information please discussing discuss
    discussion""".split()
)


def lexical_gap(
    topics: dict[str, str], qrels: dict[str, dict[str, int]], words_in: dict[str, set[str]]
) -> dict[str, set[str]]:
    """The seed's lexical gap: each query's relevant documents that hold none of its content
    words (words of three letters or more, lowercased, as written: no stemming)."""
    gap = {}
    for qid, text in topics.items():
        content = {w for w in re.findall(r"\w+", text.lower()) if len(w) > 2} - NOT_CONTENT
        gap[qid] = {
            doc
            for doc, relevance in qrels.get(qid, {}).items()
            if relevance > 0 and doc in words_in and not content & words_in[doc]
        }
    return gap


def with_gap(
    figures: dict[str, float], run: dict[str, list[tuple[str, float]]], gap: dict[str, set[str]]
) -> dict[str, float]:
    """``figures`` and the share of the lexical gap's documents among the run's first 100."""
    found = sum(len(docs & {doc for doc, _ in run.get(qid, [])}) for qid, docs in gap.items())
    return {**figures, "gap": found / max(1, sum(len(docs) for docs in gap.values()))}


def words_of(text: str) -> str:
    """A topic's words, without anything the query syntax would read."""
    return " ".join(re.findall(r"\w+", text.lower()))


if __name__ == "__main__":
    main()
