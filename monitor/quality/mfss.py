"""Multi-Factor Scoring System (Gai, Lu, Huang 2026): six per-response factors and a total.

Pure functions: plain values in, plain values out, no I/O. The paper names the factors and
their default weights (accuracy 0.25, conciseness 0.10, factual consistency 0.20,
readability 0.15, coherence 0.15, ROUGE 0.15) but not every formula; where it does not, the
formula chosen here is written in the factor's docstring. Every factor lies in [0, 1],
higher is better.

Factors that need a reference answer (accuracy, factual consistency, ROUGE) are `None`
without one -- absent, not zero -- as is coherence for a one-sentence answer with no prompt
(no transition to judge), and the total is the weighted mean of the factors that
are present, with their weights renormalised to sum to 1. `MFSSScore.weights` records the
weights actually used, so a reader can tell which factors entered the total.

Sentences come from the extractor's sentence split, so the text is never split twice and
the factors agree with the rest of the engine on what a sentence is.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from monitor import data
from monitor.config import MFSSWeights
from monitor.contracts import MFSS_FACTORS, MFSSScore, round_score
from monitor.engine.protocols import Embedder, Judgement, Verifier, mean_direction
from monitor.quality import rouge as rouge_metric

OPTIMAL_SENTENCE_WORDS = 17.5
"""The paper's optimal mean sentence length (words)."""
LENGTH_TOLERANCE = 2.0
"""Answers up to this many times the reference length are not penalised for length."""
ROUGE_WEIGHTS: dict[str, float] = {"rouge1": 0.3, "rouge2": 0.3, "rougeL": 0.4}
"""ROUGE-L gets the largest share because it rewards the reference's word *order* (longest
common subsequence) without demanding contiguous bigrams; ROUGE-1 (content recall) and
ROUGE-2 (local phrasing) share the rest equally, so no single n-gram order dominates."""
NEGATORS = data.words("negation.tsv", "negator")
"""Kept as content words in factual consistency although they are stopwords: a negation
flips a fact ("you will not digest the seeds"), so it is part of what must match."""

_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)*")
FACTORS = MFSS_FACTORS
REFERENCE_FACTORS = frozenset({"accuracy", "factual_consistency", "rouge"})

Vector = npt.NDArray[np.float32]


def words(text: str) -> list[str]:
    """Lowercased word tokens (letters/digits, inner apostrophes kept: "don't")."""
    return _WORD.findall(text.lower())


@lru_cache(maxsize=1)
def _stopwords() -> frozenset[str]:
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(w.replace("’", "'") for w in STOP_WORDS) - NEGATORS


def content_words(text: str) -> set[str]:
    """Stemmed content words: tokens minus spaCy's English stopwords (negators kept).

    A token ending in "n't" counts as "not". Words longer than 3 letters are Porter-stemmed
    (as rouge-score does), so "seeds" matches "seed".
    """
    stop = _stopwords()
    out: set[str] = set()
    for w in words(text):
        w = w.replace("’", "'")
        if w.endswith("n't"):
            w = "not"
        if w in stop:
            continue
        out.add(rouge_metric.stem(w))
    return out


# --- the six factors ------------------------------------------------------------------
def accuracy(answer_vec: Vector, reference_vec: Vector) -> float:
    """accuracy = clip(cos(e(answer), e(reference)), 0, 1) for L2-normalised embeddings e."""
    return float(np.clip(np.dot(answer_vec, reference_vec), 0.0, 1.0))


def redundancy(answer: str, sentences: Sequence[str]) -> float:
    """r = max(r_3, r_s), the larger of two repetition rates in [0, 1]:

    * r_3 = 1 - unique / total word trigrams of the answer (0 below 3 words);
    * r_s = 1 - unique / total sentences (sentences compared lowercased, by their words).
    """
    toks = words(answer)
    trigrams = [tuple(toks[i : i + 3]) for i in range(len(toks) - 2)]
    r3 = 1.0 - len(set(trigrams)) / len(trigrams) if trigrams else 0.0
    sents = [" ".join(words(s)) for s in sentences]
    sents = [s for s in sents if s]
    rs = 1.0 - len(set(sents)) / len(sents) if sents else 0.0
    return max(r3, rs)


