"""Passages of patterns: the highlighter gets each page document's own words of the pattern
(shim's PageTerms); what it marks must be exactly words of the document that the pattern
matches, from anywhere in a long text."""

from __future__ import annotations

import re
from pathlib import Path

from pylucene_mcp import Index

FILLER = "plain words without the ending here. " * 2000  # 74,000 characters


def test_marked_words_are_the_patterns_words_of_that_document(tmp_path: Path) -> None:
    texts = {
        "/early.txt": "The nation and its station. Nothing else.",
        "/late.txt": FILLER + "Only at the end comes a notation.",
        "/mixed.txt": "A lotion, a potion; and a ration of motion in the Vertragsgestaltung.",
        "/none.txt": "nothing of the kind at all",
    }
    with Index.open(tmp_path / "index") as index:
        with index.writer() as w:
            for path, text in texts.items():
                w.add({"file_path": path, "content": text})
        result = index.search("*tion", max_passages=5, passage_length=200)
        assert {h.file_path for h in result.documents} == {"/early.txt", "/late.txt", "/mixed.txt"}
        for hit in result.documents:
            marked = [
                m.lower() for p in hit.passages for m in re.findall(r"<em>(.*?)</em>", p.text)
            ]
            words = {w.lower() for w in re.findall(r"\w+", texts[hit.file_path])}
            assert marked, hit.file_path  # every hit has its words marked, the late one too
            assert all(m.endswith("tion") and m in words for m in marked), (hit.file_path, marked)
        late = next(h for h in result.documents if h.file_path == "/late.txt")
        assert "<em>notation</em>" in late.passages[0].text
        # a pattern with a twin field and a phrase beside it: both marked, nothing else
        (hit,) = index.search('*gestaltung OR "a potion"', default_operator="OR").documents
        text = " ".join(p.text for p in hit.passages)
        assert "<em>Vertragsgestaltung</em>" in text and "<em>a potion</em>" in text
