"""The three per-turn signals' arithmetic, regime choice, and gated fusion.

Pure functions of numbers and vectors: the pipeline gathers the inputs, these decide.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from monitor.config import EngineConfig, FusionProfile
from monitor.contracts import Regime


def word_count(text: str) -> int:
    return len(text.split())


def regime_of(prompt: str, response: str, config: EngineConfig) -> tuple[Regime, bool]:
    """(regime, both_short): short responses first, then short prompts, else general."""
    short_response = word_count(response) < config.short_response_words
    qa_prompt = word_count(prompt) < config.qa_prompt_words
    if short_response:
        return "short", qa_prompt
    if qa_prompt:
        return "qa", False
    return "general", False


def profile_for(regime: Regime, config: EngineConfig) -> FusionProfile:
    return {
        "short": config.profile_short,
        "qa": config.profile_qa,
        "general": config.profile_general,
    }[regime]


def clip01(value: float) -> float:
    return float(min(1.0, max(0.0, value)))


def local_relevance(
    prompt_vec: npt.NDArray[np.float32] | None,
    sentence_vecs: npt.NDArray[np.float32],
    reference_vec: npt.NDArray[np.float32] | None,
    config: EngineConfig,
) -> float:
    """Semantic triangle: best sentence-to-prompt match, mixed with best sentence-to-reference.

    Unlike the reference, the prompt is never one of the candidate sentences (that made
    short answers look perfectly relevant), and a reference is used whenever one is given.
    With no prompt (the assistant opens the conversation) only the reference can judge;
    without either, relevance is neutral (1.0).
    """
    m_p = float(np.max(sentence_vecs @ prompt_vec)) if prompt_vec is not None else None
    m_r = float(np.max(sentence_vecs @ reference_vec)) if reference_vec is not None else None
    if m_p is not None and m_r is not None:
        value = config.relevance_prompt_weight * m_p + config.relevance_reference_weight * m_r
    elif m_p is not None:
        value = m_p
    elif m_r is not None:
        value = m_r
    else:
        value = 1.0
    return clip01(value)


def request_relevance(local: float, operand_similarity: float | None,
                      context_similarity: float | None = None) -> float:
    """Relevance to what was asked: for a follow-up operation ("shorten it", "make it a
    table") the answer may match the operand (previous answer or quoted text) instead of
    the request's own words, and for a short elliptical request it may match the thread it
    continues (`context_similarity`), so the best of these counts. Plain requests: `local`."""
    others = [v for v in (operand_similarity, context_similarity) if v is not None]
    return clip01(max([local, *others]))


def graph_anchoring(anchors: list[tuple[float, float]]) -> float:
    """Importance-weighted mean of per-new-node anchoring; 1.0 when nothing is new."""
    if not anchors:
        return 1.0
    total = sum(w for w, _ in anchors)
    if total <= 0:
        return clip01(sum(a for _, a in anchors) / len(anchors))
    return clip01(sum(w * a for w, a in anchors) / total)


@dataclass(frozen=True)
class Fused:
    quality: float
    logic_gate: bool
    joint_weakness: bool
    non_sequitur: bool


def fuse(
    regime: Regime,
    both_short: bool,
    s_local: float,
    s_cons: float,
    s_logic: float,
    config: EngineConfig,
) -> Fused:
    profile = profile_for(regime, config)
    total = profile.local + profile.consistency + profile.logic
    q = (profile.local * s_local + profile.consistency * s_cons + profile.logic * s_logic) / total
    logic_gate = s_logic < config.logic_gate_threshold
    if logic_gate:
        q = min(q, config.logic_gate_cap)
    joint = (
        not both_short
        and s_local < config.joint_weakness_local
        and s_cons < config.joint_weakness_consistency
    )
    if joint:
        q *= config.joint_weakness_factor
    non_seq = (
        not both_short
        and s_cons < config.non_sequitur_consistency
        and s_local < config.non_sequitur_local
    )
    if non_seq:
        q *= config.non_sequitur_factor
    return Fused(clip01(q), logic_gate, joint, non_seq)
