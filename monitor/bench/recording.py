"""A verifier that remembers what the engine asked it.

The engine sends the verifier only the pairs that survive its candidate search and vetoes,
so recording those calls is the one faithful way to learn which pairs it considered: the
training data harvest (`training/harvest_chat_pairs.py`) collects them to train on, and
`bench funnel` checks whether a labelled contradiction was among them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from monitor.engine.protocols import Judgement, Verifier


class RecordingVerifier:
    """Another verifier, remembering every pair it judges (in call order)."""

    def __init__(self, inner: Verifier) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.seen: list[tuple[str, str]] = []

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        self.seen.extend(pairs)
        return self.inner.judge(pairs)


def words(text: str) -> str:
    """Lower-case words only: Markdown, punctuation and apostrophes do not change a match."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


def holds_pair(pair: tuple[str, str], first: str, second: str) -> bool:
    """`pair` is `first` and `second` in either order: each of its sentences lies within
    one of them or holds it (the engine strips Markdown, may split a bullet item, and a
    label may quote only part of a sentence)."""
    a, b = pair
    return (overlaps(a, first) and overlaps(b, second)) or (
        overlaps(a, second) and overlaps(b, first))


def overlaps(sentence: str, span: str) -> bool:
    """One lies within the other, word for word (neither empty)."""
    u, v = words(sentence), words(span)
    return bool(u) and bool(v) and (u in v or v in u)
