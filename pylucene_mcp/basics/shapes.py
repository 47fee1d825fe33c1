"""Result shapes, each defined once: the Python API's type, the JSON on the wire and the MCP
tool's output schema all come from the same class.

Two kinds of class define a shape:

- a frozen dataclass, for results built in Python (index statistics, a profile, a crawl report);
  :func:`to_dict` turns one into its JSON;
- a :class:`Shape`, for results that arrive as JSON from the Java shims (a search page): the JSON
  is kept as it came and read lazily, so a result nobody looks at costs nothing to build; a part
  may even stay JSON text (:class:`Encoded`) until it is first read.

Either way the JSON keys are the field names in camelCase (``file_path`` → ``filePath``, or the
``json`` name in a dataclass field's metadata), a field that is None is left out, and
:func:`wire_type` derives the ``TypedDict`` that the MCP SDK turns into the tool's output schema.
"""

from __future__ import annotations

import dataclasses
import enum
import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, NotRequired, Union, get_args, get_origin

from typing_extensions import TypedDict


def compact_size(value: Any) -> int:
    """Bytes of ``value`` as compact UTF-8 JSON, as it goes over the wire."""
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def fit(
    data: Any,
    max_bytes: int,
    pick: Callable[[], tuple[str, list[Any]] | None],
    note: str | None = None,
    *,
    total: bool = False,
    omitted: dict[str, int] | None = None,
) -> dict[str, int]:
    """The one budget fitter: leaves items out of ``data`` until its compact JSON fits
    ``max_bytes``. ``pick`` names the list that gives up its last item next (a name to count it
    under, and the list, a part of ``data``), or None when nothing more may go. Returns how many
    items went, by name (added to ``omitted``, counts of an earlier pass, when given); each
    answer's own rule of what goes first is its ``pick``.

    With ``note``, ``data[note]`` says what went as it goes (the counts by name, or their sum
    with ``total``), and its bytes count against ``max_bytes`` like any others: the one rule
    for the room a note needs, which no answer guesses."""
    size = compact_size(data)
    omitted = {} if omitted is None else omitted
    while size > max_bytes:
        picked = pick()
        if picked is None:
            break
        name, items = picked
        dropped = items.pop()
        size -= compact_size(dropped) + (1 if items else 0)  # and its comma
        omitted[name] = omitted.get(name, 0) + 1
        if note is not None:
            size += _renoted(data, note, sum(omitted.values()) if total else dict(omitted))
    return omitted


def _renoted(data: dict[str, Any], note: str, value: Any) -> int:
    """Sets ``data[note]`` to ``value``; returns how many bytes the compact JSON of ``data``
    grew by (a new member brings its comma, unless it is the only one)."""
    before = data.get(note)
    data[note] = value
    grown = compact_size({note: value}) - 2
    if before is not None:
        return grown - (compact_size({note: before}) - 2)
    return grown + (1 if len(data) > 1 else 0)


def camel(name: str) -> str:
    """``file_path`` → ``filePath``; a trailing underscore (``from_``) is dropped."""
    head, *rest = name.rstrip("_").split("_")
    return head + "".join(part.title() for part in rest)


def to_dict(value: Any) -> Any:
    """A result as the JSON the MCP tools return: camelCase keys, no None values."""
    if isinstance(value, Shape):
        return value.to_dict()
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        out = {}
        for f in dataclasses.fields(value):
            item = getattr(value, f.name)
            if item is None or f.metadata.get("internal"):
                continue
            if item is False and f.metadata.get("omit_false"):
                continue
            out[f.metadata.get("json", camel(f.name))] = to_dict(item)
        return out
    if isinstance(value, Mapping):
        return {k: to_dict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_dict(v) for v in value]
    if isinstance(value, enum.Enum):
        return value.value
    return value


class Encoded(str):
    """A value of a :class:`Shape`'s JSON still as JSON text: decoded when first read."""

    __slots__ = ()


