"""The MiniLM embedders: per-text determinism whatever the batch, normalised rows, semantic
sanity, the text cache, and the ONNX build (offline, cached, keyed, reused)."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from monitor.engine import embedder as E

TEXT = "Marie Curie was born in Warsaw in 1867."
MATES = [
    "The museum is closed on Mondays.",
    "Water boils at 100 degrees Celsius at sea level.",
    "Our quarterly revenue increased by 12 percent last year, according to the report.",
    "ok",
    "The Kafka consumer lags behind the producer by three seconds and the team wants to "
    "know whether this will keep happening over the next several quarters.",
    "Shakespeare wrote Hamlet around 1600.",
    "Mount Everest is 8,849 metres tall.",
]


@pytest.fixture(scope="module")
def onnx_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A private cache dir; the ONNX file is built there once, with the network cut off."""
    cache = tmp_path_factory.mktemp("skg-cache")

    def no_network(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"network access attempted: {args!r}")

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HF_HUB_OFFLINE", "1")
        mp.setenv("TRANSFORMERS_OFFLINE", "1")
        mp.setattr(socket.socket, "connect", no_network)
        mp.setattr(socket, "create_connection", no_network)
        E.OnnxMiniLMEmbedder(threads=2, cache_dir=cache)
        yield cache


@pytest.fixture(scope="module")
def onnx_embedder(onnx_cache: Path) -> E.OnnxMiniLMEmbedder:
    return E.OnnxMiniLMEmbedder(threads=2, cache_dir=onnx_cache)


@pytest.fixture(scope="module")
def torch_embedder() -> E.MiniLMEmbedder:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    return E.MiniLMEmbedder(threads=2)


@pytest.fixture(params=["onnx", "torch"])
def any_embedder(request: pytest.FixtureRequest) -> Any:
    return request.getfixturevalue(f"{request.param}_embedder")


def test_vector_independent_of_batch_mates_and_position(any_embedder: Any) -> None:
    alone = any_embedder.embed([TEXT])[0]
    for pos, mates in [(0, MATES[:3]), (3, MATES), (len(MATES), MATES[::-1]),
                       (2, MATES[4:] + MATES[:2])]:
        batch = [*mates[:pos], TEXT, *mates[pos:]]
        assert np.array_equal(any_embedder.embed(batch)[pos], alone), (pos, mates)
    # more texts than one fixed-shape batch holds, same bucket as TEXT
    many = [f"Marie Curie was born in city number {i}." for i in range(20)] + [TEXT]
    assert np.array_equal(any_embedder.embed(many)[-1], alone)


