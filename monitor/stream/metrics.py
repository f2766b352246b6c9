"""Prometheus metrics of the worker (names are shared with grafana/ and prometheus/).

Base units, `_total` counters, bounded labels only (never a conversation id). Gauges that
describe conversations cover the conversations *this* worker owns and saw within the idle
window, so `sum()` over workers gives the fleet: e.g. fleet level = sum(level_sum) /
sum(active), DEGRADING share = sum(degrading) / sum(active).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import get_args

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram

from monitor.contracts import (
    MFSS_FACTORS,
    ConflictAlert,
    ContradictionCertificate,
    Detector,
    Regime,
    Severity,
    TrendAlert,
    TurnScore,
)

DEAD_LETTER_REASONS = ("invalid_json", "schema", "oversized", "not_utf8", "missing_key",
                       "key_mismatch", "too_deep", "surrogate", "decode_error",
                       "turn_conflict", "out_of_order", "processing_error", "serialise_error",
                       "produce_error", "state_unreadable")
STATE_DECODE_KINDS = ("corrupt", "unknown_version", "old_version")
SIGNALS = ("local_relevance", "relevance", "topic_consistency", "logic")
"""`relevance` (to what was asked, follow-up operands included) is what enters quality;
`topic_consistency` is TurnScore.consistency, renamed here because its anchor now follows the
user's topic changes (it used to be the `consistency` label, anchored at the first answer)."""
FACTOR_LABELS = {name: "coherence_in_context" if name == "coherence" else name
                 for name in MFSS_FACTORS}
"""MFSSScore field -> `factor` label: the field's name, but for coherence. Coherence now
includes the prompt-to-answer link and is absent for a one-link chain (it was 1.0), so its
label was renamed."""
ALERT_KINDS = ("contradiction", "trend", "conflict")
CUT_KINDS = ("text_chars", "documents", "claims", "certificates")
UNIT_BUCKETS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
SLOPE_BUCKETS = (-0.1, -0.05, -0.02, -0.01, -0.005, 0.0, 0.005, 0.01, 0.02, 0.05, 0.1)
SECONDS_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
                   10.0)