def _decoded(data: dict[str, Any], key: str) -> Any:
    value = data.get(key)
    if isinstance(value, Encoded):
        value = data[key] = json.loads(value)
    return value


class Shape:
    """A result kept as the JSON it arrived in and read when read.

    A subclass declares its fields as annotations, in snake_case, as a dataclass would; each
    reads the JSON key of the same name in camelCase. A field missing from the JSON reads as
    None, ``False``, ``()`` or ``{}`` by its type. Nested shapes and tuples of them are built on
    first access and kept. Instances are immutable and compare by their JSON.
    """

    __slots__ = ("_data", "_read")
    #: the fields the wire always carries (None: every field whose type is not optional)
    wire_required: ClassVar[tuple[str, ...] | None] = None
    #: JSON keys that are not the field's name in camelCase
    json_keys: ClassVar[dict[str, str]] = {}

    def __init__(self, data: dict[str, Any]) -> None:
        object.__setattr__(self, "_data", data)
        object.__setattr__(self, "_read", {})

    def __getattr__(self, name: str) -> Any:
        reader = _readers(type(self)).get(name)
        if reader is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        read: dict[str, Any] = self._read
        if name not in read:
            read[name] = reader(self._data)
        return read[name]

    def __setattr__(self, name: str, value: Any) -> None:
        raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return bool(self.to_dict() == other.to_dict())

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickles (and copies) as its class and its JSON."""
        return (type(self), (self.to_dict(),))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in _readers(type(self)))
        return f"{type(self).__name__}({shown})"

    def __dir__(self) -> list[str]:
        return sorted({*super().__dir__(), *_readers(type(self))})

    @classmethod
    def wire(cls, **fields: Any) -> dict[str, Any]:
        """The JSON of ``fields``, given by their Python names, as this shape reads it: each
        under its JSON key, nested results as their JSON, None left out (the one place a
        result's keys are spelled: the engine names its fields in Python and adds the
        returned members where it extends an answer).

        Raises:
            TypeError: for a name that is no field of this shape.
        """
        known = _readers(cls)
        data: dict[str, Any] = {}
        for name, value in fields.items():
            if name not in known:
                raise TypeError(f"{cls.__name__} has no field {name!r}")
            if value is not None:
                data[cls.json_keys.get(name, camel(name))] = _as_json(value)
        return data

    def to_dict(self) -> dict[str, Any]:
        """The JSON of this result, as the MCP tool returns it (not a copy: do not change it)."""
        data: dict[str, Any] = self._data
        for key, value in data.items():
            if isinstance(value, Encoded):
                data[key] = json.loads(value)
        return data


def _as_json(value: Any) -> Any:
    """A value given to :meth:`Shape.wire` as JSON (text kept as :class:`Encoded` stays so)."""
    if isinstance(value, Encoded):
        return value
    if isinstance(value, list | tuple):
        return [_as_json(v) for v in value]
    return to_dict(value)


def _hints(cls: type) -> dict[str, Any]:
    return {
        name: hint
        for name, hint in typing.get_type_hints(cls, include_extras=False).items()
        if not name.startswith("_") and get_origin(hint) is not ClassVar
    }


def field_names(cls: type[Shape]) -> tuple[str, ...]:
    """The fields ``cls`` declares, in order."""
    return tuple(_readers(cls))


def _optional(hint: Any) -> tuple[bool, Any]:
    """(whether ``hint`` admits None, ``hint`` without None)."""
    if get_origin(hint) in (Union, types.UnionType):
        args = [a for a in get_args(hint) if a is not type(None)]
        if len(args) < len(get_args(hint)):
            return True, Union[tuple(args)] if len(args) > 1 else args[0]  # noqa: UP007
    return False, hint


def _convert(hint: Any) -> Callable[[Any], Any] | None:
    """How a JSON value becomes the field's Python value (None: as it is)."""
    _, hint = _optional(hint)
    origin = get_origin(hint)
    if isinstance(hint, type) and issubclass(hint, Shape):
        return hint
    if origin is tuple:
        item = _convert(get_args(hint)[0])
        return tuple if item is None else lambda v: tuple(item(x) for x in v)
    if origin in (dict, Mapping):
        value = _convert(get_args(hint)[1])
        return None if value is None else lambda v: {k: value(x) for k, x in v.items()}
    return None


