"""A local SolrCloud for the SolrCloud backend's tests, and for a person to try it
(``make solr-cluster``): Solr 9's ``MiniSolrCloudCluster`` with an embedded ZooKeeper, in a JVM of
its own (the shims' ``io.github.pylucenemcp.solr.LocalCluster``, class path from Gradle's
``solrNode`` task), on free ports. The cluster lives as long as the process that started it: it
shuts down when its stdin closes."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path
from typing import IO, Any

ROOT = Path(__file__).resolve().parents[1]
CLASSPATH = ROOT / "build" / "solr-node.classpath"
LOG4J = ROOT / "shims" / "solr" / "cluster" / "log4j2.xml"


def java_home() -> Path:
    """A JDK >= 21 (the plugin's release): $PYLUCENE_MCP_JDK, $JAVA_HOME, then /usr/lib/jvm."""
    candidates = [os.environ.get("PYLUCENE_MCP_JDK"), os.environ.get("JAVA_HOME")]
    jvm_dir = Path("/usr/lib/jvm")
    if jvm_dir.is_dir():
        candidates += [str(p) for p in sorted(jvm_dir.iterdir(), key=_major, reverse=True)]
    for candidate in candidates:
        if candidate and _major(Path(candidate)) >= 21:
            return Path(candidate)
    raise RuntimeError("no JDK >= 21 for the Solr cluster: set PYLUCENE_MCP_JDK")


def _major(home: Path) -> int:
    release = home / "release"
    if not release.is_file() or not (home / "bin" / "java").exists():
        return 0
    for line in release.read_text(errors="replace").splitlines():
        if line.startswith("JAVA_VERSION="):
            return int(line.split("=", 1)[1].strip('"').split(".")[0])
    return 0


def ensure_classpath() -> str:
    """The node's class path, built by Gradle when missing."""
    if not CLASSPATH.is_file():
        subprocess.run(
            ["gradle", "--no-daemon", "-q", "solrNode"], cwd=ROOT, check=True, stdout=sys.stderr
        )
    return CLASSPATH.read_text().strip()


class LocalCluster:
    """A running cluster of ``nodes`` nodes; :attr:`urls` are their base URLs."""

    def __init__(self, nodes: int = 2, folder: Path | None = None) -> None:
        self._own_folder = folder is None
        self.folder = folder or Path(tempfile.mkdtemp(prefix="pylucene-mcp-solr-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.log = (self.folder / "cluster.log").open("wb")
        self._process = subprocess.Popen(
            [
                str(java_home() / "bin" / "java"),
                "-Xmx1g",
                f"-Dlog4j2.configurationFile={LOG4J}",
                "-Dsolr.max.booleanClauses=65536",  # as core.query.MAX_CLAUSES (scale-out.md)
                "-cp",
                ensure_classpath(),
                "io.github.pylucenemcp.solr.LocalCluster",
                str(nodes),
                str(self.folder / "nodes"),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
        )
        self._lock = threading.Lock()
        first = self._read()
        self.urls: list[str] = first["urls"]
        self.zk_host: str = first["zkHost"]

    def _read(self) -> dict[str, Any]:
        stdout: IO[bytes] = self._process.stdout  # type: ignore[assignment]
        line = stdout.readline()
        if not line:
            self.log.flush()
            tail = (self.folder / "cluster.log").read_text(errors="replace")[-3000:]
            raise RuntimeError(f"the Solr cluster did not start:\n{tail}")
        answer: dict[str, Any] = json.loads(line)
        if "error" in answer:
            raise RuntimeError(f"the Solr cluster refused: {answer['error']}")
        return answer

    def command(self, line: str) -> dict[str, Any]:
        with self._lock:
            stdin: IO[bytes] = self._process.stdin  # type: ignore[assignment]
            stdin.write(line.encode() + b"\n")
            stdin.flush()
            return self._read()

    def stop_node(self, index: int) -> None:
        self.command(f"stop {index}")

    def start_node(self, index: int) -> None:
        self.command(f"start {index}")

    def secure(self, security: dict[str, Any]) -> None:
        """Puts ``security`` (a ``security.json``) in ZooKeeper; the nodes load it live."""
        path = self.folder / "security.json"
        path.write_text(json.dumps(security))
        self.command(f"security {path}")

    def close(self) -> None:
        if self._process.poll() is None:
            try:
                self._process.communicate(b"quit\n", timeout=60)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        self.log.close()
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)


def basic_auth(users: dict[str, str]) -> dict[str, Any]:
    """A ``security.json`` of Solr's basic authentication for ``users`` (name → password), each
    an admin: the credentials hashed as Solr's ``Sha256AuthenticationProvider`` stores them."""
    credentials = {}
    for name, password in users.items():
        salt = os.urandom(32)
        once = hashlib.sha256(salt + password.encode("utf-8")).digest()
        hashed = hashlib.sha256(once).digest()
        credentials[name] = (
            base64.b64encode(hashed).decode() + " " + base64.b64encode(salt).decode()
        )
    return {
        "authentication": {
            "class": "solr.BasicAuthPlugin",
            "blockUnknown": True,
            "credentials": credentials,
        },
        "authorization": {
            "class": "solr.RuleBasedAuthorizationPlugin",
            "permissions": [{"name": "all", "role": "admin"}],
            "user-role": dict.fromkeys(users, "admin"),
        },
    }


def main() -> None:
    """``make solr-cluster``: a 2-node cluster until Ctrl-C, its URLs on stderr."""
    cluster = LocalCluster(int(sys.argv[1]) if len(sys.argv) > 1 else 2)
    print(
        "SolrCloud running; try:\n"
        f"  PYLUCENE_MCP_BACKEND=solr PYLUCENE_MCP_SOLR_URLS={','.join(cluster.urls)} "
        "pylucene-mcp solr init\n(Ctrl-C stops it)",
        file=sys.stderr,
    )
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        pass
    finally:
        cluster.close()


if __name__ == "__main__":
    main()
