"""`monitor.runner.build`: the models' options come from the shell, the parts can be
replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from monitor.runner.build import ModelOptions, build_engine, model_threads
from tests.conftest import FakeEmbedder, FakeExtractor


def test_model_options_from_the_environment() -> None:
    assert ModelOptions.from_env({}) == ModelOptions()
    assert ModelOptions.from_env({"SKG_EMBEDDER": "torch", "SKG_CACHE_DIR": "/c"}) == \
        ModelOptions("torch", Path("/c"))
    assert ModelOptions.from_env({"SKG_MODEL_THREADS": "1"}).threads == 1


def test_model_threads_are_bounded() -> None:
    assert model_threads(None) == model_threads("") == 2
    assert model_threads("3") == 3
    for bad in ("0", "65", "two"):
        with pytest.raises(ValueError):
            model_threads(bad)


def test_given_parts_are_used() -> None:
    embedder, extractor = FakeEmbedder(), FakeExtractor()
    engine = build_engine(embedder=embedder, extractor=extractor)
    assert engine.embedder is embedder and engine.extractor is extractor
