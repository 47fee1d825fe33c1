"""What a crawl did: its counts over all folders and per folder, its failures and its rates (a
module of its own, so that the server's crawler tools describe it without importing the
crawler)."""

from __future__ import annotations

import logging
import time
from dataclasses import asdict, dataclass, field
from typing import Any

log = logging.getLogger("pylucene_mcp.crawler.pipeline")

MAX_FAILURES_KEPT = 200


@dataclass
class DirectoryStats:
    """The counts of a crawl, for one directory or (as part of :class:`CrawlReport`) all."""

    found: int = 0
    added: int = 0
    updated: int = 0
    deleted: int = 0
    skipped: int = 0
    failed: int = 0
    bytes: int = 0


@dataclass(kw_only=True)
class CrawlReport(DirectoryStats):
    """What one crawl did (live while it runs): the counts over all directories, and each
    directory's in ``per_directory``."""

    directories: list[str]
    full: bool
    started: float
    finished: float | None = None
    to_extract: int = 0
    processed: int = 0
    stopped: bool = False
    error: str | None = None
    failures: list[dict[str, str]] = field(default_factory=list)
    per_directory: dict[str, DirectoryStats] = field(default_factory=dict)

    @property
    def duration_s(self) -> float:
        return (self.finished or time.time()) - self.started

    def rates(self) -> dict[str, float]:
        """The figures derived from the counts: duration, files/s, MB/s."""
        duration = max(self.duration_s, 1e-9)
        return {
            "duration_s": round(self.duration_s, 3),
            "files_per_s": round(self.processed / duration, 2),
            "mb_per_s": round(self.bytes / 1e6 / duration, 3),
        }

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), **self.rates()}

    def _dir(self, root: str) -> DirectoryStats:
        return self.per_directory.setdefault(root, DirectoryStats())

    def count(self, root: str, what: str, size: int = 0) -> None:
        setattr(self, what, getattr(self, what) + 1)
        stats = self._dir(root)
        setattr(stats, what, getattr(stats, what) + 1)
        if size:
            self.bytes += size
            stats.bytes += size

    def fail(self, root: str, key: str, reason: str, quiet: bool = False) -> None:
        """Counts a failed file and keeps its reason (the first 200); logs it unless
        ``quiet`` (a reason shared by many files, logged once by the caller)."""
        self.count(root, "failed")
        if not quiet:
            log.warning("cannot index %s: %s", key, reason)
        if len(self.failures) < MAX_FAILURES_KEPT:
            self.failures.append({"path": key, "reason": reason})
