"""Known-item search for documents whose title lives only in their metadata (issue 10: "a PDF
whose title lives only in its metadata is not found by its title").

The CACM abstracts become such documents: the first line (the paper's title) goes into a
``title`` field, and the text without it into ``contents``, both analysed by the product's
``content`` chain. Each title is then searched as its words ORed, as an AI client would type
it, and the rank of the paper it names is recorded: success@1, success@10 and the mean
reciprocal rank, for the unfielded words on ``contents`` alone (the product until now) and on
``contents`` and ``title`` with the title weighted 0.5, 1, 2 and 4.

    python bench/known_item.py [--cacm PATH] [--items 500]
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from _common import ROOT, cacm_pages

from pylucene_mcp import jvm
from pylucene_mcp.research import Analyzer, FieldSpec, ResearchIndex, Similarity


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cacm", type=Path, default=ROOT.parent / "shared/eval/cacm")
    parser.add_argument("--items", type=int, default=500)
    args = parser.parse_args()
    jvm.start()
    # the title (the first line) only in a title field, as metadata
    docs = [
        {"id": Path(name).stem, "title": lines[0], "contents": "\n".join(lines[1:])}
        for name, _, lines in cacm_pages(args.cacm / "cacm.tar.gz")
        if len(lines) > 1
    ]
    content = Analyzer.product("content")
    j = jvm.jclass
    should = j("org.apache.lucene.search.BooleanClause$Occur").SHOULD
    term = j("org.apache.lucene.index.Term")
    term_query = j("org.apache.lucene.search.TermQuery")
    boost = j("org.apache.lucene.search.BoostQuery")
    with tempfile.TemporaryDirectory() as work:
        index = ResearchIndex.create(
            Path(work) / "cacm",
            {
                "id": FieldSpec.keyword(),
                "title": FieldSpec.text(content),
                "contents": FieldSpec.text(content),
            },
            Similarity.bm25(),
        )
        index.add_many(docs)
        items = docs[:: max(1, len(docs) // args.items)][: args.items]
        print(f"{len(items)} known items (titles searched as their words ORed)")
        print(f"{'fields':28} {'success@1':>10} {'success@10':>11} {'MRR':>7}")
        for name, title_weight in (
            ("contents only", None),
            ("contents + title x0.5", 0.5),
            ("contents + title", 1.0),
            ("contents + title^2", 2.0),
            ("contents + title^4", 4.0),
        ):
            first = tenth = 0
            reciprocal = 0.0
            for item in items:
                bag = j("org.apache.lucene.search.BooleanQuery$Builder")()
                for word in index.terms(item["title"], "contents"):
                    bag.add(term_query(term("contents", word)), should)
                    if title_weight is not None:
                        bag.add(boost(term_query(term("title", word)), title_weight), should)
                ranked = [h.fields["id"] for h in index.search(bag.build(), k=100)]
                if item["id"] in ranked:
                    rank = ranked.index(item["id"]) + 1
                    first += rank == 1
                    tenth += rank <= 10
                    reciprocal += 1 / rank
            n = len(items)
            print(f"{name:28} {first / n:10.3f} {tenth / n:11.3f} {reciprocal / n:7.3f}")
        index.close()


if __name__ == "__main__":
    main()
