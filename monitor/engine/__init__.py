"""SKG-Eval core: pure, deterministic, no I/O (no Kafka, no Prometheus)."""

from __future__ import annotations

from monitor.config import EngineConfig
from monitor.engine.pipeline import Engine, TurnOutcome, duplicates_of
from monitor.engine.state import ConversationState

__all__ = [
    "ConversationState", "Engine", "EngineConfig", "TurnOutcome", "build_engine",
    "duplicates_of",
]


def build_engine(config: EngineConfig | None = None) -> Engine:
    """The default engine: packaged MiniLM embeddings, the spaCy rule extractor and the
    shipped contradiction verifier."""
    from monitor.engine.embedder import default_embedder
    from monitor.engine.extract import default_extractor
    from monitor.engine.verifier import default_verifier

    return Engine(config or EngineConfig(), default_embedder(), default_extractor(),
                  default_verifier())