def length_penalty(answer: str, reference: str) -> float:
    """p = exp(-(L - 2)) if L > 2 else 1, with L = words(answer) / words(reference).

    An answer up to twice the reference length is not penalised; beyond that the factor
    decays exponentially (2.5x the reference -> 0.61, 3x -> 0.37, 4x -> 0.14).
    """
    ref_len = len(words(reference))
    if ref_len == 0:
        return 1.0
    ratio = len(words(answer)) / ref_len
    return math.exp(-(ratio - LENGTH_TOLERANCE)) if ratio > LENGTH_TOLERANCE else 1.0


def conciseness(answer: str, reference: str | None, sentences: Sequence[str]) -> float:
    """conciseness = (1 - r)^2 * p: the quadratic redundancy penalty times the exponential
    length penalty (see `redundancy` and `length_penalty`). Without a reference there is no
    length to compare with and only (1 - r)^2 applies.
    """
    base = (1.0 - redundancy(answer, sentences)) ** 2
    if reference is None:
        return base
    return base * length_penalty(answer, reference)


def factual_consistency(answer: str, reference: str) -> float:
    """|A ∩ R| / |R| over the stemmed content-word sets A (answer) and R (reference).

    The share of the reference's key terms the answer contains (recall, as in the paper's set
    overlap with the ground truth). A reference with no content words (all stopwords) falls
    back to its plain word set; an empty reference gives 1.0 (nothing to be consistent with).
    """
    ref = content_words(reference)
    ans = content_words(answer)
    if not ref:
        ref, ans = set(words(reference)), set(words(answer))
    if not ref:
        return 1.0
    return len(ans & ref) / len(ref)


def factual_consistency_by_meaning(judgement: Judgement) -> float:
    """(1 + P(entailment) - P(contradiction)) / 2 of reference -> answer, from the verifier.

    1 when the reference entails the answer, 0 when it contradicts it, 0.5 when it says
    nothing either way: consistency of meaning, not of shared words (an answer that repeats
    the reference's words with a "not" is not consistent with it).
    """
    return (1.0 + judgement.entailment - judgement.contradiction) / 2.0


def sentence_length_score(sentences: Sequence[str]) -> float:
    """s_len = max(0, 1 - |m - 17.5| / 17.5), m = mean words per sentence.

    1 at the paper's optimum of 17.5 words, falling linearly to 0 at 0 and at 35 words.
    """
    counts = [len(words(s)) for s in sentences]
    counts = [c for c in counts if c > 0]
    if not counts:
        return 0.0
    mean = sum(counts) / len(counts)
    return max(0.0, 1.0 - abs(mean - OPTIMAL_SENTENCE_WORDS) / OPTIMAL_SENTENCE_WORDS)


def lexical_diversity(text: str) -> float:
    """Type/token ratio: unique words / words (0 for a text without words)."""
    toks = words(text)
    return len(set(toks)) / len(toks) if toks else 0.0


def readability(answer: str, sentences: Sequence[str]) -> float:
    """readability = 0.5 * s_len + 0.5 * TTR (see `sentence_length_score`,
    `lexical_diversity`): the paper's two components, equally weighted."""
    return 0.5 * sentence_length_score(sentences) + 0.5 * lexical_diversity(answer)


def coherence(sentence_vecs: Vector, prompt_vec: Vector | None = None) -> float | None:
    """Mean of clip(cos(s_i, s_i+1), 0, 1) over adjacent embeddings of the chain
    [prompt, s_1, ..., s_n]: the answer's sentences must follow from each other and the
    first from what it answers. Without a prompt the chain is the sentences alone.

    A chain of one link has no transition to judge: the factor is then absent (None), not a
    perfect 1.0. The constant 1.0 was a defect: most short answers (all of TruthfulQA's)
    got full marks for coherence, which added a constant to the total and no information.
    """
    chain = sentence_vecs if prompt_vec is None else np.vstack([prompt_vec, sentence_vecs])
    if len(chain) < 2:
        return None
    sims = np.sum(chain[:-1] * chain[1:], axis=1)
    return float(np.mean(np.clip(sims, 0.0, 1.0)))


