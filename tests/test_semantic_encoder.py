"""The embedding model run in this process (pylucene_mcp/semantic): the published figures of a
real model reproduced, documents cut into chunks with late and plain chunking, model folders
that cannot be used, and a known model fetched and checked against its SHA-256.

The model is all-MiniLM-L6-v2 as a PyPI package ships it (scripts/ensure-test-model)."""

from __future__ import annotations

import functools
import hashlib
import http.server
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from pylucene_mcp.basics.errors import SetupError
from pylucene_mcp.semantic import chunks, models
from pylucene_mcp.semantic.encoder import Encoder
from tests.semantic_model import MODEL, ensure
from tests.waiting import until

ROOT = Path(__file__).resolve().parents[1]


def model_folder() -> Path:
    return MODEL


@pytest.fixture(scope="module")
def encoder() -> Encoder:
    return Encoder(ensure())


def test_the_published_similarities_of_the_model_are_reproduced(encoder: Encoder) -> None:
    # sentence-transformers' own quickstart prints this matrix for all-MiniLM-L6-v2: reproduced
    # to its four decimals, tokenizer, weights, layers, pooling and norm are all as upstream
    sentences = [
        "The weather is lovely today.",
        "It's so sunny outside!",
        "He drove to the stadium.",
    ]
    published = np.array(
        [[1.0000, 0.6660, 0.1046], [0.6660, 1.0000, 0.1411], [0.1046, 0.1411, 1.0000]]
    )
    vectors = np.array([encoder.embed(s) for s in sentences])
    assert np.abs(vectors @ vectors.T - published).max() < 6e-5
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


TEXT = (
    "Berlin is the capital and largest city of Germany, on the river Spree. "
    "The city has many museums, galleries and theatres, and its zoo is the oldest in the country. "
    "It is also known for its clubs and its nightlife, which draw visitors all year round. "
    "Its population is about 3.8 million people, more than that of any other city in the Union. "
    "Its mayor governs it as a state of its own, one of the sixteen states of the federation. "
    "Its population is about 3.8 million people, more than that of any other city in the Union. "
    "Its airport opened in 2020, years later than planned, to the south-east of the centre. "
)


def test_chunks_cover_the_text_in_order_and_end_at_sentences(encoder: Encoder) -> None:
    long = TEXT * 4
    found = chunks.chunks(encoder, long)
    assert len(found) >= 6
    assert found[0].start == 0 and found[-1].end == len(long.rstrip())
    for before, after in zip(found, found[1:], strict=False):
        assert before.end <= after.start
        assert long[before.end : after.start].strip() == ""  # nothing between them is lost
        assert long[: before.end].endswith((".", "!", "?", ";", ":"))  # cut after a sentence
    for chunk in found:
        assert abs(float(np.linalg.norm(chunk.vector)) - 1) < 1e-5


def test_late_chunking_gives_a_chunk_what_its_context_says(encoder: Encoder) -> None:
    # a chunk that says "its" and never "Berlin", read with the text before it (late chunking),
    # answers a question about Berlin far better than read alone
    question = encoder.embed("What is the population of Berlin?")
    late = chunks.chunks(encoder, TEXT, "late")
    plain = chunks.chunks(encoder, TEXT, "plain")
    assert [(c.start, c.end) for c in late] == [(c.start, c.end) for c in plain]
    unnamed = [k for k, c in enumerate(late) if "Berlin" not in TEXT[c.start : c.end]]
    assert unnamed
    for k in unnamed:
        assert float(late[k].vector @ question) > float(plain[k].vector @ question) + 0.1
    # a chunk that names it gains little from its context
    assert abs(float(late[0].vector @ question) - float(plain[0].vector @ question)) < 0.05


