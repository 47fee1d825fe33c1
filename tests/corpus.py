"""The fixture corpus: ten English and German files plus a generated 40-page document."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from pylucene_mcp import Index

FIXTURES = Path(__file__).parent / "fixtures"
LONG_DOC_PAGES = 40
LONG_DOC_NEEDLE = "quokka"

_FILLER = (
    "Section {page}.{n} describes routine maintenance of the archive shelves, the cataloguing of "
    "incoming boxes and the schedule of the reading room, which opens at nine every weekday. "
)


def long_document(folder: Path) -> dict[str, Any]:
    """A 40-page document whose only match for ``quokka`` is on the last page."""
    pages = []
    offsets = []
    position = 0
    for page in range(1, LONG_DOC_PAGES + 1):
        text = "".join(_FILLER.format(page=page, n=n) for n in range(8))
        if page == LONG_DOC_PAGES:
            text += "Finally, a quokka was seen near the loading dock of the archive. "
        offsets.append(position)
        pages.append(text)
        position += len(text) + 1
    content = "\n".join(pages)
    path = folder / "archive-manual.txt"
    path.write_text(content, encoding="utf-8")
    return {
        "file_path": str(path),
        "title": "Archive manual",
        "author": "Dana Archivist",
        "language": "en",
        "content": content,
        "file_size": path.stat().st_size,
        "created_date": "2018-01-01",
        "modified_date": "2018-06-30",
        "page_offsets": offsets,
    }


def corpus_docs(folder: Path) -> list[dict[str, Any]]:
    """The fixture corpus, copied into ``folder``, as documents for ``Writer.add``."""
    manifest = json.loads((FIXTURES / "corpus.json").read_text(encoding="utf-8"))
    docs = []
    for name, meta in manifest.items():
        target = folder / name
        shutil.copyfile(FIXTURES / "corpus" / name, target)
        docs.append(
            {
                "file_path": str(target),
                "content": target.read_text(encoding="utf-8"),
                "file_size": target.stat().st_size,
                **meta,
            }
        )
    docs.append(long_document(folder))
    return docs


def build_index(index: Index, folder: Path) -> list[dict[str, Any]]:
    docs = corpus_docs(folder)
    with index.writer() as writer:
        for doc in docs:
            writer.add(doc)
    return docs
