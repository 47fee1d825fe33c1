"""The embedding model, run in this process (docs/semantic.md): a BERT-family text encoder
(BERT, XLM-RoBERTa: MiniLM, multilingual-e5 …) read from a model folder in the layout that
sentence-transformers saves (``config.json``, ``tokenizer.json``, ``model.safetensors``,
``1_Pooling/config.json``), and computed with numpy, whose matrix products run on every core.

Why numpy and not ONNX Runtime: the encoder is a dozen matrix products per layer; numpy's BLAS
does them as fast as a general runtime on a CPU (``bench/semantic.py`` measures it), it reads
the weights that every model is published with (no export step, no second copy), and it gives
the token states themselves, which late chunking pools per chunk. Imported only with vectors on.
"""

from __future__ import annotations

import json
import struct
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

from pylucene_mcp.basics import errors

#: the parts of a model folder the encoder reads
CONFIG, TOKENIZER, WEIGHTS = "config.json", "tokenizer.json", "model.safetensors"
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "F64": np.float64}
#: the prefixes a checkpoint may put before the encoder's own names
_PREFIXES = ("bert.", "roberta.", "model.")


class ModelError(errors.SetupError):
    """A model folder that cannot be used, with what is wrong in it."""


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """The tensors of a ``.safetensors`` file (an 8-byte header length, a JSON header of names,
    types, shapes and offsets, then the raw little-endian data), as float32 arrays."""
    with path.open("rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        header = json.loads(f.read(size))
        data = f.read()
    tensors = {}
    for name, spec in header.items():
        if name == "__metadata__":
            continue
        dtype = _DTYPES.get(spec["dtype"])
        if dtype is None:
            raise ModelError(f"{path}: tensor {name} is {spec['dtype']}, which is not read here")
        start, end = spec["data_offsets"]
        array = np.frombuffer(
            data, dtype=dtype, count=(end - start) // np.dtype(dtype).itemsize, offset=start
        ).reshape(spec["shape"])
        tensors[name] = array
    return tensors


def _erf(x: np.ndarray) -> np.ndarray:
    """The error function (Abramowitz and Stegun 7.1.26, error below 1.5e-7)."""
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    poly = t * (
        0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))
    )
    result: np.ndarray = sign * (1.0 - poly * np.exp(-a * a))
    return result


@dataclass(frozen=True)
class Layer:
    qkv: np.ndarray  # (hidden, 3 hidden): query, key and value in one product
    qkv_bias: np.ndarray
    out: np.ndarray
    out_bias: np.ndarray
    norm1: tuple[np.ndarray, np.ndarray]
    up: np.ndarray
    up_bias: np.ndarray
    down: np.ndarray
    down_bias: np.ndarray
    norm2: tuple[np.ndarray, np.ndarray]


