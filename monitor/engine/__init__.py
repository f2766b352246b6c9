"""SKG-Eval core: pure, deterministic, no I/O (no Kafka, no Prometheus).

Engine modules import each other by module (`from monitor.engine.graph import Fact`), so
importing one of them loads only what it needs. The names below are resolved on first use,
for callers outside the engine; an engine with its models and scorers is built above the
engine, by `monitor.runner.build.build_engine`.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_LAZY = {
    "ConversationState": "monitor.engine.state",
    "Engine": "monitor.engine.pipeline",
    "EngineConfig": "monitor.config",
    "TurnOutcome": "monitor.engine.pipeline",
    "duplicates_of": "monitor.engine.order",
}

__all__ = sorted(_LAZY)


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(module), name)
