"""The heaviest turn the contract admits, and what it costs the engine.

Issue 12 measured a 238 KB turn (a 20,000-character answer, a 20,000-character reference
and 10 documents) at 16.4 s in the single engine thread, with 323 certificates: every other
conversation on the worker waited that long. `heavy_turn` rebuilds such a turn from the
workload generator's templates (fixed seed), so the benchmark can show that the per-turn
caps of `EngineConfig` keep it within the one-second budget.
"""

from __future__ import annotations

import random
import resource
import time
from typing import Any

from monitor.bench.engine import _ASSISTANT_TEMPLATES, _fill
from monitor.contracts import MAX_TEXT_CHARS, Document, TurnEvent


def _prose(chars: int, rng: random.Random) -> str:
    parts: list[str] = []
    size = 0
    while True:
        sentence = _fill(rng.choice(_ASSISTANT_TEMPLATES), rng)
        if size + len(sentence) + 1 > chars:
            return " ".join(parts)
        parts.append(sentence)
        size += len(sentence) + 1


def heavy_turn(cid: str = "heavy", documents: int = 10, seed: int = 12) -> list[TurnEvent]:
    """A user question, then an answer at the contract's limits with its evidence."""
    rng = random.Random(seed)
    question = TurnEvent(conversation_id=cid, turn_index=0, role="user",
                         text="Tell me everything about the hotels, museums and trains.")
    answer = TurnEvent(
        conversation_id=cid, turn_index=1, role="assistant",
        text=_prose(MAX_TEXT_CHARS, rng), reference=_prose(MAX_TEXT_CHARS, rng),
        documents=[Document(id=f"doc-{i}", text=_prose(MAX_TEXT_CHARS, rng))
                   for i in range(documents)],
    )
    return [question, answer]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def run_heavy_engine(config: Any = None, documents: int = 10, seed: int = 12
                     ) -> dict[str, Any]:
    """Wall time of the heavy answer alone (parse and embeddings included), warm models.

    Give each run its own `seed`: the embedder caches sentence vectors process-wide, so
    the same texts again would measure cache hits, not the work."""
    from monitor.runner.build import build_engine

    engine = build_engine(config)
    engine.warm_up()
    question, answer = heavy_turn(f"heavy-{seed}", documents=documents, seed=seed)
    states: dict[str, Any] = {}
    engine.process_batch([question], states)
    # an ordinary answer first, for scale: on a shared machine both grow with the load
    from monitor.bench.engine import generate_conversation

    ordinary = generate_conversation(f"ordinary-{seed}", 2, seed)
    engine.process_batch(ordinary[:1], states)
    started = time.perf_counter()
    engine.process_batch(ordinary[1:], states)
    ordinary_seconds = time.perf_counter() - started
    rss_before = _rss_mb()
    started, cpu_started = time.perf_counter(), time.process_time()
    [outcome] = engine.process_batch([answer], states)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return {
        "turn_bytes": len(answer.model_dump_json().encode()),
        "documents": documents,
        "seconds": round(seconds, 3),
        "cpu_seconds": round(cpu, 3),
        "ordinary_turn_seconds": round(ordinary_seconds, 4),
        "certificates": len(outcome.certificates),
        "alerts": len(outcome.alerts),
        "cut": dict(getattr(outcome, "cut", {})),
        "max_rss_mb_before": round(rss_before, 1),
        "max_rss_mb_after": round(_rss_mb(), 1),
    }
