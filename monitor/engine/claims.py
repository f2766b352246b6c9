"""What a document-grounded scorer needs of the engine: an answer's atomic claims, a
document's evidence, and the engine's contradiction cascade between their facts.

`monitor.quality.conflict` (ConflictScore) labels claims against documents with these; it
imports nothing else of the engine but `monitor.engine.protocols`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from monitor.contracts import Document
from monitor.engine import contradiction
from monitor.engine.extract import ANAPHOR, Extraction, Extractor, Triple, Utterance
from monitor.engine.graph import Fact

__all__ = ["AtomicClaim", "Evidence", "Extractor", "Finding", "claims_from_extraction",
           "evidence_from_documents", "facts_from_triples", "find_contradiction"]

Finding = contradiction.Finding


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


# --- claims and evidence --------------------------------------------------------------
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


# --- the cascade -------------------------------------------------------------------------
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