def test_onnx_texts_of_one_length_share_a_call_and_keep_their_own_vectors(
        onnx_embedder: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [f"The {colour} car is parked outside." for colour in
             ("red", "blue", "green", "black", "white", "grey")]
    assert len({len(ids) for ids in onnx_embedder._tokenizer.ids(texts)}) == 1
    alone = np.concatenate([onnx_embedder.embed([text]) for text in texts])
    calls: list[int] = []
    session = onnx_embedder._rows_session

    class Counted:
        def run(self, names: Any, feed: dict[str, np.ndarray]) -> Any:
            calls.append(len(feed["input_ids"]))
            return session.run(names, feed)

    monkeypatch.setattr(onnx_embedder, "_rows_session", Counted())
    together = onnx_embedder.embed([MATES[3], MATES[4], *texts])  # two other lengths
    assert calls == [len(texts)]  # one call for the six, none for the two others
    assert np.array_equal(together[2:], alone)


def test_onnx_same_vectors_with_any_thread_count(onnx_cache: Path, onnx_embedder: Any) -> None:
    single = E.OnnxMiniLMEmbedder(threads=1, cache_dir=onnx_cache)
    texts = [TEXT, *MATES]
    assert np.array_equal(single.embed(texts), onnx_embedder.embed(texts))


def test_rows_are_l2_normalised(any_embedder: Any) -> None:
    vectors = any_embedder.embed([TEXT, *MATES, ""])
    assert vectors.dtype == np.float32
    assert vectors.shape == (len(MATES) + 2, any_embedder.dim)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert any_embedder.embed([]).shape == (0, any_embedder.dim)


def test_paraphrase_beats_unrelated(any_embedder: Any) -> None:
    a, para, other = any_embedder.embed([
        "The museum is closed on Mondays.",
        "On Mondays the museum does not open.",
        "Penguins live in Antarctica.",
    ])
    assert E.cosine(a, para) > E.cosine(a, other) + 0.3


def test_onnx_agrees_with_torch(onnx_embedder: Any, torch_embedder: Any) -> None:
    texts = [TEXT, *MATES]
    agreement = (onnx_embedder.embed(texts) * torch_embedder.embed(texts)).sum(axis=1)
    assert agreement.mean() > 0.98
    assert agreement.min() > 0.96


def test_cached_wrapper_returns_identical_vectors(onnx_embedder: Any) -> None:
    cached = E.CachedEmbedder(onnx_embedder)
    first = cached.embed([TEXT, MATES[0], TEXT])
    assert cached.misses == 2
    again = cached.embed([MATES[0], TEXT])
    assert cached.hits == 2
    assert np.array_equal(first[0], first[2])
    assert np.array_equal(again, first[[1, 0]])
    assert np.array_equal(cached.one(TEXT), onnx_embedder.embed([TEXT])[0])


def test_onnx_file_reused_on_second_construction(onnx_cache: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    [built] = onnx_cache.glob("*.int8.onnx")  # beside it: the exact rewrite, engine.int8
    before = built.stat()

    def must_not_build(*args: Any) -> None:
        raise AssertionError("ONNX model rebuilt although a current one is cached")

    monkeypatch.setattr(E, "_build_onnx", must_not_build)
    again = E.OnnxMiniLMEmbedder(threads=1, cache_dir=onnx_cache)
    assert again.model_file == built
    assert built.stat().st_mtime_ns == before.st_mtime_ns
    assert not [p for p in onnx_cache.iterdir() if p.name.startswith(".build-")]


def test_cache_key_changes_with_recipe(monkeypatch: pytest.MonkeyPatch) -> None:
    path = E._model_path()
    key = E._onnx_cache_key(path)
    monkeypatch.setattr(E, "_ONNX_RECIPE", E._ONNX_RECIPE + "-changed")
    assert E._onnx_cache_key(path) != key


def test_cache_key_versions_are_the_modules_versions() -> None:
    """The cache key reads versions from package metadata (no torch import at start); they
    must be the strings the modules report, or every cached ONNX file would be rebuilt."""
    import onnx
    import onnxruntime
    import torch

    modules = {"torch": torch, "onnxruntime": onnxruntime, "onnx": onnx}
    for name in E._SHAPING_PACKAGES:
        assert E.version(name) == modules[name].__version__, name


EDGE_TEXTS = ["", " ", "\n\n", "ok", "naïve CAFÉ 東京 🙂 \u200b tab\there", "[CLS] [SEP] [PAD]",
              "a" * 3000, "word " * 600, "It's 8:15 (not 9:40) — 1,000 GBP/night?!"]


def test_tokenizer_matches_transformers() -> None:
    """`WordPieceTokenizer` (the `tokenizers` library, cut and padded in numpy) gives the ids,
    masks and type ids transformers' AutoTokenizer gives with padding="max_length",
    truncation=True, at every length the embedders use (texts past 256 tokens included)."""
    from transformers import AutoTokenizer

    path = E._model_path()
    reference = AutoTokenizer.from_pretrained(path, local_files_only=True)
    ours = E.WordPieceTokenizer(path)
    texts = [TEXT, *MATES, *EDGE_TEXTS]
    ids = ours.ids(texts)
    assert [len(x) for x in ids] == [len(x) for x in reference(texts)["input_ids"]]
    assert max(len(x) for x in ids) > 512
    for length in (*E._LENGTH_BUCKETS, 3, 11):
        want = reference(texts, padding="max_length", truncation=True, max_length=length,
                         return_tensors="np")
        got = ours.pad(ids, length)
        for name in E._INPUT_NAMES:
            assert np.array_equal(got[name], want[name].astype(np.int64)), (length, name)


def test_backend_choice() -> None:
    with pytest.raises(ValueError, match="'onnx' or 'torch'"):
        E.make_embedder("tensorflow")


def test_backend_and_cache_dir_come_from_the_shell() -> None:
    from monitor.runner.build import ModelOptions

    assert ModelOptions.from_env({}) == ModelOptions("onnx", None)
    assert ModelOptions.from_env({"SKG_EMBEDDER": "torch", "SKG_CACHE_DIR": "/x"}) == \
        ModelOptions("torch", Path("/x"))
