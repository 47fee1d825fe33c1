"""The product's own search (its parser and fields) on CACM, for the rule of fields and
negation (docs/query.md): how an unfielded clause meets the title and the file name.

- **Ad hoc**: the 64 CACM topics, each typed as its words (stop words left to the analyser) with
  ``defaultOperator: OR``, over the abstracts (title in the text and in the title field, as a
  PDF's metadata gives it): MAP, P@10, nDCG@10 through ``ir-measures``.
- **Known items**: 500 papers whose title lives only in their metadata (the ``title`` field, not
  the text), each searched by its title's words, OR and AND: success@1, success@10, MRR.

Run it on two trees to compare two rules (the figures of docs/performance.md came so):

    python bench/fields.py [--cacm PATH] [--items 500]
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from _common import cacm_pages  # noqa: E402

from pylucene_mcp import Index  # noqa: E402
from pylucene_mcp.research import evaluate, html_text, read_qrels, read_topics  # noqa: E402

MEASURES = ("AP", "P@10", "nDCG@10")
WORD = re.compile(r"\w+")


def typed(text: str) -> str:
    """A text as an assistant would type its words: letters and digits, nothing the parser
    reads as syntax."""
    return " ".join(WORD.findall(text))


def hits(index: Index, query: str, operator: str, k: int) -> list[tuple[str, float]]:
    found: list[tuple[str, float]] = []
    cursor: str | None = "*"
    while cursor is not None and len(found) < k:
        page = index.search(query, cursor=cursor, page_size=100, max_passages=0,
                            default_operator=operator, timeout_s=0)  # fmt: skip
        found += [(Path(h.file_path).stem, h.score) for h in page.documents]
        cursor = page.next_cursor
    return found[:k]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm")
    parser.add_argument("--items", type=int, default=500)
    args = parser.parse_args()
    pages = list(cacm_pages(args.cacm / "cacm.tar.gz"))
    topics = read_topics(args.cacm / "topics.cacm.txt")
    qrels = read_qrels(args.cacm / "qrels.cacm.txt")
    with tempfile.TemporaryDirectory() as work:
        adhoc = Index.open(Path(work) / "adhoc")
        with adhoc.writer() as w:
            w.add_many(
                {"file_path": f"/cacm/{Path(n).stem}.html", "title": lines[0] if lines else "",
                 "content": html_text(page), "language": "en"}
                for n, page, lines in pages
            )  # fmt: skip
        started = time.perf_counter()
        run = {qid: hits(adhoc, typed(text), "OR", 1000) for qid, text in topics.items()}
        took = time.perf_counter() - started
        figures = evaluate(run, qrels, MEASURES)
        print("ad hoc (64 topics, OR): " + ", ".join(f"{m} {figures[m]:.4f}" for m in MEASURES)
              + f"; {took / len(topics) * 1000:.0f} ms a topic")  # fmt: skip
        adhoc.close()
        known = Index.open(Path(work) / "known")
        docs = [(Path(n).stem, lines) for n, _, lines in pages if len(lines) > 1]
        with known.writer() as w:
            w.add_many(
                {"file_path": f"/cacm/{stem}.pdf", "title": lines[0],
                 "content": "\n".join(lines[1:]), "language": "en"}
                for stem, lines in docs
            )  # fmt: skip
        items = docs[:: max(1, len(docs) // args.items)][: args.items]
        for operator in ("OR", "AND"):
            first = tenth = 0
            reciprocal = 0.0
            for stem, lines in items:
                ranked = [doc for doc, _ in hits(known, typed(lines[0]), operator, 100)]
                if stem in ranked:
                    rank = ranked.index(stem) + 1
                    first += rank == 1
                    tenth += rank <= 10
                    reciprocal += 1 / rank
            n = len(items)
            print(f"known items ({n}, {operator}): success@1 {first / n:.3f}, "
                  f"success@10 {tenth / n:.3f}, MRR {reciprocal / n:.3f}")  # fmt: skip
        known.close()


if __name__ == "__main__":
    main()
