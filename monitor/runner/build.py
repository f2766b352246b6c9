"""One place that assembles an engine: config, models and the quality scorers.

The embedder's backend and cache directory are parameters of the engine's models, never
read inside `monitor.engine`: `ModelOptions.from_env` reads SKG_EMBEDDER and SKG_CACHE_DIR
here, in the shell, for callers (benchmarks, tests) that do not pass them.
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import os
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from monitor.config import EngineConfig
from monitor.engine.embedder import DEFAULT_BACKEND
from monitor.engine.extract import Extractor
from monitor.engine.pipeline import Engine
from monitor.engine.protocols import Embedder
from monitor.engine.verifier import Verifier
from monitor.quality.scorers import QualityScorers


@dataclass(frozen=True)
class ModelOptions:
    """Which embedder backend runs ("onnx" or "torch"), where its built model file is
    kept (None: ~/.cache/skg-monitor), and how many model calls run at once (one core
    each; one worker per core wants 1). Processes that must agree use the same backend;
    the thread count never changes a result."""

    embedder: str = DEFAULT_BACKEND
    cache_dir: Path | None = None
    threads: int = 2

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> ModelOptions:
        env = os.environ if environ is None else environ
        cache = env.get("SKG_CACHE_DIR")
        return cls(env.get("SKG_EMBEDDER") or DEFAULT_BACKEND, Path(cache) if cache else None,
                   model_threads(env.get("SKG_MODEL_THREADS")))


def model_threads(value: str | int | None) -> int:
    """A model thread count from a setting (unset: 2); ValueError unless 1 to 64."""
    if value is None or value == "":
        return 2
    threads = int(value)
    if not 1 <= threads <= 64:
        raise ValueError(f"model threads must be 1 to 64, not {threads}")
    return threads


def build_embedder(models: ModelOptions | None = None) -> Embedder:
    """The process-wide cached MiniLM embedder of `models` (default: from the environment)."""
    from monitor.engine.embedder import default_embedder

    models = models or ModelOptions.from_env()
    return default_embedder(models.embedder, models.cache_dir, models.threads)


def build_engine(
    config: EngineConfig | None = None,
    *,
    models: ModelOptions | None = None,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
    verifier: Verifier | None = None,
) -> Engine:
    """The default engine: packaged MiniLM embeddings (`models`), the spaCy rule extractor,
    the shipped contradiction verifier, MFSS and ConflictScore; pass `embedder`,
    `extractor` or `verifier` to use others (a fake one in tests)."""
    models = models or ModelOptions.from_env()
    if extractor is None:
        from monitor.engine.extract import import_spacy

        # first, alone: while spaCy is imported `import torch` is made to fail, and the
        # thread below may import torch (the torch embedder, or a first ONNX export)
        import_spacy()
    # The ONNX sessions are built on a second thread while spaCy's pipeline loads on this
    # one: onnxruntime builds a session outside the GIL, so on 2 cores `score` on one
    # exchange starts about 0.1 s sooner (`bench startup`). What is built is the same.
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="skg-models") as pool:
        onnx = pool.submit(_onnx_models, models, embedder, verifier)
        if extractor is None:
            from monitor.engine.extract import default_extractor

            extractor = default_extractor()
        embedder, verifier = onnx.result()
    return Engine(config or EngineConfig(), embedder, extractor, QualityScorers(verifier),
                  verifier)


def _onnx_models(models: ModelOptions, embedder: Embedder | None,
                 verifier: Verifier | None) -> tuple[Embedder, Verifier]:
    """The embedder and the verifier, each the one given or the default of `models`."""
    if embedder is None:
        embedder = build_embedder(models)
    if verifier is None:
        from monitor.engine.verifier import default_verifier

        verifier = default_verifier(models.threads, models.cache_dir)
    return embedder, verifier


def settle_after_warm_up() -> None:
    """What a long-lived process does once its engine is loaded and warmed up.

    * The models' objects live as long as the process: frozen out of the collector's sight,
      its full collections stop walking them in the middle of a batch (bench stream, two
      runs each: half-rate p99 762 and 897 ms before, 500 and 690 ms after).
    * glibc keeps freed memory in the process for reuse; loading spaCy and the two ONNX
      models frees tens of megabytes the worker never needs again, handed back here
      (`python -m monitor.bench.memory`: `settled_mb` beside `warmed_up_mb`). Nothing
      happens where the C library has no `malloc_trim`.
    """
    gc.collect()
    gc.freeze()
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).malloc_trim(0)
