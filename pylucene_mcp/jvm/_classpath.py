"""The class path: the package's jars (or a checkout's), the Lucene version on it, and the
JVM's class-data archive of a runtime and class path."""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import os
import re
from pathlib import Path

from pylucene_mcp.basics import config, errors
from pylucene_mcp.jvm._runtime import java_major

_PACKAGE_DIR = Path(__file__).resolve().parents[1]


def _in_checkout() -> bool:
    """True when the package runs from a source checkout (beside ``build.gradle``)."""
    return (_PACKAGE_DIR.parent / "build.gradle").is_file()


def jars_dir() -> Path:
    """The folder of the Lucene, ICU and shim jars: ``PYLUCENE_MCP_JARS``, else the package's
    own ``jars/`` (package data in a wheel; Gradle's output in a checkout)."""
    explicit = config.from_environment("jars")
    if explicit:
        return Path(explicit)
    return Path(str(importlib.resources.files("pylucene_mcp").joinpath("jars")))


def class_path() -> list[str]:
    """Every jar of :func:`jars_dir`, then the entries of ``PYLUCENE_MCP_CLASSPATH`` (your own
    analyzers or other classes; separated by ``os.pathsep``).

    Raises:
        JvmError: when the jars are missing.
    """
    folder = jars_dir()
    extra = [p for p in (config.from_environment("classpath") or "").split(os.pathsep) if p]
    jars = sorted(str(p) for p in folder.glob("*.jar"))
    if not any(Path(j).name.startswith("lucene-core-") for j in jars) or not any(
        Path(j).name.startswith("pylucene-mcp-shims") for j in jars
    ):
        if config.from_environment("jars"):
            fix = "point PYLUCENE_MCP_JARS at a folder that has them, or unset it"
        elif _in_checkout():
            fix = "build them with `make jars`"
        else:
            fix = "this installation is incomplete: `pip install --force-reinstall pylucene-mcp`"
        raise errors.JvmError(f"Lucene jars not found in {folder}; {fix}")
    return jars + extra


def class_archive(home: Path, jars: list[str]) -> Path:
    """Where the class-data archive of the runtime at ``home`` and the class path ``jars`` is
    kept (it may not exist yet): in :func:`~pylucene_mcp.basics.config.cache_dir`, named by a
    digest of the runtime and of each jar's name, size and time, so a new runtime or new jars
    get an archive of their own (see :mod:`pylucene_mcp.engine.lucene.class_archive`)."""
    folder = config.cache_dir()
    major = java_major(home)
    key = json.dumps([str(home), major, [(jar, *_size_and_time(jar)) for jar in jars]]).encode()
    return folder / f"classes-java{major}-{hashlib.sha256(key).hexdigest()[:16]}.jsa"


def _size_and_time(path: str) -> tuple[int, int]:
    try:
        stat = os.stat(path)
    except OSError:
        return (0, 0)
    return (stat.st_size, stat.st_mtime_ns)


def archive_options(home: Path, archive: Path, dump: bool) -> list[str]:
    """The options that map the class-data ``archive`` (or, with ``dump``, write it when the
    JVM exits), with the JVM's notes about archives kept off stdout: an archive that does not
    fit the runtime is left unused, silently."""
    options = [
        f"-XX:ArchiveClassesAtExit={archive}" if dump else f"-XX:SharedArchiveFile={archive}"
    ]
    options.append("-Xlog:cds*=off")
    if java_major(home) >= 24:  # the archive's notes moved to the `aot` tag in Java 24
        options.append("-Xlog:aot*=off")
    return options


def lucene_version() -> str:
    """The Lucene version on the class path, read from the lucene-core jar's name."""
    for jar in class_path():
        match = re.match(r"lucene-core-([\d.]+)\.jar$", Path(jar).name)
        if match:
            return match.group(1)
    raise errors.JvmError("lucene-core jar not found")  # pragma: no cover - class_path checked
