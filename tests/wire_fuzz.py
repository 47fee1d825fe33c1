"""Raw JSON-RPC fuzzing of ``pylucene-mcp serve`` over real stdio (tests/test_wire_fuzz.py runs
a short round, bench/fuzz_stdio.py a long one): pipelined lines of every kind a client or a
broken one may send, each with a unique id where it has one, and a count of what came back.

A line that JSON-RPC calls a request (``method`` and an ``id`` that is a string, a number or
null) must get exactly one answer with that id; a line with any other id, or that is no JSON,
gets its error with id null; the server must live to the end."""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.stdio_peer import StdioPeer, handshake

TOOLS = ["search", "getIndexStats", "profileQuery", "explainMiss", "suggestTerms", "nope"]
QUERIES = ["lease", "*vertrag*", "NOT " * 300 + "a", "(" * 80 + "a" + ")" * 80, "a~2", "/pyth.n/"]


@dataclass
class Outcome:
    sent: int = 0
    expected: dict[str, str] = field(default_factory=dict)  # id as written → what it is
    answered: dict[str, int] = field(default_factory=dict)
    null_answers: int = 0
    null_expected: int = 0
    deaths: int = 0
    unanswered: list[str] = field(default_factory=list)
    duplicated: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _nested(depth: int) -> str:
    """JSON text nested ``depth`` deep (as text: Python's own encoder stops near 1,000)."""
    return '{"a":' * depth + "1" + "}" * depth


def _message(rng: random.Random, n: int) -> tuple[bytes, str | None, bool]:
    """One line to send: its bytes, the id text its answer must carry (None: no answer is
    owed, a notification) and whether that answer's id is null (an id JSON-RPC refuses, or
    a line that is no JSON-RPC at all)."""
    kind = rng.random()
    method = rng.choice(["ping", "tools/list", "tools/call", "resources/list", "nope/nope"])
    params: Any = {}
    if method == "tools/call":
        arguments: dict[str, Any] = {"query": rng.choice(QUERIES)}
        if rng.random() < 0.3:
            arguments["filePath"] = "/nowhere"
        if rng.random() < 0.2:
            arguments[rng.choice(["pageSize", "maxPassages", "bogus"])] = rng.choice(
                [-1, 0, 5, 10**9, "ten", None]
            )
        params = {"name": rng.choice(TOOLS), "arguments": arguments}
    params_text = json.dumps(params)
    deep = rng.random() < 0.1 and rng.choice([10, 70, 300, 2000])
    if deep:
        params_text = _nested(deep)
    if kind < 0.55:  # a good integer or string id
        written = str(n) if rng.random() < 0.5 else json.dumps(f"s{n}")
        owed, null = written, False
    elif kind < 0.75:  # an id the SDK does not take, JSON-RPC does
        written = rng.choice([f"{n}.5", f"{n}.0", f"-{n}.25", f"{n}e0"])
        # past Python's parser (about 1,000 levels) only a string or integer id can be read
        owed, null = ("null", True) if deep and deep >= 1000 else (written, False)
    elif kind < 0.85:  # an id JSON-RPC does not allow
        written = rng.choice(["{}", "[]", "true", "false", f'{{"n":{n}}}', f"[{n}]"])
        owed, null = "null", True
    elif kind < 0.93:  # a notification: no answer
        line = json.dumps({"jsonrpc": "2.0", "method": "notifications/" + method})
        return line.encode() + b"\n", None, False
    else:  # not JSON-RPC at all
        junk = rng.choice([b"{not json", b"[1,2", b'"just a string"', b"\xff\xfe", b"[]", b"42"])
        return junk + b"\n", "null", True
    line = f'{{"jsonrpc":"2.0","id":{written},"method":"{method}","params":{params_text}}}'
    return line.encode() + b"\n", owed, null


def fuzz(index_path: Path, home: Path, calls: int, seed: int, window: int = 32) -> Outcome:
    """Sends ``calls`` fuzzed lines, at most ``window`` unanswered at once, then pings."""
    rng = random.Random(seed)
    peer = StdioPeer(index_path, home)
    outcome = Outcome()
    started = time.monotonic()
    try:
        handshake(peer, "2025-11-25")
        owed: list[tuple[str, bool]] = []
        for n in range(1, calls + 1):
            line, answer_id, null = _message(rng, 10_000 + n)
            peer.send_raw(line)
            outcome.sent += 1
            if answer_id is None:
                continue
            owed.append((answer_id, null))
            if null:
                outcome.null_expected += 1
            else:
                outcome.expected[answer_id] = "request"
            if len(owed) >= window:
                _collect(peer, outcome, len(owed))
                owed.clear()
        _collect(peer, outcome, len(owed))
        if peer.request("ping", timeout=30)["result"] != {}:
            outcome.deaths += 1
    except (EOFError, BrokenPipeError, TimeoutError):
        outcome.deaths += 1
    finally:
        outcome.seconds = time.monotonic() - started
        try:
            peer.close()
        except Exception:  # a dead server is counted above
            pass
    outcome.unanswered = [i for i in outcome.expected if i not in outcome.answered]
    outcome.duplicated = [i for i, k in outcome.answered.items() if k > 1]
    return outcome


def _collect(peer: StdioPeer, outcome: Outcome, count: int) -> None:
    """Reads ``count`` answers, keyed by their id as the server wrote it (notifications the
    server sends meanwhile are no answers)."""
    while count > 0:
        message = peer.receive(timeout=60)
        if "id" not in message:
            continue
        count -= 1
        raw = peer.lines[-1]
        start = raw.index('"id":') + 5
        written = json.JSONDecoder().raw_decode(raw, start)
        text = raw[start : written[1]]
        if text == "null":
            outcome.null_answers += 1
        else:
            outcome.answered[text] = outcome.answered.get(text, 0) + 1


def summary(outcome: Outcome) -> str:
    return (
        f"{outcome.sent} lines ({len(outcome.expected)} requests, {outcome.null_expected} "
        f"refused with id null): {len(outcome.unanswered)} unanswered, "
        f"{len(outcome.duplicated)} answered twice, {outcome.null_answers} null-id errors, "
        f"{outcome.deaths} deaths, {outcome.seconds:.1f} s"
    )
