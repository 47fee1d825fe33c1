"""locateQuote against an oracle at scale: quotes drawn from real English and German text
in an index of N documents, as written, as an assistant changes them, with one and two words
changed, from text that is not in the index, and stitched from two places of one document.

    python bench/quotes.py [--docs 100000] [--quotes 1000] [--words 30]

The quotes come from the standard library's docstrings (English prose) and OpenThesaurus
(German words, a document of 40 lines each); the rest of the N documents are CACM abstracts
joined to 2-5 KB. Each quote knows its true place by how it was drawn; a place is right when
its document and span are, or when it holds the drawn text elsewhere (as written for an exact
quote, the same words for the others: the standard library repeats its sentences). Prints
each kind's share found at a right place, the false exact or normalized answers, and the time
per call (p50/p95), for docs/tools.md."""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

from _common import ROOT, cacm_pages, joined_text

from pylucene_mcp import Index
from tests.quote_cases import Case, drawn, variants
from tests.real_text import english_docstrings, german_lines

CACM = ROOT.parent / "shared/eval/cacm/cacm.tar.gz"


def sources(limit: int) -> list[dict[str, object]]:
    """Documents with text found nowhere else: docstrings and the thesaurus's lines."""
    seen: set[str] = set()
    docs: list[dict[str, object]] = []
    for text in english_docstrings():
        if text not in seen and len(text) > 400:
            seen.add(text)
            docs.append({"file_path": f"/en/doc{len(docs):06}.txt", "content": text})
    lines = list(german_lines())
    for n in range(0, len(lines), 40):
        text = "\n".join(lines[n : n + 40])
        docs.append({"file_path": f"/de/doc{n:07}.txt", "content": text, "language": "de"})
    return docs[:limit]


def same_words(found: str, drawn_text: str, exactly: bool) -> bool:
    """Whether a place found elsewhere than where the quote was drawn holds its text: as
    written (``exactly``), or the same words however the lines were broken there."""
    return found == drawn_text if exactly else found.split() == drawn_text.split()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--docs", type=int, default=100_000)
    parser.add_argument("--quotes", type=int, default=1_000)
    parser.add_argument("--words", type=int, default=30)
    args = parser.parse_args()
    chance = random.Random(1)
    quoted = sources(args.docs)
    held_out = quoted[-200:]  # not indexed: their quotes stand nowhere
    quoted = quoted[:-200]
    abstracts = [" ".join(lines) for _, _, lines in cacm_pages(CACM)]
    filler = [
        {"file_path": f"/cacm/doc{n:06}.txt", "content": joined_text(chance, abstracts)}
        for n in range(max(0, args.docs - len(quoted)))
    ]
    by_path = {str(d["file_path"]): d for d in quoted}
    every = [*quoted, *filler]
    everything = {str(d["file_path"]): d for d in every}
    with tempfile.TemporaryDirectory() as work:
        index = Index.open(Path(work) / "index")
        started = time.perf_counter()
        with index.writer() as writer:
            for at in range(0, len(every), 5_000):
                writer.add_many(every[at : at + 5_000])
        index.refresh()
        print(f"{len(index):,} documents indexed in {time.perf_counter() - started:.0f} s")
        right: dict[str, list[bool]] = {}
        false_sure = 0
        times: dict[str, list[float]] = {}

        misses: list[str] = []

        def ask(kind: str, case: Case, original: str = "") -> None:
            """Asks for ``case``'s quote; a place is right where it is the true one or holds
            the same text as written (the text stands in more than one document)."""
            nonlocal false_sure
            began = time.perf_counter()
            found = index.locate_quote(case.quote)
            times.setdefault(kind, []).append((time.perf_counter() - began) * 1000)
            if kind in ("absent", "stitched"):
                sure = [m for m in found.matches if m.match != "near"]
                false_sure += len(sure)
                right.setdefault(kind, []).append(not sure)
                return
            best = found.matches[0] if found.matches else None
            ok = best is not None and (
                (best.file_path, best.start, best.end) == (case.path, case.start, case.end)
                or same_words(
                    str(everything[best.file_path]["content"])[best.start : best.end],
                    original or case.quote,
                    exactly=kind == "exact",
                )
            )
            if best is not None and best.match != "near" and not ok:
                false_sure += 1
            if not ok and len(misses) < 5:
                misses.append(f"{kind}: {case.quote[:70]!r} → {best}")
            right.setdefault(kind, []).append(ok)

        words = args.words
        for case in drawn(quoted, args.quotes, seed=2, words=words):
            ask("exact", case)
            for changed in variants(case, chance):
                kind = "near, one word" if changed.kind == "near" else "normalized"
                ask(kind, changed, case.quote)
                if changed.kind == "near":  # a second word changed too
                    twice = next((v for v in variants(changed, chance) if v.kind == "near"), None)
                    if twice is not None:
                        ask("near, two words", twice, case.quote)
        for case in drawn(held_out, args.quotes // 5, seed=3, words=words):
            ask("absent", case)
        for case in drawn(quoted, args.quotes // 5, seed=4, words=words // 2):
            doc = by_path[case.path]
            other = next(drawn([doc], 1, seed=case.start, words=words // 2))
            ask("stitched", Case("stitched", f"{case.quote} {other.quote}", case.path, 0, 0))
        index.close()
    print(f"{args.quotes} quotes of {words} words; a place is right when its document and span are")
    print("| quote | calls | right | p50 ms | p95 ms |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for kind, oks in right.items():
        spent = sorted(times[kind])
        p95 = spent[int(0.95 * (len(spent) - 1))]
        share = sum(oks) / len(oks)
        print(
            f"| {kind} | {len(oks):,} | {share:.3f} | {statistics.median(spent):.1f} | {p95:.1f} |"
        )
    print(f"false exact or normalized answers: {false_sure}")
    for miss in misses:
        print("missed:", miss)


if __name__ == "__main__":
    main()
