"""Message contracts: every record that enters or leaves the monitor.

One module holds them all so that the offline CLI, the Faust worker and the JSON Schemas in
`schemas/` can never drift apart. Output records carry a literal `type` field so a JSON
Lines consumer can dispatch on it, and a deterministic `id` so a consumer can deduplicate
records that at-least-once delivery repeated.
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    field_validator,
    model_validator,
)

MAX_TEXT_CHARS = 20_000
MAX_DOCUMENTS = 32
MAX_TURN_INDEX = 2**31 - 1
"""A turn index is an order within one conversation: a Java int is more than enough, and a
bound keeps a producer's 10^30 from making every later turn of its conversation "old"."""
MAX_JSON_DEPTH = 16
"""Deepest nesting of objects and arrays in one input message (TurnEvent itself uses 3)."""
MAX_METADATA_DEPTH = 8
MAX_METADATA_BYTES = 16 * 1024
"""`metadata` is passed through to every score of the turn, so it is kept small."""

_SURROGATE = re.compile("[\ud800-\udfff]")

Role = Literal["user", "assistant", "system"]
Regime = Literal["short", "qa", "general"]
Trend = Literal["IMPROVING", "STABLE", "DEGRADING"]
Detector = Literal[
    "negation", "antonym", "numeric", "exclusive", "user_fact", "self_correction", "nli",
    "constraint",
]
Modality = Literal["asserted", "hypothetical", "reported", "question"]
Severity = Literal["page", "warn"]

ConversationId = Annotated[str, StringConstraints(min_length=1, max_length=256)]


def content_id(*parts: object) -> str:
    """A short, stable id from the content it names, so replays produce the same id."""
    blob = json.dumps(parts, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:24]


def json_problem(value: Any, max_depth: int, where: str = "") -> str | None:
    """Why a parsed JSON value cannot pass through the monitor, or None.

    Two things the JSON parser accepts but the rest of the pipeline cannot carry: nesting
    deeper than `max_depth` (Python's encoder and pydantic recurse, so a deep value
    fails later, at serialisation) and lone UTF-16 surrogates from `\\ud800` escapes (no
    UTF-8 encoding exists for them, so writing the output fails). Walked iteratively, so a
    deep value cannot exhaust the stack here.
    """
    stack: list[tuple[Any, int, str]] = [(value, 0, where)]
    while stack:
        item, depth, path = stack.pop()
        if isinstance(item, str):
            found = _SURROGATE.search(item)
            if found:
                return (f"{(path or 'value')[:200]}: contains a lone surrogate "
                        f"U+{ord(found.group()):04X} (not valid Unicode)")
        elif isinstance(item, dict | list):
            if depth + 1 > max_depth:
                return f"{(path or 'value')[:200]}: nested deeper than {max_depth} levels"
            pairs = item.items() if isinstance(item, dict) else enumerate(item)
            for key, child in pairs:
                child_path = f"{path}.{key}" if path else str(key)
                if isinstance(key, str) and _SURROGATE.search(key):
                    return f"{(path or 'value')[:200]}: a key contains a lone surrogate"
                stack.append((child, depth + 1, child_path))
    return None


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Document(_Strict):
    """A retrieved piece of evidence the answer was grounded in."""

    id: Annotated[str, StringConstraints(min_length=1, max_length=256)]
    text: Annotated[str, StringConstraints(min_length=1, max_length=MAX_TEXT_CHARS)]


