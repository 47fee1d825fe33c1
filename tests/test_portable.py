"""What differs between Linux, macOS and Windows (pylucene_mcp.basics.portable), with each
platform's branch taken here on Linux: Windows paths as PureWindowsPath text, macOS's
case-insensitive disk by asking the real folder's listing, real processes and real lock files.
And the whole package with its POSIX-only imports made unavailable, as on Windows."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from pylucene_mcp import doctor
from pylucene_mcp.basics import portable
from tests.waiting import eventually

WINDOWS_ENV = {"SystemDrive": "C:", "SystemRoot": "C:\\WINDOWS", "ProgramData": "C:\\ProgramData"}


@pytest.mark.parametrize(
    ("system", "path", "folder", "inside"),
    [
        ("linux", "/home/me/Docs/a.pdf", "/home/me/Docs", True),
        ("linux", "/home/me/Docs", "/home/me/Docs", True),
        ("linux", "/home/me/Docs2/a.pdf", "/home/me/Docs", False),  # a name, not a prefix
        ("linux", "/home/me/docs/a.pdf", "/home/me/Docs", False),  # ext4 tells case apart
        ("darwin", "/Users/me/documents/a.pdf", "/Users/Me/Documents", True),
        ("darwin", "/Users/me/Documents2", "/Users/me/Documents", False),
        ("win32", "C:\\Users\\Me\\Docs\\a.pdf", "c:\\users\\me\\docs", True),
        ("win32", "C:\\Users\\Me\\Docs\\a.pdf", "C:\\Users\\Me\\Docs\\", True),
        ("win32", "C:/Users/Me/Docs/a.pdf", "C:\\Users\\Me", True),  # either separator
        ("win32", "C:\\Users\\Me\\Docs2", "C:\\Users\\Me\\Docs", False),
        ("win32", "D:\\Docs\\a.pdf", "C:\\Docs", False),  # another drive
        ("win32", "C:\\anything", "C:\\", True),
    ],
)
def test_is_under_compares_whole_names_as_the_file_system_does(
    system: str, path: str, folder: str, inside: bool
) -> None:
    assert portable.is_under(path, folder, system) is inside


def test_folder_prefixes_end_in_one_separator() -> None:
    assert portable.folder_prefix("/a/b/", "linux") == "/a/b/"
    assert portable.folder_prefix("/", "linux") == "/"
    assert portable.folder_prefix("C:\\Users\\Me", "win32") == "C:\\Users\\Me\\"
    assert portable.folder_prefix("C:\\", "win32") == "C:\\"


def test_each_platform_refuses_its_own_system_folders() -> None:
    trees, roots = portable.system_folders("win32", WINDOWS_ENV)
    for refused in ("C:\\Windows\\System32", "c:\\program files\\App", "C:\\ProgramData\\x"):
        assert any(portable.is_under(refused, t, "win32") for t in trees), refused
    assert "C:\\WINDOWS" in trees  # from SystemRoot
    for shared in ("C:\\", "D:\\", "C:\\Users"):
        assert shared in roots
    assert not any(portable.is_under("C:\\Users\\Me\\Documents", t, "win32") for t in trees)
    trees, roots = portable.system_folders("darwin")
    assert any(portable.is_under("/System/Library/x", t, "darwin") for t in trees)
    assert any(portable.is_under("/usr/bin", t, "darwin") for t in trees)
    assert "/Volumes" in roots and "/Users" in roots
    trees, roots = portable.system_folders("linux")
    assert "/proc" in trees and "/home" in roots and "/Volumes" not in roots


def test_true_case_spells_a_path_as_the_disk_does(tmp_path: Path) -> None:
    (tmp_path / "Docs" / "Reports").mkdir(parents=True)
    (tmp_path / "Docs" / "Reports" / "Q1.pdf").write_bytes(b"%PDF")
    given = str(tmp_path / "docs" / "REPORTS" / "q1.PDF")
    assert portable.true_case(given, "darwin") == str(tmp_path / "Docs" / "Reports" / "Q1.pdf")
    assert portable.true_case(given, "linux") == given  # case-sensitive: as given
    missing = str(tmp_path / "docs" / "New Folder" / "x")
    assert portable.true_case(missing, "darwin") == str(tmp_path / "Docs" / "New Folder" / "x")


def test_a_file_exists_as_named_only_under_its_listed_name(tmp_path: Path) -> None:
    (tmp_path / "Report.pdf").write_bytes(b"%PDF")
    os.symlink(tmp_path / "Report.pdf", tmp_path / "alias.pdf")
    assert portable.exists_as_named(str(tmp_path / "Report.pdf"), "darwin")
    assert portable.exists_as_named(str(tmp_path / "alias.pdf"), "darwin")
    assert not portable.exists_as_named(str(tmp_path / "report.pdf"), "linux")
    os.symlink(tmp_path / "gone.pdf", tmp_path / "broken.pdf")
    assert not portable.exists_as_named(str(tmp_path / "broken.pdf"), "darwin")


def test_caches_go_where_each_platform_keeps_them(tmp_path: Path) -> None:
    home = tmp_path / "home"
    assert portable.cache_home("linux", {}, home) == home / ".cache"
    assert portable.cache_home("linux", {"XDG_CACHE_HOME": "/c"}, home) == Path("/c")
    assert portable.cache_home("darwin", {"XDG_CACHE_HOME": "/c"}, home) == (
        home / "Library" / "Caches"
    )
    assert portable.cache_home("win32", {"LOCALAPPDATA": "C:\\L"}, home) == Path("C:\\L")
    assert portable.cache_home("win32", {}, home) == home / "AppData" / "Local"


def test_an_unknown_link_count_is_asked_of_the_file(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    os.link(tmp_path / "a.txt", tmp_path / "b.txt")
    real = os.stat(tmp_path / "a.txt")
    as_windows_lists_it = os.stat_result((*real[:3], 0, *real[4:]))  # st_nlink 0
    assert as_windows_lists_it.st_nlink == 0
    assert portable.link_count(as_windows_lists_it, str(tmp_path / "a.txt")) == 2
    assert portable.link_count(real, str(tmp_path / "a.txt")) == 2


def test_a_full_disk_is_recognised_in_each_platform_s_words() -> None:
    assert portable.disk_full(OSError(errno.ENOSPC, "No space left on device"))
    windows = OSError(None, "There is not enough space on the disk")
    windows.winerror = 112  # type: ignore[attr-defined]
    assert portable.disk_full(windows)
    assert portable.disk_full("java.io.IOException: There is not enough space on the disk")
    assert portable.disk_full("write failed: No space left on device")
    assert not portable.disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not portable.disk_full(None)


def test_the_lock_file_keeps_out_a_second_process(tmp_path: Path) -> None:
    lock = tmp_path / "fetch.lock"
    with subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pylucene_mcp.basics import portable\n"
            f"with portable.exclusive(__import__('pathlib').Path({str(lock)!r})):\n"
            "    print('held', flush=True); sys.stdin.read()",
        ],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        assert holder.stdout is not None and holder.stdin is not None
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(TimeoutError, match="held by another process"):
            with portable.exclusive(lock, timeout_s=0.3):
                pass
        holder.stdin.close()
        holder.wait(timeout=30)
    with portable.exclusive(lock, timeout_s=5):  # free once the holder is gone
        pass


def test_liveness_tells_a_running_process_from_a_finished_one() -> None:
    assert portable.pid_alive(os.getpid())
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not portable.pid_alive(child.pid)
    assert not portable.pid_alive(0) and not portable.pid_alive(-1)
    zombie = subprocess.Popen([sys.executable, "-c", "pass"])
    assert eventually(lambda: not portable.pid_alive(zombie.pid), 30)  # unreaped
    zombie.wait()


def test_kill_tree_stops_a_process_and_the_one_it_started(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = textwrap.dedent(
        f"""
        import subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
        open({str(pids)!r}, "w").write(str(child.pid))
        time.sleep(600)
        """
    )
    parent = subprocess.Popen([sys.executable, "-c", script], **portable.new_session_options())
    assert eventually(lambda: pids.is_file() and pids.read_text() != "", 30)
    grandchild = int(pids.read_text())
    assert portable.pid_alive(grandchild)
    portable.kill_tree(parent.pid, grace_s=5)
    parent.wait(timeout=30)
    assert eventually(lambda: not portable.pid_alive(grandchild), 30)


def test_new_sessions_are_asked_for_as_each_platform_can() -> None:
    assert portable.new_session_options("linux") == {"start_new_session": True}
    flags = portable.new_session_options("win32")["creationflags"]
    assert flags & 0x00000200 and flags & 0x08000000  # CREATE_NEW_PROCESS_GROUP, NO_WINDOW


class _Kernel32:
    """Records the two Win32 calls, as ctypes.windll.kernel32 would take them."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, int | None]] = []

    def GetStdHandle(self, which: int) -> int:  # the Win32 name
        self.calls.append(("GetStdHandle", which, None))
        return 7000 + abs(which)

    def SetStdHandle(self, which: int, handle: int) -> int:
        self.calls.append(("SetStdHandle", which, handle))
        return 1


