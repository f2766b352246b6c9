"""The turns an engine runs once before its first real one (`Engine.warm_up`).

Every lazily loaded part loads on first use: the dependency parser, the embedder, the MFSS
stemmer and ROUGE (through a reference), ConflictScore (through documents). A first long
input also pays for the parser's and embedder's buffers growing, about a second (measured
with `bench heavy`). A worker that runs these turns at start-up, on throw-away states,
makes its first real turn cost what every later one does.
"""

from __future__ import annotations

from monitor.contracts import MAX_TEXT_CHARS, Document, TurnEvent

_SENTENCES = (
    "The museum in Lyon is open on Mondays and the entrance costs {n} euros.",
    "The hotel near the station has {k} rooms and a small garden.",
    "The train to Paris leaves at {h}:15 and takes about {k} minutes.",
    "You can book the guided tour online; it is quiet in the morning.",
)


def _prose(chars: int, start: int = 0) -> str:
    """Distinct sentences up to `chars` characters (numbers vary, so no two are equal)."""
    parts: list[str] = []
    size, i = 0, start
    while True:
        sentence = _SENTENCES[i % len(_SENTENCES)].format(n=20 + i, k=2 + i % 58,
                                                           h=7 + i % 14)
        if size + len(sentence) + 1 > chars:
            return " ".join(parts)
        parts.append(sentence)
        size += len(sentence) + 1
        i += 1


def warmup_turns(documents: int = 4) -> list[TurnEvent]:
    """A short exchange with a reference and a document, then one answer at the contract's
    limits (text, reference and `documents` documents of MAX_TEXT_CHARS each)."""
    def turn(cid: str, index: int, role: str, text: str, **extra: object) -> TurnEvent:
        return TurnEvent.model_validate({"conversation_id": cid, "turn_index": index,
                                         "role": role, "text": text, **extra})

    short = _prose(300)
    return [
        turn("warmup", 0, "user", "Is the museum in Lyon open on Mondays?"),
        turn("warmup", 1, "assistant", short, reference=short,
             documents=[Document(id="w", text=short)]),
        turn("warmup-heavy", 0, "user", "Tell me everything about the hotels and trains."),
        turn("warmup-heavy", 1, "assistant", _prose(MAX_TEXT_CHARS),
             reference=_prose(MAX_TEXT_CHARS, 1),
             documents=[Document(id=f"doc-{i}", text=_prose(MAX_TEXT_CHARS, 2 + i))
                        for i in range(documents)]),
    ]
