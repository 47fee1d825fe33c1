"""A BERT-family encoder's layers as an ONNX graph, written from the weights every model is
published with (``model.safetensors``), for ONNX Runtime to run (docs/semantic.md).

The graph takes the embedded tokens (the word, position and token-type rows summed; a lookup,
done by the caller) and a mask of the real tokens, and gives the last layer's state of every
token: late chunking pools them per chunk. The word embeddings (most of a multilingual model's
weights) stay out of the graph. ONNX Runtime fuses what it recognises (layer norms, GELU,
attention) when it loads the graph; nothing is exported or stored twice on disk.
"""

from __future__ import annotations

import logging
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

#: the operator set the graph is written in (LayerNormalization needs 17)
OPSET = 17
#: what a padded key adds to its attention scores before the softmax: nothing of it is left
MASKED = -1e9


@dataclass(frozen=True)
class Layer:
    """One transformer layer's weights, as the checkpoint names them (matrices as ``x @ w``)."""

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


def layer(get: Callable[[str], np.ndarray], n: int) -> Layer:
    """Layer ``n`` of a BERT or XLM-RoBERTa checkpoint, read by ``get(name)``."""
    p = f"encoder.layer.{n}."
    q, k, v = (get(p + f"attention.self.{x}.weight") for x in ("query", "key", "value"))
    qb, kb, vb = (get(p + f"attention.self.{x}.bias") for x in ("query", "key", "value"))
    return Layer(
        np.ascontiguousarray(np.concatenate([q, k, v]).T),
        np.concatenate([qb, kb, vb]),
        np.ascontiguousarray(get(p + "attention.output.dense.weight").T),
        get(p + "attention.output.dense.bias"),
        (get(p + "attention.output.LayerNorm.weight"), get(p + "attention.output.LayerNorm.bias")),
        np.ascontiguousarray(get(p + "intermediate.dense.weight").T),
        get(p + "intermediate.dense.bias"),
        np.ascontiguousarray(get(p + "output.dense.weight").T),
        get(p + "output.dense.bias"),
        (get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias")),
    )


class _Graph:
    """Nodes and initializers, each named once."""

    def __init__(self) -> None:
        self.nodes: list[onnx.NodeProto] = []
        self.weights: list[onnx.TensorProto] = []
        self._count = 0

    def name(self, hint: str) -> str:
        self._count += 1
        return f"{hint}_{self._count}"

    def weight(self, array: np.ndarray | np.generic, hint: str = "w") -> str:
        name = self.name(hint)
        self.weights.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, kind: str, inputs: Sequence[str], **attributes: Any) -> str:
        out = self.name(kind.lower())
        self.nodes.append(helper.make_node(kind, list(inputs), [out], **attributes))
        return out

    def dense(self, x: str, w: np.ndarray, b: np.ndarray) -> str:
        return self.op("Add", [self.op("MatMul", [x, self.weight(w)]), self.weight(b)])

    def norm(self, x: str, gain_bias: tuple[np.ndarray, np.ndarray], eps: float) -> str:
        gain, bias = (self.weight(a.astype(np.float32)) for a in gain_bias)
        return self.op("LayerNormalization", [x, gain, bias], axis=-1, epsilon=eps)


