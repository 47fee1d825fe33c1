"""A stand-in of the default model's architecture (multilingual-e5-small: XLM-RoBERTa, a
SentencePiece-style Unigram tokenizer, mean pooling, "query: " and "passage: " prompts), tiny and
with random weights, in the layout sentence-transformers saves: the default model cannot be
fetched on these machines, its loading path can be run with this."""

from __future__ import annotations

import json
import struct
from pathlib import Path

import numpy as np

HIDDEN, HEADS, LAYERS, INTERMEDIATE, POSITIONS = 32, 4, 2, 64, 514
WORDS = ["query", "passage", "the", "der", "vertrag", "miete", "hund", "contract", "rent", "dog"]
LETTERS = "abcdefghijklmnopqrstuvwxyzäöüß.,:;!?0123456789"


def _tokenizer() -> str:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors

    vocab = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0), ("▁", -3.0)]
    vocab += [(c, -4.0) for c in LETTERS] + [("▁" + c, -3.5) for c in LETTERS]
    vocab += [("▁" + w, -1.0) for w in WORDS]
    tokenizer = Tokenizer(models.Unigram(vocab, unk_id=3))
    tokenizer.normalizer = None
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    return str(tokenizer.to_str())


def _safetensors(path: Path, tensors: dict[str, np.ndarray]) -> None:
    header: dict[str, object] = {}
    data = b""
    for name, array in tensors.items():
        raw = np.ascontiguousarray(array, dtype="<f4").tobytes()
        header[name] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [len(data), len(data) + len(raw)],
        }
        data += raw
    encoded = json.dumps(header).encode()
    path.write_bytes(struct.pack("<Q", len(encoded)) + encoded + data)


def xlm_roberta_standin(folder: Path, seed: int = 5) -> Path:
    """Writes the stand-in into ``folder`` (made if missing); returns it."""
    folder.mkdir(parents=True, exist_ok=True)
    tokenizer = _tokenizer()
    (folder / "tokenizer.json").write_text(tokenizer, encoding="utf-8")
    vocab = len(json.loads(tokenizer)["model"]["vocab"])
    config = {
        "model_type": "xlm-roberta",
        "hidden_size": HIDDEN,
        "num_attention_heads": HEADS,
        "num_hidden_layers": LAYERS,
        "intermediate_size": INTERMEDIATE,
        "max_position_embeddings": POSITIONS,
        "pad_token_id": 1,
        "layer_norm_eps": 1e-5,
        "vocab_size": vocab,
        "type_vocab_size": 1,
    }
    (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
    (folder / "sentence_bert_config.json").write_text(json.dumps({"max_seq_length": 512}))
    (folder / "1_Pooling").mkdir(exist_ok=True)
    (folder / "1_Pooling" / "config.json").write_text(
        json.dumps({"word_embedding_dimension": HIDDEN, "pooling_mode_mean_tokens": True})
    )
    rng = np.random.default_rng(seed)

    def w(*shape: int) -> np.ndarray:
        return rng.normal(scale=0.2, size=shape).astype(np.float32)

    tensors = {
        "embeddings.word_embeddings.weight": w(vocab, HIDDEN),
        "embeddings.position_embeddings.weight": w(POSITIONS, HIDDEN),
        "embeddings.token_type_embeddings.weight": w(1, HIDDEN),
        "embeddings.LayerNorm.weight": 1 + w(HIDDEN),
        "embeddings.LayerNorm.bias": w(HIDDEN),
    }
    for n in range(LAYERS):
        p = f"encoder.layer.{n}."
        for part in ("query", "key", "value"):
            tensors[p + f"attention.self.{part}.weight"] = w(HIDDEN, HIDDEN)
            tensors[p + f"attention.self.{part}.bias"] = w(HIDDEN)
        tensors[p + "attention.output.dense.weight"] = w(HIDDEN, HIDDEN)
        tensors[p + "attention.output.dense.bias"] = w(HIDDEN)
        tensors[p + "attention.output.LayerNorm.weight"] = 1 + w(HIDDEN)
        tensors[p + "attention.output.LayerNorm.bias"] = w(HIDDEN)
        tensors[p + "intermediate.dense.weight"] = w(INTERMEDIATE, HIDDEN)
        tensors[p + "intermediate.dense.bias"] = w(INTERMEDIATE)
        tensors[p + "output.dense.weight"] = w(HIDDEN, INTERMEDIATE)
        tensors[p + "output.dense.bias"] = w(HIDDEN)
        tensors[p + "output.LayerNorm.weight"] = 1 + w(HIDDEN)
        tensors[p + "output.LayerNorm.bias"] = w(HIDDEN)
    _safetensors(folder / "model.safetensors", tensors)
    return folder
