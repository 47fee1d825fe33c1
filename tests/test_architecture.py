"""The house as DESIGN.md draws it, checked on the code: arrows run only downward (faces →
service → engine and crawler → basics → jvm), there is no cycle, and only jvm.py imports JPype.
Every import counts, including those inside functions and under TYPE_CHECKING."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "pylucene_mcp"

FACES = {"pylucene_mcp", "__main__", "cli", "server", "api", "doctor", "protocol", "tools"}
SERVICE = {"service", "admin", "class_archive"}
ENGINE = {
    "index",
    "documents",
    "info",
    "query",
    "filters",
    "search",
    "results",
    "passages",
    "analysis",
    "index_lock",
    "explain",
    "vocabulary",
    "profile",
    "miss",
    "research",
    "counts",
}
CRAWLER = {"crawler"}
BASICS = {"schema", "config", "errors", "logs", "shapes", "portable"}
JVM = {"jvm"}
LAYERS = [("faces", FACES), ("service", SERVICE), ("engine", ENGINE), ("crawler", CRAWLER),
          ("basics", BASICS), ("jvm", JVM)]  # fmt: skip
# what each layer may import, besides itself
MAY_IMPORT = {
    "faces": {"service", "engine", "crawler", "basics", "jvm"},
    "service": {"engine", "crawler", "basics", "jvm"},
    "engine": {"basics", "jvm"},
    "crawler": {"engine", "basics", "jvm"},
    "basics": {"jvm"} - {"jvm"},  # basics import no Java
    "jvm": {"basics"},  # the error tree only
}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    name = ".".join(parts)
    return name.removesuffix(".__init__")


def layer(module: str) -> str:
    first = module.split(".")[1] if "." in module else module
    for name, members in LAYERS:
        if first in members:
            return name
    raise AssertionError(f"{module} is in no layer: add it to one in tests/test_architecture.py")


def imports() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        source = module_name(path)
        found = graph.setdefault(source, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                if node.level:
                    raise AssertionError(f"{source}: relative import")
                if node.module == "pylucene_mcp":
                    found.update(f"pylucene_mcp.{a.name}" for a in node.names)
                elif node.module.startswith("pylucene_mcp"):
                    found.add(node.module)
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


def test_only_jvm_imports_jpype() -> None:
    users = {source for source, targets in imports().items() if "jpype" in targets}
    assert users == {"pylucene_mcp.jvm"}


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
    no crawler module and no JPype: they load when a crawl or the first search needs them."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from pylucene_mcp import server\n"
        "from pylucene_mcp.config import Settings\n"
        "server.build_server(Settings.load(None))\n"
        "print(sorted(m for m in sys.modules"
        " if m.startswith(('pylucene_mcp.crawler', 'jpype', '_jpype'))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
        timeout=120,
        check=True,
    )
    assert done.stdout.strip() == "[]", done.stdout
