"""The MCP server: thin tools over the service layer, served over STDIO.

Each tool validates (its input schema carries the constraints), calls the service and shapes the
result; errors of :mod:`pylucene_mcp.basics.errors` become tool errors whose text tells the
model what to do. No Lucene here. The JVM starts in the background after the handshake.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import json
import logging
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
import pydantic
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.utilities.context_injection import find_context_parameter
from mcp_types import CallToolResult, InputRequiredResult
from mcp_types import Tool as MCPTool
from pydantic import ValidationError

from pylucene_mcp import __version__
from pylucene_mcp.basics import config, errors
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.server import caller
from pylucene_mcp.server.protocol import (
    UnicodeGuard,
    invalid_arguments,
    tool_error,
    unknown_arguments,
)
from pylucene_mcp.server.tools.apps import register_apps, ui_meta
from pylucene_mcp.server.tools.registry import Registry, Tool
from pylucene_mcp.service.service import Service

if TYPE_CHECKING:
    from pylucene_mcp.server.auth import Access

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
Full-text search (Apache Lucene) over the user's indexed documents. You are the semantic layer:
the engine matches words exactly, so expand the query yourself.
- English and German word forms match, ranked below the word as written: lock finds locks and
  locked, Haus finds Häuser (wordForms=false: exact words only).
- No synonyms: write OR-expansions, e.g. (contract OR agreement OR Vertrag).
- Trailing wildcards for derived words: sign* finds sign, signed, signature (patterns of four
  letters or more rank their matches; shorter ones score all alike).
- German compounds: infix wildcards, *vertrag* finds Arbeitsvertrag and Vertragsbedingungen;
  a leading wildcard *vertrag is cheap.
- Phrases and proximity: "signed contract", "contract signed"~3. Fuzzy: Mayer~1.
- Umlauts and accents are folded: muller, Mueller and Müller all find Müller; cafe finds café.
- Terms are ANDed by default (defaultOperator=OR to change); use AND/OR/NOT, +/-, parentheses.
  Words side by side bind tighter than OR: machine learning OR deep learning means
  (machine AND learning) OR (deep AND learning). Patterns and fuzzy words match every word
  they expand to.
- Unfielded words match the text or the title (also a title kept only in a file's metadata).
- Fields: title:, author:, file_name:, language:de, file_extension:pdf,
  modified_date:[2024-01-01 TO *], file_size:[1000000 TO *].
- Dates: modified_date and created_date are the file's (an e-mail's: when it was sent), what a
  person means by "my contracts from 2024"; document_modified and document_created are the dates
  the document's own metadata states (a template's, a generator's), often years apart.
- Narrow with filters and facets (author, language, file_extension, file_type) instead of
  re-querying; facets of a filtered dimension still show its other values.
- Long result lists: cursor '*' and then each answer's nextCursor (page stays 1).
- Passages show <em>matched</em> words from anywhere in the document; read more of a document
  with getDocumentDetails (filePath, offset, length).
- When results surprise you: profileQuery (what the query became, term rarity, advice) and
  explainMiss (why a given document is missing); suggestTerms shows how the index spells a word.
"""


def enabled_tools(settings: Settings, registry: Registry | None = None) -> set[str]:
    """Tool names left after ``tools_include`` / ``tools_exclude``: names or groups (those the
    tools were recorded under), exclude wins."""
    groups = (registry or all_tools(settings, Service(settings))).groups()
    every = {name for names in groups.values() for name in names}

    def expand(items: tuple[str, ...]) -> set[str]:
        out: set[str] = set()
        for item in items:
            out.update(groups.get(item, (item,)))
        return out

    chosen = expand(settings.tools_include) & every if settings.tools_include else every
    return chosen - expand(settings.tools_exclude)


