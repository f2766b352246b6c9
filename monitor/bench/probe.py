"""The probe suite: per-category precision, recall and F1 of the contradiction engine.

A detection is a turn that carries at least one certificate. It is a true positive when the
turn is labelled as contradicting and at least one of its certificates cites a labelled
earlier turn; every other detection is a false positive; a labelled turn without such a
certificate is a false negative.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

from monitor.bench.jsonl import read_jsonl
from monitor.bench.metrics import binary_metrics
from monitor.config import EngineConfig
from monitor.contracts import ContradictionCertificate, TurnScore


def load_labels(path: Path) -> dict[str, dict[str, Any]]:
    return {row["conversation_id"]: row for row in read_jsonl(path)}


def evaluate(records: list[Any], labels: dict[str, dict[str, Any]]) -> dict[str, Any]:
    cited: dict[tuple[str, int], set[int]] = defaultdict(set)
    drift_turns: dict[str, set[int]] = defaultdict(set)
    for r in records:
        if isinstance(r, ContradictionCertificate):
            cited[(r.conversation_id, r.turn_index)].add(r.conflicts_with)
        elif isinstance(r, TurnScore) and r.drift:
            drift_turns[r.conversation_id].add(r.turn_index)
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    mistakes: list[dict[str, Any]] = []
    for cid, label in labels.items():
        cat = label["category"]
        expected = {c["turn_index"]: set(c["conflicts_with"]) for c in label["contradictions"]}
        detected = {turn: prior for (c, turn), prior in cited.items() if c == cid}
        for turn, priors in expected.items():
            hit = turn in detected and bool(detected[turn] & priors)
            counts[cat][0 if hit else 2] += 1
            if not hit:
                mistakes.append({"conversation_id": cid, "turn": turn, "kind": "missed",
                                 "cited": sorted(detected.get(turn, []))})
        for turn, priors in detected.items():
            if turn not in expected or not (priors & expected[turn]):
                counts[cat][1] += 1
                mistakes.append({"conversation_id": cid, "turn": turn, "kind": "false_alarm",
                                 "cited": sorted(priors)})
    per_category = {cat: binary_metrics(*c) for cat, c in sorted(counts.items())}
    total = [sum(c[i] for c in counts.values()) for i in range(3)]
    drift_labelled = {cid: lab["drift_turn"] for cid, lab in labels.items()
                      if lab.get("drift_turn") is not None}
    drift_hits = sum(1 for cid, turn in drift_labelled.items() if turn in drift_turns[cid])
    drift_flags = sum(len(v) for v in drift_turns.values())
    return {
        "overall": binary_metrics(*total),
        "per_category": per_category,
        "drift": {"labelled": len(drift_labelled), "flagged_at_label": drift_hits,
                  "flags_total": drift_flags},
        "conversations": len(labels),
        "mistakes": mistakes,
    }


def run_probe_bench(turns: Path, labels: Path) -> dict[str, Any]:
    from monitor.runner.offline import parse_lines, score_events

    items = list(parse_lines(turns.read_text(encoding="utf-8").splitlines()))
    records = score_events(items, EngineConfig())
    return evaluate(records, load_labels(labels))
