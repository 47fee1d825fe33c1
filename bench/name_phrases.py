"""The cost of phrases that find a name by its parts (``NamePhraseQuery``): on one kept index of
``bench/scale.py`` (built first when missing), each phrase searched for its 10 best hits and its
exact total in two forms, interleaved round by round so that both see the same machine:

- ``plain``: Lucene's ``PhraseQuery``, as the product searched an exact phrase before;
- ``name``: the product's ``NamePhraseQuery`` around it, which reads, for each pair of
  neighbouring words, whether some document has both at one position (the pairs, then the
  phrases with them joined), the pairs forgotten before each run: a phrase's first search on a
  reader (a search rewrites its query several times, and each time after the first the pairs
  are known);
- ``name again``: the same, the pairs known from the search before (as a search's count, facets
  and passages find them, and the next search of the phrase until the index changes).

The scale corpus is CACM's English, whose words are hardly ever joined names: the figures are
the price of looking for pairs that are not there (the common case), and both forms find the
same hits.

    python bench/name_phrases.py [--index-dir DIR] [--size 100000] [--runs 20] [--json PATH]
"""

from __future__ import annotations

import argparse
import statistics

from _common import interleaved, scale_index, scale_options, uncached_searcher, write_json

from pylucene_mcp import jvm

PHRASES = [
    "programming language",
    "information retrieval system",
    "the solution of a",
    "a new algorithm for the solution of",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    scale_options(parser, "bench-name_phrases.json")
    parser.add_argument("--size", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    folder = scale_index(args.index_dir, args.size, args.cacm)
    searcher = uncached_searcher(folder)
    reader = searcher.getIndexReader()
    j = jvm.jclass
    plain = j("org.apache.lucene.search.PhraseQuery")
    named = j("io.github.pylucenemcp.queryparser.NamePhraseQuery")

    def first(words: list[str]) -> object:
        named.forgetPairs()
        return named(plain("content", jvm.jarray("String", words)))

    forms = {
        "plain": lambda words: plain("content", jvm.jarray("String", words)),
        "name": first,
        "name again": lambda words: named(plain("content", jvm.jarray("String", words))),
    }
    samples, totals = interleaved(
        searcher,
        args.runs,
        {
            (phrase, form): (lambda b=build, p=phrase: b(p.split()))
            for phrase in PHRASES
            for form, build in forms.items()
        },
    )
    reader.close()
    rows = []
    print(f"{args.size:,} documents, {args.runs} interleaved runs (10 best hits + exact count)")
    print(f"{'phrase':<40}{'form':<11}{'p50 ms':>9}{'p99 ms':>9}{'total':>9}{'ratio':>8}")
    for phrase in PHRASES:
        base = statistics.median(samples[phrase, "plain"])
        for form in forms:
            times = sorted(samples[phrase, form])
            p50 = statistics.median(times)
            p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
            print(
                f'"{phrase}"'[:39].ljust(40) + f"{form:<11}{p50:>9.1f}{p99:>9.1f}"
                f"{totals[phrase, form]:>9,}{p50 / base:>7.2f}x"
            )
            rows.append(
                {"phrase": phrase, "form": form, "p50_ms": round(p50, 2), "p99_ms": round(p99, 2),
                 "total": totals[phrase, form], "ratio": round(p50 / base, 3)}
            )  # fmt: skip
        assert totals[phrase, "plain"] == totals[phrase, "name"], phrase  # no pair: same hits
    write_json(args.json, {"size": args.size, "runs": args.runs, "rows": rows})


if __name__ == "__main__":
    main()
