"""Bounded work per turn: what the engine looks at of one turn, and what it gives back.

The contract admits a turn of about 240 KB (a 20,000-character answer and reference, 32
documents of 20,000 characters). Scoring all of it took 16 s in the worker's one engine
thread, while every other conversation waited, and produced hundreds of certificates. The
engine therefore scores a bounded prefix of each text (cut at a sentence end), at most
`max_documents_scored` documents, at most `max_claims_per_turn` claims, and publishes at
most `max_certificates_per_turn` certificates (the most confident). What was cut is
counted per turn (`TurnOutcome.cut`), so the worker can export it.

No wall-clock deadline is used: a timer would make the same turn score differently on a
busy and an idle machine. The caps are chosen so that the heaviest admissible turn stays
within one second on the reference machine (`skg-monitor bench heavy`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import TypeVar

from monitor.config import EngineConfig
from monitor.contracts import TurnEvent
from monitor.engine.extract import Extraction

T = TypeVar("T")
SENTENCE_CHARS = 240
"""How much of one sentence a fact, an assertion or a certificate keeps (the rest of a
run-on sentence is rarely the claim, and states stay small)."""
_SENTENCE_ENDS = (". ", "! ", "? ", "\n")


def prefix(text: str, limit: int) -> str:
    """At most `limit` characters, ending at a sentence end when one is in the second half."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = max(head.rfind(end) for end in _SENTENCE_ENDS)
    return head[: cut + 1].rstrip() if cut >= limit // 2 else head


def bound_event(event: TurnEvent, config: EngineConfig) -> tuple[TurnEvent, dict[str, int]]:
    """The part of the turn the engine scores, and what was left out (chars, documents)."""
    cut: dict[str, int] = {}
    update: dict[str, object] = {}
    text = prefix(event.text, config.max_scored_chars)
    if text != event.text:
        update["text"] = text
        cut["text_chars"] = len(event.text) - len(text)
    if event.reference is not None:
        reference = prefix(event.reference, config.max_scored_chars)
        if reference != event.reference:
            update["reference"] = reference
            cut["text_chars"] = cut.get("text_chars", 0) + len(event.reference) - len(reference)
    if event.documents:
        kept = event.documents[: config.max_documents_scored]
        if len(kept) < len(event.documents):
            cut["documents"] = len(event.documents) - len(kept)
        docs = [d.model_copy(update={"text": prefix(d.text, config.max_document_chars)})
                for d in kept]
        chars = sum(len(a.text) - len(b.text) for a, b in zip(kept, docs, strict=True))
        if chars:
            cut["text_chars"] = cut.get("text_chars", 0) + chars
        if cut.get("documents") or chars:
            update["documents"] = docs
    return (event.model_copy(update=update) if update else event), cut


def cap_claims(extraction: Extraction, limit: int) -> tuple[Extraction, int]:
    """The first `limit` triples of a turn (in text order), and how many were dropped."""
    if len(extraction.triples) <= limit:
        return extraction, 0
    return (replace(extraction, triples=extraction.triples[:limit]),
            len(extraction.triples) - limit)


def most_confident(items: Sequence[T], limit: int, confidence: list[float]) -> list[T]:
    """The `limit` items of highest confidence, in their original order (ties: earlier)."""
    if len(items) <= limit:
        return list(items)
    ranked = sorted(range(len(items)), key=lambda i: (-confidence[i], i))[:limit]
    return [items[i] for i in sorted(ranked)]
