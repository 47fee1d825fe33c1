"""The folders a configuration crawls: which may be crawled, and their list in the config file
(reread when another process of the same configuration changed it, written keeping the file's
other keys)."""

from __future__ import annotations

import logging
import os

from pylucene_mcp.basics import portable
from pylucene_mcp.basics.config import Settings, folder_list, home_dir, read_mapping
from pylucene_mcp.basics.errors import ConfigError, InvalidRequestError
from pylucene_mcp.basics.private import private_dir

log = logging.getLogger(__name__)


def _system_folder(shown: str) -> InvalidRequestError:
    return InvalidRequestError(
        f"{shown} is a system or shared folder and is not crawled; add the folder that holds "
        "the documents, e.g. ~/Documents"
    )


def crawlable_directory(path: str, settings: Settings) -> str:
    """``path`` as the absolute folder to crawl, or the reason it may not be crawled.

    Refused: a relative path (it would depend on the server's working directory); the root,
    shared roots such as ``/home`` and ``/tmp``, system trees (``/etc``, ``/proc``, ``/usr`` …)
    and anything in them; the home folder itself; the project's own folders and any folder that
    holds them (the index would index itself). Symbolic links are resolved first.

    Raises:
        InvalidRequestError: saying why, and what to give instead.
    """
    text = str(path).strip()
    if "\0" in text:
        raise InvalidRequestError(
            f"{text!r} holds a NUL character (\\x00), which no path can hold; give the "
            "folder's path without it"
        )
    expanded = os.path.expanduser(text)
    if not os.path.isabs(expanded):
        raise InvalidRequestError(
            f"{text!r} is not an absolute path; give the whole path of the folder, e.g. "
            "/home/me/Documents (a relative path would depend on where the server runs)"
        )
    system_trees, shared_roots = portable.system_folders()
    if any(portable.is_under(os.path.abspath(expanded), t) for t in system_trees):  # /proc/1/root/…
        raise _system_folder(repr(text))
    try:
        absolute = portable.true_case(os.path.realpath(expanded, strict=False))
    except OSError as exc:
        raise InvalidRequestError(
            f"{text!r} cannot be resolved ({exc.strerror or exc}); give a folder this process "
            "can read"
        ) from exc
    shown = text if absolute == os.path.abspath(expanded) else f"{text!r} (→ {absolute})"
    home = os.path.realpath(os.path.expanduser("~"))
    if portable.fold(absolute) == portable.fold(home):
        raise InvalidRequestError(
            f"{shown} is the whole home folder; add the folders that hold documents instead "
            "(~/Documents, ~/Desktop …)"
        )
    shared = any(portable.fold(absolute) == portable.fold(root) for root in shared_roots)
    if shared or any(portable.is_under(absolute, t) for t in system_trees):
        raise _system_folder(shown)
    own = [home_dir(), settings.index_path, settings.log_dir, settings.config_file.parent]
    for folder in (os.path.realpath(p) for p in own):
        if portable.is_under(absolute, folder) or portable.is_under(folder, absolute):
            raise InvalidRequestError(
                f"{shown} holds or is inside pylucene-mcp's own files ({folder}); the index "
                "would index itself. Add a folder of documents that does not contain it"
            )
    return absolute


def ensure_directories_writable(settings: Settings) -> None:
    """Raises ConfigError when the directories come from ``PYLUCENE_MCP_DIRECTORIES``."""
    if settings.directories_from_env:
        raise ConfigError(
            "the directories come from the environment variable PYLUCENE_MCP_DIRECTORIES; "
            "change that variable (in the MCP client's config) instead"
        )


def reread_directories(settings: Settings) -> Settings:
    """``settings`` with the directories the config file holds now (another process of the same
    configuration may have changed them); unchanged when they come from the environment or the
    file cannot be read."""
    if settings.directories_from_env or not settings.config_file.is_file():
        return settings
    try:
        found = folder_list(read_mapping(settings.config_file).get("directories"))
    except (ConfigError, ValueError) as exc:
        log.warning("the folders of %s not reread: %s", settings.config_file, exc)
        return settings
    return settings.model_copy(update={"directories": found})


def save_directories(settings: Settings, directories: tuple[str, ...]) -> Settings:
    """Writes ``directories`` into the config file, keeping its other keys.

    Raises:
        ConfigError: when the directories come from ``PYLUCENE_MCP_DIRECTORIES`` (the file would
            not be read for them) or the file cannot be written.
    """
    ensure_directories_writable(settings)
    import yaml

    path = settings.config_file
    data = read_mapping(path, ", not rewriting it") if path.is_file() else {}
    data["directories"] = list(directories)
    try:
        private_dir(path.parent)
        portable.write_private(path, yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    except OSError as exc:
        raise ConfigError(f"cannot write {path}: {exc}") from exc
    return settings.model_copy(update={"directories": directories})
