"""An independent reading of a BERT-family encoder: the transformer written out in plain numpy
from the checkpoint's weights (as the product computed it before it ran ONNX Runtime), against
which the product's graph is checked token state by token state."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from pylucene_mcp.semantic.encoder import read_safetensors


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


class NumpyEncoder:
    """The model of a folder, one sequence at a time, in float64."""

    def __init__(self, folder: Path) -> None:
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        self.layers = int(config["num_hidden_layers"])
        self.offset = (
            int(config.get("pad_token_id", 1)) + 1 if config["model_type"] != "bert" else 0
        )
        self.w: dict[str, np.ndarray] = {}
        for name, array in read_safetensors(folder / "model.safetensors").items():
            for prefix in ("bert.", "roberta.", "model."):
                name = name.removeprefix(prefix)
            self.w[name] = array.astype(np.float64)

    def _norm(self, x: np.ndarray, name: str) -> np.ndarray:
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        result: np.ndarray = (x - mean) / np.sqrt(var + self.eps) * self.w[
            name + ".weight"
        ] + self.w[name + ".bias"]
        return result

    def _dense(self, x: np.ndarray, name: str) -> np.ndarray:
        result: np.ndarray = x @ self.w[name + ".weight"].T + self.w[name + ".bias"]
        return result

    def states(self, ids: Sequence[int]) -> np.ndarray:
        n = len(ids)
        w = self.w
        x = (
            w["embeddings.word_embeddings.weight"][np.asarray(ids)]
            + w["embeddings.position_embeddings.weight"][self.offset : self.offset + n]
            + w["embeddings.token_type_embeddings.weight"][0]
        )
        x = self._norm(x, "embeddings.LayerNorm")
        hidden = x.shape[1]
        d = hidden // self.heads
        for layer in range(self.layers):
            p = f"encoder.layer.{layer}."
            q, k, v = (
                self._dense(x, p + f"attention.self.{part}")
                .reshape(n, self.heads, d)
                .transpose(1, 0, 2)
                for part in ("query", "key", "value")
            )
            scores = q @ k.transpose(0, 2, 1) / np.sqrt(d)
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(1, 0, 2).reshape(n, hidden)
            x = self._norm(
                self._dense(context, p + "attention.output.dense") + x,
                p + "attention.output.LayerNorm",
            )
            h = self._dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1 + _erf(h / np.sqrt(2)))
            x = self._norm(self._dense(h, p + "output.dense") + x, p + "output.LayerNorm")
        return x
