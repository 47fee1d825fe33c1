"""Nothing of ours in the shared temp folder: the product's temporary folders are made fresh
(mkdtemp, 0700) under its home, in a parent that must be this user's; Tika's configs and the
temp folder of its parser process (where it spools copies of documents) live there."""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from pylucene_mcp.basics import config, private
from pylucene_mcp.basics.errors import ConfigError
from pylucene_mcp.crawler import tika_process


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(tika_process, "_folder", None)
    return tmp_path / "home"


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_a_private_temp_folder_is_new_unguessable_and_for_this_user(home: Path) -> None:
    first, second = private.private_temp("x-"), private.private_temp("x-")
    assert first != second and first.parent == second.parent == home / "tmp"
    assert _mode(first) == _mode(home / "tmp") == 0o700
    assert first.stat().st_uid == os.getuid()


def test_a_linked_temp_parent_is_refused(home: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home.mkdir()
    (home / "tmp").symlink_to(elsewhere)
    with pytest.raises(ConfigError, match="is a link or belongs to another user"):
        private.private_temp("x-")
    assert not any(elsewhere.iterdir())


def test_tika_keeps_its_config_and_spool_in_a_private_folder(home: Path) -> None:
    # what an attacker plants where the folder used to be: never read, never written
    planted = Path(tempfile.gettempdir()) / f"pylucene-mcp-tika-{os.getpid()}"
    planted.mkdir(exist_ok=True)
    try:
        server = tika_process.TikaProcess()
        command = server._command()  # what the Tika parser process is started with
        folder = tika_process.config_folder()
        assert folder.parent == home / "tmp"
        assert _mode(folder) == _mode(tika_process.spool_folder()) == 0o700
        assert f"-Djava.io.tmpdir={tika_process.spool_folder()}" in command
        # a crash report (command line, environment, folder names) goes to the private folder
        assert f"-XX:ErrorFile={home / 'crashes' / 'hs_err_pid%p.log'}" in command
        assert _mode(home / "crashes") == 0o700
        assert not any(planted.iterdir())
        assert tika_process.folder_users(folder) == 1
        server.close()
        assert not folder.exists()  # the spooled copies go with it
    finally:
        planted.rmdir()


def test_the_folders_of_dead_processes_are_swept(home: Path) -> None:
    dead = private.private_temp(f"{tika_process.CONFIG_PREFIX}999999999-")
    (dead / "spool").mkdir()
    (dead / "spool" / "copy-of-a-private.docx").write_bytes(b"PK")
    alive = tika_process.config_folder()
    assert alive.is_dir() and not dead.exists()


def test_the_suite_keeps_the_product_s_files_in_its_own_folders(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Logs, config, temp folders and class archives of every test (and of the servers they
    spawn, which inherit the environment) stay below pytest's own temp folder, never in the
    ``~/.pylucene-mcp`` or the cache of the person who runs the tests."""
    from pylucene_mcp import jvm

    base = tmp_path_factory.getbasetemp()
    assert config.home_dir().is_relative_to(base)
    assert config.Settings().log_dir.is_relative_to(base)
    archive = jvm.class_archive(Path(jvm.find_java_home()), jvm.class_path())
    assert archive.is_relative_to(base)


@pytest.mark.skipif(not hasattr(os, "getuid") or os.geteuid() != 0, reason="chown needs root")
def test_a_private_folder_another_user_made_first_is_refused(tmp_path: Path) -> None:
    import pwd

    from pylucene_mcp.basics.errors import ConfigError
    from pylucene_mcp.basics.private import private_dir

    games = pwd.getpwnam("games").pw_uid
    planted = tmp_path / "pylucene-mcp-0"  # as in a shared temporary folder, made first
    planted.mkdir(mode=0o777)
    os.chown(planted, games, games)
    with pytest.raises(ConfigError, match="another user"):
        private_dir(planted)
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, games, games)
    link = tmp_path / "link"
    link.symlink_to(theirs)
    with pytest.raises(ConfigError, match="another user"):
        private_dir(link)
    mine = tmp_path / "mine"
    mine.mkdir()
    (tmp_path / "my-link").symlink_to(mine)  # a link of mine to a folder of mine is mine
    assert private_dir(tmp_path / "my-link") == tmp_path / "my-link"
    assert private_dir(tmp_path / "new" / "deeper").is_dir()
