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
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from monitor.contracts import ClaimSupport, ConflictAlert, ConflictScore, Document, content_id
from monitor.engine import contradiction
from monitor.engine.embedder import Embedder
from monitor.engine.extract import ANAPHOR, Extraction, Extractor, Triple, Utterance
from monitor.engine.graph import Fact

Label = Literal["SUPPORT", "CONTRADICT", "IRRELEVANT"]
SUPPORT: Label = "SUPPORT"
CONTRADICT: Label = "CONTRADICT"
IRRELEVANT: Label = "IRRELEVANT"
DEFAULT_SUPPORT_SIMILARITY = 0.75


@dataclass(frozen=True)
class AtomicClaim:
    """One claim of the answer: its sentence and the facts extracted from it."""

    text: str
    facts: tuple[Fact, ...] = ()


@dataclass(frozen=True)
class Evidence:
    """One document as the labeller sees it: its sentences and facts."""

    id: str
    sentences: tuple[str, ...]
    facts: tuple[Fact, ...]


def _r(value: float) -> float:
    return round(float(value), 6)


# --- facts ------------------------------------------------------------------------------
def facts_from_triples(triples: Sequence[Triple], focus: str | None = None) -> list[Fact]:
    """Facts keyed by the extractor's own labels; an unresolved "it" takes `focus`, or is
    dropped without one."""
    facts: list[Fact] = []
    for triple in triples:
        if triple.subject == ANAPHOR:
            if not focus:
                continue
            triple = replace(triple, subject=focus)
        triple = contradiction.index_subject(triple)
        facts.append(Fact.from_triple(triple, triple.subject, triple.object))
    return facts


def claims_from_extraction(extraction: Extraction, focus: str | None = None) -> list[AtomicClaim]:
    """One claim per asserted sentence (questions excluded), with that sentence's facts."""
    by_sentence: dict[str, list[Triple]] = {}
    for triple in extraction.triples:
        by_sentence.setdefault(triple.sentence, []).append(triple)
    claims = []
    for sentence in dict.fromkeys(extraction.sentences):
        if sentence.rstrip().endswith("?"):
            continue
        claims.append(AtomicClaim(sentence,
                                  tuple(facts_from_triples(by_sentence.get(sentence, []),
                                                           focus))))
    return claims


def evidence_from_documents(
    documents: Sequence[Document], extractor: Extractor, turn_index: int = 0
) -> list[Evidence]:
    """Parse every document in one extractor call (speaker "system")."""
    extractions = extractor.extract(
        [Utterance(doc.text, "system", turn_index) for doc in documents]
    )
    return [
        Evidence(doc.id, tuple(ex.sentences) or (doc.text,),
                 tuple(facts_from_triples(ex.triples, ex.focus)))
        for doc, ex in zip(documents, extractions, strict=True)
    ]


# --- labelling ----------------------------------------------------------------------------
def find_contradiction(
    claim_facts: Sequence[Fact], evidence_facts: Sequence[Fact]
) -> contradiction.Finding | None:
    """The first cascade finding between a claim fact and a document fact on the same
    subject label, trying (claim, document) then (document, claim)."""
    by_subject: dict[str, list[Fact]] = {}
    for fact in evidence_facts:
        by_subject.setdefault(fact.subject, []).append(fact)
    for fact in claim_facts:
        for other in by_subject.get(fact.subject, []):
            finding = contradiction.compare(fact, other) or contradiction.compare(other, fact)
            if finding is not None:
                return finding
    return None


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


def label_all(
    claims: Sequence[AtomicClaim],
    evidence: Sequence[Evidence],
    embedder: Embedder,
    support_similarity: float = DEFAULT_SUPPORT_SIMILARITY,
) -> list[list[Label]]:
    """labels[i][j]: claim i against document j; one embedder call for every sentence."""
    if not claims or not evidence:
        return [[] for _ in claims]
    doc_sentences = [s for ev in evidence for s in ev.sentences]
    vecs = embedder.embed([c.text for c in claims] + doc_sentences)
    claim_vecs, sent_vecs = vecs[: len(claims)], vecs[len(claims) :]
    sims = claim_vecs @ sent_vecs.T
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
) -> ConflictScore:
    """ConflictScore of an answer's claims against its documents (lower is better)."""
    evidence = evidence_from_documents(documents, extractor, turn_index)
    labels = label_all(claims, evidence, embedder, support_similarity)
    cs_c, cs_r = conflict_metrics(labels)
    rows = []
    for claim, row in zip(claims, labels, strict=True):
        support = [ev.id for ev, label in zip(evidence, row, strict=True) if label == SUPPORT]
        against = [ev.id for ev, label in zip(evidence, row, strict=True)
                   if label == CONTRADICT]
        rows.append(ClaimSupport(text=claim.text, support=list(dict.fromkeys(support)),
                                 contradict=list(dict.fromkeys(against))))
    return ConflictScore(cs_c=_r(cs_c), cs_r=_r(cs_r), claims=rows)


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
