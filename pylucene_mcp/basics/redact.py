"""Credentials kept out of what the product says: a URL's ``user:password@`` part becomes
``***@`` in every error (:class:`~pylucene_mcp.basics.errors.PyLuceneMcpError` redacts its own
text), every log line (:class:`RedactingFilter` on each handler) and doctor's report, so a
password written into a Solr node's URL reaches neither the model, nor a log, nor a screen."""

from __future__ import annotations

import logging
import re
from urllib.parse import SplitResult, unquote, urlsplit

_USERINFO = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^\s/@]*@")


def redact(text: str) -> str:
    """``text`` with the user information of every URL in it replaced by ``***``."""
    return _USERINFO.sub(r"\1***@", text)


def split_credentials(url: str) -> tuple[str, str | None, str | None]:
    """``url`` without its user information, and the user and password it carried (None when
    it carried none), percent-decoded."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None, None
    host = parts.netloc.rsplit("@", 1)[1]
    clean = SplitResult(parts.scheme, host, parts.path, parts.query, parts.fragment).geturl()
    user = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    return clean, user, password


class RedactingFilter(logging.Filter):
    """Redacts each record's message (its arguments merged in) before a handler writes it."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        if record.exc_info and record.exc_text is None:
            formatter = logging.Formatter()
            record.exc_text = redact(formatter.formatException(record.exc_info))
        elif record.exc_text:
            record.exc_text = redact(record.exc_text)
        return True
