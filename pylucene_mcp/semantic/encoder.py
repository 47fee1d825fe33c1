"""The embedding model, run in this process (docs/semantic.md): a BERT-family text encoder
(BERT, XLM-RoBERTa: MiniLM, multilingual-e5 …) read from a model folder in the layout that
sentence-transformers saves (``config.json``, ``tokenizer.json``, ``model.safetensors``,
``1_Pooling/config.json``), and run by ONNX Runtime: its layers written as an ONNX graph from
those weights (:mod:`pylucene_mcp.semantic.graph`), the windows of a text in one batch, on the
execution provider that is installed and present (CUDA, CoreML, DirectML; the CPU otherwise).

It gives the token states themselves, which late chunking pools per chunk. Imported only with
vectors on.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from pylucene_mcp.basics import errors
from pylucene_mcp.semantic import graph

#: the parts of a model folder the encoder reads
CONFIG, TOKENIZER, WEIGHTS = "config.json", "tokenizer.json", "model.safetensors"
_DTYPES = {"F32": np.float32, "F16": np.float16, "I64": np.int64, "F64": np.float64}
#: the prefixes a checkpoint may put before the encoder's own names
_PREFIXES = ("bert.", "roberta.", "model.")
#: windows run at once (a document of 4.5 KB has about five)
BATCH = 32
#: the execution providers ``device: auto`` tries before the CPU, in this order
ACCELERATORS = ("CUDAExecutionProvider", "CoreMLExecutionProvider", "DmlExecutionProvider")


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


class Encoder:
    """A model folder's encoder: token ids in, one state per token out."""

    def __init__(
        self,
        folder: Path,
        query_prefix: str = "",
        passage_prefix: str = "",
        *,
        threads: int = 0,
        device: str = "auto",
        precision: str = "fp32",
    ) -> None:
        """The model of ``folder``, run on ``threads`` threads (0: :func:`model_threads`) on the
        execution provider that ``device`` allows (``auto``: the first of CUDA, CoreML,
        DirectML that is installed and present, then the CPU; ``cpu``: the CPU), its dense
        layers' weights in ``precision`` (``fp32``, or ``int8``: :func:`graph.int8`)."""
        self.folder = folder
        #: what the model was trained to see before a query and before a passage (e5: "query: ")
        self.query_prefix, self.passage_prefix = query_prefix, passage_prefix
        if precision not in ("fp32", "int8"):  # said before the weights are read
            raise ModelError(f"precision {precision!r}: the encoder runs fp32 or int8")
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
        #: the threads that run the model (CPU)
        self.threads = model_threads(threads)
        layers = [graph.layer(get, n) for n in range(int(config["num_hidden_layers"]))]
        model = graph.encoder_graph(self.norm, layers, self.heads, self.eps)
        del layers  # the session holds its own copy
        if precision == "int8":
            model = graph.int8(model)
        #: the weights' precision: ``fp32`` or ``int8``
        self.precision = precision
        self.session = _session(model, self.threads, device)
        #: the execution provider that runs the model
        self.provider = str(self.session.get_providers()[0])
        self.tokenizer = Tokenizer.from_file(str(folder / TOKENIZER))
        self.tokenizer.no_padding()
        self.tokenizer.no_truncation()
        pooling = folder / "1_Pooling" / "config.json"
        mode = json.loads(pooling.read_text(encoding="utf-8")) if pooling.is_file() else {}
        self.cls_pooling = bool(mode.get("pooling_mode_cls_token"))
        ends = self.tokenizer.encode("").ids  # [CLS] [SEP], <s> </s>: what wraps a sequence
        self._first, self._last = ends[:1], ends[1:]

    @property
    def runtime(self) -> str:
        """What runs the model, in words: its execution provider, threads and precision."""
        return f"{self.provider}, {self.threads} thread(s), {self.precision}"

    def wrap(self, ids: Sequence[int]) -> list[int]:
        """``ids`` between the model's start and end tokens."""
        return [*self._first, *ids, *self._last]

    def states(self, ids: Sequence[int]) -> np.ndarray:
        """The last layer's state of each of ``ids`` (at most ``max_tokens``)."""
        return self.states_many([ids])[0]

    def states_many(self, sequences: Sequence[Sequence[int]]) -> list[np.ndarray]:
        """The last layer's states of each of ``sequences`` (each at most ``max_tokens``),
        computed in batches of :data:`BATCH` (padded to the longest of a batch)."""
        for n in sequences:
            if len(n) > self.max_tokens:
                raise ValueError(
                    f"{len(n)} tokens; the model takes at most {self.max_tokens} at once"
                )
        # alike lengths together: less padding to compute
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
        by_index: dict[int, np.ndarray] = {}
        for start in range(0, len(order), BATCH):
            chosen = order[start : start + BATCH]
            longest = max(len(sequences[i]) for i in chosen)
            ids = np.zeros((len(chosen), longest), dtype=np.int64)
            mask = np.zeros((len(chosen), longest), dtype=np.float32)
            for row, i in enumerate(chosen):
                ids[row, : len(sequences[i])] = sequences[i]
                mask[row, : len(sequences[i])] = 1
            at = self.position_offset
            embedded = self.words[ids] + self.positions[at : at + longest] + self.token_type
            (states,) = self.session.run(["states"], {"embedded": embedded, "mask": mask})
            for row, i in enumerate(chosen):
                by_index[i] = states[row, : len(sequences[i])]
        return [by_index[i] for i in range(len(sequences))]

    def embed(self, text: str) -> np.ndarray:
        """The query ``text`` as one unit vector (its first tokens, as many as the model takes)."""
        ids = self.tokenizer.encode(self.query_prefix + text, add_special_tokens=False).ids
        states = self.states(self.wrap(ids[: self.max_tokens - 2]))
        vector: np.ndarray = states[0] if self.cls_pooling else states.mean(0)
        unit: np.ndarray = vector / np.linalg.norm(vector)
        return unit


def model_threads(threads: int, system: str = sys.platform) -> int:
    """The threads to run the model on: ``threads``; else every core where the embedder's
    threads run nicer than the searches (Linux: :func:`~pylucene_mcp.basics.portable.
    run_in_background`), half of them (at least one) elsewhere."""
    if threads > 0:
        return threads
    cores = os.cpu_count() or 2
    return cores if system == "linux" else max(1, cores // 2)


def providers(device: str, available: Sequence[str]) -> list[str]:
    """The execution providers to ask for, best first, of those ``available``: the CPU alone
    for ``device: cpu``; else the accelerators present, then the CPU."""
    if device == "cpu":
        return ["CPUExecutionProvider"]
    return [p for p in ACCELERATORS if p in available] + ["CPUExecutionProvider"]


def _session(model: bytes, threads: int, device: str) -> Any:
    """An ONNX Runtime session of ``model``: ``threads`` threads (at least one) that sleep when
    idle (a spinning thread takes a core from the searches), every graph optimization."""
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # errors only: its warnings would go to stderr
    return ort.InferenceSession(
        model, options, providers=providers(device, ort.get_available_providers())
    )
