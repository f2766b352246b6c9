"""What the worker tells Alertmanager, and when: alert building and the paging policy, no I/O.

`monitor.stream.alertmanager` moves what `Pager` decides to Alertmanager's v2 API; this
module only decides, from the engine's outcomes and a clock passed in, so every rule below
is a plain unit test away.

Two alerts, both one per thing a person acts on:

* `SkgContradiction`: one per certificate (`page` severity; `warn` too if the deployment
  asks). A certificate is an event, so the alert holds for a fixed time
  (`certificate_hold_s`) and then ends by itself.
* `SkgConversationDegrading`: one per conversation while its trend is DEGRADING. It fires on
  the engine's TrendAlert (the crossing into DEGRADING) and is resolved (`endsAt` = now) at
  the first later score whose trend is not DEGRADING, or when the conversation has been idle
  for `expire_s` (its state leaves the active set the gauges count).

Labels: Alertmanager tells alerts apart, and groups them, only by labels, so a per-conversation
alert needs the conversation in its labels. Prometheus metrics never carry it (their series
live for ever); an Alertmanager alert is gone a few days after it resolves. The label
`conversation` is therefore a fixed-length digest of the conversation id (24 hex
characters): it groups and silences exactly like the id, but a producer's id (up to 256
characters of anything, possibly a user's e-mail) never becomes a routing key, a matcher or
part of a URL. The id itself travels as an annotation with the sentences and the link.
`certificate` (the certificate's content id, also 24 hex) keeps two certificates of one
conversation apart and makes a replayed certificate the same alert again.

No storms: an active alert is re-posted every `repost_s` with `endsAt` = now + `ttl_s`
while it holds, so an Alertmanager that restarted learns it again and an alert whose worker
died resolves within `ttl_s`; at most `max_per_conversation_hour` new alerts per
conversation per rolling hour (resolutions and re-posts are never capped); grouping by
`conversation` is the shipped alertmanager.yml's job.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any
from urllib.parse import quote

from monitor.contracts import ContradictionCertificate, TrendAlert, content_id
from monitor.engine.pipeline import TurnOutcome

CONTRADICTION = "SkgContradiction"
DEGRADING = "SkgConversationDegrading"
ALERTNAMES = (CONTRADICTION, DEGRADING)
#: labels the worker sets itself; deployment labels may not reuse them
RESERVED_LABELS = frozenset({"alertname", "severity", "detector", "conversation",
                             "certificate"})
HOUR_S = 3600.0
#: longest annotation value: sentences can be 20k characters, a pager message cannot
MAX_ANNOTATION_CHARS = 1_000
_LABEL_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")

Fingerprint = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class PostableAlert:
    """One element of Alertmanager's `POST /api/v2/alerts` body (times in epoch seconds)."""

    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    starts_at: float
    ends_at: float
    generator_url: str | None = None
    resolved: bool = False
    """True for the post that ends the alert now (recovered or expired)."""

    @property
    def fingerprint(self) -> Fingerprint:
        """Alertmanager's identity of an alert: its label set."""
        return tuple(sorted(self.labels.items()))

    @property
    def alertname(self) -> str:
        return self.labels["alertname"]

    def to_json(self) -> dict[str, Any]:
        body: dict[str, Any] = {"labels": dict(self.labels),
                                "annotations": dict(self.annotations),
                                "startsAt": _rfc3339(self.starts_at),
                                "endsAt": _rfc3339(self.ends_at)}
        if self.generator_url:
            body["generatorURL"] = self.generator_url
        return body


def _rfc3339(epoch_s: float) -> str:
    return datetime.fromtimestamp(epoch_s, UTC).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z")


def _clip(text: str) -> str:
    return text if len(text) <= MAX_ANNOTATION_CHARS else text[:MAX_ANNOTATION_CHARS - 1] + "…"


def conversation_label(conversation_id: str) -> str:
    """The `conversation` label: a stable digest of the id (see the module docstring)."""
    return content_id("conversation", conversation_id)


