"""`monitor.runner.build`: the models' options come from the shell, the parts can be
replaced."""

from __future__ import annotations

from pathlib import Path

from monitor.runner.build import ModelOptions, build_engine
from tests.conftest import FakeEmbedder, FakeExtractor


def test_model_options_from_the_environment() -> None:
    assert ModelOptions.from_env({}) == ModelOptions()
    assert ModelOptions.from_env({"SKG_EMBEDDER": "torch", "SKG_CACHE_DIR": "/c"}) == \
        ModelOptions("torch", Path("/c"))


def test_given_parts_are_used() -> None:
    embedder, extractor = FakeEmbedder(), FakeExtractor()
    engine = build_engine(embedder=embedder, extractor=extractor)
    assert engine.embedder is embedder and engine.extractor is extractor
