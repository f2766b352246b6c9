"""The small interfaces the engine is built from and the layers above it build against.

The engine never imports the scorers above it (`monitor.quality`): whoever builds an
`Engine` passes them in as a `TurnScorers`. The quality package, in turn, needs nothing of
the engine but these protocols and the claim helpers of `monitor.engine.claims`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

import numpy as np
import numpy.typing as npt

from monitor.config import MFSSWeights
from monitor.contracts import ConflictAlert, ConflictScore, Document, MFSSScore

if TYPE_CHECKING:
    from monitor.engine.claims import AtomicClaim
    from monitor.engine.extract import Extractor

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    """Maps texts to L2-normalised vectors; the same text always gives the same vector."""

    @property
    def dim(self) -> int: ...

    @property
    def name(self) -> str: ...

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Return an array of shape (len(texts), dim), rows L2-normalised."""
        ...


def mean_direction(vectors: Vectors) -> Vectors:
    """The unit vector along the mean of L2-normalised rows (a zero mean stays zero).

    An answer's own vector is the mean direction of its sentences' vectors, which the
    engine and the MFSS score compute anyway: embedding the whole answer again cost as much
    model time as all its sentences together, and saw only its first 256 tokens. Summed in
    float64 in row order, so the same rows give the same vector bit for bit."""
    mean = vectors.astype(np.float64).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return (mean / norm if norm > 0 else mean).astype(np.float32)


class TurnScorers(Protocol):
    """The per-answer scores the engine publishes but does not own (MFSS, ConflictScore)."""

    def score_mfss(
        self,
        answer: str,
        reference: str | None,
        sentences: Sequence[str],
        embedder: Embedder,
        weights: MFSSWeights,
        prompt: str | None = None,
    ) -> MFSSScore: ...

    def score_conflict(
        self,
        claims: Sequence[AtomicClaim],
        documents: Sequence[Document],
        extractor: Extractor,
        embedder: Embedder,
        *,
        support_similarity: float = ...,
        turn_index: int = 0,
    ) -> ConflictScore: ...

    def conflict_alert(
        self,
        conversation_id: str,
        turn_index: int,
        score: ConflictScore,
        threshold: float,
        version: str,
    ) -> ConflictAlert | None: ...


@dataclass(frozen=True)
class Judgement:
    """The verifier's probabilities for premise -> hypothesis (one order)."""

    entailment: float
    neutral: float
    contradiction: float


@dataclass(frozen=True)
class PairVerdict:
    """Both orders of one pair: what a certificate quotes."""

    forward: Judgement
    backward: Judgement

    @property
    def contradiction(self) -> float:
        """Mean of the two orders: a contradiction holds both ways, an entailment need not."""
        return (self.forward.contradiction + self.backward.contradiction) / 2

    @property
    def entailment(self) -> float:
        """The larger order: "X" entails "X, and Y" one way only, and is still agreement."""
        return max(self.forward.entailment, self.backward.entailment)


class Verifier(Protocol):
    """What the engine and the quality scorers need of a verifier."""

    @property
    def model_id(self) -> str: ...

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        """One judgement per (premise, hypothesis), each independent of the others."""
        ...


def verdicts(verifier: Verifier, pairs: Sequence[tuple[str, str]]) -> list[PairVerdict]:
    """Both orders of each pair, judged in one call so the pool sees all the work."""
    flat = [p for a, b in pairs for p in ((a, b), (b, a))]
    judged = verifier.judge(flat)
    return [PairVerdict(judged[2 * i], judged[2 * i + 1]) for i in range(len(pairs))]
