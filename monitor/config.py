"""Every constant of the engine in one typed, immutable object.

Defaults reproduce the SKG-Eval reference where the reference is right (fusion profiles,
gates, relevance mix) and are deliberate replacements where it is not (see the field
docs). Deployments override fields with `--config FILE` (TOML, validated here; `score` and
`worker` take it, `skg-monitor config show` prints the effective config); the config's hash
goes into the engine version so that scores computed under different constants are never
mixed up.
"""

from __future__ import annotations

import json
import math
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from monitor.contracts import Detector, content_id

Unit = Annotated[float, Field(ge=0.0, le=1.0)]


class FusionProfile(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")
    local: Unit
    consistency: Unit
    logic: Unit


class MFSSWeights(BaseModel):
    """Paper defaults (Gai, Lu, Huang 2026)."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    accuracy: float = 0.25
    conciseness: float = 0.10
    factual_consistency: float = 0.20
    readability: float = 0.15
    coherence: float = 0.15
    rouge: float = 0.15


RULE_CONFIDENCE: dict[str, float] = {
    "negation": 0.95, "antonym": 0.88, "numeric": 0.92, "exclusive": 0.80}
"""The default confidence of each structural rule's finding (engine.contradiction)."""


class EngineConfig(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    # --- regimes (reference 4.2) ---
    short_response_words: int = 12
    qa_prompt_words: int = 10

    # --- fusion profiles and gates (reference 4.12, 4.13) ---
    profile_short: FusionProfile = FusionProfile(local=0.50, consistency=0.10, logic=0.40)
    profile_qa: FusionProfile = FusionProfile(local=0.65, consistency=0.05, logic=0.30)
    profile_general: FusionProfile = FusionProfile(local=0.50, consistency=0.20, logic=0.30)
    logic_gate_threshold: float = 0.60
    logic_gate_cap: float = 0.40
    joint_weakness_local: float = 0.50
    joint_weakness_consistency: float = 0.45
    joint_weakness_factor: float = 0.75
    non_sequitur_local: float = 0.20
    non_sequitur_consistency: float = 0.45
    non_sequitur_factor: float = 0.50

    # --- local relevance (reference 4.4) ---
    relevance_prompt_weight: float = 0.4
    relevance_reference_weight: float = 0.6

    # --- graph: merging and linking (reference 3.3, 4.7) ---
    node_merge_similarity: float = 0.80
    """Cosine above which a new entity label merges into an existing node.
    Merging also requires word-boundary agreement (see engine.graph)."""
    semantic_link_similarity: float = 0.50
    semantic_link_top_k: int = 3
    """The reference links every older node above 0.50; we keep the 3 best so that the edge
    count per node stays bounded."""

    # --- historical consistency (reference 4.8, 4.9) ---
    anchor_fact: float = 1.0
    anchor_semantic: float = 0.65
    anchor_none: float = 0.2
    session_anchor_weight: float = 0.85
    drift_consistency: float = 0.45
    """Drift needs the turn's new nodes to be anchored below this (see engine.drift)."""
    drift_similarity: float = 0.20
    """...and the answer's best cosine to what was asked (request sentence match, user-led
    topic, follow-up operand) below this. On MT-Bench-101 (MiniLM) 1% of real answers fall
    below 0.33 while 95% of answers swapped in from other conversations fall below 0.29."""
    topic_shift_similarity: float = 0.10
    """A user turn (not a follow-up operation) whose cosine to both the topic and the last
    answer is below this moves the topic: on MT-Bench-101's topic-shift task the median is
    -0.03, on other tasks' follow-ups 0.19."""
    context_request_words: int = 8
    """A request shorter than this ("Yes, that would be helpful.", "Inception.") is judged
    in context: the answer's match to the thread counts as relevance too."""
    topic_blend: float = 0.5
    """Weight of the newest request/answer in the user-led topic vector (EMA)."""

    # --- contradictions ---
    rule_confidence: dict[str, Unit] = Field(default_factory=lambda: dict(RULE_CONFIDENCE))
    """Confidence of a structural rule's finding (negation, antonym, numeric, exclusive)
    before the verifier weighs it; a rule missing here keeps its default."""
    @field_validator("rule_confidence")
    @classmethod
    def _known_rules(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(RULE_CONFIDENCE))
        if unknown:
            raise ValueError(f"no rule named {', '.join(unknown)} (rules: "
                             f"{', '.join(RULE_CONFIDENCE)})")
        return value

    paging_detectors: tuple[Detector, ...] = (
        "negation", "numeric", "exclusive", "user_fact", "antonym", "nli", "constraint")
    """Detectors whose certificates may page (a self-correction never does)."""
    certificate_confidence_floor: float = 0.5
    page_confidence: float = 0.80
    """Certificates at or above this confidence have severity `page` and go to alerts."""
    self_correction_confidence_factor: float = 0.6
    alignment_similarity: float = 0.45
    """Two claims are compared only when their sentences are at least this similar (cosine
    of their embeddings): a shared word is not enough to be about the same thing."""
    amount_alignment: float = 0.55
    """Two sentences' amounts are compared without a shared subject only when the
    sentences are at least this similar and share a content word."""
    amount_confidence: float = 0.85
    amount_same_entailment: float = 0.80
    """Two amounts whose sentences fail the word gates are one thing's when the verifier's
    P(entailment) of the old amount's clause, with the new amount written in, over the
    new amount's clause reaches this. With the guards of `aligned.restated_clause`, on the
    amounts set's dev split 0.6 finds one restatement more than 0.8 and 0.9 none fewer,
    no false alarm either way; on a reviewer's blind set (166 conversations) 0.6 adds two
    false alarms and 0.9 loses two of five restatements for one false alarm fewer."""
    amount_meaning_checks: int = Field(default=16, ge=0)
    """Pairs of amounts an answer may send to the verifier for `amount_same_entailment`,
    in the order they are met (one call for all): on MT-Bench-101 the whole set sends
    four; an answer that repeats dozens of remembered prices must not cost one verifier
    call each."""
    page_alignment: float = 0.60
    """A certificate pages only when its two sentences are this well aligned; the rest,
    structurally weaker, are `warn`."""

    # --- contradictions by meaning (engine.meaning, engine.verifier) ---
    verifier_window: int = Field(default=48, ge=1)
    """Earlier asserted sentences (the assistant's, and the user's about themselves) kept
    as candidates: the per-turn cost depends on this, not on the conversation's length."""
    verifier_top_k: int = Field(default=2, ge=1)
    """Candidates per new sentence: its most similar earlier assertions."""
    verifier_similarity: float = 0.30
    """Cosine below which two sentences are not candidates at all. Low on purpose: on the
    blind probe's dev split the labelled contradictions' sentences were 0.30-0.45 similar
    as often as not; the verifier, not the cosine, decides."""
    verifier_max_pairs: int = Field(default=12, ge=1)
    """Pairs judged per turn at most (each costs two verifier calls, one per order); the
    most similar are kept."""
    verifier_entailment: float = 0.5
    """P(entailment) either way at or above this (and above P(contradiction)) makes a
    candidate of the verifier's agreement; both ways, it vetoes a rule's finding as a
    restatement."""
    verifier_certificate: float = 0.90
    """A finding of the verifier alone (detector `nli`) needs this P(contradiction). On the
    blind probe's dev split 0.6 let four false alarms in for each true one and 0.8 about
    one; of the MT-Bench-101 nli certificates read between 0.8 and 0.9, 2 of 11 were
    true."""
    verifier_user_certificate: float = 0.97
    """The same against what the user said about themselves: the verifier reads advice
    about a user's situation ("I have a weak back" / "strengthening your back helps") as
    incompatible with it far more often than it is (every such MT-Bench-101 certificate
    at 0.8 was judged false)."""
    verifier_paraphrase: float = 0.70
    """Cosine from which two sentences with the same numbers and the same polarity are a
    restatement whatever the verifier says (see engine.verdict.restates)."""
    verifier_max_nli_per_turn: int = Field(default=1, ge=0)
    """Findings of the verifier alone kept per answer (the most confident): an answer that
    contradicts an earlier one usually does so once, and each further pair found beside
    it is far more often a false alarm than a second contradiction."""
    verifier_page: float = 0.95
    """Combined confidence from which a certificate pages. The model card's calibration
    (precision 0.9 on its dev split's non-templated sources) gives 0.76; real assistant
    text is harder than that dev split (the blind probe's dev precision at 0.8 is about
    0.55), so paging starts higher."""

    max_constraints: int = Field(default=16, ge=1)
    """What the user ruled out is remembered this many at a time (newest kept)."""
    constraint_confidence: float = 0.90
    """Confidence of a `constraint` certificate (an answer offering what the user ruled
    out); rules alone judge it, so it pages at `page_confidence` like the other rules."""

    # --- session trend (reference 5, deliberately changed) ---
    trend_decay: float = 0.1
    """Recency weight of turn i is exp(trend_decay * i), used once: the reference squares it
    by accident through numpy.polyfit (weights exp(0.2 i)). We apply the weights the paper
    states, to both the level and the regression, so that level and slope agree."""
    trend_slope_threshold: float = 0.02
    """A trend needs a slope steeper than this per turn (0.2 over ten turns) ...
    (the reference uses 0.01 with no test; see engine.trend)"""
    trend_significance: float = 0.01
    """... and a one-sided t-test of the weighted slope significant at this level. Tested
    after every turn, so the level is strict: on simulated steady quality (mean 0.7, sd 0.1,
    30 turns) 5% of conversations are ever DEGRADING at 0.01 and 19% at 0.05 (slope 0.02);
    a decline of 0.04 per turn (sd 0.05) is caught at its 6th turn either way."""
    trend_exit_slope: float = 0.005
    """Hysteresis: DEGRADING (IMPROVING) holds until the slope rises above -0.005 (falls
    below +0.005), i.e. until the decline has stopped. See engine.trend."""
    trend_drop: float = 0.20
    trend_drop_turns: int = 3
    """A sustained drop is DEGRADING too: the last 3 turns all more than 0.20 below the mean
    of the turns before them (a step the slope test misses; see engine.trend)."""
    trend_min_turns: int = 4
    """Below this many scored turns the slope is 0 and the trend STABLE (three points are
    collinear by chance too often to call a direction)."""

    # --- state bounds (what one conversation's stored state keeps, newest kept) ---
    max_nodes: int = 400
    max_fact_edges: int = 1200
    max_prompt_chars: int = Field(default=4_000, ge=100)
    """The user's words since the last answer (the prompt the answer is scored against)."""
    recent_scores: int = Field(default=10, ge=0)
    recent_certificates: int = Field(default=10, ge=0)
    """Kept for the conversation's HTTP view only."""
    max_revisions: int = Field(default=20, ge=1)
    """Values the user replaced ("make it 10 people"), for `numeric` findings."""
    max_user_topics: int = Field(default=30, ge=1)
    """What recent user turns spoke of afresh (an older claim about it may be outdated)."""
    max_certified: int = Field(default=200, ge=1)
    """Keys of certified conflicts: a restated side of one is not certified again."""
    max_statements: int = Field(default=60, ge=1)
    """Recent sentences with amounts, for the amount detectors."""
    turn_digests: int = Field(default=64, ge=1)
    """Digests of the last applied turns: a re-sent index within them is told apart from
    a redelivery (engine.order); older ones are taken for redeliveries."""

    # --- work bounds per turn (engine.bounds) ---
    max_scored_chars: int = Field(default=2_500, ge=100)
    """Of an answer (and of its reference) the engine scores this many characters, cut at
    a sentence end: ROUGE-L and the claim-by-document labelling grow with its square. The
    defaults keep the heaviest admissible turn near one second of one core
    (`skg-monitor bench heavy`); raise them where more CPU per turn is available."""
    max_documents_scored: int = Field(default=3, ge=0)
    max_document_chars: int = Field(default=1_500, ge=100)
    max_claims_per_turn: int = Field(default=32, ge=1)
    max_certificates_per_turn: int = Field(default=8, ge=1)
    """The most confident certificates of a turn are kept; the rest are counted as cut."""

    # --- MFSS / ConflictScore ---
    mfss_weights: MFSSWeights = MFSSWeights()
    conflict_alert_cs_c: float = 0.5
    conflict_support_similarity: float = 0.75
    """Best cosine between a claim and a document's sentences from which the document
    SUPPORTs the claim (when no detector finds a contradiction between them)."""

    def fingerprint(self) -> str:
        """A short hash of every constant, part of the engine version."""
        return content_id(self.model_dump(mode="json"))[:8]


def load_config(path: Path | None) -> EngineConfig:
    """The defaults, or the fields a TOML file sets (a `.json` file is read as JSON), checked
    by `EngineConfig` (unknown keys and out-of-range values are errors).

    Raises ValueError (a pydantic ValidationError is one) for a file that does not parse
    or does not validate."""
    if path is None:
        return EngineConfig()
    text = path.read_text(encoding="utf-8")
    if path.suffix.lower() == ".json":
        return EngineConfig.model_validate_json(text)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{path}: not TOML: {exc}") from exc
    return EngineConfig.model_validate(data)


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    return json.dumps(str(value))  # JSON's string escapes are TOML's basic-string escapes


def config_toml(config: EngineConfig) -> str:
    """The config as a TOML file that `load_config` reads back to the same config: plain
    fields first, then one table per nested model (fusion profiles, MFSS weights)."""
    data = config.model_dump()
    lines = [_toml_line(key, v) for key, v in data.items() if not isinstance(v, dict)]
    for key, table in data.items():
        if isinstance(table, dict):
            lines += ["", f"[{key}]", *(_toml_line(k, v) for k, v in table.items())]
    return "\n".join(lines) + "\n"


def _toml_line(key: str, value: Any) -> str:
    """`key = value`; TOML has no null, so an unset field is a comment (its default)."""
    return f"# {key} unset" if value is None else f"{key} = {_toml_value(value)}"
