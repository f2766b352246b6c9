"""Does a turn cost more late in a conversation? The same real turns, timed early and late.

`engine.latency_growth` times one generated conversation around turn 10 and turn 200. Its
windows hold different turns, and the generator's template sentences ("The tour has 49
rooms and a small garden") fill the candidate window with near-duplicates as the
conversation grows, so that ratio mixes what the state costs with what the text is. Here
the text is held fixed: a probe of consecutive MT-Bench-101 turns (GPT-4's answers, real
text) is scored once as turns 0-19 of a fresh conversation and once as turns 190-209,
after 190 turns of other MT-Bench-101 dialogues. Each run has a fresh engine, embedder
cache and verifier, so the late run reuses nothing the early one computed. Early and late
runs alternate `repeats` times; each assistant turn's time is its median over the repeats
(a noisy host slows single runs, not all three), and a probe's ratio is the sum of those
times late over early: the median of ten turns alone moved by 0.86-1.42 from probe to
probe on this machine while the summed times moved by 1-4%. Several disjoint probes are
reported, with the median of their ratios.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Sequence
from typing import Any

from monitor.bench.models import Models, fresh_verifier
from monitor.contracts import Role, TurnEvent

PROBE_TURNS = 20
"""Turns in a probe (its assistant turns are timed): the issue's window around turn 10."""


def dialogue_turns(rows: Sequence[dict[str, Any]]) -> list[list[tuple[Role, str]]]:
    """Each MT-Bench-101 dialogue as its (role, text) turns, empty texts left out."""
    dialogues = []
    for row in rows:
        turns: list[tuple[Role, str]] = []
        for pair in row["history"]:
            for role, key in (("user", "user"), ("assistant", "bot")):
                text = str(pair.get(key) or "").strip()
                if text:
                    turns.append((role, text))  # type: ignore[arg-type]
        if turns:
            dialogues.append(turns)
    return dialogues


def probes_and_prefix(dialogues: Sequence[list[tuple[Role, str]]], probes: int,
                      late_at: int) -> tuple[list[list[tuple[Role, str]]],
                                             list[tuple[Role, str]]]:
    """`probes` disjoint runs of PROBE_TURNS consecutive turns (whole dialogues, from the
    start of the list, cut at PROBE_TURNS), and `late_at` turns of the dialogues after
    them as the prefix that puts a probe late. Raises when there are too few turns."""
    runs: list[list[tuple[Role, str]]] = []
    current: list[tuple[Role, str]] = []
    used = 0
    for used, turns in enumerate(dialogues, start=1):  # noqa: B007  # used after the loop
        current.extend(turns)
        if len(current) >= PROBE_TURNS:
            runs.append(current[:PROBE_TURNS])
            current = []
            if len(runs) == probes:
                break
    prefix = [turn for turns in dialogues[used:] for turn in turns][:late_at]
    if len(runs) < probes or len(prefix) < late_at:
        raise ValueError(f"need {probes} probes of {PROBE_TURNS} turns and {late_at} more "
                         f"turns; the dialogues give {len(runs)} probes and {len(prefix)}")
    return runs, prefix


def _events(turns: Sequence[tuple[Role, str]], conversation_id: str) -> list[TurnEvent]:
    return [TurnEvent(conversation_id=conversation_id, turn_index=i, role=role, text=text)
            for i, (role, text) in enumerate(turns)]


def _probe_times(models: Models, turns: list[tuple[Role, str]], probe_from: int
                 ) -> list[float]:
    """Seconds of each of the probe's assistant turns (those from `probe_from` on), one
    event at a time through a fresh engine."""
    from monitor.engine.embedder import CachedEmbedder
    from monitor.runner.build import build_engine

    engine = build_engine(embedder=CachedEmbedder(models.embedder),
                          extractor=models.extractor, verifier=fresh_verifier(models))
    state = engine.new_state("growth-real")
    timed: list[float] = []
    for event in _events(turns, "growth-real"):
        started = time.perf_counter()
        engine.process(state, event)
        if event.turn_index >= probe_from and event.role == "assistant":
            timed.append(time.perf_counter() - started)
    return timed


def _per_turn_medians(runs: list[list[float]]) -> list[float]:
    return [statistics.median(times) for times in zip(*runs, strict=True)]


def real_latency_growth(models: Models, rows: Sequence[dict[str, Any]], probes: int = 5,
                        late_at: int = 190, repeats: int = 3) -> dict[str, Any]:
    """Each probe early (turns 0-19) and late (turns `late_at` on), alternately `repeats`
    times; ratios late / early of the probe's summed per-turn medians."""
    runs, prefix = probes_and_prefix(dialogue_turns(rows), probes, late_at)
    _probe_times(models, runs[0], 0)  # first-use costs (unit tables, quantiles) out of the way
    per_probe = []
    for run in runs:
        early: list[list[float]] = []
        late: list[list[float]] = []
        for _ in range(repeats):
            early.append(_probe_times(models, run, 0))
            late.append(_probe_times(models, prefix + run, late_at))
        early_ms = 1000.0 * sum(_per_turn_medians(early))
        late_ms = 1000.0 * sum(_per_turn_medians(late))
        per_probe.append({"assistant_turns": len(early[0]), "early_ms": round(early_ms, 2),
                          "late_ms": round(late_ms, 2), "ratio": round(late_ms / early_ms, 3)})
    return {
        "probes": per_probe,
        "probe_turns": PROBE_TURNS,
        "late_from_turn": late_at,
        "repeats": repeats,
        "ratio_median": round(statistics.median(p["ratio"] for p in per_probe), 3),
        "target": "<= 1.2 (issue 20), <= 1.3 (issue 18)",
    }
