"""What doctor tells a person to run: the ``claude mcp add`` line for Claude Code, which a shell
must read back as the words meant (a path with spaces, quotes), on POSIX and on Windows."""

from __future__ import annotations

import shlex

from pylucene_mcp.doctor import claude_code_command


def _block(command: str, index: str) -> dict[str, object]:
    return {
        "mcpServers": {
            "pylucene-mcp": {
                "command": command,
                "args": ["serve"],
                "env": {"PYLUCENE_MCP_INDEX": index},
            }
        }
    }


def test_claude_code_s_command_reads_back_as_its_words_in_a_posix_shell() -> None:
    line = claude_code_command(
        _block("/home/ann/my tools/bin/pylucene-mcp", "/home/ann/Ann's index"), system="linux"
    )
    assert shlex.split(line) == [
        "claude", "mcp", "add", "--scope", "user",
        "--env", "PYLUCENE_MCP_INDEX=/home/ann/Ann's index",
        "pylucene-mcp", "--", "/home/ann/my tools/bin/pylucene-mcp", "serve",
    ]  # fmt: skip


def test_claude_code_s_command_quotes_a_windows_path_as_its_programs_read_it() -> None:
    line = claude_code_command(
        _block(r"C:\Program Files\Python311\Scripts\pylucene-mcp.exe", r"C:\Users\ann\index"),
        system="win32",
    )
    assert line == (
        r"claude mcp add --scope user --env PYLUCENE_MCP_INDEX=C:\Users\ann\index pylucene-mcp"
        r' -- "C:\Program Files\Python311\Scripts\pylucene-mcp.exe" serve'
    )
