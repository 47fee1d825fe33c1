"""Nothing piles up: the Tika config folders of processes that died without cleaning up are
removed by the next process that needs one."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from pylucene_mcp.crawler.tika_server import CONFIG_PREFIX, TikaServer


def test_config_folders_of_dead_processes_are_swept_and_live_ones_kept() -> None:
    tmp = Path(tempfile.gettempdir())
    dead = tmp / f"{CONFIG_PREFIX}{2**22 + 12345}"  # above the usual pid range: no such process
    old_style = tmp / f"{CONFIG_PREFIX}k3j_x9q1"  # what TemporaryDirectory used to leave
    live = tmp / f"{CONFIG_PREFIX}{os.getpid()}"  # this test process: alive
    for folder in (dead, old_style, live):
        folder.mkdir(exist_ok=True)
        (folder / "tika-config-1.xml").write_text("<properties/>")
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os\n"
            "from pylucene_mcp.crawler.tika_server import config_folder\n"
            "print(config_folder(), os.getpid())\n"
            "os._exit(0)  # as if killed: no clean-up\n",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    made, pid = child.stdout.split()
    try:
        assert not dead.exists() and not old_style.exists()
        assert live.is_dir()
        assert Path(made).name == f"{CONFIG_PREFIX}{pid}"
        assert os.stat(made).st_mode & 0o077 == 0
    finally:
        for folder in (live, Path(made)):
            for file in folder.glob("*"):
                file.unlink()
            folder.rmdir()


def test_a_closed_server_leaves_no_config_behind(tmp_path: Path) -> None:
    server = TikaServer(log_dir=tmp_path)
    config = server._config()  # noqa: SLF001 - the file the server would be started with
    assert config.is_file()
    server.close()
    assert not config.exists()
