"""How a tool's answer reaches the client: once, from one definition of its shape.

``@answers(Shape)`` makes a tool's return value (a result object or its JSON) the structured
content of a ``CallToolResult`` with the same JSON, compact, as its text, and gives the SDK
the output schema derived from the shape (:func:`pylucene_mcp.basics.shapes.wire_type`; a
``TypedDict`` is taken as it is). The SDK checks each answer against that schema once and
sends it as it is: no second serialisation, no indented copy.
"""

from __future__ import annotations

import functools
import inspect
import json
import types
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, TypeVar

from mcp_types import CallToolResult, TextContent
from typing_extensions import TypedDict, is_typeddict

from pylucene_mcp.basics.shapes import compact_size, fit, to_dict, wire_type
from pylucene_mcp.server.caller import unseen

F = TypeVar("F", bound=Callable[..., Any])

# Every answer at its defaults fits this many bytes of compact JSON (docs/tools.md, "Budgets").
ANSWER_BUDGET_BYTES = 10_000
# and every answer, whatever its arguments, this many
ANSWER_CEILING_BYTES = 64_000


def fit_counted(
    data: dict[str, Any],
    lists: Callable[[dict[str, Any]], Iterable[tuple[str, list[Any]]]],
    max_bytes: int = ANSWER_BUDGET_BYTES,
    note: str | None = "omitted",
) -> dict[str, Any]:
    """``data`` fitted to ``max_bytes`` of compact JSON: the longest (in bytes) of its named
    ``lists`` gives up its last item first, each list keeping its first
    (:func:`~pylucene_mcp.basics.shapes.fit`); ``note`` counts what went, by list, within the
    budget (None: no count, where the answer says it otherwise)."""

    def longest() -> tuple[str, list[Any]] | None:
        candidates = [(name, items) for name, items in lists(data) if len(items) > 1]
        return max(candidates, key=lambda entry: compact_size(entry[1])) if candidates else None

    fit(data, max_bytes, longest, note)
    return data


def record(name: str, parts: dict[str, Any]) -> Any:
    """The ``TypedDict`` ``name`` of ``parts``: key → a shape (its :func:`wire_type`), a
    ``TypedDict``, or ``[shape]`` for a list of them; every part required."""

    def wire(part: Any) -> Any:
        if isinstance(part, list):
            return types.GenericAlias(list, (wire(part[0]),))
        return part if is_typeddict(part) else wire_type(part)

    return TypedDict(name, {key: wire(part) for key, part in parts.items()})  # type: ignore[operator]


def listing(name: str, key: str, item: type) -> Any:
    """The ``TypedDict`` of ``{key: [item, ...]}``."""
    return record(name, {key: [item]})


def answer(value: Any, failed: bool = False) -> CallToolResult:
    """``value``'s JSON as structured content and, compact, as text; with ``failed``, an
    answer that is an error (``isError``) and still carries its figures (a failed crawl's
    report). A ``CallToolResult`` is taken as it is."""
    if isinstance(value, CallToolResult):
        return value
    data = unseen(value if isinstance(value, Mapping) else to_dict(value))
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return CallToolResult(
        content=[TextContent(type="text", text=text)], structured_content=data, is_error=failed
    )


def answers(shape: Any) -> Callable[[F], F]:
    """Makes the decorated tool answer with ``shape``'s JSON (see the module's docstring)."""
    wire = shape if is_typeddict(shape) else wire_type(shape)

    def decorate(fn: F) -> F:
        signature = inspect.signature(fn, eval_str=True)
        wrapper: Any
        if inspect.iscoroutinefunction(fn):

            async def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
                return answer(await fn(*args, **kwargs))

        else:

            def wrapper(*args: Any, **kwargs: Any) -> CallToolResult:
                return answer(fn(*args, **kwargs))

        functools.update_wrapper(wrapper, fn)
        wrapper.__signature__ = signature.replace(return_annotation=Annotated[CallToolResult, wire])
        return wrapper  # type: ignore[no-any-return]

    return decorate