@dataclass(frozen=True)
class PagingPolicy:
    """Everything the paging decisions depend on (from `StreamSettings` in the shell)."""

    deployment_labels: Mapping[str, str] = field(default_factory=dict)
    public_url: str | None = None
    warn_certificates: bool = False
    max_per_conversation_hour: int = 10
    repost_s: float = 60.0
    ttl_s: float = 300.0
    certificate_hold_s: float = 3600.0
    expire_s: float = 900.0

    def __post_init__(self) -> None:
        for name, value in self.deployment_labels.items():
            if not _LABEL_NAME.match(name) or name in RESERVED_LABELS:
                raise ValueError(f"alert label {name!r}: not a valid Prometheus label name "
                                 f"or one the worker sets ({sorted(RESERVED_LABELS)})")
            if not value:
                raise ValueError(f"alert label {name!r} has an empty value")
        if self.ttl_s <= self.repost_s:
            raise ValueError(f"alert ttl ({self.ttl_s} s) must exceed the re-post interval "
                             f"({self.repost_s} s), or alerts flap between posts")

    def conversation_url(self, conversation_id: str) -> str | None:
        if not self.public_url:
            return None
        return f"{self.public_url.rstrip('/')}/conversations/{quote(conversation_id, safe='')}"

    def labels(self, alertname: str, severity: str, conversation_id: str,
               **extra: str) -> dict[str, str]:
        return {**self.deployment_labels, "alertname": alertname, "severity": severity,
                "conversation": conversation_label(conversation_id), **extra}


def certificate_alert(cert: ContradictionCertificate, policy: PagingPolicy,
                      now: float) -> PostableAlert:
    """`SkgContradiction` for one certificate, with its proof in the annotations."""
    url = policy.conversation_url(cert.conversation_id)
    annotations = {
        "summary": _clip(f"{cert.detector} contradiction in conversation "
                         f"{cert.conversation_id} at turn {cert.turn_index} "
                         f"(vs turn {cert.conflicts_with})"),
        "description": _clip(cert.explanation),
        "explanation": _clip(cert.explanation),
        "conversation_id": cert.conversation_id,
        "turn_index": str(cert.turn_index),
        "conflicts_with": str(cert.conflicts_with),
        "sentence": _clip(cert.claim.sentence),
        "speaker": cert.claim.speaker,
        "prior_sentence": _clip(cert.prior.sentence),
        "prior_speaker": cert.prior.speaker,
        "confidence": f"{cert.confidence:.3f}",
        "certificate_id": cert.id,
        "engine_version": cert.engine_version,
    }
    if url:
        annotations["conversation_url"] = url
    labels = policy.labels(CONTRADICTION, cert.severity, cert.conversation_id,
                           detector=cert.detector, certificate=cert.id)
    return PostableAlert(labels, annotations, now, now + policy.certificate_hold_s, url)


def degrading_alert(conversation_id: str, turn_index: int, level: float | None,
                    slope: float, explanation: str, severity: str, policy: PagingPolicy,
                    now: float) -> PostableAlert:
    """`SkgConversationDegrading` for one conversation (its only distinguishing label)."""
    url = policy.conversation_url(conversation_id)
    annotations = {
        "summary": _clip(f"conversation {conversation_id} is DEGRADING since turn "
                         f"{turn_index}"),
        "description": _clip(explanation),
        "explanation": _clip(explanation),
        "conversation_id": conversation_id,
        "turn_index": str(turn_index),
        "level": "" if level is None else f"{level:.3f}",
        "slope": f"{slope:+.4f}",
    }
    if url:
        annotations["conversation_url"] = url
    labels = policy.labels(DEGRADING, severity, conversation_id)
    return PostableAlert(labels, annotations, now, now + policy.ttl_s, url)


@dataclass
class _Active:
    alert: PostableAlert
    conversation_id: str
    hold_until: float | None  # None: holds until resolved (degrading)
    next_post: float


@dataclass
class _Conversation:
    last_seen: float
    partition: int | None
    posted: deque[float] = field(default_factory=deque)  # first posts in the rolling hour
    alerts: set[Fingerprint] = field(default_factory=set)
    degrading: Fingerprint | None = None
    degrading_capped: bool = False


@dataclass
class Decision:
    """What to post now, and how many new alerts the per-conversation cap held back."""

    post: list[PostableAlert] = field(default_factory=list)
    capped: int = 0


