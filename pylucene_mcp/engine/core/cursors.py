"""Cursors, one codec for both backends: what a search hands out as ``nextCursor`` and takes
back as ``cursor``.

A cursor carries its owner (a digest of the index, the query, its operator, the filters and the
sort) and its position (where the last page ended), signed with HMAC-SHA256 under this user's
key (:func:`~pylucene_mcp.basics.private.cursor_key`). So a cursor that this server's user did
not get from a search — forged, edited, cut — is "not one this server gave", before any part of
it is read; and a cursor of another query, sort or index is refused as such, never replayed.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from typing import Any

from pylucene_mcp.basics import errors
from pylucene_mcp.basics.private import cursor_key

#: 3: signed, and owned by an index too
VERSION = "3"
_MAC_CHARS = 32
#: the longest file_path the index holds, in UTF-8 bytes (Lucene's longest term)
MAX_KEY_BYTES = 32_766
#: the longest cursor this server gives: its position holds the last hit's path (on a SolrCloud
#: collection inside Solr's cursorMark, base64 of it: two thirds more), then the whole is base64
MAX_CHARS = 4 * (100 + 4 * (MAX_KEY_BYTES + 100) // 3) // 3 + 4

NOT_OURS = (
    "cursor is not one this server gave; start with cursor '*' and pass on each answer's "
    "next cursor"
)
ANOTHER_SEARCH = (
    "this cursor belongs to another query, filters, sort or index; keep those as they were, or "
    "start again with cursor '*'"
)


def owner(index: str, *search: Any) -> str:
    """The digest a cursor belongs to: ``index`` (what the backend is: a folder, a collection)
    and the parts of the search (query, operator, filters, sort …, as JSON)."""
    spec = json.dumps([index, *search], sort_keys=True, default=str)
    return hashlib.sha256(spec.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _mac(body: str) -> str:
    digest = hmac.new(cursor_key(), body.encode("utf-8", "surrogatepass"), hashlib.sha256)
    return digest.hexdigest()[:_MAC_CHARS]


def encode(owned_by: str, position: str) -> str:
    """The cursor that continues after ``position`` in the search ``owned_by``."""
    body = f"{VERSION}|{owned_by}|{position}"
    text = f"{body}|{_mac(body)}"
    return base64.urlsafe_b64encode(text.encode("utf-8", "surrogatepass")).decode().rstrip("=")


def decode(cursor: str, owned_by: str) -> str | None:
    """The position ``cursor`` continues after (None for ``*``, the start).

    Raises:
        InvalidRequestError: for text that is no cursor this server gave, or a cursor of
            another search or index.
    """
    if cursor == "*":
        return None
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        text = base64.urlsafe_b64decode(padded.encode("ascii")).decode("utf-8", "surrogatepass")
        body, mac = text.rsplit("|", 1)
        version, owned, position = body.split("|", 2)
    except (ValueError, UnicodeError) as exc:
        raise errors.InvalidRequestError(NOT_OURS) from exc
    if version != VERSION or not hmac.compare_digest(mac, _mac(body)):
        raise errors.InvalidRequestError(NOT_OURS)
    if owned != owned_by:
        raise errors.InvalidRequestError(ANOTHER_SEARCH)
    return position
