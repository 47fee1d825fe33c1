"""How this installation was made (a pip environment, pipx, a uv tool, a uvx run; from an
index, a file or a folder), and the command that adds an extra to it as it was made."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path


def uv_cache_run(executable: str, environ: Mapping[str, str]) -> bool:
    """Whether ``executable`` is the Python of an environment that ``uvx`` made in uv's cache
    (``…/archive-v0/<hash>/bin/python``; uv sets ``UV`` in what it runs): it vanishes on the
    next ``uv cache clean``."""
    parts = [part.casefold() for part in Path(executable).parts]
    archive = any(part.startswith("archive-v") for part in parts)
    return archive and (bool(environ.get("UV")) or "uv" in parts)


def installed_from() -> str | None:
    """Where this distribution was installed from when that was a file or a URL (PEP 610's
    ``direct_url.json``), else None (a package index)."""
    from importlib import metadata

    try:
        text = metadata.distribution("pylucene-mcp").read_text("direct_url.json")
        url = str(json.loads(text)["url"]) if text else ""
    except (metadata.PackageNotFoundError, ValueError, KeyError, TypeError):
        return None
    if url.startswith("file://"):
        from urllib.parse import unquote, urlparse

        return str(Path(unquote(urlparse(url).path)))
    return url or None


def source_checkout() -> str | None:
    """The folder of the source checkout this package runs from (its ``pyproject.toml`` names
    it), else None."""
    folder = Path(__file__).resolve().parents[2]
    project = folder / "pyproject.toml"
    if project.is_file() and 'name = "pylucene-mcp"' in project.read_text(encoding="utf-8"):
        return str(folder)
    return None


def extra_packages(extra: str) -> list[str]:
    """The packages the extra ``extra`` of this distribution brings, by name."""
    from importlib import metadata

    try:
        requires = metadata.requires("pylucene-mcp") or []
    except metadata.PackageNotFoundError:
        return []
    names = []
    for requirement in requires:
        spec, _, marker = requirement.partition(";")
        if f'extra == "{extra}"' in marker.replace("'", '"'):
            names.append(re.split(r"[\s<>=!~\[]", spec.strip(), maxsplit=1)[0])
    return names


def install_extra(
    extra: str,
    executable: str | None = None,
    installed_from: Callable[[], str | None] = installed_from,
    environ: Mapping[str, str] | None = None,
    packages: Callable[[str], list[str]] = extra_packages,
    checkout: Callable[[], str | None] = source_checkout,
) -> str:
    """The command that adds the extra ``extra`` to this installation, as it was installed:
    ``pipx inject`` of the extra's packages into a pipx environment; ``uv tool install`` again
    with it for a uv tool; ``uvx --from`` with it for a uvx run; else pip of this Python, from
    the file, folder or URL it was installed from (the package need not be on PyPI)."""
    python = executable or sys.executable
    env = os.environ if environ is None else environ
    source = installed_from() or checkout() or "pylucene-mcp"
    wanted = f"'{source}[{extra}]'"
    joined = "/".join(re.split(r"[\\/]+", python.casefold()))  # a Windows path too
    if "pipx/venvs" in joined:
        return "pipx inject pylucene-mcp " + " ".join(packages(extra) or [wanted])
    if "uv/tools" in joined:
        return f"uv tool install --force {wanted}"
    if uv_cache_run(python, env):
        return f"uvx --from {wanted} pylucene-mcp serve"
    editable = source != "pylucene-mcp" and Path(source).is_dir()
    return f"{python} -m pip install {'-e ' if editable else ''}{wanted}"