class Pager:
    """The paging state machine: outcomes and clock ticks in, alerts to post out.

    State is per worker and in memory: after a restart (or an expiry) a conversation that
    is still DEGRADING is alerted again at its next DEGRADING score (same labels, so
    Alertmanager sees the same alert), and a certificate alert lives on in Alertmanager until its
    `endsAt`. Conversations on partitions the worker no longer owns are forgotten without
    resolving them: the new owner carries them on, and what nobody re-posts ends at `endsAt`.
    """

    def __init__(self, policy: PagingPolicy) -> None:
        self.policy = policy
        self._active: dict[Fingerprint, _Active] = {}
        self._conversations: dict[str, _Conversation] = {}

    def active_counts(self) -> dict[str, int]:
        counts = dict.fromkeys(ALERTNAMES, 0)
        for active in self._active.values():
            counts[active.alert.alertname] += 1
        return counts

    def observe(self, outcomes: Iterable[TurnOutcome], now: float,
                partitions: Mapping[str, int] | None = None) -> Decision:
        decision = Decision()
        for outcome in outcomes:
            cid = outcome.event.conversation_id
            conv = self._touch(cid, now, (partitions or {}).get(cid))
            for cert in outcome.certificates:
                if cert.severity == "page" or self.policy.warn_certificates:
                    self._fire(certificate_alert(cert, self.policy, now), cid, conv, now,
                               now + self.policy.certificate_hold_s, decision)
            score = outcome.score
            if score is None:
                continue
            if score.trend != "DEGRADING":
                if conv.degrading is not None:
                    decision.post.append(self._resolve(conv, now))
                conv.degrading_capped = False
            elif conv.degrading is None and not conv.degrading_capped:
                # the engine's TrendAlert marks the crossing; without one (this worker
                # restarted, took the partition over, or the alert expired) the score's own
                # trend says the conversation is still DEGRADING
                trend = next((a for a in outcome.alerts if isinstance(a, TrendAlert)), None)
                alert = degrading_alert(
                    cid, score.turn_index, score.level, score.slope,
                    trend.explanation if trend is not None else
                    f"quality trend is DEGRADING at turn {score.turn_index}: level "
                    f"{score.level:.2f}, slope {score.slope:+.3f} per turn",
                    trend.severity if trend is not None else "warn", self.policy, now)
                if self._fire(alert, cid, conv, now, None, decision):
                    conv.degrading = alert.fingerprint
                else:  # over the cap: not again until it has recovered
                    conv.degrading_capped = True
        return decision

    def tick(self, now: float, owned_partitions: set[int] | None = None) -> Decision:
        """Re-post what still holds and is due, resolve what expired, forget the rest.

        `owned_partitions` None or empty means "not known right now" (no consumer yet, or
        mid-rebalance): nothing is forgotten for ownership then.
        """
        decision = Decision()
        for cid, conv in list(self._conversations.items()):
            if (owned_partitions and conv.partition is not None
                    and conv.partition not in owned_partitions):
                for key in conv.alerts:
                    self._active.pop(key, None)
                del self._conversations[cid]
                continue
            idle = now - conv.last_seen
            if conv.degrading is not None and idle > self.policy.expire_s:
                decision.post.append(self._resolve(conv, now))
            if idle > max(self.policy.expire_s, HOUR_S) and not conv.alerts:
                del self._conversations[cid]
        for key, active in list(self._active.items()):
            if active.hold_until is not None and now >= active.hold_until:
                del self._active[key]  # its last post already ends at hold_until
                conv_left = self._conversations.get(active.conversation_id)
                if conv_left is not None:
                    conv_left.alerts.discard(key)
            elif now >= active.next_post:
                active.next_post = now + self.policy.repost_s
                decision.post.append(self._renewed(active, now))
        return decision

    # --- internals ------------------------------------------------------------------------
    def _touch(self, cid: str, now: float, partition: int | None) -> _Conversation:
        conv = self._conversations.get(cid)
        if conv is None:
            conv = self._conversations[cid] = _Conversation(now, partition)
        conv.last_seen = now
        if partition is not None:
            conv.partition = partition
        return conv

    def _renewed(self, active: _Active, now: float) -> PostableAlert:
        ends = now + self.policy.ttl_s
        if active.hold_until is not None:
            ends = min(ends, active.hold_until)
        return replace(active.alert, ends_at=ends)

    def _fire(self, alert: PostableAlert, cid: str, conv: _Conversation, now: float,
              hold_until: float | None, decision: Decision) -> bool:
        key = alert.fingerprint
        if key in self._active:  # a replayed turn: the same alert, already out
            return True
        while conv.posted and conv.posted[0] <= now - HOUR_S:
            conv.posted.popleft()
        if len(conv.posted) >= self.policy.max_per_conversation_hour:
            decision.capped += 1
            return False
        conv.posted.append(now)
        conv.alerts.add(key)
        active = self._active[key] = _Active(alert, cid, hold_until, now + self.policy.repost_s)
        decision.post.append(self._renewed(active, now))
        return True

    def _resolve(self, conv: _Conversation, now: float) -> PostableAlert:
        assert conv.degrading is not None
        key, conv.degrading = conv.degrading, None
        conv.alerts.discard(key)
        active = self._active.pop(key)
        return replace(active.alert, ends_at=now, resolved=True)
