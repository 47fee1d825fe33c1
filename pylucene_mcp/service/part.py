"""What the service's parts (its crawls, its folders: an object each) ask of the
:class:`~pylucene_mcp.service.service.Service` that holds them, and nothing more."""

from __future__ import annotations

from typing import Protocol

from pylucene_mcp.basics.config import Settings
from pylucene_mcp.engine.core.backend import Backend


class Host(Protocol):
    """The service as its parts see it: its settings (the folders' part saves new ones), the
    index, whether this process writes it, and whether the service is closing."""

    settings: Settings

    def index(self) -> Backend: ...

    def index_is_open(self) -> bool: ...

    def writes(self) -> bool: ...

    @property
    def closing(self) -> bool: ...