def test_windows_points_the_standard_output_handle_at_stderr() -> None:
    kernel32 = _Kernel32()
    assert portable.rebind_std_output("win32", kernel32)
    assert kernel32.calls == [("GetStdHandle", -12, None), ("SetStdHandle", -11, 7012)]
    untouched = _Kernel32()
    assert not portable.rebind_std_output("linux", untouched)
    assert untouched.calls == []


# -- the launcher doctor prints ---------------------------------------------------------------


def test_under_uvx_doctor_prints_a_command_that_rebuilds_its_environment(tmp_path: Path) -> None:
    cached = "/home/me/.cache/uv/archive-v0/Zx81abc/bin/python"
    command, args = doctor.launcher(
        cached, lambda name: f"/usr/local/bin/{name}", lambda: None, environ={}
    )
    assert (command, args[:2]) == ("/usr/local/bin/uvx", ["--from", args[1]])
    assert args[1].startswith("pylucene-mcp==") and args[2:] == ["pylucene-mcp", "serve"]
    wheel = "/home/me/dist/pylucene_mcp-0.1.0-py3-none-any.whl"
    windows = "C:\\Users\\me\\AppData\\Local\\uv\\cache\\archive-v0\\Q1\\Scripts\\python.exe"
    _, args = doctor.launcher(windows.replace("\\", "/"), lambda _: None, lambda: wheel, {})
    assert args == ["--from", wheel, "pylucene-mcp", "serve"]
    # a cache folder of another name (UV_CACHE_DIR): uv's own variable tells, and its uvx
    uv = tmp_path / "bin" / "uv"
    uv.parent.mkdir()
    uv.write_text("")
    (tmp_path / "bin" / "uvx").write_text("")
    elsewhere = "/srv/uvc/archive-v0/Q2/bin/python"
    assert doctor.launcher(elsewhere, lambda _: None, lambda: None, {"UV": str(uv)})[0] == str(
        tmp_path / "bin" / "uvx"
    )
    assert doctor.launcher(elsewhere, lambda _: None, lambda: None, {})[1] == [
        "-m",
        "pylucene_mcp",
        "serve",
    ]  # not uv's: no console script beside it, so the module


