"""ConflictScore (Liu, Xia, Halfaker, Roth): does an answer take one side of a conflict in
its own documents?

1. Atomic claims: one claim per asserted sentence of the answer (questions are not claims),
   carrying the facts the extractor found in that sentence.
2. Each claim is labelled against each document:
   * CONTRADICT if any of the claim's facts and any of the document's facts on the *same
     subject label* give a finding from the engine's own contradiction cascade
     (`contradiction.compare`: negation, antonym, numeric, exclusive), tried in both
     directions because the cascade is not symmetric (the exclusive detector asks whether
     the newer fact's relation is single-valued);
   * else SUPPORT if the best cosine between the claim sentence and the document's sentences
     reaches `support_similarity` (0.75 by default: with all-MiniLM-L6-v2, paraphrases
     and restatements of a sentence typically land above it, same-topic statements of
     other facts mostly below);
   * else IRRELEVANT.
   A contradiction wins over similarity because a contradicting sentence ("closed on
   Mondays" vs "open on Mondays") is usually also a near neighbour in embedding space.
3. With D+ / D- the supporting / contradicting documents of a claim:
   CS-C = share of claims with D+ and D- both non-empty;
   CS-R = mean over those conflicted claims of |D-| / (|D+| + |D-|), 0 when there are none.
   Lower is better for both.

Document facts are extracted with the same extractor (speaker "system"); both sides' facts
use the extractor's own subject labels (no per-conversation node merging), so a claim and
a document are compared on exactly the labels their texts give.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np

from monitor.contracts import (
    ClaimSupport,
    ConflictAlert,
    ConflictScore,
    Document,
    content_id,
    round_score,
)
from monitor.engine.claims import (
    AtomicClaim,
    Evidence,
    Extractor,
    evidence_from_documents,
    find_contradiction,
)
from monitor.engine.protocols import Embedder, Judgement, Verifier

Label = Literal["SUPPORT", "CONTRADICT", "IRRELEVANT"]
SUPPORT: Label = "SUPPORT"
CONTRADICT: Label = "CONTRADICT"
IRRELEVANT: Label = "IRRELEVANT"
DEFAULT_SUPPORT_SIMILARITY = 0.75


# --- labelling ----------------------------------------------------------------------------
def label_claim(
    claim: AtomicClaim,
    evidence: Evidence,
    similarity: float,
    support_similarity: float = DEFAULT_SUPPORT_SIMILARITY,
) -> Label:
    """CONTRADICT / SUPPORT / IRRELEVANT; `similarity` is the best cosine between the claim
    and the document's sentences."""
    if find_contradiction(claim.facts, evidence.facts) is not None:
        return CONTRADICT
    if similarity >= support_similarity:
        return SUPPORT
    return IRRELEVANT


VERIFIER_LABEL_FLOOR = 0.6
"""P(entailment) or P(contradiction) from which the verifier's label is not IRRELEVANT."""
RELATED_SIMILARITY = 0.3
"""Cosine below which a document sentence is not about the claim at all (not judged)."""


def label_by_meaning(judgement: Judgement, floor: float = VERIFIER_LABEL_FLOOR) -> Label:
    """The verifier's reading of (document sentence -> claim): the most probable of
    entailment (SUPPORT) and contradiction (CONTRADICT) when it reaches `floor`."""
    if judgement.contradiction >= floor and judgement.contradiction > judgement.entailment:
        return CONTRADICT
    if judgement.entailment >= floor:
        return SUPPORT
    return IRRELEVANT


def label_all(
    claims: Sequence[AtomicClaim],
    evidence: Sequence[Evidence],
    embedder: Embedder,
    support_similarity: float = DEFAULT_SUPPORT_SIMILARITY,
    verifier: Verifier | None = None,
) -> list[list[Label]]:
    """labels[i][j]: claim i against document j; one embedder call for every sentence.

    With a verifier, the document's sentence most similar to the claim is the premise and
    the claim the hypothesis (one verifier call per claim and document, all in one batch);
    without one, the rules and the similarity threshold decide (`label_claim`).
    """
    if not claims or not evidence:
        return [[] for _ in claims]
    doc_sentences = [s for ev in evidence for s in ev.sentences]
    vecs = embedder.embed([c.text for c in claims] + doc_sentences)
    claim_vecs, sent_vecs = vecs[: len(claims)], vecs[len(claims) :]
    sims = claim_vecs @ sent_vecs.T
    if verifier is not None:
        return _label_by_verifier(claims, evidence, sims, verifier)
    labels: list[list[Label]] = []
    for i, claim in enumerate(claims):
        row: list[Label] = []
        start = 0
        for ev in evidence:
            end = start + len(ev.sentences)
            best = float(np.max(sims[i, start:end])) if end > start else 0.0
            row.append(label_claim(claim, ev, best, support_similarity))
            start = end
        labels.append(row)
    return labels