def rouge(answer: str, reference: str) -> float:
    """0.3 * ROUGE-1 F1 + 0.3 * ROUGE-2 F1 + 0.4 * ROUGE-L F1 (`monitor.quality.rouge`,
    Porter stemming; see ROUGE_WEIGHTS for why)."""
    scores = rouge_metric.scores(reference, answer)
    return sum(w * scores[name] for name, w in ROUGE_WEIGHTS.items())


# --- total ------------------------------------------------------------------------------
def combine(
    factors: dict[str, float | None], weights: MFSSWeights
) -> tuple[float, dict[str, float]]:
    """Weighted mean of the present factors; returns (total, renormalised weights used)."""
    configured = weights.model_dump()
    present = {name: configured[name] for name in FACTORS if factors.get(name) is not None}
    mass = sum(present.values())
    if mass <= 0:
        return 0.0, {name: 0.0 for name in present}
    used = {name: w / mass for name, w in present.items()}
    total = 0.0
    for name, w in used.items():
        value = factors[name]
        assert value is not None
        total += w * value
    return total, used


def mfss_from_parts(
    answer: str,
    reference: str | None,
    sentences: Sequence[str],
    answer_vec: Vector,
    reference_vec: Vector | None,
    sentence_vecs: Vector,
    weights: MFSSWeights,
    prompt_vec: Vector | None = None,
    judgement: Judgement | None = None,
) -> MFSSScore:
    """The score from precomputed embeddings (lets a benchmark embed everything in one batch).

    `judgement` is the verifier's reading of reference -> answer; with it, factual
    consistency is by meaning (`factual_consistency_by_meaning`), else by shared words.
    """
    sentences = list(sentences) or [answer]
    if reference_vec is None:
        reference = None
    factors: dict[str, float | None] = {name: None for name in FACTORS}
    factors["conciseness"] = conciseness(answer, reference, sentences)
    factors["readability"] = readability(answer, sentences)
    factors["coherence"] = coherence(sentence_vecs, prompt_vec)
    if reference is not None and reference_vec is not None:
        factors["accuracy"] = accuracy(answer_vec, reference_vec)
        factors["factual_consistency"] = (
            factual_consistency_by_meaning(judgement) if judgement is not None
            else factual_consistency(answer, reference))
        factors["rouge"] = rouge(answer, reference)
    total, used = combine(factors, weights)
    out = {name: None if v is None else round_score(v) for name, v in factors.items()}
    return MFSSScore(
        accuracy=out["accuracy"],
        conciseness=out["conciseness"] or 0.0,
        factual_consistency=out["factual_consistency"],
        readability=out["readability"] or 0.0,
        coherence=out["coherence"],
        rouge=out["rouge"],
        total=round_score(total),
        weights={name: round_score(w) for name, w in used.items()},
    )


def score_mfss(
    answer: str,
    reference: str | None,
    sentences: Sequence[str],
    embedder: Embedder,
    weights: MFSSWeights,
    prompt: str | None = None,
    verifier: Verifier | None = None,
) -> MFSSScore:
    """All six factors and the weighted total for one answer.

    `sentences` is the extractor's split of `answer` (the whole answer when empty). A blank
    reference counts as no reference; a blank prompt as no prompt.
    """
    if reference is not None and not reference.strip():
        reference = None
    sentences = list(sentences) or [answer]
    vecs = embedder.embed([*sentences] + ([reference] if reference is not None else []))
    sentence_vecs = vecs[: len(sentences)]
    answer_vec = mean_direction(sentence_vecs)
    reference_vec = vecs[-1] if reference is not None else None
    prompt_vec = embedder.embed([prompt])[0] if prompt and prompt.strip() else None
    judgement = (verifier.judge([(reference, answer)])[0]
                 if verifier is not None and reference is not None else None)
    return mfss_from_parts(answer, reference, sentences, answer_vec, reference_vec,
                           sentence_vecs, weights, prompt_vec, judgement)
