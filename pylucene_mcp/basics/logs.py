"""Logging set-up for the server and the CLI: a rotating file and stderr, never stdout; a URL's
credentials redacted in both."""

from __future__ import annotations

import logging
import logging.handlers
import os
import sys
from pathlib import Path

from pylucene_mcp.basics.private import private_dir
from pylucene_mcp.basics.redact import RedactingFilter

FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def setup_logging(
    log_dir: Path, level: int = logging.INFO, stderr_level: int = logging.WARNING
) -> None:
    """Logs to ``log_dir/pylucene-mcp.log`` (rotating, 5 MB × 3) and, from ``stderr_level`` up,
    to stderr. The folder and the file are created for this user alone (0700/0600). A log folder
    that cannot be created leaves stderr only."""
    root = logging.getLogger()
    root.setLevel(min(level, stderr_level))
    for handler in list(root.handlers):
        root.removeHandler(handler)
    stderr = logging.StreamHandler(sys.stderr)
    stderr.setLevel(stderr_level)
    stderr.setFormatter(logging.Formatter(FORMAT))
    stderr.addFilter(RedactingFilter())
    root.addHandler(stderr)
    try:
        private_dir(log_dir)
        log_file = log_dir / "pylucene-mcp.log"
        os.close(os.open(log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
        file_handler = logging.handlers.RotatingFileHandler(
            log_file, maxBytes=5_000_000, backupCount=3, encoding="utf-8"
        )
    except OSError as exc:
        root.warning("cannot write logs to %s (%s); logging to stderr only", log_dir, exc)
        return
    file_handler.setLevel(level)
    file_handler.setFormatter(logging.Formatter(FORMAT))
    file_handler.addFilter(RedactingFilter())
    root.addHandler(file_handler)
