"""The quality scores as the engine's `TurnScorers`: what a builder of the engine passes in."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from monitor.config import MFSSWeights
from monitor.contracts import ConflictScore, Document, MFSSScore
from monitor.engine.protocols import Embedder, Verifier
from monitor.quality import conflict, mfss


class QualityScorers:
    """MFSS (`quality.mfss`) and ConflictScore (`quality.conflict`), judged by meaning when
    given the verifier (factual consistency against the reference, claim-by-document
    labels), by words and rules without one."""

    conflict_alert = staticmethod(conflict.conflict_alert)

    def __init__(self, verifier: Verifier | None = None) -> None:
        self.verifier = verifier

    def score_mfss(
        self, answer: str, reference: str | None, sentences: Sequence[str],
        embedder: Embedder, weights: MFSSWeights, prompt: str | None = None,
    ) -> MFSSScore:
        return mfss.score_mfss(answer, reference, sentences, embedder, weights, prompt,
                               self.verifier)

    def score_conflict(
        self, claims: Sequence[Any], documents: Sequence[Document], extractor: Any,
        embedder: Embedder, *, support_similarity: float = conflict.DEFAULT_SUPPORT_SIMILARITY,
        turn_index: int = 0,
    ) -> ConflictScore:
        return conflict.score_conflict(claims, documents, extractor, embedder,
                                       support_similarity=support_similarity,
                                       turn_index=turn_index, verifier=self.verifier)
