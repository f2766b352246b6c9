"""TruthfulQA as a validation set for the MFSS factors and the ConflictScore labeller.

For each of the 817 questions, every correct and every incorrect answer is scored as an
assistant turn answering the question, with the question's Best Answer as the reference.
MFSS reads the prompt only for coherence (the question is passed to it), so scoring the
factors directly is the same as running the answers through the engine; the embedder and
extractor are the real ones. Reported:

* ROC AUC of separating correct (1) from incorrect (0) answers, for the total and for each
  factor (the question is the prompt, so coherence judges question -> answer); also with
  answers identical to the Best Answer left out, because the Best Answer is itself listed
  among the correct answers of most questions and trivially scores 1;
* per-category means of the total (correct vs incorrect) and the per-category AUC;
* the ConflictScore labeller run with the Best Answer as the claim and each correct /
  incorrect answer as a document: the share of each kind labelled SUPPORT / CONTRADICT.
"""

from __future__ import annotations

import csv
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from monitor.bench.metrics import roc_auc
from monitor.config import MFSSWeights
from monitor.contracts import MFSSScore
from monitor.engine import claims
from monitor.engine.embedder import Embedder
from monitor.engine.extract import Extraction, Extractor, Utterance
from monitor.engine.protocols import Verifier
from monitor.quality import conflict, mfss


@dataclass(frozen=True)
class Question:
    category: str
    question: str
    best: str
    correct: tuple[str, ...]
    incorrect: tuple[str, ...]


def _split(cell: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(a.strip() for a in cell.split(";") if a.strip()))


def load_truthfulqa(path: Path) -> list[Question]:
    with path.open(encoding="utf-8", newline="") as handle:
        return [
            Question(row["Category"], row["Question"], row["Best Answer"].strip(),
                     _split(row["Correct Answers"]), _split(row["Incorrect Answers"]))
            for row in csv.DictReader(handle)
        ]


def _mean(values: Sequence[float]) -> float | None:
    return round(float(np.mean(values)), 4) if values else None


Row = tuple[Question, str, int, MFSSScore]
"""(question, answer, 1 for a correct / 0 for an incorrect answer, its MFSS)."""
FACTORS = ("total", *mfss.FACTORS)


@dataclass
class _Parsed:
    """Every text of the benchmark parsed once and embedded in one call."""

    extractions: dict[str, Extraction]
    sentences: dict[str, list[str]]
    vecs: dict[str, Any]


def _parse_and_embed(questions: Sequence[Question], extractor: Extractor,
                     embedder: Embedder) -> _Parsed:
    texts = list(dict.fromkeys(
        t for q in questions for t in (q.best, *q.correct, *q.incorrect)
    ))
    extractions: dict[str, Extraction] = dict(zip(
        texts, extractor.extract([Utterance(t, "assistant", 1) for t in texts]), strict=True
    ))
    sentences = {t: extractions[t].sentences or [t] for t in texts}
    all_texts = list(dict.fromkeys([*texts, *(s for t in texts for s in sentences[t]),
                                    *(q.question for q in questions)]))
    vecs = dict(zip(all_texts, embedder.embed(all_texts), strict=True))
    return _Parsed(extractions, sentences, vecs)


def _mfss_rows(questions: Sequence[Question], parsed: _Parsed,
               weights: MFSSWeights, verifier: Verifier | None = None) -> list[Row]:
    """Every answer's MFSS, the question as prompt and its Best Answer as reference (the
    verifier, when given, reads reference -> answer for factual consistency)."""
    pairs = [(q.best, a) for q in questions for a in (*q.correct, *q.incorrect)]
    judged = dict(zip(pairs, verifier.judge(pairs), strict=True)) if verifier else {}
    rows: list[Row] = []
    vecs = parsed.vecs
    for q in questions:
        for label, answers in ((1, q.correct), (0, q.incorrect)):
            for answer in answers:
                sents = parsed.sentences[answer]
                score = mfss.mfss_from_parts(
                    answer, q.best, sents, vecs[answer], vecs[q.best],
                    np.stack([vecs[s] for s in sents]), weights, prompt_vec=vecs[q.question],
                    judgement=judged.get((q.best, answer)),
                )
                rows.append((q, answer, label, score))
    return rows


def _conflict_counts(questions: Sequence[Question], parsed: _Parsed, embedder: Embedder,
                     support_similarity: float,
                     verifier: Verifier | None = None) -> dict[str, dict[str, int]]:
    """The Best Answer as the claim, each correct / incorrect answer as a document: how
    many documents of each kind got each label."""
    def facts(text: str) -> tuple[Any, ...]:
        ex = parsed.extractions[text]
        return tuple(claims.facts_from_triples(ex.triples, ex.focus))

    counts = {kind: {"SUPPORT": 0, "CONTRADICT": 0, "IRRELEVANT": 0}
              for kind in ("correct", "incorrect")}
    for q in questions:
        claim = claims.AtomicClaim(q.best, facts(q.best))
        for kind, answers in (("correct", q.correct), ("incorrect", q.incorrect)):
            if not answers:
                continue
            evidence = [claims.Evidence(f"{kind}-{i}", tuple(parsed.sentences[a]), facts(a))
                        for i, a in enumerate(answers)]
            for doc_label in conflict.label_all([claim], evidence, embedder,
                                                support_similarity, verifier)[0]:
                counts[kind][doc_label] += 1
    return counts