def all_tools(settings: Settings, svc: Service) -> Registry:
    """Every tool of the server, recorded in the order tools/list shows them."""
    from pylucene_mcp.server.tools.admin import register_admin
    from pylucene_mcp.server.tools.crawler import register_crawler
    from pylucene_mcp.server.tools.debug import register_debug
    from pylucene_mcp.server.tools.search import register_search
    from pylucene_mcp.server.tools.vocabulary import register_vocabulary

    tools = Registry()
    register_search(tools, settings, svc)
    register_debug(tools, svc)
    register_vocabulary(tools, svc)
    register_crawler(tools, svc)
    register_admin(tools, svc)
    return tools


#: Tools whose work grows with the index whatever they are asked; and those whose query text
#: decides: a pattern, fuzzy word or regular expression walks the index's vocabulary.
#: the groups of tools that the process writing the index runs (service/sharing.py)
WRITER_GROUPS = frozenset({"crawler", "admin"})
ALWAYS_EXPENSIVE = frozenset({"findDuplicates", "getTopTerms", "optimizeIndex"})
QUERY_TOOLS = frozenset({"search", "profileQuery", "explainMiss"})
_EXPANDS = re.compile(r"[*?~/]")


def expensive(name: str, arguments: dict[str, Any]) -> bool:
    """Whether the call ``name(arguments)`` may take long: a pattern (``comput*``, ``*port*``,
    ``?``), a fuzzy word (``Mayer~1``) or a regular expression in its query, or a tool that
    walks the whole index. ``*`` alone (every document) is cheap."""
    if name in ALWAYS_EXPENSIVE:
        return True
    query = arguments.get("query")
    if name not in QUERY_TOOLS or not isinstance(query, str) or query.strip() == "*":
        return False
    return bool(_EXPANDS.search(query))


def expensive_limit() -> int:
    """How many expensive calls run at once (the machine's cores, at least 2)."""
    return max(2, os.cpu_count() or 2)


class RecordedTools:
    """The enabled tools of a server: those not yet handed to the SDK, each one's group, the
    arguments a client may pass, and which run in the process that writes the index."""

    def __init__(self, tools: dict[str, Tool]) -> None:
        self.waiting = dict(tools)
        #: each tool's group (over HTTP, the group says the scope a call needs: server/auth.py)
        self.groups = {name: entry.group for name, entry in tools.items()}
        self.arguments = {name: _argument_names(entry.fn) for name, entry in tools.items()}
        # the tools the process that writes the index runs (crawler, admin), and whether each
        # writes: a reader hands them over (service/sharing.py)
        self.at_writer = {
            name: not entry.annotations.read_only_hint
            for name, entry in tools.items()
            if entry.group in WRITER_GROUPS
        }


