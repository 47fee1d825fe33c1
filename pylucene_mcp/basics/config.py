"""Settings: environment variables > ``~/.pylucene-mcp/config.yaml`` > built-in defaults."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping
from contextvars import ContextVar
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import AliasChoices, BeforeValidator, Field, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from pylucene_mcp.basics import portable
from pylucene_mcp.basics.errors import ConfigError

log = logging.getLogger(__name__)

Operator = Literal["AND", "OR"]


def home_dir() -> Path:
    """``PYLUCENE_MCP_HOME`` or ``~/.pylucene-mcp``: config, logs and the default index. Without
    ``HOME`` the system's entry for the user names the home folder.

    Raises:
        ConfigError: when there is neither (a service account without a home).
    """
    explicit = from_environment("home")
    if explicit:
        return Path(explicit)
    try:
        return Path.home() / ".pylucene-mcp"
    except (RuntimeError, KeyError) as exc:
        raise ConfigError(
            "cannot tell this user's home folder (HOME is not set and the system knows no home "
            "for this user); set PYLUCENE_MCP_HOME to a folder for pylucene-mcp's config, logs "
            "and index"
        ) from exc


def cache_dir() -> Path:
    """Where pylucene-mcp keeps what it can rebuild (the JVM's class-data archive, the tool
    descriptions): ``PYLUCENE_MCP_CACHE``, else ``pylucene-mcp`` in the platform's cache folder
    (:func:`~pylucene_mcp.basics.portable.cache_home`), else ``cache`` in :func:`home_dir`."""
    explicit = from_environment("cache")
    if explicit:
        return Path(explicit)
    try:
        return portable.cache_home() / "pylucene-mcp"
    except (RuntimeError, KeyError):  # no home folder: beside the index and the logs
        return home_dir() / "cache"


#: the engines a configuration chooses from
BACKENDS = ("embedded", "solr")
Backend = Literal["embedded", "solr"]


def _text(value: Any) -> Any:
    """A text setting as written: YAML reads ``http: 8080`` or a password of digits as a
    number."""
    return value if value is None or isinstance(value, str) else str(value)


def comma_list(text: str) -> tuple[str, ...]:
    """The names of ``text`` separated by commas, blanks around them and empty ones left out:
    how a variable, or a command line option, writes a list."""
    return tuple(part.strip() for part in text.split(",") if part.strip())


def _names(value: Any) -> Any:
    """A list setting: a YAML list, or names separated by commas (as a variable writes them)."""
    if isinstance(value, str):
        return comma_list(value)
    if isinstance(value, list | tuple):
        return tuple(str(item) for item in value)
    return value


def folder_list(value: Any) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list | tuple):
        raise ValueError("must be a list of folders")
    return tuple(dict.fromkeys(directory_path(item) for item in value if str(item)))


def _readers(value: Any) -> dict[str, tuple[str, ...]]:
    """Folder → who may read its documents over authenticated HTTP (docs/team.md): a YAML
    mapping, or its JSON in the variable; each reader ``user:NAME``, ``group:NAME`` or ``*``."""
    if value is None:
        return {}
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError("must be a JSON object of folders and their readers") from None
    if not isinstance(value, Mapping):
        raise ValueError("must be a mapping of folders to their readers")
    found: dict[str, tuple[str, ...]] = {}
    for folder, who in value.items():
        names = _names(who) if isinstance(who, str | list | tuple) else ()
        for name in names:
            kind, _, named = name.partition(":")
            if name != "*" and not (kind in ("user", "group") and named):
                raise ValueError(f"of {folder}: {name!r} is not user:NAME, group:NAME or *")
        found[directory_path(str(folder))] = tuple(names)
    for inner in found:
        for outer in found:
            if inner != outer and portable.is_under(inner, outer):
                raise ValueError(
                    f"names {inner} inside {outer}: give the readers of folders that do not "
                    "lie in one another"
                )
    return found


Text = Annotated[str, BeforeValidator(_text)]


def _ocr_mode(value: Any) -> str:
    """``ocr`` as written: YAML reads ``on`` and ``off`` as booleans."""
    if isinstance(value, bool):
        return "on" if value else "off"
    return str(_text(value)).strip().lower()


Names = Annotated[tuple[str, ...], BeforeValidator(_names)]


class Settings(BaseSettings):
    """Everything the service layer and the server need to know: one pydantic-settings model
    whose fields are the config file's keys, each also the environment variable
    ``PYLUCENE_MCP_<KEY>`` (:func:`variable`). ``Settings(...)`` is the defaults and what it is
    given; :meth:`load` adds the config file and the environment."""

    model_config = SettingsConfigDict(frozen=True, extra="ignore")

    index_path: Path = Field(
        default_factory=lambda: home_dir() / "index",
        validation_alias=AliasChoices("index_path", "index"),
    )
    log_dir: Path = Field(default_factory=lambda: home_dir() / "logs")
    default_operator: Annotated[Operator, BeforeValidator(lambda v: _text(v).upper())] = "AND"
    refresh_interval_s: float = 1.0
    search_timeout_s: float = 5.0
    max_heap: Text | None = None
    tools_include: Names = ()
    tools_exclude: Names = ()
    # crawler
    directories: Annotated[tuple[str, ...], BeforeValidator(folder_list)] = ()
    #: the folders come from PYLUCENE_MCP_DIRECTORIES (set by :meth:`load`, not a key)
    directories_from_env: bool = False
    include: Names = ()  # empty: the default formats (crawler.walk.DEFAULT_INCLUDE)
    exclude: Names = ()  # empty: crawler.walk.DEFAULT_EXCLUDE
    workers: int = 2
    batch_size: int = 100
    commit_interval_s: float = 10.0
    bulk_refresh_interval_s: float = 10.0
    max_file_size_mb: float = 100.0
    #: the text kept of one file; the rest is cut (docs/crawler.md: memory per file)
    max_content_chars: int = 5_000_000
    tika_heap: Text = "384m"  # Tika's tree ≤ 600 MB during a crawl (crawler/tika_process.py)
    tika_timeout_s: float = 120.0
    tika_idle_s: float = 300.0
    #: OCR of scans and photos (crawler/ocr.py, docs/crawler.md): ``auto`` where Tesseract is
    #: found, ``on`` (its absence is an error ``doctor`` reports), ``off``
    ocr: Annotated[Literal["auto", "on", "off"], BeforeValidator(lambda v: _ocr_mode(v))] = "auto"
    #: Tesseract's languages, ``+`` between them (those it has no data for are left out)
    ocr_languages: Text = "eng+deu"
    #: the ``tesseract`` program or its folder, where it is not on the PATH nor where its
    #: installer puts it
    tesseract_path: Text | None = None
    #: the longest OCR of one page or image, of one document, and the most pages without text
    #: one document may have to be recognised
    ocr_page_timeout_s: int = Field(default=120, ge=1)
    ocr_timeout_s: float = Field(default=1800.0, gt=0)
    ocr_max_pages: int = Field(default=500, ge=1)
    #: the resolution a PDF page without text is rendered at for OCR
    ocr_dpi: int = Field(default=300, ge=72, le=600)
    watch: bool = True
    index_hard_links: bool = False
    debounce_s: float = 1.0
    crawl_on_start: bool = True
    #: the file :meth:`load` read (not a key)
    config_file: Path = Field(default_factory=lambda: home_dir() / "config.yaml")
    # the engine: the embedded index (index_path), or a SolrCloud collection (docs/scale-out.md)
    backend: Annotated[Backend, BeforeValidator(lambda v: _text(v).strip().lower())] = "embedded"
    solr_urls: Names = ()
    solr_collection: Text = "pylucene-mcp"
    solr_username: Text | None = None
    solr_password: Text | None = Field(default=None, repr=False)
    #: "true" (the system's trust store), "false" (no check), or the path of a CA bundle
    solr_verify: Text = "true"
    solr_timeout_s: float = 30.0
    # MCP over Streamable HTTP instead of stdio (server/http.py): [HOST:]PORT, None for stdio
    http: Text | None = None
    #: the Host headers an HTTP server answers besides the loopback names and its bound host
    http_hosts: Names = ()
    #: the Origin headers it takes besides the loopback origins (a browser's page elsewhere)
    http_origins: Names = ()
    #: open connections at once, in all and from one address (more are closed at once); the
    #: total is lowered to leave the index descriptors (server/guard.py, docs/http.md)
    http_max_connections: int = Field(default=256, ge=1)
    http_max_connections_per_peer: int = Field(default=128, ge=1)
    #: seconds a request may take to arrive whole (its headers and body): a slow sender's
    #: connection is closed after them
    http_request_timeout_s: float = Field(default=30.0, gt=0)
    #: MCP sessions open at once, in all and of one caller, and how long one may stay idle
    http_max_sessions: int = Field(default=1000, ge=1)
    http_max_sessions_per_caller: int = Field(default=32, ge=1)
    http_session_idle_s: float = Field(default=600.0, gt=0)
    # who may call over HTTP (server/auth.py, docs/team.md): an issuer's JWTs, static tokens
    #: the authorization server whose JWT access tokens are taken (its ``iss``, exactly)
    oauth_issuer: Text | None = None
    #: this server's resource URL as clients reach it: the tokens' ``aud``
    oauth_audience: Text | None = None
    #: the issuer's keys (JWKS), where its metadata does not name them
    oauth_jwks_url: Text | None = None
    #: a file of static tokens' SHA-256 with their subjects, scopes and groups
    tokens_file: Path | None = None
    #: folder → who may read its documents over authenticated HTTP (``user:NAME``,
    #: ``group:NAME``, ``*``); a document below no such folder goes by ``file_readers``
    readers: Annotated[dict[str, tuple[str, ...]], BeforeValidator(_readers)] = Field(
        default_factory=dict
    )
    # the semantic path (docs/semantic.md): off, nothing of it is loaded
    vectors: bool = False
    #: a folder of a model saved by sentence-transformers, or a known model's name
    embedding_model: Text = "multilingual-e5-small"
    #: the least cosine similarity of a semantic search's documents (their best chunk's); None:
    #: the model's own, measured when it loads (semantic/calibration.py)
    similarity_threshold: float | None = Field(default=None, ge=-1, le=1)
    chunking: Annotated[Literal["late", "plain"], BeforeValidator(lambda v: _text(v).lower())] = (
        "late"
    )
    #: the threads that run the model (0: every core on Linux, where they run nicer than the
    #: searches, the crawler and Tika; half the cores elsewhere)
    embedding_threads: int = Field(default=0, ge=0, le=256)
    #: ``auto``: the model runs on an accelerator where ONNX Runtime has one installed and
    #: present (CUDA, CoreML, DirectML), else on the CPU; ``cpu``: on the CPU
    embedding_device: Annotated[
        Literal["auto", "cpu"], BeforeValidator(lambda v: _text(v).lower())
    ] = "auto"
    #: the model's dense layers in ``fp32`` (as published) or ``int8`` (quantized when the model
    #: loads: twice as fast on a CPU, its vectors at a cosine of about 0.99 to fp32's; CACM MAP
    #: 0.006 lower: docs/semantic.md)
    embedding_precision: Annotated[
        Literal["fp32", "int8"], BeforeValidator(lambda v: _text(v).lower())
    ] = "fp32"
    #: below no ``readers`` folder, a file is read over authenticated HTTP by whom its owner,
    #: group and mode let read it, as the crawler recorded them (off: by no one there)
    file_readers: bool = True

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """What :meth:`load` is given wins over the environment, which wins over the config
        file; a plain ``Settings(...)`` reads neither."""
        path = _LOADING.get()
        if path is None:
            return (init_settings,)
        return (init_settings, _Environment(settings_cls), _ConfigFile(settings_cls, path))

    @classmethod
    def load(cls, config_file: Path | None = None, **overrides: Any) -> Settings:
        """Defaults, then the config file, then the environment, then ``overrides``.

        Raises:
            ConfigError: when the config file or a variable holds an unusable value.
        """
        path = config_file or home_dir() / "config.yaml"
        given = {k: v for k, v in overrides.items() if v is not None}
        given["config_file"] = path
        given["directories_from_env"] = from_environment("directories") is not None
        token = _LOADING.set(path)
        try:
            settings = cls(**given)
        except ValidationError as exc:
            raise ConfigError(_explained(exc, path, given)) from None
        finally:
            _LOADING.reset(token)
        if settings.backend == "solr" and not settings.solr_urls:
            raise ConfigError(f"backend solr {NEEDS_SOLR_URLS}")
        return settings

    def __hash__(self) -> int:  # the readers are a mapping: hashed as their items
        return hash(tuple((k, tuple(v.items()) if isinstance(v, dict) else v) for k, v in self))

    def with_index(self, path: Path | str) -> Settings:
        return self.model_copy(update={"index_path": Path(path).expanduser()})


#: the config file :meth:`Settings.load` is reading, while it reads
_LOADING: ContextVar[Path | None] = ContextVar("pylucene_mcp_settings_file", default=None)

#: the fields that are not keys of the config file (what ``load`` sets itself)
_NOT_KEYS = ("index_path", "directories_from_env", "config_file", "log_dir")
#: Every key of the config file; each is also the environment variable ``PYLUCENE_MCP_<KEY>``
#: (``refresh_interval_s`` → ``PYLUCENE_MCP_REFRESH_INTERVAL_S``), which wins over the file.
KEYS = ("index", *(name for name in Settings.model_fields if name not in _NOT_KEYS))


class _Environment(PydanticBaseSettingsSource):
    """The ``PYLUCENE_MCP_<KEY>`` variables of the config keys, as texts for the model to read
    (``PYLUCENE_MCP_DIRECTORIES`` holds folders separated by the system's path separator)."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # __call__ reads them all at once

    def __call__(self) -> dict[str, Any]:
        values: dict[str, Any] = {
            key: value for key in KEYS if (value := from_environment(key)) is not None
        }
        if "directories" in values:
            values["directories"] = values["directories"].split(os.pathsep)
        return values


class _ConfigFile(PydanticBaseSettingsSource):
    """The config file's keys (a key it does not know is reported in the log and left out)."""

    def __init__(self, settings_cls: type[BaseSettings], path: Path) -> None:
        super().__init__(settings_cls)
        self.path = path

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return None, field_name, False  # __call__ reads them all at once

    def __call__(self) -> dict[str, Any]:
        if not self.path.is_file():
            return {}
        data = read_mapping(self.path)
        unknown = sorted(str(key) for key in data if key not in KEYS)
        if unknown:
            log.warning("%s: unknown keys left out: %s", self.path, ", ".join(unknown))
        return {key: value for key, value in data.items() if key in KEYS}


def _explained(exc: ValidationError, path: Path, given: dict[str, Any]) -> str:
    """The first problem of ``exc`` as a sentence that names where the value came from (the
    variable, the config file's key, or what the caller gave) and what it must be."""
    error = exc.errors()[0]
    key = str(error["loc"][0]) if error["loc"] else "?"
    if key in given:
        where = key
    elif from_environment(key) is not None:
        where = variable(key)
    else:
        where = f"{path}: {key}"
    kind = error["type"]
    if kind.startswith(("int_", "float_")):
        rule = "must be a number"
    elif kind.startswith("bool_"):
        rule = "must be true or false"
    elif kind == "literal_error":
        choices = get_args(Settings.model_fields[key].annotation)
        rule = "must be " + " or ".join(map(str, choices))
    elif kind == "value_error":
        rule = str(error["msg"]).removeprefix("Value error, ")
    else:
        rule = f"is not usable ({error['msg']})"
    return f"{where} {rule}, not {error.get('input')!r}"


def read_mapping(path: Path, refusal: str = "") -> dict[str, Any]:
    """The settings mapping of the YAML file ``path`` (empty for an empty file).

    Raises:
        ConfigError: when it is not YAML or not a mapping; ``refusal`` follows the reason
            (", not rewriting it").
    """
    import yaml

    try:
        loaded = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path} is not valid YAML{refusal}: {exc}") from exc
    if not isinstance(loaded, dict):
        raise ConfigError(f"{path} must hold a mapping of settings{refusal}")
    return loaded


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def variable(key: str) -> str:
    """The environment variable of the config key ``key``."""
    return f"PYLUCENE_MCP_{key.upper()}"


