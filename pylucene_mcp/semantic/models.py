"""Which model embeds, and where its files come from (docs/semantic.md).

``embedding_model`` is a folder (the layout sentence-transformers saves: ``config.json``,
``tokenizer.json``, ``model.safetensors``) or the name of a model this package knows. A known
model is fetched once into ``<home>/models/<name>`` from its publisher's repository at a pinned
revision, and each file is kept only when its SHA-256 is the recorded one, as the Tika jar is
(``PYLUCENE_MCP_MODELS_URL``: a mirror of huggingface.co, with its ``<repository>/resolve/
<revision>/<file>`` paths).
"""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

from pylucene_mcp.basics import config, errors
from pylucene_mcp.basics.config import home_dir
from pylucene_mcp.basics.web import open_url, proxy_used

log = logging.getLogger(__name__)

HUB = "https://huggingface.co"
_CHUNK = 1 << 20


@dataclass(frozen=True)
class KnownModel:
    """A model this package can fetch: its files at one revision of its repository with their
    SHA-256, and the prefixes it was trained to see before a query and a passage."""

    name: str
    repository: str
    revision: str
    files: dict[str, str] = field(default_factory=dict)  # file → SHA-256
    query_prefix: str = ""
    passage_prefix: str = ""
    about: str = ""

    def url(self, file: str) -> str:
        base = config.from_environment("models_url") or HUB
        return f"{base.rstrip('/')}/{self.repository}/resolve/{self.revision}/{file}"


#: the default: multilingual (about 100 languages, German and English among them), 12 layers of
#: 384 dimensions, 118 M parameters (most of them its 250,000-piece vocabulary); MIT licence.
#: The SHA-256 are those of the files at this revision as published; huggingface.co cannot be
#: reached from the machines this was written on, so no test has fetched them (docs/semantic.md)
E5_SMALL = KnownModel(
    "multilingual-e5-small",
    "intfloat/multilingual-e5-small",
    "614241f622f53c4eeff9890bdc4f31cfecc418b3",
    {
        "config.json": "69137736cab8b8903a07fe8afaafdda25aac55415a12a55d1bffa9f581abf959",
        "tokenizer.json": "0b44a9d7b51c3c62626640cda0e2c2f70fdacdc25bbbd68038369d14ebdf4c39",
        "model.safetensors": "1a55775f53449dac10a2bcbc312469fac40b96d53198c407081a831f81c98477",
    },
    query_prefix="query: ",
    passage_prefix="passage: ",
    about="multilingual-e5-small: ~100 languages, 384 dimensions, 490 MB, MIT licence",
)
KNOWN = {model.name: model for model in (E5_SMALL,)}
DEFAULT = E5_SMALL.name


@dataclass(frozen=True)
class ModelFolder:
    """A model's folder, and the prefixes its queries and passages get."""

    path: Path
    query_prefix: str = ""
    passage_prefix: str = ""


def models_dir() -> Path:
    return home_dir() / "models"


def locate(setting: str, fetch: bool = True) -> ModelFolder:
    """The folder of the model ``setting`` names (a folder, or a known model's name, fetched
    first when ``fetch`` and it is not there yet).

    Raises:
        SetupError: for a name that is neither, or a known model that cannot be fetched, saying
            what to do.
    """
    folder = Path(setting).expanduser()
    if folder.is_dir():
        query, passage = _prompts(folder)
        return ModelFolder(folder, query, passage)
    known = KNOWN.get(setting)
    if known is None:
        raise errors.SetupError(
            f"embedding_model {setting!r} is neither a folder nor a model this package knows "
            f"({', '.join(sorted(KNOWN))}): give the folder of a model saved by "
            "sentence-transformers (config.json, tokenizer.json, model.safetensors)"
        )
    place = models_dir() / known.name
    missing = [name for name in known.files if not (place / name).is_file()]
    if missing and not fetch:
        raise errors.SetupError(
            f"the model {known.name} has not been fetched yet: the server fetches it once "
            "when it starts with vectors on"
        )
    for name in missing:
        fetch_file(known, name, place / name)
    return ModelFolder(place, known.query_prefix, known.passage_prefix)


def identity(setting: str) -> str:
    """What vectors are recorded as made with, for the model ``setting`` names: a folder by
    its resolved path (``~/models/minilm/`` and ``/home/ada/models/minilm`` are one model, and a
    link names its target), a known model by its name. Vectors recorded with another identity
    are made again."""
    folder = Path(setting).expanduser()
    if setting not in KNOWN or folder.is_dir():
        return str(folder.resolve())
    return setting


def _prompts(folder: Path) -> tuple[str, str]:
    """The query and passage prompts that sentence-transformers recorded for the model."""
    path = folder / "config_sentence_transformers.json"
    if not path.is_file():
        return "", ""
    prompts = json.loads(path.read_text(encoding="utf-8")).get("prompts") or {}
    passage = prompts.get("passage", prompts.get("document", ""))
    return str(prompts.get("query", "")), str(passage)


def fetch_file(model: KnownModel, name: str, dest: Path) -> None:
    """Downloads the file ``name`` of ``model`` to ``dest`` (through ``dest.part``), keeping it
    only when its SHA-256 is the recorded one.

    Raises:
        SetupError: on a network error or a checksum mismatch, saying what to do; nothing is
            left at ``dest``.
    """
    url = model.url(name)
    dest.parent.mkdir(parents=True, exist_ok=True)
    partial = dest.with_name(dest.name + ".part")
    log.warning("fetching %s of the model %s once from %s", name, model.name, url)
    digest = hashlib.sha256()
    try:
        with open_url(url, 120) as response, open(partial, "wb") as out:
            while chunk := response.read(_CHUNK):
                out.write(chunk)
                digest.update(chunk)
    except (OSError, ValueError) as exc:
        partial.unlink(missing_ok=True)
        raise errors.SetupError(
            f"could not fetch {name} of the model {model.name} from {url}{proxy_used(url)}: "
            f"{getattr(exc, 'reason', None) or exc}. Check the network (or set "
            "PYLUCENE_MCP_MODELS_URL to a mirror), or set embedding_model to a folder that "
            "holds the model"
        ) from exc
    wanted = model.files[name]
    if digest.hexdigest() != wanted:
        partial.unlink(missing_ok=True)
        raise errors.SetupError(
            f"{name} of the model {model.name} fetched from {url} is not the one this package "
            f"knows (SHA-256 {digest.hexdigest()} instead of {wanted}); it was deleted. Try "
            "again, or set embedding_model to a folder that holds the model"
        )
    partial.replace(dest)
    log.warning("%s of the model %s verified (SHA-256 %s)", name, model.name, wanted)
