"""Nothing piles up: the private Tika folders (configs and spooled copies) of processes that
died without cleaning up are removed by the next process that needs one."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

from pylucene_mcp.crawler.tika_process import CONFIG_PREFIX


def test_config_folders_of_dead_processes_are_swept_and_live_ones_kept(tmp_path: Path) -> None:
    home = tmp_path / "home"
    private = home / "tmp"
    private.mkdir(parents=True, mode=0o700)
    dead = private / f"{CONFIG_PREFIX}{2**22 + 12345}-x1"  # above the usual pid range
    live = private / f"{CONFIG_PREFIX}{os.getpid()}-x2"  # this test process: alive
    for folder in (dead, live):
        (folder / "spool").mkdir(parents=True)
        (folder / "tika-config-1.xml").write_text("<properties/>")
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os\n"
            "from pylucene_mcp.crawler.tika_process import config_folder\n"
            "print(config_folder(), os.getpid())\n"
            "os._exit(0)  # as if killed: no clean-up\n",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYLUCENE_MCP_HOME": str(home)},
    )
    made, pid = child.stdout.split()
    assert not dead.exists()
    assert live.is_dir()
    assert Path(made).parent == private and Path(made).name.startswith(f"{CONFIG_PREFIX}{pid}-")
    assert os.stat(made).st_mode & 0o077 == 0
    # nothing of it in the shared temp folder
    assert not list(Path(tempfile.gettempdir()).glob(f"*tika-{pid}*"))


def test_a_closed_server_leaves_nothing_behind(tmp_path: Path) -> None:
    """A server that parsed a file and was closed leaves no private folder (spooled copies),
    no process, and no crash report."""
    child = subprocess.run(
        [
            sys.executable,
            "-c",
            "import io\n"
            "from pylucene_mcp.crawler.tika_process import TikaProcess, config_folder\n"
            "server = TikaProcess()\n"
            "body = b'a note about herons'\n"
            "print(len(server.parse('note.txt', io.BytesIO(body), len(body))) > 0, server.pid)\n"
            "folder = config_folder()\n"
            "server.close()\n"
            "print(folder.exists(), server.pid)\n",
        ],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "PYLUCENE_MCP_HOME": str(tmp_path / "home")},
    )
    ran, after = (line.split() for line in child.stdout.splitlines())
    assert ran[0] == "True" and ran[1].isdigit(), child.stdout
    assert after == ["False", "None"], child.stdout
    assert not any((tmp_path / "home" / "crashes").iterdir())
