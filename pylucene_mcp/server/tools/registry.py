"""One registry of the server's tools.

Each tool module records its tools on a :class:`Registry` with one decorator, which says the
tool's group (what ``tools_include``/``tools_exclude`` name), its title and hints, and the MCP
App that shows its answer::

    @tools.tool("debug", "Profile a query", read_only=True)
    @answers(QueryProfile)
    def profileQuery(query: str, ...) -> dict[str, Any]: ...

The decorator also turns the project's errors into tool errors addressed to the model. The
server (:func:`pylucene_mcp.server.app.build_server`) adds the enabled ones to the SDK in the
order they were recorded.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import ToolAnnotations

from pylucene_mcp.basics import errors

F = TypeVar("F", bound=Callable[..., Any])


@dataclass(frozen=True)
class Tool:
    """A recorded tool: the function the SDK calls, its group, hints and app."""

    fn: Callable[..., Any]
    group: str
    annotations: ToolAnnotations
    #: the MCP App (``server/apps/<app>.html``) that renders its answer, if any
    app: str | None = None


#: what a model can do itself about a corrupt index: the shell's `rebuild` is out of its reach
REBUILD_OVER_MCP = (
    "; from this chat: purgeIndex {confirm: true, fullPurge: true}, then startCrawl "
    "{wait: true}, rebuilds it the same way"
)


def addressed(exc: errors.PyLuceneMcpError) -> ToolError:
    """``exc`` as a tool error addressed to the model: with what it can do through the tools
    where the error names a shell command."""
    text = str(exc)
    if isinstance(exc, errors.IndexCorruptError) and "pylucene-mcp rebuild" in text:
        text += REBUILD_OVER_MCP
    return ToolError(text)


def tool_errors(fn: F) -> F:
    """``fn`` with the project's errors turned into tool errors addressed to the model."""

    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def waiting(*args: Any, **kwargs: Any) -> Any:
            try:
                return await fn(*args, **kwargs)
            except errors.PyLuceneMcpError as exc:
                raise addressed(exc) from exc

        return waiting  # type: ignore[return-value]

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except errors.PyLuceneMcpError as exc:
            raise addressed(exc) from exc

    return wrapper  # type: ignore[return-value]


class Registry:
    """The tools of one server, by name, in the order they were recorded."""

    def __init__(self) -> None:
        self.tools: dict[str, Tool] = {}

    def tool(
        self,
        group: str,
        title: str,
        *,
        read_only: bool,
        destructive: bool = False,
        idempotent: bool = True,
        app: str | None = None,
    ) -> Callable[[F], F]:
        """Records the decorated function as the tool of its name."""

        def record(fn: F) -> F:
            name = fn.__name__
            if name in self.tools:
                raise ValueError(f"two tools named {name}")
            hints = ToolAnnotations(
                title=title,
                read_only_hint=read_only,
                destructive_hint=destructive,
                idempotent_hint=idempotent,
                open_world_hint=False,
            )
            self.tools[name] = Tool(tool_errors(fn), group, hints, app)
            return fn

        return record

    def groups(self) -> dict[str, tuple[str, ...]]:
        """Each group's tool names, in the order recorded."""
        found: dict[str, list[str]] = {}
        for name, entry in self.tools.items():
            found.setdefault(entry.group, []).append(name)
        return {group: tuple(names) for group, names in found.items()}
