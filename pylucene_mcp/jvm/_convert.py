"""Java classes by name and Python values as Java arrays, sets and maps."""

from __future__ import annotations

import functools
from typing import Any

from pylucene_mcp.jvm._startup import is_started, start


@functools.cache
def _jclass_cached(name: str) -> Any:
    import jpype

    return jpype.JClass(name)


def jclass(name: str) -> Any:
    """The Java class ``name``, starting the JVM if needed. Cached."""
    if not is_started():
        start()
    return _jclass_cached(name)


def jarray(kind: str, values: Any) -> Any:
    """A Java array of ``kind`` ("int", "String" …) holding ``values``."""
    import jpype

    types = {
        "int": jpype.JInt,
        "long": jpype.JLong,
        "String": jpype.JString,
        "float": jpype.JFloat,
        "boolean": jpype.JBoolean,
    }
    return jpype.JArray(types.get(kind) or jclass(kind))(values)


def jlong(value: int) -> Any:
    """``value`` as a Java long, for overloads that would otherwise pick int."""
    import jpype

    return jpype.JLong(value)


def jset(values: Any) -> Any:
    """A ``java.util.HashSet`` of ``values``."""
    out = jclass("java.util.HashSet")()
    for value in values:
        out.add(value)
    return out


def jmap(values: Any) -> Any:
    """A ``java.util.HashMap`` of the mapping ``values``."""
    out = jclass("java.util.HashMap")()
    for key, value in values.items():
        out.put(key, value)
    return out
