"""Every request gets exactly one answer, over real stdio: text the SDK would drop (lone
surrogates, lines that are not JSON, UTF-8 or JSON-RPC), unknown tool arguments, and requests
still in flight when stdin closes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pylucene_mcp.server.protocol import lone_surrogate
from tests.stdio_peer import StdioPeer, handshake

pytestmark = pytest.mark.slow


@pytest.fixture
def peer(closed_index_path: Path, tmp_path: Path) -> Any:
    peer = StdioPeer(closed_index_path, tmp_path)
    handshake(peer, "2025-11-25")
    yield peer
    peer.close()


def call(peer: StdioPeer, arguments: dict[str, Any], name: str = "search") -> dict[str, Any]:
    return peer.request("tools/call", {"name": name, "arguments": arguments})  # type: ignore[no-any-return]


def test_a_lone_surrogate_in_a_tool_argument_is_a_tool_error_that_says_where(
    peer: StdioPeer,
) -> None:
    # what a JavaScript client sends for a cut emoji: json.dumps keeps the escape as it is
    peer.send_raw(
        b'{"jsonrpc":"2.0","id":"s1","method":"tools/call","params":{"name":"search",'
        b'"arguments":{"query":"\\ud800 lease"}}}\n'
    )
    answer = peer.receive()
    assert answer["id"] == "s1"
    assert answer["result"]["isError"] is True
    assert answer["result"]["content"][0]["text"].startswith("query holds a lone UTF-16 surrogate")
    peer.send_raw(
        b'{"jsonrpc":"2.0","id":"s2","method":"resources/read","params":{"uri":"x\\udc00"}}\n'
    )
    answer = peer.receive()
    assert answer["id"] == "s2" and answer["error"]["code"] == -32602
    assert "params.uri" in answer["error"]["message"]
    assert call(peer, {"query": "Mueller 🙂"})["result"].get("isError") is not True


@pytest.mark.parametrize(
    ("line", "code", "answer_id"),
    [
        (b"{not json\n", -32700, None),
        (b'{"jsonrpc":"2.0","id":7,"method":"ping"\n', -32700, None),
        (b'\xff\xfe{"jsonrpc":"2.0","id":8,"method":"ping"}\n', -32700, None),
        (b'[{"jsonrpc":"2.0","id":9,"method":"ping"}]\n', -32600, None),
        (b'{"jsonrpc":"2.0","id":10,"method":42}\n', -32600, 10),
        (b'{"jsonrpc":"1.0","id":11,"method":"ping"}\n', -32600, 11),
    ],
)
def test_a_line_the_sdk_would_drop_gets_a_json_rpc_error(
    peer: StdioPeer, line: bytes, code: int, answer_id: Any
) -> None:
    peer.send_raw(line)
    answer = peer.receive()
    assert answer["id"] == answer_id
    assert answer["error"]["code"] == code
    assert peer.request("ping")["result"] == {}  # the server reads on


@pytest.mark.parametrize("written", ["1.5", "1.0", "100.0", "-0.0", "1e400", "null", "0", '""'])
def test_every_id_json_rpc_allows_is_answered_with_that_id(peer: StdioPeer, written: str) -> None:
    """The SDK takes only strings and integers; the gate answers the others as written."""
    peer.send_raw(b'{"jsonrpc":"2.0","id":' + written.encode() + b',"method":"ping"}\n')
    answer = peer.receive(timeout=10)
    assert peer.lines[-1].startswith('{"jsonrpc":"2.0","id":' + written + ",")
    assert answer["result"] == {}
    assert peer.request("ping")["result"] == {}


def test_a_client_id_that_reads_like_the_gate_s_alias_is_answered_under_its_own_id(
    peer: StdioPeer,
) -> None:
    """Issue: ``1.5`` was aliased to ``"pylucene-mcp-id:1"``; a client whose own ids looked the
    same got no answer to either request."""
    for n in range(1, 4):  # whatever number the gate's next alias has
        peer.send_raw(b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}\n')
        peer.send_raw(
            b'{"jsonrpc":"2.0","id":"pylucene-mcp-id:%d","method":"ping"}\n' % (2 * n - 1)
        )
        peer.send_raw(b'{"jsonrpc":"2.0","id":"pylucene-mcp-id:%d","method":"ping"}\n' % (2 * n))
        ids = sorted(json.dumps(peer.receive(timeout=10)["id"]) for _ in range(3))
        assert ids == sorted(
            ["1.5", f'"pylucene-mcp-id:{2 * n - 1}"', f'"pylucene-mcp-id:{2 * n}"']
        )
    assert peer.request("ping")["result"] == {}


def test_a_line_over_the_limit_is_refused_at_once_and_not_kept(peer: StdioPeer) -> None:
    """Issue: a 300 MB line was answered after 30 s and took the server from 209 to 930 MB. The
    gate answers once it has read 4 MB, reads past the rest in pieces, and reads on."""
    import psutil

    from pylucene_mcp.server.protocol import MAX_LINE_BYTES

    server = psutil.Process(peer.proc.pid)
    before = server.memory_info().rss
    head = b'{"jsonrpc":"2.0","id":"huge","method":"tools/call","params":{"name":"search",'
    peer.send_raw(head + b'"arguments":{"query":"')
    piece = b"a" * (1 << 20)
    assert peer.proc.stdin is not None
    for _ in range(MAX_LINE_BYTES // len(piece) + 1):  # the limit, passed
        peer.proc.stdin.write(piece)
    peer.proc.stdin.flush()
    answer = peer.receive(timeout=30)  # before the line has ended
    assert answer["id"] == "huge" and answer["error"]["code"] == -32600
    assert "longer than 4 MB" in answer["error"]["message"]
    for _ in range(60):  # 60 MB more of the same line, read past
        peer.proc.stdin.write(piece)
    peer.send_raw(b'"}}}\n')
    assert peer.request("ping")["result"] == {}
    grown = server.memory_info().rss - before
    assert grown < 40 * 1024 * 1024, f"the server grew by {grown / 1e6:.0f} MB"


@pytest.mark.parametrize("written", ["{}", "false", "true", "[1]", '{"a":1}'])
def test_an_id_json_rpc_does_not_allow_is_refused_and_the_server_lives_on(
    peer: StdioPeer, written: str
) -> None:
    peer.send_raw(b'{"jsonrpc":"2.0","id":' + written.encode() + b',"method":"ping"}\n')
    answer = peer.receive(timeout=10)
    assert answer["id"] is None and answer["error"]["code"] == -32600
    assert "an id is a string, a number or null" in answer["error"]["message"]
    assert peer.request("ping")["result"] == {}


@pytest.mark.parametrize("depth", [65, 200, 975, 1000, 100_000])
def test_deep_nesting_is_refused_at_once(peer: StdioPeer, depth: int) -> None:
    nested = b'{"a":' * depth + b"1" + b"}" * depth
    peer.send_raw(b'{"jsonrpc":"2.0","id":"deep","method":"ping","params":' + nested + b"}\n")
    answer = peer.receive(timeout=10)
    assert (
        answer["error"]["code"] == -32600 and "nests deeper than 64" in answer["error"]["message"]
    )
    # past Python's own parser's depth (about 1,000) the line is not read, so its id is not known
    assert answer["id"] in (("deep",) if depth < 900 else ("deep", None))
    peer.send_raw(b'{"jsonrpc":"2.0","id":' + b"[" * depth + b"]" * depth + b',"method":"ping"}\n')
    assert peer.receive(timeout=10)["id"] is None
    assert peer.request("ping")["result"] == {}


def test_blank_lines_are_no_requests(peer: StdioPeer) -> None:
    peer.send_raw(b"\n   \n")
    assert peer.request("ping")["id"] == peer.request("ping")["id"] - 1


def test_an_unknown_tool_argument_is_refused_with_the_ones_it_takes(peer: StdioPeer) -> None:
    result = call(peer, {"query": "Mueller", "maxResults": 5})["result"]
    assert result["isError"] is True
    text = result["content"][0]["text"]
    assert "search takes no argument 'maxResults'" in text
    assert "pageSize" in text and "query" in text
    result = call(peer, {"wait": True}, name="getIndexStats")["result"]
    assert result["isError"] is True and "its arguments are: none" in result["content"][0]["text"]


def test_requests_read_before_stdin_closes_are_all_answered(
    closed_index_path: Path, tmp_path: Path
) -> None:
    peer = StdioPeer(closed_index_path, tmp_path)
    handshake(peer, "2025-11-25")
    ids = list(range(100, 106))
    lines = [
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "search", "arguments": {"query": "*vertrag*"}},
            }
        )
        for i in ids
    ]
    peer.send_raw(("\n".join(lines) + "\n").encode())
    rest, stderr = peer.close()  # closes stdin at once, then reads to the end
    answers = [json.loads(line) for line in rest.decode().splitlines()]
    assert sorted(a["id"] for a in answers) == ids, stderr
    assert all(a["result"]["structuredContent"]["totalHits"] == 3 for a in answers)
    assert peer.proc.returncode == 0


def test_lone_surrogate_finds_the_path() -> None:
    assert lone_surrogate({"a": [1, {"b": "ok"}, {"c": "x\ud83d"}]}) == "a[2].c"
    assert lone_surrogate({"a": "🙂 fine"}) is None
    assert lone_surrogate("\udfff") == "the value"
