"""What a research index's search gives: the best documents, each with its Lucene id, score and
stored fields, and how many matched in all."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from html import escape


@dataclass(frozen=True)
class ResearchHit:
    """One document found: its Lucene id, score and stored fields."""

    doc: int
    score: float
    fields: dict[str, str]


@dataclass(frozen=True)
class ResearchResults:
    """The best ``k`` documents of a search, and how many matched in all."""

    total_hits: int
    hits: tuple[ResearchHit, ...]

    def __len__(self) -> int:
        return len(self.hits)

    def __iter__(self) -> Iterator[ResearchHit]:
        return iter(self.hits)

    def _repr_html_(self) -> str:
        """A table in Jupyter: rank, Lucene id, score and the stored fields."""
        names = list(dict.fromkeys(name for hit in self.hits for name in hit.fields))
        head = "".join(f"<th>{escape(n)}</th>" for n in ["#", "doc", "score", *names])
        rows = "".join(
            f"<tr><td>{rank}</td><td>{hit.doc}</td><td>{hit.score:.4f}</td>"
            + "".join(f"<td>{escape(hit.fields.get(n, ''))[:200]}</td>" for n in names)
            + "</tr>"
            for rank, hit in enumerate(self.hits, 1)
        )
        return (
            f"<p>{self.total_hits} hits, {len(self.hits)} shown</p>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"
        )