def test_a_long_text_is_read_in_windows_and_capped(
    encoder: Encoder, monkeypatch: pytest.MonkeyPatch
) -> None:
    sentence = "A heron waits by the water for a fish to pass. "
    long = sentence * 120  # about 1,500 tokens: several windows
    assert len(encoder.tokenizer.encode(long).ids) > 4 * encoder.max_tokens
    found = chunks.chunks(encoder, long)
    assert len(found) > 4 * encoder.max_tokens // 128
    assert found[-1].end == len(long.rstrip())
    monkeypatch.setattr(chunks, "MAX_CHUNKS", 3)  # a book's tail gets no vectors
    capped = chunks.chunks(encoder, long)
    assert [(c.start, c.end) for c in capped] == [(c.start, c.end) for c in found[:3]]


def test_an_empty_text_has_no_chunks(encoder: Encoder) -> None:
    assert chunks.chunks(encoder, "") == []
    assert chunks.chunks(encoder, "   \n ") == []


@pytest.fixture
def broken(tmp_path: Path) -> Path:
    folder = tmp_path / "model"
    shutil.copytree(model_folder(), folder)
    return folder


def test_a_folder_without_its_weights_says_what_it_lacks(broken: Path) -> None:
    (broken / "model.safetensors").unlink()
    with pytest.raises(SetupError, match="lacks model.safetensors"):
        Encoder(broken)


def test_a_model_of_another_kind_is_refused_by_name(broken: Path) -> None:
    config = broken / "config.json"
    config.write_text(config.read_text().replace('"bert"', '"gpt2"'))
    with pytest.raises(SetupError, match="a gpt2 model"):
        Encoder(broken)


def test_a_name_that_is_no_folder_and_no_known_model_is_refused() -> None:
    with pytest.raises(SetupError, match="neither a folder nor a model this package knows"):
        models.locate("no-such-model")


def test_a_folder_names_its_prompts() -> None:
    located = models.locate(str(model_folder()))
    assert located.path == model_folder()
    assert (located.query_prefix, located.passage_prefix) == ("", "")


# -- fetching a known model -----------------------------------------------------------------


