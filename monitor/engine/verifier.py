"""The contradiction verifier: a MiniLM cross-encoder trained here, shipped as int8 ONNX.

`training/train_verifier.py` fine-tunes the packaged all-MiniLM-L6-v2 on licensed NLI pairs
and writes `monitor/data/verifier/` (the model, its tokenizer and its card). Here it only
runs: onnxruntime and the `tokenizers` library, no torch, no transformers, no download.

Why one pair per call: the int8 model quantises its activations with one scale per
tensor, so a pair's probabilities would depend on its batch-mates (and on padding). Run
alone at its own length, a pair gets the same probabilities in any batch; throughput comes
from running calls on a small thread pool instead, and from a bounded cache.
"""

from __future__ import annotations

import hashlib
import json
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path
from threading import Lock
from typing import Any

import numpy as np

from monitor.engine import int8, sessions
from monitor.engine.artefacts import default_cache_dir
from monitor.engine.protocols import Judgement, PairVerdict, Verifier, verdicts

__all__ = ["Judgement", "OnnxVerifier", "PairVerdict", "Verifier", "default_verifier",
           "model_card", "verdicts"]

MODEL_DIR = Path(__file__).resolve().parent.parent / "data" / "verifier"
MODEL_FILE = "verifier.int8.onnx"
_MAX_LENGTH = 128
_FEEDS = ("input_ids", "attention_mask", "token_type_ids")


@cache
def model_card(model_dir: Path = MODEL_DIR) -> dict[str, Any]:
    """The shipped model's card (labels order, hash, dev figures, settings)."""
    card: dict[str, Any] = json.loads((model_dir / "model_card.json").read_text())
    return card


class OnnxVerifier:
    """The shipped int8 cross-encoder, one pair per onnxruntime call, cached.

    The model file's sha256 is checked against its card at load time: the engine version
    carries the hash, so a file that differs from its card must not run under its name.
    """

    def __init__(
        self, model_dir: Path = MODEL_DIR, threads: int = 2, cache_size: int = 20_000,
        cache_dir: Path | None = None,
    ) -> None:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        card = model_card(model_dir)
        blob = (model_dir / MODEL_FILE).read_bytes()
        digest = hashlib.sha256(blob).hexdigest()
        if digest != card["sha256"]:
            raise ValueError(
                f"{model_dir / MODEL_FILE}: sha256 {digest[:12]} does not match its model "
                f"card ({card['sha256'][:12]}); reinstall the package"
            )
        self._labels: list[str] = list(card["labels"])
        self._id = str(card["model_id"])
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        cache = cache_dir or default_cache_dir()
        keyed = f"verifier.{digest[:16]}"
        exact = int8.file_for_this_cpu(  # the same integers on every CPU (engine.int8)
            model_dir / MODEL_FILE, keyed, cache)
        if exact != model_dir / MODEL_FILE:
            keyed = exact.stem  # the rewrite's own name: keyed by the hash and its recipe
        self._session = sessions.optimised_session(exact, keyed, options, cache)
        self._tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(_MAX_LENGTH, strategy="longest_first")
        self._pool = ThreadPoolExecutor(threads, "verifier") if threads > 1 else None
        self._cache: OrderedDict[tuple[str, str], Judgement] = OrderedDict()
        self._cache_size = cache_size
        self._lock = Lock()

    @property
    def model_id(self) -> str:
        return self._id

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        out: list[Judgement | None] = []
        todo: dict[tuple[str, str], list[int]] = {}
        with self._lock:
            for i, pair in enumerate(pairs):
                hit = self._cache.get(pair)
                if hit is not None:
                    self._cache.move_to_end(pair)
                out.append(hit)
                if hit is None:
                    todo.setdefault(pair, []).append(i)
        if todo:
            fresh = list(todo)
            encodings = self._tokenizer.encode_batch(fresh)
            feeds = [_feed(e.ids, e.type_ids) for e in encodings]
            if self._pool is not None and len(feeds) > 1:
                judged = list(self._pool.map(self._run, feeds))
            else:
                judged = [self._run(f) for f in feeds]
            with self._lock:
                for pair, judgement in zip(fresh, judged, strict=True):
                    for i in todo[pair]:
                        out[i] = judgement
                    self._cache[pair] = judgement
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        return [j for j in out if j is not None]

    def _run(self, feed: dict[str, np.ndarray]) -> Judgement:
        (logits,) = self._session.run(["logits"], feed)
        row = logits[0].astype(np.float64)
        z = np.exp(row - row.max())
        probs = z / z.sum()
        named = {label: round(float(p), 6) for label, p in zip(self._labels, probs, strict=True)}
        return Judgement(named["entailment"], named["neutral"], named["contradiction"])


def _feed(ids: list[int], type_ids: list[int]) -> dict[str, np.ndarray]:
    n = len(ids)
    return {
        "input_ids": np.asarray([ids], dtype=np.int64),
        "attention_mask": np.ones((1, n), dtype=np.int64),
        "token_type_ids": np.asarray([type_ids], dtype=np.int64),
    }


def default_verifier(threads: int = 2, cache_dir: Path | None = None) -> OnnxVerifier:
    """One verifier per process, thread count and cache directory (the model and its cache
    are shared by every caller); `threads` pair calls run at once, each on one core;
    `cache_dir` holds its exact-integer rewrite on a CPU without VNNI (engine.int8)."""
    return _verifier_for(threads, cache_dir)


@cache
def _verifier_for(threads: int, cache_dir: Path | None) -> OnnxVerifier:
    # keyed by the values: `default_verifier()` and `default_verifier(2)` are one model
    # (a cache on `default_verifier` itself keys them apart and loaded it twice)
    return OnnxVerifier(threads=threads, cache_dir=cache_dir)