#: what the Solr backend lacks without nodes (said by the settings and by the Solr client)
NEEDS_SOLR_URLS = (
    f"needs solr_urls ({variable('solr_urls')}): the base URLs of one or more nodes, "
    "comma-separated, such as http://host:8983/solr"
)


def flag_or_text(value: str) -> bool | str:
    """``value`` as a yes or no when it is one of a flag's words,
    else as it is: ``solr_verify`` is true, false, or the path of a CA bundle."""
    text = value.strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    return value


#: The variables that are no key of the config file: where things are before any setting is read
#: (docs/claude-desktop.md), each read by :func:`from_environment` like a key's.
ENVIRONMENT_ONLY = {
    "home": "the folder of the config file, the logs and the default index (~/.pylucene-mcp)",
    "cache": "the folder of what can be rebuilt (the JVM's class-data archive …)",
    "jars": "the folder of the Lucene, ICU and shim jars (the package's own)",
    "classpath": "more jars or folders for the JVM, separated as PATH is (your own analyzers)",
    "java_home": "the Java runtime (>= 21) to start, before JAVA_HOME and the system's",
    "tika_jar": "the tika-server-standard jar to run",
    "tika_jar_dir": "a folder whose newest tika-server-standard-*.jar is run",
    "maven_url": "a mirror of Maven Central's layout to fetch the Tika jar from",
    "models_url": "a mirror of the model hub's paths to fetch a known model from",
    "ca_bundle": "a CA bundle (PEM) to trust beside the system's for downloads",
}


def from_environment(key: str) -> str | None:
    """The value of ``key`` (a config key or one of :data:`ENVIRONMENT_ONLY`) in its
    environment variable (None: unset or empty): the one reading of a ``PYLUCENE_MCP_<KEY>``
    variable, for :meth:`Settings.load` and for code that runs before or without settings (the
    JVM's class path and runtime, the home folder, the Tika jar, the mirrors).

    Raises:
        KeyError: for a key that is neither (a variable this function does not know).
    """
    if key not in ENVIRONMENT_ONLY and key not in KEYS:
        raise KeyError(f"{variable(key)} is no variable of pylucene-mcp's")
    return os.environ.get(variable(key)) or None


def directory_path(path: str | Path) -> str:
    """A configured directory as it is stored and compared: ``~`` expanded, absolute,
    normalized (no ``..``, no trailing slash), spelled as the disk spells it where names
    compare without case (:func:`~pylucene_mcp.basics.portable.true_case`)."""
    return portable.true_case(os.path.abspath(os.path.expanduser(str(path))))