def test_in_a_virtualenv_doctor_prefers_the_shim_on_path(tmp_path: Path) -> None:
    bin_dir = tmp_path / "pipx" / "venvs" / "pylucene-mcp" / "bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "pylucene-mcp").write_text("#!/bin/sh\n")
    python = str(bin_dir / "python")
    shim = tmp_path / "local-bin" / "pylucene-mcp"
    shim.parent.mkdir()
    shim.symlink_to(bin_dir / "pylucene-mcp")
    assert doctor.launcher(python, lambda _: str(shim)) == (str(shim), ["serve"])
    other = tmp_path / "another-pylucene-mcp"
    other.write_text("")
    assert doctor.launcher(python, lambda _: str(other)) == (
        str(bin_dir / "pylucene-mcp"),
        ["serve"],
    )
    scripts = tmp_path / "win" / "Scripts"  # a Windows virtualenv's console script is an .exe
    scripts.mkdir(parents=True)
    (scripts / "pylucene-mcp.exe").write_bytes(b"MZ")
    assert doctor.launcher(str(scripts / "python.exe"), lambda _: None) == (
        str(scripts / "pylucene-mcp.exe"),
        ["serve"],
    )
    bare = str(tmp_path / "checkout-python")
    assert doctor.launcher(bare, lambda _: None) == (bare, ["-m", "pylucene_mcp", "serve"])


# -- the whole package without POSIX -------------------------------------------------------

#: What Windows lacks: modules, and the os functions of POSIX this package could reach for.
POSIX_MODULES = ("fcntl", "pwd", "grp", "resource", "termios", "tty", "pty", "syslog", "crypt")
POSIX_FUNCTIONS = ("killpg", "getpgid", "setsid", "getuid", "geteuid", "fork", "getppid")

_WITHOUT_POSIX = textwrap.dedent(
    """
    import builtins, importlib, json, os, pkgutil, sys
    blocked = set(sys.argv[1].split(","))
    real_import = builtins.__import__

    def guarded(name, globals=None, locals=None, fromlist=(), level=0):
        caller = (globals or {}).get("__name__", "")
        if name.split(".")[0] in blocked and caller.split(".")[0] == "pylucene_mcp":
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: not on Windows)")
        return real_import(name, globals, locals, fromlist, level)

    builtins.__import__ = guarded
    try:  # the guard must refuse the package's own code (else this would prove nothing)
        guarded("fcntl", {"__name__": "pylucene_mcp.probe"})
        guard = "let through"
    except ModuleNotFoundError:
        guard = "refused"
    for name in sys.argv[2].split(","):
        if hasattr(os, name):
            delattr(os, name)
    import pylucene_mcp
    failed = {}
    names = [m.name for m in pkgutil.walk_packages(pylucene_mcp.__path__, "pylucene_mcp.")]
    names.remove("pylucene_mcp.__main__")  # importing it runs the command line
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:
            failed[name] = f"{type(exc).__name__}: {exc}"
    summary = {"modules": len(names), "failed": failed, "guard": guard}
    print(json.dumps(summary), file=sys.stderr, flush=True)
    from pylucene_mcp import cli
    sys.exit(cli.main(["doctor", "--json"]))
    """
)