class Metrics:
    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        reg = registry if registry is not None else REGISTRY
        # declared in this order (the order of /metrics), in groups
        self._declare_turns(reg)
        self._declare_conversations(reg)
        self._declare_score_parts(reg)
        self._declare_state_and_health(reg)
        self._preinit()

    def _declare_turns(self, reg: CollectorRegistry) -> None:
        """Turns processed, how long they took, and what they produced."""
        self.turns = Counter("skg_turns", "Turns processed", ["role", "regime"], registry=reg)
        self.quality = Histogram("skg_turn_quality", "Fused quality of assistant turns",
                                 buckets=UNIT_BUCKETS, registry=reg)
        self.signal = Histogram("skg_turn_signal", "Per-turn SKG signals", ["signal"],
                                buckets=UNIT_BUCKETS, registry=reg)
        self.certificates = Counter("skg_certificates", "Contradiction certificates",
                                    ["detector", "severity"], registry=reg)
        self.processing = Histogram("skg_turn_processing_seconds",
                                    "Engine time per turn", buckets=SECONDS_BUCKETS, registry=reg)
        self.lag = Histogram("skg_produce_to_score_lag_seconds",
                             "Kafka record timestamp to outputs produced",
                             buckets=SECONDS_BUCKETS, registry=reg)
        self.duplicates = Counter("skg_duplicates_skipped",
                                  "Turns not newer than the last processed one", registry=reg)
        self.gaps = Counter("skg_turn_gaps", "Turns after a gap in turn_index", registry=reg)
        self.dead_letters = Counter("skg_dead_letters", "Messages sent to the dead-letter "
                                    "topic", ["reason"], registry=reg)
        self.alerts = Counter("skg_alerts", "Alerts produced", ["kind"], registry=reg)

    def _declare_conversations(self, reg: CollectorRegistry) -> None:
        """The conversations this worker owns (see `ActiveConversations`)."""
        self.active = Gauge("skg_active_conversations",
                            "Conversations owned by this worker seen within the idle window",
                            registry=reg)
        self.degrading = Gauge("skg_sustained_decline_conversations",
                               "Active conversations whose trend is DEGRADING (a significant "
                               "decline or a sustained drop; was skg_degrading_conversations "
                               "when any slope below -0.01 counted)", registry=reg)
        self.level_sum = Gauge("skg_active_conversations_level_sum",
                               "Sum of recency-weighted quality levels of active "
                               "conversations", registry=reg)
        self.slope_sum = Gauge("skg_active_conversations_slope_sum",
                               "Sum of quality slopes of active conversations", registry=reg)
        self.slope = Histogram("skg_conversation_slope",
                               "Conversation quality slope after each scored turn",
                               buckets=SLOPE_BUCKETS, registry=reg)

    def _declare_score_parts(self, reg: CollectorRegistry) -> None:
        """MFSS and ConflictScore inside the scores, and what the work bounds left out."""
        self.mfss_total = Histogram("skg_mfss_total", "MFSS total per assistant turn",
                                    buckets=UNIT_BUCKETS, registry=reg)
        self.mfss_factor = Histogram("skg_mfss_factor", "MFSS factors", ["factor"],
                                     buckets=UNIT_BUCKETS, registry=reg)
        self.conflict_cs_c = Histogram("skg_conflict_cs_c", "ConflictScore CS-C",
                                       buckets=UNIT_BUCKETS, registry=reg)
        self.cut = Counter("skg_turn_cut", "Items left out by the per-turn work bounds "
                           "(characters, documents, claims, certificates)", ["what"],
                           registry=reg)

    def _declare_state_and_health(self, reg: CollectorRegistry) -> None:
        """Stored conversation states, and whether the worker and the broker are up."""
        self.expired = Counter("skg_conversations_expired", "Conversation states deleted "
                               "after the idle TTL", registry=reg)
        self.state_resets = Counter("skg_state_resets", "Local table partitions dropped "
                                    "because the broker's changelog was behind them "
                                    "(a broker that lost its data)", registry=reg)
        self.recovery_stalls = Counter(
            "skg_recovery_stalls", "Changelog partitions whose recovery made no progress "
            "for a minute, by what was done: gap (caught up), reseek, skipped", ["action"],
            registry=reg)
        self.state_decode_failures = Counter(
            "skg_state_decode_failures", "Stored conversation states that could not be read: "
            "corrupt or unknown_version (quarantined), old_version (reset)", ["kind"],
            registry=reg)
        self.quarantined = Gauge("skg_quarantined_conversations", "Conversations whose "
                                 "stored state cannot be read; their turns are dead-lettered "
                                 "until an operator resets them", registry=reg)
        self.batch_failures = Counter("skg_batch_failures", "Batches that failed as a whole "
                                      "and were retried (offsets held back)", registry=reg)
        self.agent_up = Gauge("skg_agent_up", "1 while the scoring agent processes batches, "
                              "0 while a batch keeps failing", registry=reg)
        self.broker_up = Gauge("skg_broker_up", "1 while the broker accepts connections",
                               registry=reg)
        self.full_collections = Histogram(
            "skg_gc_full_collection_seconds", "Whole-heap garbage collections, run between "
            "batches every SKG_FULL_COLLECTION_EVERY_S", buckets=SECONDS_BUCKETS, registry=reg)
        self.info = Gauge("skg_worker_info", "Worker version", ["version"], registry=reg)

    def _preinit(self) -> None:
        """Known label combinations start at 0 so rate() has data from the first scrape."""
        self.agent_up.set(1)
        self.broker_up.set(1)
        for reason in DEAD_LETTER_REASONS:
            self.dead_letters.labels(reason=reason)
        for kind in STATE_DECODE_KINDS:
            self.state_decode_failures.labels(kind=kind)
        for kind in ALERT_KINDS:
            self.alerts.labels(kind=kind)
        for what in CUT_KINDS:
            self.cut.labels(what=what)
        for detector in get_args(Detector):
            for severity in get_args(Severity):
                self.certificates.labels(detector=detector, severity=severity)
        for regime in get_args(Regime):
            self.turns.labels(role="assistant", regime=regime)
        for role in ("user", "system"):
            self.turns.labels(role=role, regime="none")
        for name in SIGNALS:
            self.signal.labels(signal=name)
        for label in FACTOR_LABELS.values():
            self.mfss_factor.labels(factor=label)

    def observe_score(self, score: TurnScore, seconds: float) -> None:
        self.turns.labels(role="assistant", regime=score.regime).inc()
        self.quality.observe(score.quality)
        self.signal.labels(signal="local_relevance").observe(score.local_relevance)
        if score.relevance is not None:
            self.signal.labels(signal="relevance").observe(score.relevance)
        self.signal.labels(signal="topic_consistency").observe(score.consistency)
        self.signal.labels(signal="logic").observe(score.logic)
        self.slope.observe(score.slope)
        self.processing.observe(seconds)
        if score.mfss is not None:
            self.mfss_total.observe(score.mfss.total)
            for name, label in FACTOR_LABELS.items():
                value = getattr(score.mfss, name)
                if value is not None:
                    self.mfss_factor.labels(factor=label).observe(value)
        if score.conflict is not None:
            self.conflict_cs_c.observe(score.conflict.cs_c)

    def observe_alert(self, alert: object) -> None:
        if isinstance(alert, ContradictionCertificate):
            self.alerts.labels(kind="contradiction").inc()
        elif isinstance(alert, TrendAlert):
            self.alerts.labels(kind="trend").inc()
        elif isinstance(alert, ConflictAlert):
            self.alerts.labels(kind="conflict").inc()


@dataclass
class _Seen:
    partition: int
    last_seen: float
    level: float | None
    slope: float
    degrading: bool


class ActiveConversations:
    """Conversations this worker owns, seen within the idle window -> the gauges."""

    def __init__(self, metrics: Metrics, idle_window_s: float) -> None:
        self.metrics = metrics
        self.idle_window_s = idle_window_s
        self._seen: dict[str, _Seen] = {}

    def touch(self, conversation_id: str, partition: int, level: float | None, slope: float,
              degrading: bool, now: float | None = None) -> None:
        self._seen[conversation_id] = _Seen(partition, now or time.monotonic(), level, slope,
                                            degrading)

    def refresh(self, owned_partitions: set[int] | None = None,
                now: float | None = None) -> None:
        now = now or time.monotonic()
        cutoff = now - self.idle_window_s
        self._seen = {
            cid: s for cid, s in self._seen.items()
            if s.last_seen >= cutoff
            and (owned_partitions is None or s.partition in owned_partitions)
        }
        values = list(self._seen.values())
        self.metrics.active.set(len(values))
        self.metrics.degrading.set(sum(1 for s in values if s.degrading))
        self.metrics.level_sum.set(sum(s.level for s in values if s.level is not None))
        self.metrics.slope_sum.set(sum(s.slope for s in values))
