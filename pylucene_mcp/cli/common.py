"""What the commands share: the settings of a command's ``--index``, ``--filter``'s text read as
a filter, and the answer of the server that writes the index where one runs."""

from __future__ import annotations

import argparse
import re
from typing import Any

from pylucene_mcp.basics import errors, schema
from pylucene_mcp.basics.config import Settings


def parse_filter(text: str) -> dict[str, object]:
    """``field=value``, ``field=a,b`` (in), ``field!=value`` (not), ``field=from..to`` (range).

    Raises:
        InvalidFilterError: for text of none of these forms.
    """
    match = re.fullmatch(r"\s*([A-Za-z_]+)\s*(!?=)\s*(.*)", text)
    if not match:
        raise errors.InvalidFilterError(f"--filter {text!r}: use FIELD=VALUE, e.g. language=de")
    name, op, value = match.groups()
    negate = op == "!="
    if ".." in value and not negate:
        ends: list[object] = [end.strip() or None for end in value.split("..", 1)]
        if name in schema.LONG_FIELDS:  # bytes are numbers, as the MCP tool takes and echoes
            ends = [int(e) if isinstance(e, str) and e.isdigit() else e for e in ends]
        return {"field": name, "operator": "range", "from": ends[0], "to": ends[1]}
    if "," in value:
        values = [v for v in value.split(",") if v]
        return {"field": name, "operator": "not_in" if negate else "in", "values": values}
    return {"field": name, "operator": "not" if negate else "eq", "value": value}


def settings_of(args: argparse.Namespace) -> Settings:
    settings = Settings.load()
    return settings.with_index(args.index) if args.index else settings


def ask_server(settings: Settings, tool: str, arguments: dict[str, Any]) -> dict[str, Any] | None:
    """The answer of the server that writes the index, when one runs (no JVM to start here:
    0.3 s instead of seconds), else None."""
    from pylucene_mcp.service.places import place

    return place(settings).ask_writer(tool, arguments)