@pytest.mark.slow
def test_every_module_imports_and_doctor_runs_without_posix(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PYLUCENE_MCP_HOME": str(tmp_path / "home"),
        "PYLUCENE_MCP_INDEX": str(tmp_path / "index"),
    }
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            _WITHOUT_POSIX,
            ",".join(POSIX_MODULES),
            ",".join(POSIX_FUNCTIONS),
        ],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    summary = json.loads(next(line for line in done.stderr.splitlines() if '"modules"' in line))
    assert summary["guard"] == "refused"
    assert summary["failed"] == {}, summary["failed"]
    assert summary["modules"] >= 45
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    report = json.loads(done.stdout)
    statuses = {check["name"]: check["status"] for check in report["checks"]}
    assert statuses["java"] == "ok" and statuses["jars"] == "ok", report["checks"]
    assert "failed" not in statuses.values(), report["checks"]


def test_a_background_thread_yields_the_cores_and_only_itself() -> None:
    """The embedder's thread runs 10 nicer than the server's other threads (Linux: per thread);
    elsewhere nothing is changed, since the same call would lower the whole process."""
    import threading

    from pylucene_mcp.basics import portable

    seen: dict[str, int] = {}

    def background() -> None:
        before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
        seen["lowered"] = portable.run_in_background()
        seen["delta"] = os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) - before

    main_before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    thread = threading.Thread(target=background)
    thread.start()
    thread.join()
    assert seen == {"lowered": True, "delta": portable.BACKGROUND_NICENESS}
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == main_before
    for system in ("darwin", "win32"):
        assert portable.run_in_background(system) is False


@pytest.mark.parametrize(
    ("python", "source", "expected"),
    [
        (
            "/home/ada/.local/share/pipx/venvs/pylucene-mcp/bin/python",
            None,
            "pipx inject pylucene-mcp numpy tokenizers",
        ),
        (
            r"C:\Users\ada\pipx\venvs\pylucene-mcp\Scripts\python.exe",
            None,
            "pipx inject pylucene-mcp numpy tokenizers",
        ),
        (
            "/home/ada/.local/share/uv/tools/pylucene-mcp/bin/python",
            "/tmp/dist/pylucene_mcp-1.0-py3-none-any.whl",
            "uv tool install --force '/tmp/dist/pylucene_mcp-1.0-py3-none-any.whl[semantic]'",
        ),
        (
            "/home/ada/.cache/uv/archive-v0/Xa1/bin/python",
            None,
            "uvx --from 'pylucene-mcp[semantic]' pylucene-mcp serve",
        ),
        (
            "/srv/venv/bin/python",
            "/tmp/dist/pylucene_mcp-1.0-py3-none-any.whl",
            "/srv/venv/bin/python -m pip install "
            "'/tmp/dist/pylucene_mcp-1.0-py3-none-any.whl[semantic]'",
        ),
        (
            "/srv/venv/bin/python",
            None,
            "/srv/venv/bin/python -m pip install 'pylucene-mcp[semantic]'",
        ),
    ],
)
def test_an_extra_is_added_as_the_package_was_installed(
    python: str, source: str | None, expected: str
) -> None:
    """doctor's fix for a missing extra had been `pip install 'pylucene-mcp[semantic]'`, which
    fails for a pipx install and before the package is on PyPI."""
    from pylucene_mcp.basics.install import install_extra

    said = install_extra(
        "semantic",
        python,
        installed_from=lambda: source,
        environ={"UV": "/usr/bin/uv"} if "archive-v0" in python else {},
        packages=lambda extra: ["numpy", "tokenizers"],
        checkout=lambda: None,
    )
    assert said == expected


def test_a_checkout_adds_an_extra_to_itself_editable_and_the_extras_packages_are_read() -> None:
    from pylucene_mcp.basics.install import extra_packages, install_extra

    root = Path(__file__).resolve().parents[1]
    for found in (lambda: str(root), lambda: None):  # as pip recorded it, or as the files say
        said = install_extra("semantic", "/srv/venv/bin/python", installed_from=found)
        assert said == f"/srv/venv/bin/python -m pip install -e '{root}[semantic]'"
    assert {"numpy", "tokenizers", "onnxruntime", "onnx"} <= set(extra_packages("semantic"))
