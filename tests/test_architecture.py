"""The house as docs/architecture.md draws it, checked on the code. The layers are the folders
of the package: the faces (the package's own modules, ``server/``: MCP), then ``service/``, the
``crawler/``, ``semantic/`` (the embedding model), ``research/``, the ``engine/``, ``jvm/`` and
``basics/``. Arrows run only downward, there is no cycle, only the JVM owner imports JPype, and
the package root holds the public API and the entry points alone. Every import counts, including
those inside functions and under TYPE_CHECKING."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "pylucene_mcp"

#: Each folder of the package is a layer; the modules at its root are the faces beside server/.
FOLDER_LAYERS = {
    "server": "faces",
    "cli": "faces",
    "service": "service",
    "crawler": "crawler",
    "semantic": "semantic",
    "research": "research",
    "engine": "engine",
    "jvm": "jvm",
    "basics": "basics",
}
# what each layer may import, besides itself
MAY_IMPORT = {
    "faces": {"service", "engine", "crawler", "semantic", "research", "basics", "jvm"},
    "service": {"engine", "crawler", "semantic", "basics", "jvm"},
    "crawler": {"engine", "semantic", "basics", "jvm"},
    "semantic": {"basics"},  # the embedding model: no index, no Java
    # a dense searcher encodes a query's text with the semantic path's model (research/dense.py)
    "research": {"engine", "semantic", "basics", "jvm"},
    "engine": {"basics", "jvm"},
    "jvm": {"basics"},  # the error tree and the settings
    "basics": set(),  # no Java, nothing above
}
#: The package root: the public API and the entry points, no more.
ROOT_MODULES = {"__init__", "__main__", "api", "doctor"}
MAX_ROOT_MODULES = 8


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    name = ".".join(parts)
    return name.removesuffix(".__init__")


def layer(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1 or (len(parts) == 2 and (PACKAGE / f"{parts[1]}.py").is_file()):
        return "faces"  # the package's __init__ and its root modules
    folder = parts[1]
    if folder not in FOLDER_LAYERS:
        raise AssertionError(
            f"{module}: the folder pylucene_mcp/{folder}/ is no layer; add it to FOLDER_LAYERS "
            "in tests/test_architecture.py and to docs/architecture.md"
        )
    return FOLDER_LAYERS[folder]


def test_the_layers_are_the_folders() -> None:
    folders = {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert folders == set(FOLDER_LAYERS), "every package folder is a layer, and every layer one"
    root = {p.stem for p in PACKAGE.glob("*.py")}
    assert root == ROOT_MODULES and len(root) <= MAX_ROOT_MODULES, sorted(root)


def imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        source = module_name(path)
        found = graph.setdefault(source, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.level:
                    raise AssertionError(f"{source}: relative import")
                if node.module.startswith("pylucene_mcp"):
                    # ``from package import module`` imports that module, not just the package
                    for alias in node.names:
                        inner = f"{node.module}.{alias.name}"
                        named = PACKAGE.parent / inner.replace(".", "/")
                        is_module = named.with_suffix(".py").is_file() or named.is_dir()
                        found.add(inner if is_module else node.module)
                elif node.module.split(".")[0] == "jpype":
                    found.add("jpype")
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("pylucene_mcp") or alias.name.startswith("jpype"):
                        found.add(alias.name.split(".")[0] if "jpype" in alias.name else alias.name)
    modules = set(graph)
    return {
        source: {t for t in targets if t == "jpype" or t in modules} - {source}
        for source, targets in graph.items()
    }


def test_arrows_run_only_downward() -> None:
    wrong = []
    for source, targets in imports().items():
        for target in targets - {"jpype"}:
            if target == "pylucene_mcp":  # the package's own __init__ (the public API)
                continue
            a, b = layer(source), layer(target)
            if a != b and b not in MAY_IMPORT[a]:
                wrong.append(f"{source} ({a}) → {target} ({b})")
    assert not wrong, "\n".join(sorted(wrong))


#: What the layers above the engine may import of it: its interface. The service also builds the
#: implementations (the embedded index, and the SolrCloud backend through its package); the
#: public Python API at the package root and the research library are Lucene's own faces and use
#: the engine whole.
ENGINE_INTERFACE = {"pylucene_mcp.engine", "pylucene_mcp.engine.core.backend"}
#: and what the service needs of one backend in particular: the places build them; a folder's
#: index is shared among servers through its lock (``sharing``); the class-data archive is the
#: embedded index's JVM
MAY_BUILD = {
    "service": {
        "pylucene_mcp.engine.lucene.embedded",
        "pylucene_mcp.engine.lucene.index_lock",
        "pylucene_mcp.engine.lucene.class_archive",
        "pylucene_mcp.engine.solr",
    }
}
WHOLE_ENGINE = {"pylucene_mcp", "pylucene_mcp.api"}


def test_above_the_engine_only_its_interface_is_imported() -> None:
    wrong = []
    for source, targets in imports().items():
        above = layer(source)
        if above in ("engine", "research") or source in WHOLE_ENGINE:
            continue
        allowed = ENGINE_INTERFACE | MAY_BUILD.get(above, set())
        for target in targets - {"jpype"}:
            if layer(target) == "engine" and target not in allowed:
                wrong.append(f"{source} ({above}) → {target}")
    assert not wrong, "through engine.core.backend instead:\n" + "\n".join(sorted(wrong))


def test_only_jvm_imports_jpype() -> None:
    users = {source for source, targets in imports().items() if "jpype" in targets}
    # the JVM owner (pylucene_mcp/jvm/): its start-up, class lookup and exception map
    assert users == {f"pylucene_mcp.jvm._{part}" for part in ("startup", "convert", "exceptions")}


def test_there_is_no_cycle() -> None:
    graph = {s: {t for t in ts if t != "jpype"} for s, ts in imports().items()}
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                cycle = path[path.index(target) :] + [target]
                raise AssertionError("cycle: " + " → ".join(cycle))
            if target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module)


def test_the_server_starts_without_the_crawler_or_the_jvm() -> None:
    """Building the server (what stands between spawn and the answer to tools/list) imports
    no crawler module, no JPype, no tool module and none of the engine's data types: they load
    when a crawl, the first call or the first search needs them (``tools/list`` is answered from
    the descriptions an earlier start wrote). The engine's interface, its limits and the index's
    lock file (which says who writes the index) are all of the engine it needs."""
    import subprocess
    import sys

    code = (
        "import json, sys\n"
        "from pylucene_mcp.server import app\n"
        "from pylucene_mcp.basics.config import Settings\n"
        "app.build_server(Settings.load(None))\n"
        "print(json.dumps(sorted(m for m in sys.modules"
        " if m.startswith(('pylucene_mcp.crawler', 'pylucene_mcp.engine',"
        " 'pylucene_mcp.server.tools.', 'jpype', '_jpype')))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        timeout=120,
        check=True,
    )
    assert json.loads(done.stdout) == [
        "pylucene_mcp.engine",
        "pylucene_mcp.engine.core",
        "pylucene_mcp.engine.core.backend",
        "pylucene_mcp.engine.core.limits",
        "pylucene_mcp.engine.lucene",
        "pylucene_mcp.engine.lucene.index_lock",
        "pylucene_mcp.server.tools.apps",
        "pylucene_mcp.server.tools.registry",
    ], done.stdout


#: the modules that may ask which backend the settings choose: the settings' own check of the
#: value, and the one function that turns it into an index place
MAY_ASK_THE_BACKEND = {"basics/config.py", "service/places.py"}
_BACKEND_CLASSES = {"EmbeddedBackend", "SolrBackend"}


def _asks_the_backend(tree: ast.AST) -> list[int]:
    """The lines of ``tree`` that read ``<anything>.backend`` (the setting) or test an index's
    class with ``isinstance``."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "backend":
            lines.append(node.lineno)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "isinstance"
            and any(
                isinstance(n, ast.Name | ast.Attribute)
                and (n.id if isinstance(n, ast.Name) else n.attr) in _BACKEND_CLASSES
                for arg in node.args[1:]
                for n in ast.walk(arg)
            )
        ):
            lines.append(node.lineno)
    return lines


