"""What each part of :class:`~pylucene_mcp.service.service.Service` (its crawler, its folders: a
module each) shares with the whole: its state, set by ``Service.__init__``, and the whole's
methods a part calls, declared once for the type checker."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING

from pylucene_mcp.basics.config import Settings
from pylucene_mcp.engine.core.backend import Backend
from pylucene_mcp.service.places import IndexPlace
from pylucene_mcp.service.sharing import Sharing

if TYPE_CHECKING:
    from pylucene_mcp.crawler.pipeline import Crawler
    from pylucene_mcp.crawler.tika_process import TikaProcess
    from pylucene_mcp.crawler.watch import Watcher
    from pylucene_mcp.service.admin import Admin


class ServicePart:
    """A part of the service: the state it shares with the others."""

    settings: Settings
    place: IndexPlace
    sharing: Sharing
    _index: Backend | None
    _lock: threading.RLock
    _timer: threading.Timer | None
    _crawler: Crawler | None
    _tika: TikaProcess | None
    _watcher: Watcher | None
    _admin: Admin | None
    _closing: bool
    _asked: bool
    _queued: list[str]
    _queue_runner: threading.Thread | None
    _start_up_crawl: threading.Event
    _start_folders: tuple[str, ...] | None

    if TYPE_CHECKING:  # the whole's (Service's)

        def index(self) -> Backend: ...

        def writes(self) -> bool: ...