def _label_by_verifier(
    claims: Sequence[AtomicClaim], evidence: Sequence[Evidence], sims: np.ndarray,
    verifier: Verifier,
) -> list[list[Label]]:
    flat = [s for ev in evidence for s in ev.sentences]
    pairs: list[tuple[str, str]] = []
    where: list[tuple[int, int]] = []
    start = 0
    for j, ev in enumerate(evidence):
        end = start + len(ev.sentences)
        for i, claim in enumerate(claims):
            if end > start:
                best = start + int(np.argmax(sims[i, start:end]))
                if sims[i, best] >= RELATED_SIMILARITY:
                    pairs.append((flat[best], claim.text))
                    where.append((i, j))
        start = end
    labels: list[list[Label]] = [[IRRELEVANT] * len(evidence) for _ in claims]
    for (i, j), judgement in zip(where, verifier.judge(pairs), strict=True):
        labels[i][j] = label_by_meaning(judgement)
    return labels


# --- the score ----------------------------------------------------------------------------
def conflict_metrics(labels: Sequence[Sequence[Label]]) -> tuple[float, float]:
    """(CS-C, CS-R) from labels[claim][document]; both 0 without claims."""
    if not labels:
        return 0.0, 0.0
    ratios = []
    for row in labels:
        plus = sum(1 for label in row if label == SUPPORT)
        minus = sum(1 for label in row if label == CONTRADICT)
        if plus and minus:
            ratios.append(minus / (plus + minus))
    cs_c = len(ratios) / len(labels)
    cs_r = sum(ratios) / len(ratios) if ratios else 0.0
    return cs_c, cs_r


def score_conflict(
    claims: Sequence[AtomicClaim],
    documents: Sequence[Document],
    extractor: Extractor,
    embedder: Embedder,
    *,
    support_similarity: float = DEFAULT_SUPPORT_SIMILARITY,
    turn_index: int = 0,
    verifier: Verifier | None = None,
) -> ConflictScore:
    """ConflictScore of an answer's claims against its documents (lower is better)."""
    evidence = evidence_from_documents(documents, extractor, turn_index)
    labels = label_all(claims, evidence, embedder, support_similarity, verifier)
    cs_c, cs_r = conflict_metrics(labels)
    rows = []
    for claim, row in zip(claims, labels, strict=True):
        support = [ev.id for ev, label in zip(evidence, row, strict=True) if label == SUPPORT]
        against = [ev.id for ev, label in zip(evidence, row, strict=True)
                   if label == CONTRADICT]
        rows.append(ClaimSupport(text=claim.text, support=list(dict.fromkeys(support)),
                                 contradict=list(dict.fromkeys(against))))
    return ConflictScore(cs_c=round_score(cs_c), cs_r=round_score(cs_r), claims=rows)


def conflict_alert(
    conversation_id: str,
    turn_index: int,
    score: ConflictScore,
    threshold: float,
    version: str,
) -> ConflictAlert | None:
    """A warning when CS-C reaches `threshold`, naming the conflicted claims and documents."""
    if score.cs_c < threshold or score.cs_c <= 0:
        return None
    conflicted = [c for c in score.claims if c.support and c.contradict]
    parts = []
    for claim in conflicted[:3]:
        text = claim.text if len(claim.text) <= 100 else claim.text[:97] + "..."
        parts.append(f'"{text}" is supported by {", ".join(claim.support)} and contradicted '
                     f'by {", ".join(claim.contradict)}')
    more = f" (and {len(conflicted) - 3} more)" if len(conflicted) > 3 else ""
    return ConflictAlert(
        id=content_id("conflict_alert", conversation_id, turn_index, version),
        conversation_id=conversation_id,
        turn_index=turn_index,
        cs_c=score.cs_c,
        cs_r=score.cs_r,
        severity="warn",
        explanation=(f"turn {turn_index} takes one side of a conflict in its documents "
                     f"(CS-C {score.cs_c:.2f}, CS-R {score.cs_r:.2f}): "
                     + "; ".join(parts) + more),
    )
