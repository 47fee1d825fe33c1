"""locateQuote against an oracle: quotes drawn from real prose (tests/quote_cases.py) at their
true places, through the Python API and through MCP as a client receives the answer (its page,
its budget, one document, a document that is not there)."""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp import Index
from tests.mcp_client import call, connect, error
from tests.quote_cases import drawn, places, variants
from tests.real_text import english_docstrings, german_lines

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def prose(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Index, list[dict[str, Any]]]]:
    texts = list(itertools.islice(english_docstrings(), 1500))[::3]
    lines = list(itertools.islice(german_lines(), 3000))
    texts += ["\n".join(lines[n : n + 30]) for n in range(0, len(lines), 30)]
    docs = []
    for n, text in enumerate(texts):
        doc: dict[str, Any] = {"file_path": f"/prose/doc{n:03}.txt", "content": text}
        if n % 4 == 0:  # paged: a page starts at each paragraph
            doc["page_offsets"] = [0] + [
                i + 2 for i in range(len(text)) if text[i : i + 2] == "\n\n"
            ]
        docs.append(doc)
    index = Index.open(tmp_path_factory.mktemp("quotes") / "index")
    with index.writer() as writer:
        writer.add_many(docs)
    index.refresh()
    yield index, docs
    index.close()


def test_every_exact_and_normalized_quote_at_its_place_and_near_ones_nearly_all(
    prose: tuple[Index, list[dict[str, Any]]],
) -> None:
    index, docs = prose
    by_path = {d["file_path"]: d for d in docs}
    chance = random.Random(3)
    right: dict[str, list[bool]] = {"exact": [], "normalized": [], "near": []}
    german = 0  # quotes with umlauts, asked without them among their variants
    for case in drawn(docs, 40, seed=5, words=16):
        german += any(c in case.quote for c in "äöüÄÖÜß")
        found = index.locate_quote(case.quote, max_results=50)
        truth = places(docs, case.quote)
        assert {(m.file_path, m.start) for m in found.matches if m.match == "exact"} == truth
        right["exact"].append(True)
        for changed in variants(case, chance):
            found = index.locate_quote(changed.quote)
            best = found.matches[0] if found.matches else None
            if best is None:
                right[changed.kind].append(False)
                continue
            doc = by_path[best.file_path]
            # the drawn place, or one that holds the same words (the library repeats itself)
            at_place = (best.file_path, best.start, best.end) == (case.path, case.start, case.end)
            same = doc["content"][best.start : best.end].split() == case.quote.split()
            ok = best.match == changed.kind and (at_place or same)
            right[changed.kind].append(ok)
            if best.match != "near":  # never a false exact or normalized
                assert ok, (changed, best)
            if ok:
                starts = doc.get("page_offsets")
                page = sum(1 for s in starts if s <= best.start) if starts else None
                assert best.page == page
                assert best.before == doc["content"][max(0, best.start - 80) : best.start]
    assert all(right["normalized"]) and len(right["normalized"]) >= 100 and german >= 3
    assert sum(right["near"]) >= 0.95 * len(right["near"]), right["near"]


async def test_through_mcp_a_quote_says_its_page_and_fits_the_answer(
    prose: tuple[Index, list[dict[str, Any]]],
) -> None:
    index, docs = prose
    paged = next(d for d in docs if len(d.get("page_offsets", ())) >= 3)
    start = paged["page_offsets"][2]
    quote = " ".join(paged["content"][start:].split()[:12])
    async with connect(index) as client:
        answer = await call(client, "locateQuote", quote=quote)
        best = answer["matches"][0]
        assert (best["filePath"], best["page"], best["match"]) == (
            paged["file_path"],
            3,
            "normalized" if quote not in paged["content"] else "exact",
        )
        only = await call(client, "locateQuote", quote=quote, filePath=paged["file_path"])
        assert only["candidates"] == 1 and only["matches"][0]["start"] == best["start"]
        missing = await error(client, "locateQuote", quote=quote, filePath="/prose/none.txt")
        assert "no indexed document" in missing
        # the longest quote, every place it may take: within the answer's 10,000 bytes
        longest = " ".join(d["content"] for d in docs)[:2000]
        big = await client.call_tool("locateQuote", {"quote": longest, "maxResults": 50})
        assert not big.is_error
        text = big.content[0].text  # type: ignore[union-attr]
        assert len(text.encode()) <= 10_000
        assert len(json.dumps(big.structured_content, separators=(",", ":")).encode()) <= 10_000
        short = await error(client, "locateQuote", quote="an")
        assert "letters or digits" in short


def test_a_document_not_indexed_gives_closest_places_and_what_differs(
    prose: tuple[Index, list[dict[str, Any]]], tmp_path: Path
) -> None:
    """A quote stitched from two sentences of a document matches nowhere as a whole: the
    closest places say which words differ, so the quote can be corrected."""
    index, docs = prose
    case = next(drawn(docs, 1, seed=9, words=10))
    other = next(drawn([d for d in docs if d["file_path"] == case.path], 1, seed=4, words=10))
    stitched = f"{case.quote} {other.quote}"
    found = index.locate_quote(stitched, min_similarity=0.95)
    assert all(m.match == "near" for m in found.matches + (found.closest or ()))
    near = found.matches or found.closest or ()
    assert near and near[0].file_path == case.path
    assert near[0].differences


async def test_a_long_quote_in_many_documents_gives_up_context_then_places_to_fit(
    tmp_path: Path,
) -> None:
    paragraph = " ".join(itertools.islice(english_docstrings(), 40))[:1_900]
    paragraph = paragraph[: paragraph.rfind(" ")]
    index = Index.open(tmp_path / "index")
    try:
        with index.writer() as writer:
            writer.add_many(
                {"file_path": f"/copies/{n}.txt", "content": f"Copy {n}.\n{paragraph}\nEnd."}
                for n in range(12)
            )
        index.refresh()
        assert len(index.locate_quote(paragraph, max_results=50).matches) == 12
        async with connect(index) as client:
            result = await client.call_tool("locateQuote", {"quote": paragraph, "maxResults": 50})
            answer = result.structured_content
            assert answer is not None and not result.is_error
            assert len(json.dumps(answer, separators=(",", ":")).encode()) <= 10_000
            kept = answer["matches"]
            assert 1 <= len(kept) < 12 and answer["matchesOmitted"] == 12 - len(kept)
            assert all("before" not in m and m["text"] == paragraph for m in kept)
    finally:
        index.close()
