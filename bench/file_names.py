"""Known-item search by file name (issue 10: "unfielded words and phrases also match title and
file_name"), on real documents with real names: the HTML pages of Debian's ``python3.11-doc``
(``apt-get install python3.11-doc``; 530 pages such as ``library/asyncio-eventloop.html``).

Each page goes into a product index (``Index``: the product's schema and analyzers) with its
text and its ``<title>``. Each page is then searched through the product's own search, by the
words of its file name as a person who remembers the name would type them (``asyncio
eventloop``), with the default operator AND and with OR; the rank of the page is recorded:
success@1, success@10 and the mean reciprocal rank, for unfielded words matching the content and
the title (the product before) and also the file name, at weights 0.5, 1 and 2.

    python bench/file_names.py [--docs DIR]
"""

from __future__ import annotations

import argparse
import html
import re
import tempfile
from pathlib import Path

from _common import ROOT  # noqa: F401  (puts the checkout on sys.path)

from pylucene_mcp import Index
from pylucene_mcp.engine.core import query

PYTHON_DOCS = Path("/usr/share/doc/python3.11/html")


def page(path: Path) -> tuple[str, str]:
    """The title and the text of an HTML page."""
    raw = path.read_text("utf-8", "replace")
    title = re.search(r"<title>(.*?)</title>", raw, re.S)
    body = re.sub(r"<(script|style)\b.*?</\1>", " ", raw, flags=re.S)
    text = html.unescape(re.sub(r"<[^>]+>", " ", body))
    return html.unescape(title.group(1)).strip() if title else "", re.sub(r"\s+", " ", text)


def name_words(path: Path) -> str:
    """A file name's words as a person types them: asyncio-eventloop.html → asyncio eventloop."""
    return " ".join(w for w in re.split(r"[^0-9A-Za-z]+", path.stem) if w)


def use(also_searched: dict[str, float]) -> None:
    """Unfielded words match the content and these fields from here on."""
    query.ALSO_SEARCHED = also_searched
    query.field_schema.cache_clear()
    query.context.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--docs", type=Path, default=PYTHON_DOCS)
    args = parser.parse_args()
    pages = sorted(p for p in args.docs.rglob("*.html") if "_static" not in p.parts)
    if not pages:
        raise SystemExit(f"no HTML pages under {args.docs}: apt-get install python3.11-doc")
    built = dict(query.ALSO_SEARCHED)
    with tempfile.TemporaryDirectory() as work:
        index = Index.open(Path(work) / "index")
        with index.writer() as writer:
            for path in pages:
                title, text = page(path)
                writer.add(
                    {"file_path": str(path), "title": title, "content": text, "language": "en"}
                )
        items = [p for p in pages if name_words(p)]
        print(f"{len(items)} pages, each searched by the words of its file name")
        print(f"{'operator':8} {'fields':28} {'success@1':>10} {'success@10':>11} {'MRR':>7}")
        variants = {
            "content + title": {"title": 1.0},
            "+ file_name x0.5": {"title": 1.0, "file_name": 0.5},
            "+ file_name x1": {"title": 1.0, "file_name": 1.0},
            "+ file_name x2": {"title": 1.0, "file_name": 2.0},
        }
        for operator in ("AND", "OR"):
            for name, fields in variants.items():
                use(fields)
                first = tenth = 0
                reciprocal = 0.0
                for item in items:
                    found = index.search(
                        name_words(item), page_size=100, default_operator=operator, max_passages=0
                    )
                    ranked = [hit.file_path for hit in found.documents]
                    if str(item) in ranked:
                        rank = ranked.index(str(item)) + 1
                        first += rank == 1
                        tenth += rank <= 10
                        reciprocal += 1 / rank
                n = len(items)
                print(
                    f"{operator:8} {name:28} {first / n:10.3f} {tenth / n:11.3f} "
                    f"{reciprocal / n:7.3f}"
                )
        use(built)
        index.close()


if __name__ == "__main__":
    main()
