"""Contradiction candidates by meaning, and the verdict that combines verifier and rules.

Rules over a parse cannot tell whether two paraphrased sentences are incompatible; the
trained verifier (`engine.verifier`) can. This stage decides which pairs it sees and what
its probabilities mean:

* **Candidates.** Each asserted sentence of a new answer against the most similar earlier
  assertions in a bounded window (the assistant's own, and what the user said about
  themselves), top-k above a similarity floor, plus the pairs the structured detectors
  aligned. The window and k bound the work per turn whatever the conversation's length.
* **Guards.** What the structure knows stays decisive: different headings ("Day 1" /
  "Day 2"), differently named or numbered things, a user turn in between that told
  something new about what both mention, one sentence and its own copy. Those pairs never
  reach the verifier.
* **Verdict.** P(contradiction) is the mean over both orders; a restatement (high
  P(entailment) either way) is agreement. A rule's finding is combined with the verifier
  as a second witness and vetoed only when each sentence entails the other; a finding of
  the verifier alone is detector `nli`.

User sentences are put in the assistant's voice before judging ("I don't drive" -> "you
don't drive"), so that the verifier sees one referent on both sides.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from monitor.engine.verifier import PairVerdict


@dataclass(frozen=True)
class Assertion:
    """One earlier asserted sentence, as the verdict stage remembers it."""

    turn: int
    speaker: str
    sentence: str
    context: str
    subjects: tuple[str, ...] = ()
    """Head words of the subjects the parse found in the sentence (may be none)."""


@dataclass(frozen=True)
class Candidate:
    """A new sentence (index into the turn's asserted sentences) and an earlier one."""

    index: int
    prior: Assertion
    similarity: float


def nearest(
    new_vecs: npt.NDArray[np.float32],
    window: Sequence[Assertion],
    window_vecs: npt.NDArray[np.float32],
    top_k: int,
    floor: float,
    allowed: Callable[[int, Assertion], bool],
) -> list[Candidate]:
    """For each new sentence the `top_k` most similar allowed assertions above `floor`.

    Ties break on the window's order (older first), so the result is deterministic.
    """
    if not len(window) or not len(new_vecs):
        return []
    sims = new_vecs @ window_vecs.T
    out: list[Candidate] = []
    for i in range(sims.shape[0]):
        taken = 0
        for j in np.argsort(-sims[i], kind="stable"):
            similarity = float(sims[i, j])
            if similarity < floor or taken >= top_k:
                break
            prior = window[int(j)]
            if allowed(i, prior):
                out.append(Candidate(i, prior, similarity))
                taken += 1
    return out


_PERSON = {
    "i": "you", "me": "you", "my": "your", "mine": "yours", "myself": "yourself",
    "we": "you", "us": "you", "our": "your", "ours": "yours", "ourselves": "yourselves",
    "i'm": "you're", "i've": "you've", "i'd": "you'd", "i'll": "you'll", "am": "are",
    "we're": "you're", "we've": "you've", "we'd": "you'd", "we'll": "you'll",
    "im": "you're", "ive": "you've",
}
_PERSON_WORD = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, _PERSON), key=len,
                                                     reverse=True)) + r")\b", re.I)


def in_assistant_voice(sentence: str) -> str:
    """A user's "I"/"we" as the assistant would say it ("you"), for the verifier."""

    def swap(match: re.Match[str]) -> str:
        word = match.group(0)
        out = _PERSON[word.lower().replace("’", "'")]
        return out.capitalize() if word[0].isupper() and match.start() == 0 else out

    return _PERSON_WORD.sub(swap, sentence.replace("’", "'"))


def agrees(verdict: PairVerdict, entailment_floor: float) -> bool:
    """A restatement or a consequence: the verifier sees entailment one way or the other."""
    return verdict.entailment >= entailment_floor and verdict.entailment > verdict.contradiction


def restated(verdict: PairVerdict, entailment_floor: float) -> bool:
    """Each sentence entails the other: the same claim twice, whatever a rule read."""
    return min(verdict.forward.entailment, verdict.backward.entailment) >= entailment_floor


def combined_confidence(verdict: PairVerdict, rule_confidence: float | None) -> float:
    """How sure the certificate is: the rule's confidence, raised by the verifier.

    Two witnesses, combined as a noisy OR, 1 - (1-r)(1-p). Measured on MT-Bench-101, the
    rules that survive the structural vetoes were right where the verifier alone mostly
    was not (read certificates: docs/notes/issue-18.md), so the verifier can raise a
    rule's confidence and veto it only by calling the pair a restatement both ways.
    """
    p = verdict.contradiction
    if rule_confidence is None:
        return p
    return 1.0 - (1.0 - p) * (1.0 - rule_confidence)
