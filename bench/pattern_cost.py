"""The cost of exact patterns: on one kept index of ``bench/scale.py`` (1M documents by
default), each pattern query searched for its 10 best hits and its exact total, rewritten two
ways, interleaved round by round so that both see the same machine:

- ``top 50``: Lucene's ``TopTermsBlendedFreqScoringRewrite(50)`` alone, as the product did
  before: only the documents of the pattern's 50 best terms are found (a lower total);
- ``every term``: the product's ``RankedPatterns.ALL_TERMS_RANKED``: a constant-score
  filter over every term beside the same 50 best terms, which score.

It prints each form's p50/p99 and total, and the ratio of the p50s (the price of an exact
answer).

    python bench/pattern_cost.py [--index-dir DIR] [--size 1000000] [--runs 20] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics

from _common import interleaved, scale_options, uncached_searcher, write_json

from pylucene_mcp import jvm

PATTERNS = {"prefix": "comput", "leading wildcard": "tion", "infix wildcard": "port"}
SHOWN = {"prefix": "comput*", "leading wildcard": "*tion", "infix wildcard": "*port*"}


def main() -> None:
    parser = argparse.ArgumentParser()
    scale_options(parser, "pattern_cost.json")
    parser.add_argument("--size", type=int, default=1_000_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    folder = args.index_dir / f"scale-{args.size}" / "index"
    searcher = uncached_searcher(folder)
    reader = searcher.getIndexReader()
    j = jvm.jclass
    term = j("org.apache.lucene.index.Term")
    rewrites = {
        "top 50": j("org.apache.lucene.search.MultiTermQuery$TopTermsBlendedFreqScoringRewrite")(
            50
        ),
        "every term": j("io.github.pylucenemcp.queryparser.RankedPatterns").ALL_TERMS_RANKED,
    }
    wildcard = j("org.apache.lucene.search.WildcardQuery")
    prefix = j("org.apache.lucene.search.PrefixQuery")
    limit = j("org.apache.lucene.util.automaton.Operations").DEFAULT_DETERMINIZE_WORK_LIMIT

    def query(kind: str, letters: str, rewrite: object) -> object:
        if kind == "prefix":
            return prefix(term("content", letters), rewrite)
        if kind == "leading wildcard":  # as the product runs it: a prefix of the reversed words
            return wildcard(term("content_reversed", letters[::-1] + "*"), limit, rewrite)
        return wildcard(term("content", f"*{letters}*"), limit, rewrite)

    samples, totals = interleaved(
        searcher,
        args.runs,
        {
            (kind, form): (lambda k=kind, lt=letters, r=rewrite: query(k, lt, r))
            for kind, letters in PATTERNS.items()
            for form, rewrite in rewrites.items()
        },
    )
    reader.close()
    rows = []
    print(f"{args.size:,} documents, {args.runs} interleaved runs (10 best hits + exact count)")
    print(f"{'pattern':<22}{'form':<12}{'p50 ms':>9}{'p99 ms':>9}{'total':>11}{'ratio':>8}")
    for kind, letters in PATTERNS.items():
        base = statistics.median(samples[kind, "top 50"])
        for form in rewrites:
            times = sorted(samples[kind, form])
            p50 = statistics.median(times)
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            shown = (
                f"{letters}*"
                if kind == "prefix"
                else f"*{letters}" + ("*" if "infix" in kind else "")
            )
            print(
                f"{shown:<22}{form:<12}{p50:>9.1f}{p99:>9.1f}{totals[kind, form]:>11,}"
                f"{p50 / base:>7.2f}x"
            )
            rows.append(
                {"pattern": shown, "form": form, "p50_ms": round(p50, 2), "p99_ms": round(p99, 2),
                 "total": totals[kind, form], "ratio": round(p50 / base, 3)}
            )  # fmt: skip
    write_json(args.json, {"size": args.size, "runs": args.runs, "rows": rows})


if __name__ == "__main__":
    main()
