"""What ``crawler/extract.py`` makes of Tika's metadata, against plain Python."""

from __future__ import annotations

import datetime as dt

from pylucene_mcp.crawler.extract import _date_ms


def _oracle(text: str) -> int:
    stamp = dt.datetime.fromisoformat(text)
    if stamp.tzinfo is None:
        stamp = stamp.replace(tzinfo=dt.UTC)
    return round(stamp.timestamp() * 1000)


def test_a_files_dates_are_read_by_the_one_parser_of_date_text() -> None:
    """Tika's date forms (a zone, an offset, milliseconds, none: UTC, a day) read as the query
    syntax reads them; the first key present counts; text that is no date is left out."""
    for text in (
        "2023-05-04T10:20:30Z",
        "2023-05-04T10:20:30.250+02:00",
        "1999-12-31T23:59:59-05:00",
        "2023-05-04T10:20:30",
        "2024-02-29",
    ):
        assert _date_ms({"dcterms:created": text}, "dcterms:created") == _oracle(text), text
    meta = {"meta:creation-date": "2020-01-02T03:04:05Z", "Creation-Date": "2001-01-01"}
    assert _date_ms(meta, "dcterms:created", "meta:creation-date", "Creation-Date") == _oracle(
        "2020-01-02T03:04:05Z"
    )
    for wrong in ("last Tuesday", "2023-13-01", "2023-02-30T10:00:00Z", ""):
        assert _date_ms({"dcterms:created": wrong}, "dcterms:created") is None, wrong
    assert _date_ms({}, "dcterms:created") is None