def _missing(hint: Any) -> Any:
    optional, bare = _optional(hint)
    if optional:
        return None
    if bare is bool:
        return False
    if get_origin(bare) is tuple:
        return ()
    if get_origin(bare) in (dict, Mapping):
        return {}
    return None


Reader = Callable[[dict[str, Any]], Any]
_READERS: dict[type, dict[str, Reader]] = {}
_WIRE_TYPES: dict[type, Any] = {}
_BUILDING: set[type] = set()


def _readers(cls: type[Shape]) -> dict[str, Reader]:
    """How each field of ``cls`` is read from its JSON, built once per class."""
    known = _READERS.get(cls)
    if known is None:
        known = _READERS[cls] = _build_readers(cls)
    return known


def _build_readers(cls: type[Shape]) -> dict[str, Reader]:
    readers: dict[str, Reader] = {}
    for name, hint in _hints(cls).items():
        key = cls.json_keys.get(name, camel(name))
        convert, default = _convert(hint), _missing(hint)

        def read(
            data: dict[str, Any],
            key: str = key,
            convert: Callable[[Any], Any] | None = convert,
            default: Any = default,
        ) -> Any:
            value = _decoded(data, key)
            if value is None:
                return default
            return value if convert is None else convert(value)

        readers[name] = read
    return readers


def wire_type(cls: type) -> Any:
    """The ``TypedDict`` of ``cls``'s JSON (a :class:`Shape` or a dataclass), for the MCP
    output schema: optional fields (``X | None`` or ``Any``, left out when None), and booleans
    left out when false, are ``NotRequired``."""
    known = _WIRE_TYPES.get(cls)
    if known is not None:
        return known
    name = f"{cls.__name__}Json"
    if cls in _BUILDING:  # a shape that holds itself (a query tree): named, resolved later
        return typing.ForwardRef(name)
    _BUILDING.add(cls)
    try:
        known = _build_wire_type(cls)
    finally:
        _BUILDING.discard(cls)
    globals()[name] = _WIRE_TYPES[cls] = known  # where pydantic resolves the forward name
    return known


def _build_wire_type(cls: type) -> Any:
    keys: dict[str, Any] = {}
    hints = typing.get_type_hints(cls)
    if dataclasses.is_dataclass(cls):
        for f in dataclasses.fields(cls):
            if f.metadata.get("internal"):
                continue
            optional, bare = _optional(hints[f.name])
            wire = _wire(bare)
            if optional or bare is Any or f.metadata.get("omit_false"):
                wire = NotRequired[wire]
            keys[f.metadata.get("json", camel(f.name))] = wire
    else:
        required = getattr(cls, "wire_required", None)
        renamed: dict[str, str] = getattr(cls, "json_keys", {})
        for name in _hints(cls):
            optional, bare = _optional(hints[name])
            absent = optional or bare is bool or bare is Any
            if required is not None:
                absent = name not in required
            key = renamed.get(name, camel(name))
            keys[key] = NotRequired[_wire(bare)] if absent else _wire(bare)
    return TypedDict(f"{cls.__name__}Json", keys)  # type: ignore[operator]


def _wire(hint: Any) -> Any:
    optional, hint = _optional(hint)
    if optional:
        return _wire(hint) | None
    origin = get_origin(hint)
    if isinstance(hint, type) and (issubclass(hint, Shape) or dataclasses.is_dataclass(hint)):
        return wire_type(hint)
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        return typing.Literal[tuple(m.value for m in hint)]
    if origin in (tuple, list, Sequence):
        return types.GenericAlias(list, (_wire(get_args(hint)[0]),))
    if origin in (dict, Mapping):
        key, value = get_args(hint)
        return types.GenericAlias(dict, (key, _wire(value)))
    return hint
