"""What the index keeps of a text's characters, for the crawler's text and a query alike."""

from __future__ import annotations

import re

#: control characters (but newlines and tabs), soft hyphens, zero-width characters (the joiner of
#: an emoji sequence among them), direction marks, word joiners, byte-order marks and U+FFFD: not
#: kept in an indexed text, so not looked for in a query either
INVISIBLE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff\ufffd]"
)


def visible(text: str) -> str:
    """``text`` without the characters :data:`INVISIBLE` matches."""
    return INVISIBLE.sub("", text)