class Encoder:
    """A model folder's encoder: token ids in, one state per token out."""

    def __init__(self, folder: Path, query_prefix: str = "", passage_prefix: str = "") -> None:
        self.folder = folder
        #: what the model was trained to see before a query and before a passage (e5: "query: ")
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        missing = [n for n in (CONFIG, TOKENIZER, WEIGHTS) if not (folder / n).is_file()]
        if missing:
            raise ModelError(f"the model folder {folder} lacks {', '.join(missing)}")
        config = json.loads((folder / CONFIG).read_text(encoding="utf-8"))
        kind = config.get("model_type")
        if kind not in ("bert", "xlm-roberta", "roberta"):
            raise ModelError(f"{folder}: a {kind} model; the encoder runs BERT and XLM-RoBERTa")
        self.hidden = int(config["hidden_size"])
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        # RoBERTa's positions start after the padding id
        self.position_offset = int(config.get("pad_token_id", 1)) + 1 if kind != "bert" else 0
        #: the most tokens one sequence may have: what its positions allow, or the length it was
        #: trained on where sentence-transformers records it
        self.max_tokens = int(config["max_position_embeddings"]) - self.position_offset
        trained = folder / "sentence_bert_config.json"
        if trained.is_file():
            length = json.loads(trained.read_text(encoding="utf-8")).get("max_seq_length")
            self.max_tokens = min(self.max_tokens, int(length or self.max_tokens))
        raw = read_safetensors(folder / WEIGHTS)
        w = {}
        for name, array in raw.items():
            for prefix in _PREFIXES:
                if name.startswith(prefix):
                    name = name[len(prefix) :]
            w[name] = array.astype(np.float32)

        def get(name: str) -> np.ndarray:
            try:
                return w[name]
            except KeyError:
                raise ModelError(f"{folder}: the weights lack {name}") from None

        self.words = get("embeddings.word_embeddings.weight")
        self.positions = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")[0]
        self.norm = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        self.layers = []
        for n in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{n}."
            q, k, v = (get(p + f"attention.self.{x}.weight") for x in ("query", "key", "value"))
            qb, kb, vb = (get(p + f"attention.self.{x}.bias") for x in ("query", "key", "value"))
            self.layers.append(
                Layer(
                    np.ascontiguousarray(np.concatenate([q, k, v]).T),
                    np.concatenate([qb, kb, vb]),
                    np.ascontiguousarray(get(p + "attention.output.dense.weight").T),
                    get(p + "attention.output.dense.bias"),
                    (
                        get(p + "attention.output.LayerNorm.weight"),
                        get(p + "attention.output.LayerNorm.bias"),
                    ),
                    np.ascontiguousarray(get(p + "intermediate.dense.weight").T),
                    get(p + "intermediate.dense.bias"),
                    np.ascontiguousarray(get(p + "output.dense.weight").T),
                    get(p + "output.dense.bias"),
                    (get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias")),
                )
            )
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        pooling = folder / "1_Pooling" / "config.json"
        mode = json.loads(pooling.read_text(encoding="utf-8")) if pooling.is_file() else {}
        self.cls_pooling = bool(mode.get("pooling_mode_cls_token"))
        ends = self.tokenizer.encode("").ids  # [CLS] [SEP], <s> </s>: what wraps a sequence
        self._first, self._last = ends[:1], ends[1:]

    def wrap(self, ids: Sequence[int]) -> list[int]:
        """``ids`` between the model's start and end tokens."""
        return [*self._first, *ids, *self._last]

    def _norm(self, x: np.ndarray, gain_bias: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        centred = x - mean
        var = (centred * centred).mean(-1, keepdims=True)
        result: np.ndarray = centred / np.sqrt(var + self.eps) * gain_bias[0] + gain_bias[1]
        return result

    def states(self, ids: Sequence[int]) -> np.ndarray:
        """The last layer's state of each of ``ids`` (at most ``max_tokens``)."""
        n = len(ids)
        if n > self.max_tokens:
            raise ValueError(f"{n} tokens; the model takes at most {self.max_tokens} at once")
        start = self.position_offset
        x = self.words[np.asarray(ids)] + self.positions[start : start + n] + self.token_type
        x = self._norm(x, self.norm)
        d = self.hidden // self.heads
        scale = np.float32(1 / np.sqrt(d))
        for layer in self.layers:
            qkv = x @ layer.qkv + layer.qkv_bias
            q, k, v = (
                qkv[:, i * self.hidden : (i + 1) * self.hidden]
                .reshape(n, self.heads, d)
                .transpose(1, 0, 2)
                for i in range(3)
            )
            scores = (q @ k.transpose(0, 2, 1)) * scale
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, self.hidden)
            x = self._norm(context @ layer.out + layer.out_bias + x, layer.norm1)
            h = x @ layer.up + layer.up_bias
            h = 0.5 * h * (1 + _erf(h * np.float32(1 / np.sqrt(2))))
            x = self._norm(h @ layer.down + layer.down_bias + x, layer.norm2)
        return x

    def embed(self, text: str) -> np.ndarray:
        """The query ``text`` as one unit vector (its first tokens, as many as the model takes)."""
        ids = self.tokenizer.encode(self.query_prefix + text, add_special_tokens=False).ids
        states = self.states(self.wrap(ids[: self.max_tokens - 2]))
        vector: np.ndarray = states[0] if self.cls_pooling else states.mean(0)
        unit: np.ndarray = vector / np.linalg.norm(vector)
        return unit
