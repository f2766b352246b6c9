"""ProSeCCo self-contradiction pairs as three-turn conversations.

Following the corpus README: the first statement as an assistant turn, a neutral user turn
("Go on."), the second statement as the next assistant turn; a certificate on that last
turn citing the first is a detection. Run on the said locutions and on the
context-resolved propositions.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from monitor.bench.jsonl import read_jsonl
from monitor.bench.metrics import binary_metrics
from monitor.config import EngineConfig
from monitor.contracts import ContradictionCertificate, TurnEvent


def pair_events(pair_id: str, first: str, second: str) -> list[TurnEvent]:
    return [
        TurnEvent(conversation_id=pair_id, turn_index=0, role="assistant", text=first),
        TurnEvent(conversation_id=pair_id, turn_index=1, role="user", text="Go on."),
        TurnEvent(conversation_id=pair_id, turn_index=2, role="assistant", text=second),
    ]


def run_pairs_bench(path: Path, limit: int = 0) -> dict[str, Any]:
    from monitor.runner.offline import score_events

    rows = read_jsonl(path)
    if limit:
        rows = rows[:limit]
    result: dict[str, Any] = {"pairs": len(rows)}
    for variant, (a, b) in {"locutions": ("locution_1", "locution_2"),
                            "propositions": ("proposition_1", "proposition_2")}.items():
        items: list[tuple[int, Any]] = []
        for row in rows:
            if not row[a].strip() or not row[b].strip():
                continue
            items.extend((0, e) for e in pair_events(f"{variant}-{row['id']}", row[a], row[b]))
        records = score_events(items, EngineConfig())
        flagged = {r.conversation_id for r in records
                   if isinstance(r, ContradictionCertificate) and r.turn_index == 2
                   and r.conflicts_with == 0}
        tp = fp = fn = tn = 0
        detectors: dict[str, int] = {}
        for r in records:
            if isinstance(r, ContradictionCertificate):
                detectors[r.detector] = detectors.get(r.detector, 0) + 1
        for row in rows:
            positive = row["label"] == "self-contradiction"
            hit = f"{variant}-{row['id']}" in flagged
            tp += positive and hit
            fp += (not positive) and hit
            fn += positive and not hit
            tn += (not positive) and not hit
        result[variant] = {**binary_metrics(tp, fp, fn, tn), "detectors": detectors}
    return result