def _value(score: MFSSScore, factor: str) -> float:
    v = getattr(score, factor)
    return float(v) if v is not None else 0.0


def _aucs(selected: Sequence[Row]) -> dict[str, float | None]:
    labels = [r[2] for r in selected]
    return {f: roc_auc(labels, [_value(r[3], f) for r in selected]) for f in FACTORS}


def _diagnostics(questions: Sequence[Question], rows: Sequence[Row], parsed: _Parsed,
                 weights: MFSSWeights) -> dict[str, Any]:
    """Not defaults: the paper's weights renormalised over the three reference factors
    only, the mean of per-question AUCs (each question against its own reference, instead
    of pooling answers to different questions), and the answers' form (why the style
    factors can carry little signal here)."""
    not_best = [r for r in rows if r[1] != r[0].best]
    ref_weights = {f: getattr(weights, f) for f in mfss.REFERENCE_FACTORS}
    ref_mass = sum(ref_weights.values()) or 1.0

    def reference_total(score: MFSSScore) -> float:
        return sum(w * _value(score, f) for f, w in ref_weights.items()) / ref_mass

    per_question: list[float] = []
    for q in questions:
        sel = [r for r in rows if r[0] is q]
        auc = roc_auc([r[2] for r in sel], [r[3].total for r in sel])
        if auc is not None:
            per_question.append(auc)
    return {
        "auc_reference_factors_only": roc_auc([r[2] for r in rows],
                                           [reference_total(r[3]) for r in rows]),
        "auc_reference_factors_only_excluding_best_answer": roc_auc(
            [r[2] for r in not_best], [reference_total(r[3]) for r in not_best]),
        "mean_per_question_auc_total": _mean(per_question),
        "questions_with_both_kinds": len(per_question),
        "single_sentence_share": round(
            sum(len(parsed.sentences[r[1]]) == 1 for r in rows) / max(1, len(rows)), 4),
        "mean_answer_words": {
            kind: _mean([float(len(r[1].split())) for r in rows if r[2] == label])
            for kind, label in (("correct", 1), ("incorrect", 0))},
        "factor_sd": {f: round(float(np.std([_value(r[3], f) for r in rows])), 4)
                      for f in FACTORS},
    }


def _categories(questions: Sequence[Question], rows: Sequence[Row]) -> dict[str, Any]:
    categories: dict[str, dict[str, Any]] = {}
    for category in sorted({q.category for q in questions}):
        sel = [r for r in rows if r[0].category == category]
        categories[category] = {
            "questions": sum(1 for q in questions if q.category == category),
            "mean_total_correct": _mean([r[3].total for r in sel if r[2] == 1]),
            "mean_total_incorrect": _mean([r[3].total for r in sel if r[2] == 0]),
            "auc_total": roc_auc([r[2] for r in sel], [r[3].total for r in sel]),
        }
    return categories


def run_truthfulqa_bench(
    path: Path,
    limit: int = 0,
    embedder: Embedder | None = None,
    extractor: Extractor | None = None,
    weights: MFSSWeights | None = None,
    support_similarity: float = conflict.DEFAULT_SUPPORT_SIMILARITY,
    verifier: Verifier | None = None,
    by_meaning: bool = True,
) -> dict[str, Any]:
    """MFSS and ConflictScore on TruthfulQA; `by_meaning` uses the shipped verifier (as the
    engine does) for factual consistency and the claim labels, else words and rules."""
    if verifier is None and by_meaning:
        from monitor.engine.verifier import default_verifier

        verifier = default_verifier()
    if embedder is None:
        from monitor.runner.build import build_embedder

        embedder = build_embedder()
    if extractor is None:
        from monitor.engine.extract import default_extractor

        extractor = default_extractor()
    weights = weights or MFSSWeights()
    started = time.perf_counter()
    questions = load_truthfulqa(path)
    if limit:
        questions = questions[:limit]
    parsed = _parse_and_embed(questions, extractor, embedder)
    parse_seconds = time.perf_counter() - started
    rows = _mfss_rows(questions, parsed, weights, verifier)
    counts = _conflict_counts(questions, parsed, embedder, support_similarity, verifier)
    return {
        "questions": len(questions),
        "answers": {"correct": sum(r[2] for r in rows),
                    "incorrect": sum(1 for r in rows if r[2] == 0)},
        "weights": weights.model_dump(),
        "auc": _aucs(rows),
        "auc_excluding_best_answer": _aucs([r for r in rows if r[1] != r[0].best]),
        "diagnostics": _diagnostics(questions, rows, parsed, weights),
        "means": {
            kind: {f: _mean([_value(r[3], f) for r in rows if r[2] == label])
                   for f in FACTORS}
            for kind, label in (("correct", 1), ("incorrect", 0))
        },
        "categories": _categories(questions, rows),
        "conflict_labels": {
            kind: {lab: round(n / max(1, sum(c.values())), 4) for lab, n in c.items()}
            | {"documents": sum(c.values())}
            for kind, c in counts.items()
        },
        "support_similarity": support_similarity,
        "by_meaning": verifier.model_id if verifier else None,
        "seconds": {"parse_and_embed": round(parse_seconds, 1),
                    "total": round(time.perf_counter() - started, 1)},
    }
