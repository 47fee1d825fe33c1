"""The semantic path's cost (issue 36, docs/semantic.md). This first part measures the encoder
alone: documents of 2–5 KB of real text (CACM abstracts joined until each reaches its drawn
length) cut into chunks and embedded with late and with plain chunking, interleaved, and queries
embedded one at a time. Prints ms per document, tokens per second and ms per query (p50/p95).

    python bench/semantic.py [--docs N] [--queries Q] [--model FOLDER]

The model is the tests' all-MiniLM-L6-v2 (``scripts/ensure-test-model``) unless ``--model``
names another folder (or a known model's name: ``multilingual-e5-small`` is fetched once).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from pathlib import Path

from _common import ROOT, cacm_pages, joined_text


def test_model() -> Path:
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "pylucene-mcp" / "test-model" / "all-minilm-l6-v2"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=40)
    parser.add_argument("--queries", type=int, default=50)
    parser.add_argument("--model", default=str(test_model()))
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm/cacm.tar.gz")
    args = parser.parse_args()

    from pylucene_mcp.semantic import chunks, models
    from pylucene_mcp.semantic.encoder import Encoder

    located = models.locate(args.model)
    started = time.perf_counter()
    encoder = Encoder(located.path, located.query_prefix, located.passage_prefix)
    load_s = time.perf_counter() - started
    pages = list(cacm_pages(args.cacm))
    abstracts = [" ".join(lines) for _, _, lines in pages]
    titles = [lines[0] for _, _, lines in pages]
    rng = random.Random(36)
    texts = [joined_text(rng, abstracts) for _ in range(args.docs)]
    tokens = sum(len(encoder.tokenizer.encode(t, add_special_tokens=False).ids) for t in texts)
    print(
        f"model {located.path.name}: loaded in {load_s:.2f} s; {encoder.max_tokens} tokens a window"
    )
    print(
        f"{args.docs} documents, {sum(map(len, texts)) / args.docs:.0f} characters and "
        f"{tokens / args.docs:.0f} tokens each on average"
    )
    spent = {"late": 0.0, "plain": 0.0}
    count = {"late": 0, "plain": 0}
    for text in texts:  # interleaved: the machine's noise falls on both
        for how in ("late", "plain"):
            t = time.perf_counter()
            count[how] += len(chunks.chunks(encoder, text, how))  # type: ignore[arg-type]
            spent[how] += time.perf_counter() - t
    print("| chunking | ms per document | tokens/s | chunks per document |")
    print("| --- | ---: | ---: | ---: |")
    for how in ("late", "plain"):
        print(
            f"| {how} | {spent[how] / args.docs * 1000:.0f} | {tokens / spent[how]:.0f} | "
            f"{count[how] / args.docs:.1f} |"
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


if __name__ == "__main__":
    main()
