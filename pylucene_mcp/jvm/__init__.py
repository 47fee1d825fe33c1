"""The one owner of the JVM: finding Java, the class path, start-up, class lookup and the mapping
of Java exceptions onto :mod:`pylucene_mcp.basics.errors`.

Nothing here runs at import time. :func:`start` is idempotent and thread-safe; :func:`jclass`
starts the JVM on first use. Java's ``System.out`` is pointed at ``System.err`` before any Lucene
code runs, because stdout belongs to the MCP protocol.

Its parts: :mod:`._runtime` (finding Java, its options), :mod:`._classpath` (the jars, the
Lucene version, the class-data archive), :mod:`._startup` (:func:`start`), :mod:`._convert`
(:func:`jclass`, :func:`jarray` …) and :mod:`._exceptions` (:func:`java_errors`,
:func:`translate`); this module offers what the rest of the package uses.
"""

from pylucene_mcp.jvm._classpath import (
    archive_options,
    class_archive,
    class_path,
    jars_dir,
    lucene_version,
)
from pylucene_mcp.jvm._convert import jarray, jclass, jlong, jmap, jset
from pylucene_mcp.jvm._exceptions import java_errors, translate
from pylucene_mcp.jvm._runtime import (
    MIN_JAVA,
    VECTOR_MODULE,
    find_java_home,
    java_major,
    jvm_options,
    runtime_modules,
)
from pylucene_mcp.jvm._startup import is_started, start

__all__ = [
    "MIN_JAVA",
    "VECTOR_MODULE",
    "archive_options",
    "class_archive",
    "class_path",
    "find_java_home",
    "is_started",
    "jarray",
    "java_errors",
    "java_major",
    "jars_dir",
    "jclass",
    "jlong",
    "jmap",
    "jset",
    "jvm_options",
    "lucene_version",
    "runtime_modules",
    "start",
    "translate",
]
