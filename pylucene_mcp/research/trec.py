"""TREC files and evaluation: topics, qrels, run files, the text of HTML documents, and the
measures of ``trec_eval`` through ``ir-measures``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path

from pylucene_mcp.basics import errors


class _Text(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []

    def handle_data(self, data: str) -> None:
        self.parts.append(data)


def html_text(raw: str) -> str:
    """The visible text of an HTML document, as an HTML parser (like Jsoup) reads it: a ``<``
    that starts no tag (``x <= y``) stays text, entities are decoded, whitespace collapsed."""
    parser = _Text()
    parser.feed(raw)
    parser.close()
    return " ".join(" ".join(parser.parts).split())


_DOC = re.compile(r"<DOC>\s*<DOCNO>\s*(\S+)\s*</DOCNO>(.*?)</DOC>", re.DOTALL)


def read_topics(path: str | Path) -> dict[str, str]:
    """TREC topics in ``<DOC><DOCNO> id </DOCNO> text </DOC>`` form: id → text."""
    text = Path(path).read_text(encoding="utf-8", errors="replace")
    return {m.group(1): " ".join(m.group(2).split()) for m in _DOC.finditer(text)}


def read_qrels(path: str | Path) -> dict[str, dict[str, int]]:
    """TREC qrels (``topic iteration docid relevance``): topic → docid → relevance."""
    qrels: dict[str, dict[str, int]] = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        parts = line.split()
        if len(parts) == 4:
            qrels.setdefault(parts[0], {})[parts[2]] = int(parts[3])
    return qrels


def write_run(run: Mapping[str, Sequence[tuple[str, float]]], path: str | Path, tag: str) -> None:
    """A TREC run file: ``topic Q0 docid rank score tag``."""
    with open(path, "w", encoding="utf-8") as out:
        for qid, hits in run.items():
            for rank, (docid, score) in enumerate(hits, start=1):
                out.write(f"{qid} Q0 {docid} {rank} {score:.6f} {tag}\n")


def evaluate(
    run: Mapping[str, Sequence[tuple[str, float]]],
    qrels: Mapping[str, Mapping[str, int]],
    measures: Sequence[str] = ("AP", "P@30"),
) -> dict[str, float]:
    """The measures as ``trec_eval`` computes them (through ``ir-measures``), averaged over the
    judged topics.

    Raises:
        SetupError: when ``ir-measures`` is not installed
            (``pip install 'pylucene-mcp[research]'``).
    """
    try:
        import ir_measures
    except ImportError as exc:  # pragma: no cover - a dev dependency
        raise errors.SetupError(
            "evaluation needs ir-measures: pip install 'pylucene-mcp[research]'"
        ) from exc
    parsed = [ir_measures.parse_measure(m) for m in measures]
    judged = [ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    scored = [
        ir_measures.ScoredDoc(q, d, s) for q, hits in run.items() if q in qrels for d, s in hits
    ]
    result = ir_measures.calc_aggregate(parsed, judged, scored)
    return {str(m): float(result[m]) for m in parsed}
