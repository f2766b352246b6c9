"""False alarms on real LLM conversations: MT-Bench-101 scored as a user would score it.

MT-Bench-101 (Bai et al., 2024) holds real multi-turn conversations whose assistant turns
GPT-4 wrote: long Markdown answers, rephrasings, topic shifts, self-corrections. It has no
contradiction labels, so what this benchmark measures is how often the monitor would page
someone (pages per 100 assistant turns) and, once a person has read every certificate and
written a verdict into a judgements file, the judged precision per detector.

The judgements file is JSON Lines of ``{"id": <certificate id>, "verdict": "true"|"false",
"reason": "..."}``; certificate ids are content hashes, so a verdict stays attached to the
same certificate across runs as long as the engine says the same thing.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from monitor.bench.jsonl import read_jsonl
from monitor.config import EngineConfig
from monitor.contracts import ContradictionCertificate, TurnEvent, TurnScore


def mtbench_events(rows: Iterable[dict[str, Any]]) -> list[TurnEvent]:
    """Each history item becomes a user turn 2k and an assistant turn 2k+1."""
    events: list[TurnEvent] = []
    for row in rows:
        cid = f"mtb-{row['task']}-{row['id']}"
        for k, pair in enumerate(row["history"]):
            for offset, role, key in ((0, "user", "user"), (1, "assistant", "bot")):
                text = str(pair.get(key) or "").strip()
                if text:
                    events.append(TurnEvent(conversation_id=cid, turn_index=2 * k + offset,
                                            role=role, text=text))  # type: ignore[arg-type]
    return events


def load_rows(path: Path, tasks: set[str] | None = None, limit: int = 0) -> list[dict[str, Any]]:
    rows = read_jsonl(path)
    if tasks:
        rows = [r for r in rows if r["task"] in tasks]
    return rows[:limit] if limit else rows


def content_key(conversation_id: str, turn: int, earlier: int, claim: str, prior: str) -> str:
    """What a judgement is about, whatever engine version produced the certificate: a
    reader's verdict on two sentences stays valid when only the version (and so the id)
    changed."""
    return json.dumps([conversation_id, turn, earlier, claim, prior])


def load_judgements(path: Path | None) -> dict[str, dict[str, Any]]:
    """Judgements by certificate id and, where a row quotes both sentences, by content."""
    if path is None or not path.exists():
        return {}
    out = {}
    for row in read_jsonl(path):
        out[row["id"]] = row
        if "claim" in row and "prior" in row:
            out[content_key(row["conversation_id"], row["turn_index"],
                            row["conflicts_with"], row["claim"], row["prior"])] = row
    return out


def judgement_of(c: ContradictionCertificate, judgements: dict[str, dict[str, Any]]
                 ) -> dict[str, Any] | None:
    return judgements.get(c.id) or judgements.get(content_key(
        c.conversation_id, c.turn_index, c.conflicts_with, c.claim.sentence, c.prior.sentence))


def summarise(
    records: list[Any], judgements: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Pages per 100 assistant turns, certificates per detector and judged precision."""
    scores = [r for r in records if isinstance(r, TurnScore)]
    certs = [r for r in records if isinstance(r, ContradictionCertificate)]
    turns = len(scores)
    pages = sum(1 for c in certs if c.severity == "page")
    by_detector: dict[str, Counter[str]] = {}
    for c in certs:
        counter = by_detector.setdefault(c.detector, Counter())
        counter["certificates"] += 1
        counter[c.severity] += 1
        verdict = (judgement_of(c, judgements) or {}).get("verdict")
        counter[f"judged_{verdict}" if verdict else "unjudged"] += 1
    verdicts = [(judgement_of(c, judgements) or {}).get("verdict") for c in certs]
    judged_true = sum(1 for v in verdicts if v == "true")
    judged = sum(1 for v in verdicts if v is not None)
    return {
        "conversations": len({s.conversation_id for s in scores}),
        "assistant_turns": turns,
        "certificates": len(certs),
        "pages": pages,
        "pages_per_100_assistant_turns": round(100 * pages / turns, 3) if turns else 0.0,
        "certificates_per_100_assistant_turns": round(100 * len(certs) / turns, 3)
        if turns else 0.0,
        "judged": judged,
        "judged_precision": round(judged_true / judged, 4) if judged else None,
        "by_detector": {
            d: {**dict(c), "judged_precision": round(c["judged_true"] / (
                c["judged_true"] + c["judged_false"]), 4)
                if c["judged_true"] + c["judged_false"] else None}
            for d, c in sorted(by_detector.items())
        },
    }


def certificate_rows(records: list[Any]) -> list[dict[str, Any]]:
    """Every certificate with both sentences, for a person to read and judge."""
    return [
        {"id": c.id, "conversation_id": c.conversation_id, "turn_index": c.turn_index,
         "conflicts_with": c.conflicts_with, "detector": c.detector,
         "confidence": c.confidence, "severity": c.severity,
         "claim": c.claim.sentence, "prior": c.prior.sentence,
         "prior_speaker": c.prior.speaker, "explanation": c.explanation}
        for c in records if isinstance(c, ContradictionCertificate)
    ]


def run_real_bench(
    path: Path,
    certificates_out: Path,
    judgements: Path | None = None,
    tasks: set[str] | None = None,
    limit: int = 0,
    config: EngineConfig | None = None,
) -> dict[str, Any]:
    from monitor.runner.offline import score_events

    events = mtbench_events(load_rows(path, tasks, limit))
    records = score_events([(0, e) for e in events], config or EngineConfig())
    rows = certificate_rows(records)
    certificates_out.parent.mkdir(parents=True, exist_ok=True)
    certificates_out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n"
                                        for r in rows), encoding="utf-8")
    result = summarise(records, load_judgements(judgements))
    result["certificates_file"] = str(certificates_out)
    return result