def encoder_graph(
    norm: tuple[np.ndarray, np.ndarray], layers: Sequence[Layer], heads: int, eps: float
) -> bytes:
    """The serialized ONNX model of the embedding layer norm and ``layers``: inputs
    ``embedded`` (batch, tokens, hidden) float32 and ``mask`` (batch, tokens) float32 (1 for a
    token, 0 for padding); output ``states`` (batch, tokens, hidden)."""
    g = _Graph()
    hidden = layers[0].out.shape[0]
    d = hidden // heads
    x = g.norm("embedded", norm, eps)
    # (batch, 1, 1, tokens): what each padded key adds to every score
    keys = g.op("Unsqueeze", ["mask", g.weight(np.array([1, 2], dtype=np.int64))])
    added = g.op(
        "Mul",
        [g.op("Sub", [keys, g.weight(np.float32(1))]), g.weight(np.float32(-MASKED))],
    )
    split = g.weight(np.array([0, 0, heads, d], dtype=np.int64), "heads")
    merged = g.weight(np.array([0, 0, hidden], dtype=np.int64), "merged")
    scale = g.weight(np.float32(1 / np.sqrt(d)), "scale")
    for w in layers:
        qkv = g.dense(x, w.qkv, w.qkv_bias)
        sizes = g.weight(np.array([hidden] * 3, dtype=np.int64))
        q, k, v = (g.name(s) for s in "qkv")
        g.nodes.append(helper.make_node("Split", [qkv, sizes], [q, k, v], axis=-1))
        # (batch, heads, tokens, d); the keys as (batch, heads, d, tokens)
        qh = g.op("Transpose", [g.op("Reshape", [q, split])], perm=[0, 2, 1, 3])
        kh = g.op("Transpose", [g.op("Reshape", [k, split])], perm=[0, 2, 3, 1])
        vh = g.op("Transpose", [g.op("Reshape", [v, split])], perm=[0, 2, 1, 3])
        scores = g.op("Add", [g.op("Mul", [g.op("MatMul", [qh, kh]), scale]), added])
        context = g.op("MatMul", [g.op("Softmax", [scores], axis=-1), vh])
        context = g.op("Reshape", [g.op("Transpose", [context], perm=[0, 2, 1, 3]), merged])
        x = g.norm(g.op("Add", [g.dense(context, w.out, w.out_bias), x]), w.norm1, eps)
        h = g.dense(x, w.up, w.up_bias)
        erf = g.op("Erf", [g.op("Div", [h, g.weight(np.float32(np.sqrt(2)))])])
        gelu = g.op(
            "Mul",
            [
                g.op("Mul", [h, g.op("Add", [erf, g.weight(np.float32(1))])]),
                g.weight(np.float32(0.5)),
            ],
        )
        x = g.norm(g.op("Add", [g.dense(gelu, w.down, w.down_bias), x]), w.norm2, eps)
    g.nodes.append(helper.make_node("Identity", [x], ["states"]))
    graph = helper.make_graph(
        g.nodes,
        "encoder",
        [
            helper.make_tensor_value_info(
                "embedded", TensorProto.FLOAT, ["batch", "tokens", hidden]
            ),
            helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "tokens"]),
        ],
        [helper.make_tensor_value_info("states", TensorProto.FLOAT, ["batch", "tokens", hidden])],
        g.weights,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET)])
    model.ir_version = 8  # read by every ONNX Runtime of the last years
    return bytes(model.SerializeToString())


def int8(model: bytes) -> bytes:
    """``model`` with the weights of its dense layers in 8 bits (ONNX Runtime's dynamic
    quantization: each weight matrix per output channel, the activations per batch as they
    come). Only products by a weight are quantized, not attention's products of two activations,
    and the range is ONNX Runtime's reduced one, which no CPU's 8-bit products saturate: for
    all-MiniLM-L6-v2, twice as fast on a CPU, each chunk's vector at a cosine of 0.990 to the
    float model's on average, 0.980 at the least (docs/semantic.md, "Precision: int8")."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    root = logging.getLogger()
    root.addFilter(_no_preprocessing_advice)  # ONNX Runtime's advice for image models, each time
    try:
        with tempfile.TemporaryDirectory(prefix="pylucene-mcp-int8-") as folder:
            source, target = Path(folder) / "fp32.onnx", Path(folder) / "int8.onnx"
            source.write_bytes(model)
            quantize_dynamic(
                source,
                target,
                weight_type=QuantType.QInt8,
                per_channel=True,
                reduce_range=True,
                extra_options={"MatMulConstBOnly": True},
            )
            return target.read_bytes()
    finally:
        root.removeFilter(_no_preprocessing_advice)


def _no_preprocessing_advice(record: logging.LogRecord) -> bool:
    return not record.getMessage().startswith("Please consider to run pre-processing")