@pytest.fixture
def mirror(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Path, str]]:
    """A local mirror of the hub (its <repository>/resolve/<revision>/<file> paths)."""
    served = tmp_path / "served"
    where = served / "test" / "minilm" / "resolve" / "r1"
    where.mkdir(parents=True)
    for name in ("config.json", "tokenizer.json", "model.safetensors"):
        shutil.copy(model_folder() / name, where / name)
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(served))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    monkeypatch.setenv("PYLUCENE_MCP_MODELS_URL", f"http://127.0.0.1:{server.server_port}")
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(tmp_path / "home"))
    yield where, f"http://127.0.0.1:{server.server_port}"
    server.shutdown()
    server.server_close()


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_known_model_is_fetched_once_and_checked(
    mirror: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    where, _ = mirror
    files = {n: sha256(where / n) for n in ("config.json", "tokenizer.json", "model.safetensors")}
    known = models.KnownModel("mini", "test/minilm", "r1", files, "q: ", "p: ")
    monkeypatch.setitem(models.KNOWN, "mini", known)
    with pytest.raises(SetupError, match="has not been fetched yet"):
        models.locate("mini", fetch=False)
    located = models.locate("mini")
    assert located.path == models.models_dir() / "mini"
    assert (located.query_prefix, located.passage_prefix) == ("q: ", "p: ")
    assert {n: sha256(located.path / n) for n in files} == files
    (where / "model.safetensors").unlink()  # the second time nothing is fetched
    assert models.locate("mini").path == located.path
    assert Encoder(located.path).embed("heron").shape == (384,)


def test_a_file_that_is_not_the_recorded_one_is_not_kept(
    mirror: tuple[Path, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    where, _ = mirror
    files = {n: sha256(where / n) for n in ("config.json", "tokenizer.json", "model.safetensors")}
    files["tokenizer.json"] = "0" * 64
    monkeypatch.setitem(models.KNOWN, "mini", models.KnownModel("mini", "test/minilm", "r1", files))
    with pytest.raises(SetupError, match="tokenizer.json of the model mini .* is not the one"):
        models.locate("mini")
    assert not (models.models_dir() / "mini" / "tokenizer.json").exists()
    assert not list((models.models_dir() / "mini").glob("*.part"))


def test_a_mirror_that_cannot_be_reached_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYLUCENE_MCP_MODELS_URL", "http://127.0.0.1:9")  # nothing listens
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(tmp_path))
    with pytest.raises(SetupError, match="could not fetch config.json .* PYLUCENE_MCP_MODELS_URL"):
        models.locate(models.DEFAULT)


def test_a_model_that_cannot_be_had_is_said_once_and_tried_less_and_less_often(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """An unreachable default model had written two warnings every two seconds, forever."""
    import time

    from pylucene_mcp import Index
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.service import embedding as embedding_module

    monkeypatch.setenv("PYLUCENE_MCP_MODELS_URL", "http://127.0.0.1:9")  # nothing listens
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(tmp_path / "home"))
    monkeypatch.setattr(embedding_module, "POLL_S", 0.01)
    tries: list[float] = []
    real = models.fetch_file

    def counted(*args: object, **kwargs: object) -> None:
        tries.append(time.monotonic())
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(models, "fetch_file", counted)
    index = Index.open(tmp_path / "index")
    with index.writer() as writer:
        writer.add({"file_path": "/d/a.txt", "content": "a text to embed"})
    embedder = embedding_module.Embedding(
        Settings(index_path=index.path, vectors=True), lambda: index, lambda: True
    )
    try:
        with caplog.at_level("WARNING", logger="pylucene_mcp.service.embedding"):
            embedder.start()
            until(lambda: len(tries) >= 7, 60, "seven tries to fetch the model")
    finally:
        embedder.stop()
        index.close()
    said = [r for r in caplog.records if "could not go on" in r.getMessage()]
    assert len(said) == 1, [r.getMessage() for r in said]
    assert "PYLUCENE_MCP_MODELS_URL" in (embedder.progress.error or "")
    gaps = [b - a for a, b in zip(tries, tries[1:], strict=False)]
    # the start's try and the loop's first come back to back; then each wait doubles from
    # 0.02 s (a busy machine only lengthens one, never shortens it)
    waits = [(embedding_module.backoff_s(n), gap) for n, gap in enumerate(gaps) if n >= 1]
    assert all(gap >= 0.9 * planned for planned, gap in waits), gaps
    assert [embedding_module.backoff_s(n) for n in range(4)] == [0.01, 0.02, 0.04, 0.08]
    monkeypatch.setattr(embedding_module, "POLL_S", 2.0)
    assert embedding_module.backoff_s(40) == embedding_module.MAX_BACKOFF_S


def test_the_server_imports_no_part_of_the_semantic_path() -> None:
    code = (
        "import sys, pylucene_mcp.server.app, pylucene_mcp.cli; "
        "print(sorted(m for m in ('numpy', 'tokenizers', 'onnxruntime', 'onnx', "
        "'pylucene_mcp.semantic') "
        "if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.strip() == "[]"


def test_vectors_without_their_packages_say_what_to_install(tmp_path: Path) -> None:
    code = (
        "import sys; sys.modules['tokenizers'] = None\n"  # as if it were not installed
        "from pylucene_mcp.basics.config import Settings\n"
        "from pylucene_mcp.service.embedding import Embedding\n"
        f"e = Embedding(Settings(vectors=True, embedding_model={str(MODEL)!r}), None, None)\n"
        "try:\n    e.encoder()\nexcept Exception as exc:\n    print(type(exc).__name__, exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert done.stdout.startswith("SetupError vectors need tokenizers")
    # this checkout's own command (an editable install of it), not PyPI's name
    assert f"-m pip install -e '{ROOT}[semantic]'" in done.stdout, done.stdout


def test_doctor_says_where_the_model_is_or_that_it_is_to_be_fetched(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.doctor import FAIL, OK, WARN, check_vectors

    assert check_vectors(Settings()) is None  # vectors off: nothing of it is looked at
    ok = check_vectors(Settings(vectors=True, embedding_model=str(MODEL)))
    assert ok is not None and ok.status == OK and str(MODEL) in ok.detail
    assert "run by ONNX Runtime" in ok.detail and "on CPUExecutionProvider (" in ok.detail
    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(tmp_path))
    later = check_vectors(Settings(vectors=True))
    assert later is not None and later.status == WARN
    assert "fetches it once" in later.detail and "490 MB" in later.detail
    wrong = check_vectors(Settings(vectors=True, embedding_model="nowhere"))
    assert wrong is not None and wrong.status == FAIL and "neither a folder" in wrong.detail


def test_the_runtime_s_states_equal_a_plain_numpy_transformer_in_any_batch(
    encoder: Encoder,
) -> None:
    """ONNX Runtime runs the graph written from the weights; a plain numpy transformer (float64,
    one sequence at a time) reads the same weights: every token's state agrees, whatever the
    sequences batched beside it and their padding."""
    from tests.semantic_oracle import NumpyEncoder

    oracle = NumpyEncoder(ensure())
    texts = [
        "The weather is lovely today.",
        TEXT,
        "Kurz.",
        "A lease agreement between the landlord and the tenant, signed in March " * 6,
    ]
    sequences = [
        encoder.wrap(encoder.tokenizer.encode(t, add_special_tokens=False).ids)[
            : encoder.max_tokens
        ]
        for t in texts
    ]
    assert len({len(s) for s in sequences}) == len(sequences)  # each padded differently
    batched = encoder.states_many(sequences)
    alone = [encoder.states(s) for s in sequences]
    for ids, together, single in zip(sequences, batched, alone, strict=True):
        expected = oracle.states(ids)
        assert together.shape == single.shape == expected.shape
        assert np.abs(together - expected).max() < 2e-4
        assert np.abs(together - single).max() < 2e-5


def test_the_runtime_is_named_and_can_be_held_to_the_cpu() -> None:
    from pylucene_mcp.semantic.encoder import providers

    held = Encoder(ensure(), threads=1, device="cpu")
    assert (held.provider, held.threads) == ("CPUExecutionProvider", 1)
    available = ["DmlExecutionProvider", "CUDAExecutionProvider", "CPUExecutionProvider"]
    assert providers("auto", available) == [
        "CUDAExecutionProvider",
        "DmlExecutionProvider",
        "CPUExecutionProvider",
    ]
    assert providers("cpu", available) == ["CPUExecutionProvider"]
    from pylucene_mcp.semantic.encoder import model_threads

    cores = os.cpu_count() or 2
    assert model_threads(0, "linux") == cores  # nicer than the searches: every core
    assert model_threads(0, "darwin") == model_threads(0, "win32") == max(1, cores // 2)
    assert model_threads(3, "win32") == 3
    assert providers("auto", ["CoreMLExecutionProvider", "CPUExecutionProvider"])[0] == (
        "CoreMLExecutionProvider"
    )


def test_the_default_models_loading_path_runs_a_stand_in_of_its_architecture(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """multilingual-e5-small cannot be fetched here: a tiny XLM-RoBERTa with random weights in
    its place (where the server keeps the fetched model) goes through the default's whole path:
    the known model's folder and prompts, positions after the padding id, mean pooling. Its
    states and vectors equal the plain numpy transformer's, prompt included."""
    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.service.embedding import Embedding
    from tests.semantic_oracle import NumpyEncoder
    from tests.standin_model import xlm_roberta_standin

    monkeypatch.setenv("PYLUCENE_MCP_HOME", str(tmp_path))
    folder = xlm_roberta_standin(models.models_dir() / models.DEFAULT)
    embedding = Embedding(Settings(vectors=True), None, None)  # type: ignore[arg-type]
    encoder = embedding.encoder()  # the default, found where it is fetched to
    assert encoder.folder == folder and encoder.position_offset == 2
    assert (encoder.query_prefix, encoder.passage_prefix) == ("query: ", "passage: ")
    assert not encoder.cls_pooling
    oracle = NumpyEncoder(folder)
    question = "der Vertrag, die Miete und der Hund"
    ids = encoder.tokenizer.encode("query: " + question, add_special_tokens=False).ids
    expected_states = oracle.states(encoder.wrap(ids))
    assert np.abs(encoder.states(encoder.wrap(ids)) - expected_states).max() < 1e-4
    expected = expected_states.mean(0)
    expected /= np.linalg.norm(expected)
    assert np.abs(encoder.embed(question) - expected).max() < 1e-4
    # a passage: its chunks' offsets are the text's own, the prompt before it skipped
    text = "the contract. " * 30 + "the rent and the dog."
    found = chunks.chunks(encoder, text)
    assert found and found[0].start == 0 and found[-1].end == len(text)
    assert text[found[-1].start : found[-1].end].endswith("the dog.")


def test_the_int8_model_keeps_its_vectors_near_the_float_transformers(tmp_path: Path) -> None:
    """``embedding_precision: int8``: the dense layers' weights become 8-bit integers, and each
    text's vector stays within a cosine of 0.98 of the plain float64 transformer's; vectors made
    in one precision are recorded apart from the other's, so a change makes them again."""
    import onnx

    from pylucene_mcp.basics.config import Settings
    from pylucene_mcp.service.embedding import Embedding
    from tests.semantic_oracle import NumpyEncoder

    quantized = Encoder(ensure(), threads=1, precision="int8")
    assert quantized.runtime.endswith(", int8")
    oracle = NumpyEncoder(ensure())
    texts = [
        "The weather is lovely today.",
        TEXT,
        "A lease agreement between the landlord and the tenant, signed in March " * 6,
        "Die Stadt hat viele Museen, Galerien und Theater.",
    ]
    for text in texts:
        ids = quantized.wrap(quantized.tokenizer.encode(text, add_special_tokens=False).ids)
        ids = ids[: quantized.max_tokens]
        mine, exact = quantized.states(ids).mean(0), oracle.states(ids).mean(0)
        cosine = float(mine @ exact / np.linalg.norm(mine) / np.linalg.norm(exact))
        assert 0.98 <= cosine < 0.99999, text  # near, and not the float model itself
    # the graph ONNX Runtime runs holds 8-bit weights where the float one holds none
    from pylucene_mcp.semantic import graph

    weights = np.zeros((4, 4), dtype=np.float32)
    layer = graph.Layer(
        np.ones((4, 12), np.float32), np.zeros(12, np.float32), weights, weights[0],
        (weights[0] + 1, weights[0]), np.ones((4, 8), np.float32), np.zeros(8, np.float32),
        np.ones((8, 4), np.float32), weights[0], (weights[0] + 1, weights[0]),
    )  # fmt: skip
    plain = graph.encoder_graph((weights[0] + 1, weights[0]), [layer], 2, 1e-12)
    kinds = [
        {t.data_type for t in onnx.load_from_string(m).graph.initializer}
        for m in (plain, graph.int8(plain))
    ]
    assert onnx.TensorProto.INT8 not in kinds[0] and onnx.TensorProto.INT8 in kinds[1]
    made_with = [
        Embedding(
            Settings(index_path=tmp_path / "i", embedding_model=str(ensure()), **p),
            lambda: None,
            lambda: True,
        ).model_name
        for p in ({}, {"embedding_precision": "INT8"}, {"embedding_precision": "fp32"})
    ]
    assert made_with[0] == made_with[2] != made_with[1]