class TurnEvent(_Strict):
    """One turn of one conversation: the input topic's value and the CLI's input line.

    Unknown fields are rejected (not ignored) so that a producer's typo such as
    `turnIndex` is reported instead of silently scoring a turn without its index; free-form
    extras belong in `metadata`, which is passed through to the outputs.
    """

    conversation_id: ConversationId
    turn_index: Annotated[int, Field(ge=0, le=MAX_TURN_INDEX, strict=True)]
    """Strict: "4", 2.0 and true are errors, not indexes (a producer bug must show)."""
    role: Role
    text: Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)]
    timestamp: datetime | None = None
    reference: Annotated[str, StringConstraints(max_length=MAX_TEXT_CHARS)] | None = None
    documents: Annotated[list[Document], Field(max_length=MAX_DOCUMENTS)] | None = None
    metadata: dict[str, Any] | None = None

    @model_validator(mode="before")
    @classmethod
    def _plain_json(cls, data: Any) -> Any:
        problem = json_problem(data, MAX_JSON_DEPTH)
        if problem:
            raise ValueError(problem)
        return data

    @field_validator("metadata")
    @classmethod
    def _metadata_bounded(cls, value: dict[str, Any] | None) -> dict[str, Any] | None:
        if value is None:
            return value
        problem = json_problem(value, MAX_METADATA_DEPTH)
        if problem:
            raise ValueError(problem)
        try:
            size = len(json.dumps(value, ensure_ascii=False, allow_nan=False).encode("utf-8"))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"not plain JSON: {exc}") from exc
        if size > MAX_METADATA_BYTES:
            raise ValueError(f"is {size} bytes as JSON, limit is {MAX_METADATA_BYTES}")
        return value

    @field_validator("text")
    @classmethod
    def _text_not_blank(cls, value: str) -> str:
        if not value.strip():
            raise ValueError("text must contain at least one non-whitespace character")
        return value

    @field_validator("timestamp")
    @classmethod
    def _timestamp_has_zone(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("timestamp must be RFC 3339 with a time zone offset (e.g. Z)")
        return value


class Claim(_Strict):
    """A triple as a certificate shows it: what was said, by whom, where."""

    subject: str
    relation: str
    object: str
    negated: bool
    quantity: float | None = None
    unit: str | None = None
    speaker: Role
    turn_index: int
    sentence: str
    spans: list[tuple[int, int]] = Field(default_factory=list)
    """[start, end) character offsets in `sentence` of the words the conflict rests on
    (the value, the opposite word, the negation)."""


class VerifierJudgement(_Strict):
    """What the trained contradiction verifier said of a certificate's two sentences."""

    model: str
    """The verifier's model id (it carries the first 12 hex digits of the file's sha256)."""
    contradiction: Annotated[float, Field(ge=0.0, le=1.0)]
    """P(contradiction), the mean of both orders."""
    entailment: Annotated[float, Field(ge=0.0, le=1.0)]
    """P(entailment), the larger of the two orders."""


class ContradictionCertificate(_Strict):
    """Auditable proof that a turn contradicts an earlier turn."""

    type: Literal["certificate"] = "certificate"
    id: str
    conversation_id: ConversationId
    turn_index: int
    conflicts_with: int
    claim: Claim
    prior: Claim
    detector: Detector
    confidence: Annotated[float, Field(ge=0.0, le=1.0)]
    severity: Severity
    explanation: str
    same_subject: str = ""
    """Why the two claims are about the same thing (same node, aligned sentences...)."""
    verifier: VerifierJudgement | None = None
    """The verifier's judgement of the pair; None only for a constraint judged by rules
    alone, or an engine built without a verifier."""
    engine_version: str


class GateFlags(_Strict):
    logic_gate: bool
    joint_weakness: bool
    non_sequitur: bool


SCORE_DECIMALS = 6


def round_score(value: float) -> float:
    """Scores are published with 6 decimals: stable text, no false precision."""
    return round(float(value), SCORE_DECIMALS)


MFSS_FACTORS = ("accuracy", "conciseness", "factual_consistency", "readability", "coherence",
                "rouge")
"""The six MFSS factors, in the paper's order: `MFSSScore`'s and `MFSSWeights`' fields, the
metrics' `factor` labels and the report's radar axes are these (tests check the fields)."""


class MFSSScore(_Strict):
    """Multi-Factor Scoring System factors; factors that need a reference are None without one."""

    accuracy: float | None
    conciseness: float
    factual_consistency: float | None
    readability: float
    coherence: float | None
    """Adjacent-sentence coherence of [prompt, sentences]; None with a single link."""
    rouge: float | None
    total: float
    weights: dict[str, float]


class ClaimSupport(_Strict):
    text: str
    support: list[str]
    contradict: list[str]


class ConflictScore(_Strict):
    """ConflictScore over the turn's documents: lower is better."""

    cs_c: float
    cs_r: float
    claims: list[ClaimSupport]


class TurnScore(_Strict):
    """The score of one assistant turn, with the session trend after it."""

    type: Literal["turn_score"] = "turn_score"
    id: str
    conversation_id: ConversationId
    turn_index: int
    regime: Regime
    local_relevance: float
    """Best match of the answer's sentences to the request's words (and the reference)."""
    relevance: float | None = None
    """Relevance to what was asked (None only in records from before the field): the
    `local_relevance`, or for a follow-up operation the
    better of it and the answer's match to the operand (previous answer / quoted text).
    This is the relevance that enters `quality`."""
    operation: str | None = None
    """The follow-up operation the request asked for (rephrase, summarise, ...), if any."""
    topic_shift: bool = False
    """The user changed topic before this answer (it opened a new consistency segment)."""
    consistency: float
    logic: float
    quality: float
    gates: GateFlags
    drift: bool
    """The assistant left what was asked (see engine.drift); a user topic change is not drift."""
    certificates: list[str]
    mfss: MFSSScore | None = None
    conflict: ConflictScore | None = None
    level: float
    slope: float
    trend: Trend
    previous_turn_index: int | None
    gap: bool
    timestamp: datetime | None = None
    metadata: dict[str, Any] | None = None
    engine_version: str
    latency_ms: float | None = None


class SessionSummary(_Strict):
    """One per conversation: the state of its quality after the last turn seen."""

    type: Literal["session"] = "session"
    id: str
    conversation_id: ConversationId
    turns: int
    assistant_turns: int
    last_turn_index: int
    mean_local_relevance: float | None
    mean_consistency: float | None
    mean_logic: float | None
    mean_quality: float | None
    level: float | None
    slope: float
    trend: Trend
    certificates: int
    gaps: int
    engine_version: str


class InvalidInput(_Strict):
    """A line of CLI input that could not be read as a TurnEvent."""

    type: Literal["invalid"] = "invalid"
    line: int
    reason: str
    raw: str


class DeadLetter(_Strict):
    """A Kafka message that could not be processed, with everything needed to replay it."""

    type: Literal["dead_letter"] = "dead_letter"
    id: str
    reason: str
    source_topic: str
    partition: int
    offset: int
    key_b64: str | None
    value_b64: str
    value_bytes: int | None = None
    """Size of the original value; with `value_truncated` the b64 holds only its start."""
    value_sha256: str | None = None
    """SHA-256 (hex) of the whole original value, to match it against the source topic."""
    value_truncated: bool = False


class TrendAlert(_Strict):
    """A conversation crossed into DEGRADING."""

    type: Literal["trend_alert"] = "trend_alert"
    id: str
    conversation_id: ConversationId
    turn_index: int
    previous_trend: Trend
    trend: Trend
    level: float
    slope: float
    severity: Severity
    explanation: str


class ConflictAlert(_Strict):
    """An answer that takes one side of a conflict in its own documents."""

    type: Literal["conflict_alert"] = "conflict_alert"
    id: str
    conversation_id: ConversationId
    turn_index: int
    cs_c: float
    cs_r: float
    severity: Severity
    explanation: str


OutputRecord = TurnScore | ContradictionCertificate | SessionSummary | TrendAlert | ConflictAlert

#: Every model whose JSON Schema is published in `schemas/`.
SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "turn_event": TurnEvent,
    "turn_score": TurnScore,
    "certificate": ContradictionCertificate,
    "session": SessionSummary,
    "invalid": InvalidInput,
    "dead_letter": DeadLetter,
    "trend_alert": TrendAlert,
    "conflict_alert": ConflictAlert,
}


def dump_record(record: BaseModel) -> str:
    """One canonical JSON line: the same record always gives the same bytes."""
    return json.dumps(
        record.model_dump(mode="json", exclude_none=False),
        sort_keys=True,
        separators=(",", ":"),
        ensure_ascii=False,
    )
