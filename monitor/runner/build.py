"""One place that assembles an engine: config, models and the quality scorers."""

from __future__ import annotations

from monitor.config import EngineConfig
from monitor.engine.extract import Extractor
from monitor.engine.pipeline import Engine
from monitor.engine.protocols import Embedder
from monitor.engine.verifier import Verifier
from monitor.quality.scorers import QualityScorers


def build_engine(
    config: EngineConfig | None = None,
    *,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
    verifier: Verifier | None = None,
) -> Engine:
    """The default engine: packaged MiniLM embeddings, the spaCy rule extractor, the shipped
    contradiction verifier, MFSS and ConflictScore; pass `embedder`, `extractor` or
    `verifier` to use others (a fake one in tests)."""
    if embedder is None:
        from monitor.engine.embedder import default_embedder

        embedder = default_embedder()
    if extractor is None:
        from monitor.engine.extract import default_extractor

        extractor = default_extractor()
    if verifier is None:
        from monitor.engine.verifier import default_verifier

        verifier = default_verifier()
    return Engine(config or EngineConfig(), embedder, extractor, QualityScorers(verifier),
                  verifier)