class SearchServer(MCPServer):
    """The SDK's ``MCPServer`` with the tools of a :class:`Registry`, handed to the SDK when it
    first needs them, and one validation of a call's arguments.

    Turning 23 functions into the SDK's tools (a pydantic model of the arguments, the JSON
    schemas of arguments and answer) took 100 ms of each start, more than the rest of the
    server. So ``tools/list`` answers from the descriptions an earlier start wrote to
    :func:`~pylucene_mcp.basics.config.cache_dir` (named by :func:`fingerprint`: any change of
    the code or of the settings they are made of writes new ones), the tools are recorded
    (:attr:`tools`) when first needed, and a tool is added to the SDK when it is first called.
    Without such a file, every tool is recorded and added, and its descriptions are written.

    A call is validated once, by the SDK; before it, an argument that the tool does not take is
    refused with those it takes (the SDK would ignore it), and the SDK's refusal is reworded for
    the model (:func:`~pylucene_mcp.server.protocol.invalid_arguments`).

    At most :func:`expensive_limit` :func:`expensive` calls run at once; the others wait for
    their turn without holding a worker thread, so a cheap call (a word, a filter, document
    details) never queues behind them for one (docs/performance.md).
    """

    def __init__(
        self, tools: Callable[[], dict[str, Tool]], fingerprint: str, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self._tools_of = tools
        self._tools: RecordedTools | None = None
        self._adding = threading.Lock()
        self._descriptions = config.cache_dir() / f"tools-{fingerprint}.json"
        self._listed: list[MCPTool] | None = None
        self._expensive: anyio.CapacityLimiter | None = None  # made in the event loop

    @property
    def tools(self) -> RecordedTools:
        """The enabled tools, recorded when first needed: a call, or a ``tools/list`` that no
        descriptions of an earlier start answer (recording them imports the tool modules and
        the engine's data types: 83 ms, 54 + 29, that a client waiting for ``tools/list`` need
        not pay; docs/performance.md)."""
        if self._tools is None:
            with self._adding:
                if self._tools is None:
                    self._tools = RecordedTools(self._tools_of())
        return self._tools

    def _add(self, name: str) -> None:
        tools = self.tools
        with self._adding:  # a peer's call (another thread) may add a tool at the same time
            entry = tools.waiting.pop(name, None)
            if entry is None:
                return
            self.add_tool(
                entry.fn,
                name=name,
                title=entry.annotations.title,
                annotations=entry.annotations,
                meta=ui_meta(entry.app) if entry.app else None,
                structured_output=True,
            )

    async def list_tools(self) -> list[MCPTool]:
        if self._listed is None:
            self._listed = self._read_descriptions()
        if self._listed is None:
            for name in list(self.tools.waiting):
                self._add(name)
            self._listed = await super().list_tools()
            self._write_descriptions(self._listed)
        return self._listed

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Any = None
    ) -> CallToolResult | InputRequiredResult:
        service: Service = self.service  # type: ignore[attr-defined]
        if caller.current() is not None:  # a restricted caller: a view may be made, off the loop
            refusal = functools.partial(
                caller.refusal, name, self.tools.groups.get(name, ""), service.index
            )
            refused = await anyio.to_thread.run_sync(refusal, service.settings)
            if refused is not None:
                return tool_error(refused)
        at_writer = self.tools.at_writer
        if name in at_writer:
            hand_over = functools.partial(service.forward, name, arguments, writes=at_writer[name])
            try:
                answered = await anyio.to_thread.run_sync(hand_over)
            except errors.PyLuceneMcpError as exc:
                return tool_error(str(exc))
            if answered is not None:
                if "error" in answered:
                    return tool_error(str(answered["error"]))
                return CallToolResult.model_validate(answered)
        return await self._call(name, arguments, context, limited=True)

    def answer_peer(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        """The answer to a call that a reader of the index handed over (on the channel's thread:
        the call runs in an event loop of its own), as JSON."""
        if name not in self.tools.arguments:  # a reader hands over writes; the CLI, searches too
            result: CallToolResult | InputRequiredResult = tool_error(
                f"{name} is not a tool of this server"
            )
        else:
            result = anyio.run(self._call, name, arguments, None, False)
        return result.model_dump(mode="json", by_alias=True, exclude_none=True)

    async def _call(
        self, name: str, arguments: dict[str, Any], context: Any, limited: bool
    ) -> CallToolResult | InputRequiredResult:
        self._add(name)
        arguments_of = self.tools.arguments
        if name in arguments_of:
            problem = unknown_arguments(name, arguments, arguments_of[name])
            if problem is not None:
                return tool_error(problem)
        try:
            if limited and expensive(name, arguments):
                if self._expensive is None:
                    self._expensive = anyio.CapacityLimiter(expensive_limit())
                async with self._expensive:
                    return await super().call_tool(name, arguments, context)
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            return failed(name, exc)

    def _read_descriptions(self) -> list[MCPTool] | None:
        try:
            listed = json.loads(self._descriptions.read_text(encoding="utf-8"))
            tools = [MCPTool.model_validate(item) for item in listed]
        except (OSError, ValueError) as exc:  # none yet, or unreadable: they are rebuilt
            if not isinstance(exc, FileNotFoundError):
                log.info("tool descriptions %s not used: %s", self._descriptions, exc)
            return None
        return tools

    def _write_descriptions(self, tools: list[MCPTool]) -> None:
        listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
        try:
            self._descriptions.parent.mkdir(parents=True, exist_ok=True)
            partial = self._descriptions.with_suffix(f".{os.getpid()}.part")
            partial.write_text(json.dumps(listed, ensure_ascii=False), encoding="utf-8")
            os.replace(partial, self._descriptions)
        except OSError as exc:  # an optimisation: the next start builds them again
            log.info("tool descriptions not written to %s: %s", self._descriptions, exc)


def failed(name: str, exc: ToolError) -> CallToolResult:
    """The one answer of a call that failed, whatever failed: the tool's own words (a refusal of
    the engine, addressed to the model), the arguments' mistakes in the tool's terms, or, for a
    failure of the server itself, that it failed (logged here with its traceback; its text stays
    on the server). The SDK's ``Error executing tool <name>:`` is left out: the model knows the
    tool it called, and each answer says the same whichever way it failed (a peer's too)."""
    cause = exc.__cause__
    if isinstance(exc, UnexpectedToolError):
        log.error("%s raised an unexpected exception", name, exc_info=cause)
        return tool_error(
            f"{name} failed: an error of the server, not of the call (its log has the details)"
        )
    if isinstance(cause, ValidationError):
        return tool_error(invalid_arguments(name, cause))
    text = str(cause) if cause is not None else str(exc)
    log.info("%s failed: %r", name, text)
    return tool_error(text)


def _argument_names(fn: Callable[..., Any]) -> frozenset[str]:
    """The arguments a client may pass to the tool ``fn`` (not the SDK's context)."""
    context = find_context_parameter(fn)
    return frozenset(name for name in inspect.signature(fn).parameters if name != context)


#: the settings that recording the tools reads (which tools there are, their defaults):
#: ``tests/test_server.py`` records every setting that :func:`all_tools` and
#: :func:`enabled_tools` read and fails on one missing here
REGISTRATION_SETTINGS = ("tools_include", "tools_exclude", "default_operator", "vectors")


def fingerprint(settings: Settings) -> str:
    """A digest of what the tools' descriptions are made of: this package's source files (by
    size and time), the SDK's and pydantic's versions, and the settings that decide which tools
    there are and their defaults (:data:`REGISTRATION_SETTINGS`), so that ``tools/list`` is
    answered from an earlier start's descriptions without recording the tools."""
    package = Path(__file__).resolve().parents[1]
    stats = {str(path.relative_to(package)): path.stat() for path in package.rglob("*.py")}
    files = sorted((name, st.st_size, st.st_mtime_ns) for name, st in stats.items())
    sdk = Path(inspect.getfile(MCPServer))
    parts = [
        __version__,
        files,
        str(sdk),
        sdk.stat().st_mtime_ns,
        pydantic.VERSION,
        [repr(getattr(settings, name)) for name in REGISTRATION_SETTINGS],
    ]
    return hashlib.sha256(json.dumps(parts).encode()).hexdigest()[:16]


def build_server(
    settings: Settings, service: Service | None = None, access: Access | None = None
) -> SearchServer:
    """The MCP server for ``settings``: every enabled tool, the server instructions; over
    HTTP with ``access``, a resource server that takes the tokens it checks."""
    svc = service or Service(settings)

    def enabled() -> dict[str, Tool]:
        tools = all_tools(settings, svc)
        chosen = enabled_tools(settings, tools)
        return {name: entry for name, entry in tools.tools.items() if name in chosen}

    server = SearchServer(
        enabled,
        fingerprint(settings),
        name="pylucene-mcp",
        title="Lucene full-text search",
        version=__version__,
        instructions=INSTRUCTIONS,
        **(access.server_options() if access is not None else {}),
    )
    server.service = svc  # type: ignore[attr-defined]
    svc.sharing.answer(server.answer_peer)
    register_apps(server)
    server.middleware.append(UnicodeGuard())
    return server
