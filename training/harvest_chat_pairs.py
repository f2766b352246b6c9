"""The sentence pairs the engine sends to the verifier on chats written for this project.

Why: read on real assistant text, a verifier trained on NLI pairs calls many topically close,
compatible sentences of one conversation contradictions (two different routes' prices, a
summary of earlier advice) and misses contradictions said in other words. Those pairs are
the engine's own candidates, after its vetoes, so the way to teach the verifier what they
look like is to collect exactly them: the engine scores each written chat
(training/data/README.md) with a verifier that records every pair it is asked about. A
chat's planted contradiction is a `contradiction` pair; every other pair is
`not_contradiction`.

Run from the repository root (never in CI; the output is committed beside the chats):
``python training/harvest_chat_pairs.py``. The pairs depend on the engine's candidate
stage, so rerun it when that changes before training again.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from monitor.bench.jsonl import iter_jsonl
from monitor.bench.recording import RecordingVerifier, holds_pair
from monitor.config import EngineConfig
from monitor.contracts import TurnEvent
from monitor.engine.meaning import in_assistant_voice


def is_planted(pair: tuple[str, str], planted: tuple[str, str]) -> bool:
    """The engine's pair holds the planted one, in either order (see `holds_pair`)."""
    return holds_pair(pair, *planted)


def planted_pair(chat: dict[str, Any]) -> tuple[str, str] | None:
    """The chat's planted contradiction as the verifier would see it: later sentence,
    earlier sentence (a user's in the assistant's voice)."""
    found = chat.get("contradiction")
    if not found:
        return None
    earlier = found["earlier_sentence"]
    if chat["turns"][found["earlier_turn"]]["role"] == "user":
        earlier = in_assistant_voice(earlier)
    return found["sentence"], earlier


def harvest(chats: Path) -> list[dict[str, str]]:
    """One row per unordered pair of sentences, first conversation first; a chat with a
    planted contradiction adds it as `contradiction`, whether or not the engine's
    candidates held it, and every other pair of that chat as `not_contradiction`."""
    from monitor.engine.verifier import default_verifier
    from monitor.runner.build import build_engine

    recorder = RecordingVerifier(default_verifier())
    engine = build_engine(EngineConfig(), verifier=recorder)
    rows: dict[tuple[str, ...], dict[str, str]] = {}
    for chat in iter_jsonl(chats):
        events = [TurnEvent(conversation_id=chat["id"], turn_index=i, role=turn["role"],
                            text=turn["text"])
                  for i, turn in enumerate(chat["turns"])]
        recorder.seen.clear()
        engine.process_batch(events, {})
        planted = planted_pair(chat)
        for a, b in recorder.seen:
            label = ("contradiction" if planted and is_planted((a, b), planted)
                     else "not_contradiction")
            rows.setdefault(tuple(sorted((a, b))), {"conversation_id": chat["id"],
                                                    "premise": a, "hypothesis": b,
                                                    "label": label})
        if planted:
            rows.setdefault(tuple(sorted(planted)), {"conversation_id": chat["id"],
                                                     "premise": planted[1],
                                                     "hypothesis": planted[0],
                                                     "label": "contradiction"})
    return list(rows.values())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", nargs="+", default=["training/data/consistent_chats.jsonl",
                                                       "training/data/planted_chats.jsonl"])
    parser.add_argument("--out", default="training/data/chat_pairs.jsonl")
    args = parser.parse_args(argv)
    rows = [row for chats in args.chats for row in harvest(Path(chats))]
    with open(args.out, "w", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
    print(f"{len(rows)} pairs -> {args.out}")


if __name__ == "__main__":
    main()
