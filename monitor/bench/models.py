"""What the benchmarks time: the shipped models, loaded once, and fresh verifiers.

Shared by `monitor.bench.engine` and `monitor.bench.growth` (which `engine` runs), so
neither imports the other for them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from monitor.engine.protocols import Embedder, Verifier

__all__ = ["Models", "default_models", "fresh_verifier"]


@dataclass(frozen=True)
class Models:
    """What every timed run is built from. The embedding model is uncached (each run wraps
    it in a fresh text cache), and verifiers come from a factory: a verifier caches its
    judgements, so each run and each floor gets a fresh one."""

    embedder: Embedder
    extractor: Any
    new_verifier: Callable[[], Verifier]


def default_models() -> Models:
    """The shipped models: MiniLM of the environment's backend, spaCy, the ONNX verifier."""
    from monitor.engine.embedder import make_embedder
    from monitor.engine.extract import default_extractor
    from monitor.engine.verifier import OnnxVerifier
    from monitor.runner.build import ModelOptions

    options = ModelOptions.from_env()
    return Models(make_embedder(options.embedder, cache_dir=options.cache_dir),
                  default_extractor(), OnnxVerifier)


def fresh_verifier(models: Models) -> Verifier:
    """A new verifier from `models`, its first call's costs already paid."""
    verifier = models.new_verifier()
    verifier.judge([("A warm-up premise.", "A warm-up hypothesis.")])  # first-call costs
    return verifier
