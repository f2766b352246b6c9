"""Where the blind probe's labelled contradictions are lost, stage by stage.

`bench blind` counts the labelled contradictions the engine finds; `bench evidence` says how
well the verifier alone separates their sentences from near pairs. Neither says where the
others go, and so which stage a change should go to. Each labelled contradiction that is
not found is lost at the first of these stages it fails:

1. **not asserted**: one of its sentences never joins the engine's memory of assertions
   (a table row, a question, a hedge, a user's sentence not about themselves);
2. **vetoed**: both are remembered, but the engine never judges the pair, even with the
   candidate bounds lifted: a structural veto rules it out (different headings, subjects
   or names, a user update between them);
3. **to the candidate bounds**: judged with the bounds lifted (window, top-k, similarity
   floor, pairs per turn), not with the configured ones;
4. **at the verifier**: judged, with a P(contradiction) (mean of both orders, as the
   engine takes it) under the certificate threshold;
5. **after the verifier**: judged and over the threshold, yet no certificate (a
   restatement guard, the findings-per-answer cap).

A rule can find a contradiction whose pair the verifier never judged; it counts as found.
The labelled pair is recognised by the label's evidence spans (`holds_pair`), so a span
that crosses two sentences reads as never judged. Choose on `dev`; report `test`.
"""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.bench.jsonl import read_jsonl
from monitor.bench.recording import RecordingVerifier, holds_pair, overlaps
from monitor.config import EngineConfig
from monitor.contracts import ContradictionCertificate, TurnEvent
from monitor.engine.meaning import in_assistant_voice
from monitor.engine.protocols import Verifier, verdicts
from monitor.engine.state import ConversationState

STAGES = ("found", "not_asserted", "vetoed", "candidate_bounds", "verifier", "after_verifier")
_LIFTED = {"verifier_window": 100_000, "verifier_top_k": 100_000,
           "verifier_similarity": -1.0, "verifier_max_pairs": 100_000}


def unbounded(config: EngineConfig) -> EngineConfig:
    """The same engine with every candidate bound lifted (the vetoes stay)."""
    return config.model_copy(update=_LIFTED)


def stage(found: bool, asserted: bool, reached_unbounded: bool, reached: bool,
          contradiction: float | None, threshold: float) -> str:
    """The first stage a labelled contradiction fails, or `found`."""
    if found:
        return "found"
    if not asserted:
        return "not_asserted"
    if not reached_unbounded:
        return "vetoed"
    if not reached:
        return "candidate_bounds"
    if contradiction is None or contradiction < threshold:
        return "verifier"
    return "after_verifier"


@dataclass
class _Run:
    """What one engine run over the conversations left behind, per conversation."""

    judged: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """The pairs sent to the verifier, first occurrence first."""
    cited: dict[str, set[tuple[int, int]]] = field(default_factory=lambda: defaultdict(set))
    """(turn, earlier turn) of each certificate."""
    remembered: dict[str, list[tuple[int, str]]] = field(default_factory=dict)
    """(turn, sentence) of each assertion in the engine's memory at the end."""


def _run(config: EngineConfig, verifier: Verifier, conversations: dict[str, list[TurnEvent]]
         ) -> _Run:
    from monitor.runner.build import build_engine

    recorder = RecordingVerifier(verifier)
    engine = build_engine(config, verifier=recorder)
    out = _Run()
    for cid, events in conversations.items():
        recorder.seen.clear()
        states: dict[str, ConversationState] = {}
        for outcome in engine.process_batch(events, states):
            out.cited[cid] |= {(r.turn_index, r.conflicts_with) for r in outcome.records()
                               if isinstance(r, ContradictionCertificate)}
        out.judged[cid] = list(dict.fromkeys(recorder.seen))
        out.remembered[cid] = [(a.turn, a.sentence) for a in states[cid].assertions]
    return out


def run_funnel_bench(turns_file: Path, labels_file: Path, split: str = "dev",
                     verifier: Verifier | None = None,
                     config: EngineConfig | None = None) -> dict[str, Any]:
    from monitor.engine.verifier import default_verifier

    verifier = verifier or default_verifier()
    config = config or EngineConfig()
    labels = [lab for lab in read_jsonl(labels_file) if lab["contradiction"]
              and (split == "all" or lab["split"] == split)]
    wanted = {lab["conversation_id"] for lab in labels}
    conversations: dict[str, list[TurnEvent]] = defaultdict(list)
    roles: dict[tuple[str, int], str] = {}
    for row in read_jsonl(turns_file):
        if row["conversation_id"] in wanted:
            event = TurnEvent.model_validate(row)
            conversations[event.conversation_id].append(event)
            roles[(event.conversation_id, event.turn_index)] = event.role
    for events in conversations.values():
        events.sort(key=lambda e: e.turn_index)
    bounded = _run(config, verifier, conversations)
    lifted = _run(unbounded(config), verifier, conversations)

    rows = []
    for label in labels:
        cid = label["conversation_id"]
        user_said = roles[(cid, label["conflicts_with"])] == "user"
        old = label["evidence_old"]
        spans = (label["evidence_new"], in_assistant_voice(old) if user_said else old)
        remembered = [any(turn == index and overlaps(sentence, span)
                          for turn, sentence in lifted.remembered[cid])
                      for index, span in ((label["turn_index"], label["evidence_new"]),
                                          (label["conflicts_with"], old))]
        match = next((p for p in lifted.judged[cid] if holds_pair(p, *spans)), None)
        contradiction = verdicts(verifier, [match])[0].contradiction if match else None
        threshold = (config.verifier_user_certificate if user_said
                     else config.verifier_certificate)
        found = (label["turn_index"], label["conflicts_with"]) in bounded.cited[cid]
        reached = any(holds_pair(p, *spans) for p in bounded.judged[cid])
        rows.append({"conversation_id": cid, "kind": label["kind"],
                     "stage": stage(found, all(remembered), match is not None, reached,
                                    contradiction, threshold),
                     "remembered": {"new": remembered[0], "old": remembered[1]},
                     "contradiction": None if contradiction is None else round(contradiction, 4),
                     "pair": list(match) if match else None})
    counts = Counter(row["stage"] for row in rows)
    scores = [row["contradiction"] for row in rows if row["contradiction"] is not None]
    return {
        "split": split,
        "verifier": verifier.model_id,
        "labelled": len(rows),
        "stages": {name: counts.get(name, 0) for name in STAGES},
        "judged_unbounded": len(scores),
        "median_contradiction_judged": round(statistics.median(scores), 4) if scores else None,
        "kinds_per_stage": {name: dict(Counter(r["kind"] for r in rows if r["stage"] == name))
                            for name in STAGES},
        "contradictions": rows,
    }
