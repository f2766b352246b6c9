"""The blind natural-style probe: precision and recall on conversations nobody tuned for.

`benchmarks/probe_blind/` was written by sessions that had not read the engine, in the
style of real assistants (long Markdown answers, hedges, user updates, role-play, code).
Each conversation holds one labelled contradiction or none; the split (`dev` / `test`) is a
hash of the conversation id, fixed before any result was seen. Develop on `dev`, report
`test`.

Scoring is per conversation, as an on-call engineer meets it: a true positive is a
labelled conversation with a certificate on the labelled turn that cites the labelled
earlier turn; every other certificate-bearing (turn, earlier turn) pair is a false alarm;
a labelled contradiction with no such certificate is a miss. The false alarms that are
pages (`false_alarm_pages`) are counted apart: they are the ones that wake someone.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from monitor.bench.jsonl import read_jsonl
from monitor.bench.metrics import binary_metrics
from monitor.config import EngineConfig
from monitor.contracts import ContradictionCertificate, TurnEvent


def evaluate(certificates: list[ContradictionCertificate],
             labels: list[dict[str, Any]]) -> dict[str, Any]:
    pairs: dict[str, set[tuple[int, int]]] = {}
    paged: set[tuple[str, int, int]] = set()  # what woke someone up
    for c in certificates:
        pairs.setdefault(c.conversation_id, set()).add((c.turn_index, c.conflicts_with))
        if c.severity == "page":
            paged.add((c.conversation_id, c.turn_index, c.conflicts_with))
    tp = fp = fn = tn = false_pages = 0
    per_kind: dict[str, Counter[str]] = {}
    mistakes = []
    for label in labels:
        cid = label["conversation_id"]
        found = pairs.get(cid, set())
        kind = per_kind.setdefault(label["kind"], Counter())
        expected = ((label["turn_index"], label["conflicts_with"])
                    if label["contradiction"] else None)
        hit = expected in found
        false_alarms = [p for p in sorted(found) if p != expected]
        if expected is not None:
            tp += hit
            fn += not hit
            kind["tp" if hit else "fn"] += 1
            if not hit:
                mistakes.append({"conversation_id": cid, "kind": "missed",
                                 "expected": expected, "found": sorted(found)})
        elif not found:
            tn += 1
        fp += len(false_alarms)
        kind["fp"] += len(false_alarms)
        false_pages += sum((cid, *p) in paged for p in false_alarms)
        if false_alarms:
            mistakes.append({"conversation_id": cid, "kind": "false_alarm",
                             "found": false_alarms})
    return {
        "conversations": len(labels),
        "with_contradiction": sum(1 for lab in labels if lab["contradiction"]),
        "overall": binary_metrics(tp, fp, fn, tn),
        "false_alarm_pages": false_pages,
        "per_kind": {k: dict(v) for k, v in sorted(per_kind.items())},
        "mistakes": mistakes,
    }


def run_blind_bench(turns: Path, labels: Path, split: str = "test",
                    config: EngineConfig | None = None) -> dict[str, Any]:
    from monitor.runner.offline import score_events

    chosen = [lab for lab in read_jsonl(labels) if split == "all" or lab["split"] == split]
    ids = {lab["conversation_id"] for lab in chosen}
    events = [TurnEvent.model_validate(row) for row in read_jsonl(turns)
              if row["conversation_id"] in ids]
    records = score_events([(0, e) for e in events], config or EngineConfig())
    certificates = [r for r in records if isinstance(r, ContradictionCertificate)]
    result = evaluate(certificates, chosen)
    result["split"] = split
    result["certificates"] = [
        {"conversation_id": c.conversation_id, "turn_index": c.turn_index,
         "conflicts_with": c.conflicts_with, "detector": c.detector,
         "severity": c.severity, "explanation": c.explanation}
        for c in certificates
    ]
    return result
