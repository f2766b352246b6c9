"""Is a turn new, a redelivery, or a producer error? Decided before the engine runs.

At-least-once delivery repeats turns, and those repeats must change nothing and say
nothing. But a turn that is not newer than the last one applied is not always a repeat: a
producer can send a *different* text under an index already used, or send a turn after
later ones. Both used to be dropped as duplicates; they are reported now (an `invalid`
record offline, a dead letter online).

To tell them apart, each conversation state keeps a short digest of its last
`EngineConfig.turn_digests` applied turns (`ConversationState.digests`). A turn older
than that window cannot be checked and is treated as a repeat, as the state did before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from monitor.contracts import TurnEvent, content_id
from monitor.engine.state import ConversationState

Verdict = Literal["new", "duplicate", "conflict", "out_of_order"]


def turn_digest(event: TurnEvent) -> str:
    """What must be equal for a redelivered turn to be the same turn."""
    return content_id("turn", event.role, event.text)[:16]


def classify(events: Sequence[TurnEvent],
             states: dict[str, ConversationState]) -> list[tuple[Verdict, str]]:
    """(verdict, reason) per event, in order, as if the new ones were applied one by one;
    the reason is empty for new turns and repeats."""
    last = {cid: s.last_turn_index for cid, s in states.items()}
    seen: dict[str, dict[int, str]] = {cid: dict(s.digests) for cid, s in states.items()}
    out: list[tuple[Verdict, str]] = []
    for event in events:
        cid, index = event.conversation_id, event.turn_index
        digests = seen.setdefault(cid, {})
        digest = turn_digest(event)
        newest = last.get(cid, -1)
        if index > newest:
            out.append(("new", ""))
            last[cid] = index
            digests[index] = digest
        elif index in digests:
            if digests[index] == digest:
                out.append(("duplicate", ""))
            else:
                out.append(("conflict", f"turn_index {index} of {cid!r} was already applied "
                                        f"with a different role or text"))
        elif digests and index > min(digests):
            out.append(("out_of_order", f"turn_index {index} of {cid!r} arrived after turn "
                                        f"{newest}: turns must arrive in order"))
        else:
            out.append(("duplicate", ""))  # older than the window: assume a redelivery
    return out


def duplicates_of(events: Sequence[TurnEvent],
                  states: dict[str, ConversationState]) -> list[bool]:
    """Which events the engine must not apply: every one `classify` does not call new (a
    repeat, or a producer error the caller reports). The engine's idempotence and the
    callers' reports are the same decision."""
    return [verdict != "new" for verdict, _ in classify(events, states)]
