"""MT-Bench-101 as a check that drift and trend move for a reason.

MT-Bench-101 (Bai et al. 2024) holds 1,388 multi-turn dialogues in 13 tasks; its answers are
reference answers written to be good, so a conversation there should end STABLE (or
IMPROVING), and its topic-shift task (TS), where the *user* changes subject, should raise
no drift. A conversation {"task", "id", "history": [{"user", "bot"}]} becomes TurnEvents
with the user at turn 2k and the assistant at 2k+1.

Recall is measured on constructed assistant drift: in a copy of some conversations one
answer (never the first) is replaced by an answer from a conversation of another task, so
the assistant leaves what was asked; the swapped turn should be flagged.

Reported: share of conversations ending DEGRADING / IMPROVING / STABLE, drift flags per 100
assistant turns (all, TS, non-TS), drift recall on the swapped turns and false flags on the
other turns of the swapped conversations, and a sample of the DEGRADING conversations with
their per-turn signals and the signal that fell most.
"""

from __future__ import annotations

import random
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from monitor.bench.jsonl import read_jsonl
from monitor.config import EngineConfig
from monitor.contracts import SessionSummary, TurnEvent, TurnScore

SEED = 101
SIGNALS = ("relevance", "consistency", "logic")


def to_events(conversation_id: str, history: list[dict[str, str]]) -> list[TurnEvent]:
    events = []
    for k, pair in enumerate(history):
        events.append(TurnEvent(conversation_id=conversation_id, turn_index=2 * k,
                                role="user", text=pair["user"]))
        events.append(TurnEvent(conversation_id=conversation_id, turn_index=2 * k + 1,
                                role="assistant", text=pair["bot"]))
    return events


def swapped(dialogues: list[dict[str, Any]], count: int,
            rng: random.Random) -> list[tuple[str, list[dict[str, str]], int]]:
    """(id, history with one answer replaced, assistant turn_index of the swap)."""
    pool = [(d["task"], pair["bot"]) for d in dialogues for pair in d["history"]]
    candidates = [d for d in dialogues if len(d["history"]) >= 2]
    out = []
    for d in rng.sample(candidates, min(count, len(candidates))):
        k = rng.randrange(1, len(d["history"]))
        task, answer = rng.choice(pool)
        while task == d["task"]:
            task, answer = rng.choice(pool)
        history = [dict(p) for p in d["history"]]
        history[k]["bot"] = answer
        out.append((f"swap-{d['task']}-{d['id']}", history, 2 * k + 1))
    return out


def _per_100(flags: int, turns: int) -> float | None:
    return round(100.0 * flags / turns, 2) if turns else None


def _why(scores: list[TurnScore]) -> dict[str, Any]:
    """Per-turn signals and the signal whose first-to-last change is the most negative."""
    first, last = scores[0], scores[-1]
    changes = {s: round(getattr(last, s) - getattr(first, s), 3) for s in SIGNALS}
    return {
        "quality": [s.quality for s in scores],
        "relevance": [s.relevance for s in scores],
        "consistency": [s.consistency for s in scores],
        "logic": [s.logic for s in scores],
        "operations": [s.operation for s in scores],
        "topic_shifts": [s.topic_shift for s in scores],
        "drift": [s.drift for s in scores],
        "certificates": sum(len(s.certificates) for s in scores),
        "largest_fall": min(changes, key=lambda k: changes[k]),
        "change_first_to_last": changes,
        "slope": last.slope,
    }


def _subset(dialogues: list[dict[str, Any]], limit: int,
            rng: random.Random) -> list[dict[str, Any]]:
    """A fixed, task-stratified subset: every task keeps its share (all when no limit)."""
    if not limit:
        return dialogues
    return sorted(rng.sample(dialogues, min(limit, len(dialogues))),
                  key=lambda d: (d["task"], d["id"]))


