"""The files that could not be extracted, as they were then (size and modification time), kept
across crawls and restarts: such a file is not extracted again until it changes or a full crawl
asks for it. A file that crashed the parser, ran past the time limit or is corrupt would
otherwise cost the same at every start (docs/crawler.md). Passing faults (a file that vanished
or was replaced meanwhile, no Tika to be had) are not kept: the next crawl looks again."""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

from pylucene_mcp.basics import errors, portable
from pylucene_mcp.basics.private import private_dir
from pylucene_mcp.crawler.walk import REPLACED

log = logging.getLogger(__name__)

#: what a crawl says of a file it did not try again
NOT_AGAIN = "not tried again until the file changes (a full crawl tries it); it failed as it is now"


def lasting(failure: errors.ExtractionError) -> bool:
    """Whether ``failure`` is the file's own (it would fail again as it is): not a file that
    vanished or was replaced, nor a Tika that could not be had at the moment."""
    passing = (errors.FileVanishedError, errors.TikaUnavailableError)
    return not isinstance(failure, passing) and str(failure) != REPLACED


class FailureLog:
    """Failed files by index key: ``key → (size, mtime_ms, reason)``; in ``path`` (JSON, this
    user's alone) when one is given, else in memory for this process."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._failed: dict[str, tuple[int, int, str]] = {}
        self._dirty = False
        if path is not None:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                self._failed = {str(k): (int(v[0]), int(v[1]), str(v[2])) for k, v in data.items()}
            except FileNotFoundError:
                pass
            except (OSError, ValueError, TypeError, IndexError, AttributeError) as exc:
                log.warning("ignoring the unreadable list of failed files %s: %s", path, exc)

    def known(self, key: str, size: int, mtime_ms: int) -> str | None:
        """The reason ``key`` failed, when it failed with this size and modification time."""
        with self._lock:
            found = self._failed.get(key)
        return found[2] if found is not None and found[:2] == (size, mtime_ms) else None

    def record(self, key: str, size: int, mtime_ms: int, reason: str) -> None:
        with self._lock:
            self._failed[key] = (size, mtime_ms, reason)
            self._dirty = True

    def forget(self, keys: Iterable[str]) -> None:
        with self._lock:
            for key in keys:
                if self._failed.pop(key, None) is not None:
                    self._dirty = True

    def keep_only(self, seen: set[str], roots: Sequence[str]) -> None:
        """Forgets the files under ``roots`` that are not in ``seen`` (gone from the folders)."""
        with self._lock:
            gone = [
                key
                for key in self._failed
                if key not in seen and any(portable.is_under(key, root) for root in roots)
            ]
        self.forget(gone)

    def save(self) -> None:
        """Writes the list when it changed (atomically; a failure to write is logged)."""
        with self._lock:
            if self.path is None or not self._dirty:
                return
            data = {k: list(v) for k, v in self._failed.items()}
            self._dirty = False
        try:
            private_dir(self.path.parent)
            portable.write_private(self.path, json.dumps(data))
        except OSError as exc:
            log.warning("cannot write the list of failed files %s: %s", self.path, exc)
