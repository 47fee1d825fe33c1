"""``search`` over MCP's Streamable HTTP on loopback, beside stdio: latency and throughput with
1, 10 and 50 concurrent clients, and the server's memory per session.

One server process per transport on the same kept index (``--docs`` documents of the stream of
``bench/scale.py``): HTTP with a static bearer token (a team server's setup: the token is
checked on every request), HTTP without authentication, and stdio. The clients are the SDK's own
(``mcp.Client``), each with a session of its own, all in this process's event loop: for
``--clients 1,10,50`` each client sends ``--requests`` searches from a mix, one after the other,
all clients at once. Per setup it prints the median and p95 round trip and the requests per
second over the whole run. stdio has one session; its concurrent rows send that many requests
at once over it.

Memory: the server's RSS with one session open, then with 200 (each having searched once): the
difference per added session, on a server whose JVM heap is fixed and resident from its start
(``-Xms384m -Xmx384m -XX:+AlwaysPreTouch``), so that the heap's growing and shrinking does
not hide it.

Client and server share this machine's cores: at 50 clients the client side is part of what is
measured.

    python bench/over_http.py [--docs 20000] [--clients 1,10,50] [--requests 40] [--json PATH]
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import psutil
from _common import ROOT, scale_index, scale_options, write_json
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.oauth_server import free_port

QUERIES = [
    "program",
    "algorithm",
    '"computer system"',
    "matrix AND inversion",
    "compil*",
    "operating OR system",
    "parallel processing",
    "*sort*",
]

#: the sessions open at once for the memory figure
SESSIONS = 200
#: searches before any is timed, on each server (the JVM compiles the hot paths meanwhile)
WARM_UP = 5 * len(QUERIES)


class Server:
    """``pylucene-mcp serve`` over ``index`` in a process of its own: HTTP on a free loopback
    port (with ``token``, static tokens on; else the owner's token of the server's home), or
    nothing started here for stdio."""

    def __init__(
        self, index: Path, home: Path, token: bool, extra: dict[str, str] | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/mcp"
        env = {**os.environ, "PYLUCENE_MCP_HOME": str(home), "PYLUCENE_MCP_CRAWL_ON_START": "false"}
        env.update(extra or {})
        self.token = None
        if token:
            made = subprocess.run(
                [sys.executable, "-m", "pylucene_mcp", "token", "--subject", "bench"]
                + ["--scopes", "search"],
                capture_output=True,
                text=True,
                env=env,
                check=True,
            )
            self.token = made.stdout.strip()
            env["PYLUCENE_MCP_TOKENS_FILE"] = str(home / "tokens.yaml")
        command = [sys.executable, "-m", "pylucene_mcp", "serve", "--index", str(index)]
        self.process = subprocess.Popen(
            [*command, "--http", f"127.0.0.1:{self.port}"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            env=env,
        )
        self.ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.ready.wait(120), "the server did not start"
        if self.token is None:  # no authentication set: the owner's token, as its user has it
            self.token = (home / "http-token").read_text(encoding="ascii").strip()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in iter(self.process.stderr.readline, b""):
            if re.search(rb"serving MCP over HTTP at", line):
                self.ready.set()

    def rss_mb(self) -> float:
        return float(psutil.Process(self.process.pid).memory_info().rss) / 2**20

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(60)


@asynccontextmanager
async def http_client(server: Server) -> AsyncIterator[Client]:
    headers = {"Authorization": f"Bearer {server.token}"} if server.token else None
    async with create_mcp_http_client(headers=headers) as http:
        async with Client(streamable_http_client(server.url, http_client=http)) as client:
            yield client


async def searches(client: Client, count: int, offset: int, times: list[float]) -> None:
    for n in range(count):
        query = QUERIES[(offset + n) % len(QUERIES)]
        started = time.perf_counter()
        result = await client.call_tool("search", {"query": query})
        times.append((time.perf_counter() - started) * 1000)
        assert not result.is_error, result.content


async def run_http(server: Server, clients: int, requests: int) -> dict[str, float]:
    times: list[float] = []
    async with AsyncExitStack() as stack:
        opened = [await stack.enter_async_context(http_client(server)) for _ in range(clients)]
        await searches(opened[0], WARM_UP, 0, [])  # the JVM's compiler warm, as for stdio
        for client in opened:  # each session's first call
            await searches(client, 1, 0, [])
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for k, client in enumerate(opened):
                group.start_soon(searches, client, requests, k, times)
        wall = time.perf_counter() - started
    return figures(times, wall)


async def run_stdio(index: Path, home: Path, clients: int, requests: int) -> dict[str, float]:
    env = {**os.environ, "PYLUCENE_MCP_HOME": str(home), "PYLUCENE_MCP_CRAWL_ON_START": "false"}
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pylucene_mcp", "serve", "--index", str(index)],
        env=env,
        cwd=str(ROOT),
    )
    times: list[float] = []
    async with Client(params) as client:
        await searches(client, WARM_UP, 0, [])
        started = time.perf_counter()
        async with anyio.create_task_group() as group:
            for k in range(clients):
                group.start_soon(searches, client, requests, k, times)
        wall = time.perf_counter() - started
    return figures(times, wall)


def figures(times: list[float], wall_s: float) -> dict[str, float]:
    ordered = sorted(times)
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))], 2),
        "requests_per_s": round(len(ordered) / wall_s, 1),
        "requests": len(ordered),
    }


async def memory_per_session(server: Server, sessions: int) -> dict[str, float]:
    async with AsyncExitStack() as stack:
        first = await stack.enter_async_context(http_client(server))
        await searches(first, WARM_UP, 0, [])
        one = server.rss_mb()
        for _ in range(sessions - 1):
            client = await stack.enter_async_context(http_client(server))
            await searches(client, 1, 0, [])
        many = server.rss_mb()
    return {
        "rss_1_session_mb": round(one, 1),
        f"rss_{sessions}_sessions_mb": round(many, 1),
        "mb_per_session": round((many - one) / (sessions - 1), 3),
    }


async def main_async(args: argparse.Namespace, index: Path) -> dict[str, Any]:
    levels = [int(n) for n in args.clients.split(",")]
    table: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as home:
        for name, token in (("http, static token", True), ("http, no auth", False)):
            server = Server(index, Path(home) / name.replace(" ", "").replace(",", "-"), token)
            try:
                for clients in levels:
                    row = await run_http(server, clients, args.requests)
                    table[f"{name}, {clients} clients"] = row
                    print(f"{name:20} {clients:3} clients  {fmt(row)}", flush=True)
            finally:
                server.stop()
        # the JVM's heap fixed and resident from the start: what grows is the sessions' memory
        pinned = {"JAVA_TOOL_OPTIONS": "-Xms384m -Xmx384m -XX:+AlwaysPreTouch"}
        server = Server(index, Path(home) / "memory", True, pinned)
        try:
            table["memory"] = await memory_per_session(server, SESSIONS)
        finally:
            server.stop()
        for clients in levels:
            row = await run_stdio(index, Path(home) / "stdio", clients, args.requests)
            table[f"stdio, {clients} in flight"] = row
            print(f"{'stdio':20} {clients:3} in flight {fmt(row)}", flush=True)
    memory = table["memory"]
    print(
        f"memory: {memory['rss_1_session_mb']} MB with 1 session, "
        f"{memory[f'rss_{SESSIONS}_sessions_mb']} MB with {SESSIONS}: "
        f"{memory['mb_per_session']} MB a session"
    )
    return table


def fmt(row: dict[str, float]) -> str:
    return (
        f"p50 {row['p50_ms']:7.1f} ms  p95 {row['p95_ms']:7.1f} ms  "
        f"{row['requests_per_s']:7.1f} requests/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--clients", default="1,10,50")
    parser.add_argument("--requests", type=int, default=40, help="searches per client")
    scale_options(parser, "bench-http.json")
    args = parser.parse_args()
    index = scale_index(args.index_dir, args.docs, args.cacm)
    print(f"index of {args.docs:,} documents; {args.requests} searches per client", flush=True)
    table = anyio.run(main_async, args, index)
    write_json(args.json, {"docs": args.docs, "requests_per_client": args.requests, **table})


if __name__ == "__main__":
    main()