def _by_conversation(records: list[Any]
                     ) -> tuple[dict[str, list[TurnScore]], dict[str, SessionSummary]]:
    """Each conversation's turn scores, in order, and its final session summary."""
    scores: dict[str, list[TurnScore]] = defaultdict(list)
    final: dict[str, SessionSummary] = {}
    for r in records:
        if isinstance(r, TurnScore):
            scores[r.conversation_id].append(r)
        elif isinstance(r, SessionSummary):
            final[r.conversation_id] = r
    return scores, final


def _drift_rate(scores: dict[str, list[TurnScore]], cids: list[str]) -> dict[str, Any]:
    turns = sum(len(scores[c]) for c in cids)
    flags = sum(s.drift for c in cids for s in scores[c])
    return {"assistant_turns": turns, "drift_flags": flags,
            "per_100_turns": _per_100(flags, turns)}


def _constructed_drift(scores: dict[str, list[TurnScore]],
                       swap_turn: dict[str, int]) -> dict[str, Any]:
    """Recall on the swapped answers, and false flags on the other turns of those copies."""
    hits = sum(any(s.drift and s.turn_index == swap_turn[c] for s in scores[c])
               for c in swap_turn)
    false_flags = sum(s.drift for c in swap_turn for s in scores[c]
                      if s.turn_index != swap_turn[c])
    untouched = sum(1 for c in swap_turn for s in scores[c] if s.turn_index != swap_turn[c])
    return {
        "swapped_answers": len(swap_turn), "flagged": hits,
        "recall": round(hits / max(1, len(swap_turn)), 4),
        "false_flags_on_other_turns": false_flags, "other_turns": untouched,
    }


def run_trend_bench(path: Path, limit: int = 0, swaps: int = 100, sample: int = 10,
                    config: EngineConfig | None = None) -> dict[str, Any]:
    from monitor.runner.offline import score_events

    started = time.perf_counter()
    rng = random.Random(SEED)  # drawn from in this order: subset, swaps, sample
    dialogues = _subset(read_jsonl(path), limit, rng)
    task_of = {f"{d['task']}-{d['id']}": d["task"] for d in dialogues}
    events = [e for d in dialogues for e in to_events(f"{d['task']}-{d['id']}", d["history"])]
    swap_rows = swapped(dialogues, swaps, rng)
    swap_turn = {cid: turn for cid, _, turn in swap_rows}
    events += [e for cid, history, _ in swap_rows for e in to_events(cid, history)]
    scores, final = _by_conversation(score_events([(0, e) for e in events],
                                                  config or EngineConfig()))

    real = list(task_of)
    trends = Counter(final[cid].trend for cid in real)
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    for cid in real:
        by_task[task_of[cid]][final[cid].trend] += 1
    ts = [c for c in real if task_of[c] == "TS"]
    other = [c for c in real if task_of[c] != "TS"]
    degrading = [c for c in real if final[c].trend == "DEGRADING"]
    turns_per = Counter(len(scores[c]) for c in real)
    return {
        "conversations": len(real),
        "assistant_turns": sum(len(scores[c]) for c in real),
        "turns_per_conversation": dict(sorted(turns_per.items())),
        "final_trend": dict(trends),
        "share_degrading": round(trends["DEGRADING"] / max(1, len(real)), 4),
        "final_trend_by_task": {t: dict(c) for t, c in sorted(by_task.items())},
        "drift": {"all": _drift_rate(scores, real), "topic_shift_task": _drift_rate(scores, ts),
                  "other_tasks": _drift_rate(scores, other)},
        "constructed_drift": _constructed_drift(scores, swap_turn),
        "degrading_sample": {c: {"task": task_of[c], **_why(scores[c])}
                             for c in sorted(rng.sample(degrading,
                                                        min(sample, len(degrading))))},
        "mean_quality": round(sum(final[c].mean_quality or 0.0 for c in real)
                              / max(1, len(real)), 4),
        "seconds": round(time.perf_counter() - started, 1),
    }