def test_only_the_factory_asks_which_backend_it_has() -> None:
    """The command line, doctor, the service, the admin operations and the tools take the
    index place or the Backend they are given: they never branch on the backend."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = path.relative_to(PACKAGE).as_posix()
        if name.startswith("engine/") or name in MAY_ASK_THE_BACKEND:
            continue
        found += [f"{name}:{line}" for line in _asks_the_backend(ast.parse(path.read_text()))]
    assert found == [], "asks which backend it has: " + ", ".join(found)


def test_a_settings_variable_is_read_in_one_place() -> None:
    """Every ``PYLUCENE_MCP_*`` variable (a config key's, or one of those that say where things
    are before any setting is read) is read by ``basics/config.py`` alone (``Settings.load``,
    and ``from_environment``): no other module asks ``os.environ`` or ``os.getenv`` for one by
    its name; each of the latter is in the table of variables of docs/claude-desktop.md, and a
    name that is neither is refused."""
    from pylucene_mcp.basics import config

    table = (PACKAGE.parent / "docs" / "claude-desktop.md").read_text(encoding="utf-8")
    undocumented = [k for k in config.ENVIRONMENT_ONLY if f"`{config.variable(k)}`" not in table]
    assert undocumented == []
    with pytest.raises(KeyError, match="PYLUCENE_MCP_JAR_DIR is no variable"):
        config.from_environment("jar_dir")
    readers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "basics" / "config.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            asked = None
            if isinstance(node, ast.Call) and node.args:
                func = ast.unparse(node.func)
                if func in ("os.environ.get", "os.getenv", "environ.get", "getenv"):
                    asked = node.args[0]
            elif isinstance(node, ast.Subscript) and ast.unparse(node.value) in (
                "os.environ",
                "environ",
            ):
                asked = node.slice
            if isinstance(asked, ast.Constant) and str(asked.value).startswith("PYLUCENE_MCP_"):
                readers.append(f"{path.relative_to(PACKAGE.parent)}:{node.lineno} {asked.value}")
    assert readers == [], "read these through basics.config.from_environment: " + ", ".join(readers)


def test_the_engines_core_knows_neither_backend() -> None:
    """``engine/core`` (the protocol, its data types, the query model, the questions written
    once) imports nothing of ``engine/lucene`` or ``engine/solr``: each backend builds on the
    core, never the reverse."""
    wrong = [
        f"{source} → {target}"
        for source, targets in imports().items()
        if source.startswith("pylucene_mcp.engine.core")
        for target in targets
        if target.startswith(("pylucene_mcp.engine.lucene", "pylucene_mcp.engine.solr"))
    ]
    assert not wrong, "\n".join(sorted(wrong))


#: Solr's own names, which the Solr backend speaks to Solr (its API, not the MCP answer's)
SOLR_NAMES = {
    "maxSegments", "waitSearcher", "expungeDeletes", "softCommit", "failOnVersionConflicts",
    "excludeTags", "cursorMark", "topK", "numShards", "replicationFactor", "waitForFinalState",
    "explainOther", "numBuckets", "timeAllowed", "longRange", "termRange",
}  # fmt: skip


def test_the_engine_builds_no_key_of_the_mcp_answer() -> None:
    """The engine names a result's fields in Python: no module under ``engine/`` writes a
    camelCase key (a dict literal's, or one set by subscript); a result's JSON keys are
    spelled by its shape alone (``Shape.wire``), the MCP answer's by the server. The Solr
    backend's camelCase keys are Solr's own parameters."""
    camel = re.compile(r"^[a-z]+[A-Z][A-Za-z]*$")
    found = []
    for path in sorted((PACKAGE / "engine").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            keys: list[ast.expr | None] = []
            if isinstance(node, ast.Dict):
                keys = list(node.keys)
            elif isinstance(node, ast.Assign):
                keys = [t.slice for t in node.targets if isinstance(t, ast.Subscript)]
            for key in keys:
                if isinstance(key, ast.Constant) and isinstance(key.value, str):
                    if camel.match(key.value) and key.value not in SOLR_NAMES:
                        found.append(f"{path.relative_to(PACKAGE)}:{node.lineno} {key.value}")
    assert found == [], "camelCase keys built in the engine: " + ", ".join(found)


def test_no_tool_states_a_bound_of_its_own() -> None:
    """Every bound a tool's parameter declares (``ge``, ``le``, ``min_length``, ``max_length``
    …) comes from ``engine/core/limits.py``, where it is stated once for every tool (and, for a
    request's numbers, for the engine's check too): a number written in a tool's ``Field`` is a
    second statement of a limit, which drifts from the first."""
    bounds = {"ge", "gt", "le", "lt", "min_length", "max_length"}
    found = []
    for path in sorted((PACKAGE / "server" / "tools").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Field":
                for keyword in node.keywords:
                    if keyword.arg in bounds and isinstance(keyword.value, ast.Constant):
                        found.append(f"{path.name}:{node.lineno} {keyword.arg}")
    assert not found, found


def test_every_name_the_engines_interface_exports_resolves() -> None:
    """``engine.core.backend`` imports its data types on first use (PEP 562) from a table beside
    the imports the type checker reads: each exported name must come back from its module, the
    one the type checker was told (a name left out of the table fails here, not at a call)."""
    import importlib

    from pylucene_mcp.engine.core import backend

    source = (PACKAGE / "engine" / "core" / "backend.py").read_text(encoding="utf-8")
    checked = {
        alias.asname or alias.name: (node.module, alias.name)
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.ImportFrom) and node.module and ".engine.core." in node.module
        for alias in node.names
    }
    for name in backend.__all__:
        value = getattr(backend, name)
        if name in checked:
            module, original = checked[name]
            assert value is getattr(importlib.import_module(module), original), name
