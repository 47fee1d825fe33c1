"""TREC files and evaluation: topics, qrels, run files, the text of HTML documents, and the
measures of ``trec_eval`` through ``ir-measures``."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

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


#: trec_eval's names of measures, as ir-measures names them
TREC_EVAL = {
    "map": "AP",
    "recip_rank": "RR",
    "bpref": "Bpref",
    "num_rel_ret": "NumRelRet",
    "num_ret": "NumRet",
    "num_rel": "NumRel",
}
_CUTOFF = re.compile(r"(P|recall|ndcg_cut|map_cut|success|Rprec)_(\d+)")
_CUTOFF_NAMES = {"P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Success"}


def measure_name(name: str) -> str:
    """``name`` as ir-measures parses it: trec_eval's names (``map``, ``P_30``,
    ``ndcg_cut_10``, ``recall_1000``, ``recip_rank``, …) become ``AP``, ``P@30``, ``nDCG@10``,
    ``R@1000``, ``RR``; ir-measures' own names stay as they are."""
    if name in TREC_EVAL:
        return TREC_EVAL[name]
    if name == "ndcg":
        return "nDCG"
    cut = _CUTOFF.fullmatch(name)
    if cut and cut.group(1) in _CUTOFF_NAMES:
        return f"{_CUTOFF_NAMES[cut.group(1)]}@{cut.group(2)}"
    return name


def evaluate(
    run: Mapping[str, Sequence[tuple[str, float]]],
    qrels: Mapping[str, Mapping[str, int]],
    measures: Sequence[str] = ("AP", "P@30"),
    *,
    per_topic: bool = False,
) -> dict[str, Any]:
    """The measures as ``trec_eval`` computes them (through ``ir-measures``), averaged over the
    judged topics, by the names they were asked by (trec_eval's, ``map``, ``P_30``,
    ``ndcg_cut_10``, or ir-measures', ``AP``, ``P@30``). With ``per_topic``, also
    ``{"per_topic": {measure: {topic: value}}}``. Ties in a run are broken as trec_eval breaks
    them (by docid, descending): runs of :class:`LuceneSearcher` have none (docs/repl.md).

    Raises:
        InvalidRequestError: for a measure neither trec_eval nor ir-measures knows.
        SetupError: when ``ir-measures`` is not installed
            (``pip install 'pylucene-mcp[research]'``).
    """
    try:
        import ir_measures
    except ImportError as exc:  # pragma: no cover - a dev dependency
        raise errors.SetupError(
            "evaluation needs ir-measures: pip install 'pylucene-mcp[research]'"
        ) from exc
    if isinstance(measures, str):
        measures = [measures]
    parsed = {}
    for name in measures:
        try:
            parsed[name] = ir_measures.parse_measure(measure_name(name))
        except (NameError, ValueError, SyntaxError, TypeError) as exc:
            raise errors.InvalidRequestError(
                f"unknown measure {name!r}: give trec_eval's names (map, P_30, ndcg_cut_10, "
                "recall_1000, recip_rank, bpref) or ir-measures' (AP, P@30, nDCG@10)"
            ) from exc
    judged = [ir_measures.Qrel(q, d, r) for q, docs in qrels.items() for d, r in docs.items()]
    scored = [
        ir_measures.ScoredDoc(q, d, s) for q, hits in run.items() if q in qrels for d, s in hits
    ]
    result = ir_measures.calc_aggregate(list(parsed.values()), judged, scored)
    figures: dict[str, Any] = {name: float(result[m]) for name, m in parsed.items()}
    if per_topic:
        by_measure: dict[str, dict[str, float]] = {name: {} for name in parsed}
        names = {m: name for name, m in parsed.items()}
        for metric in ir_measures.iter_calc(list(parsed.values()), judged, scored):
            by_measure[names[metric.measure]][metric.query_id] = float(metric.value)
        figures["per_topic"] = by_measure
    return figures
