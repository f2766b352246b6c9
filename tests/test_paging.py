"""The paging policy (monitor/stream/paging.py): alert contents and when alerts are posted."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest

from monitor.contracts import (
    Claim,
    ContradictionCertificate,
    GateFlags,
    Severity,
    Trend,
    TrendAlert,
    TurnEvent,
    TurnScore,
    content_id,
)
from monitor.engine.pipeline import TurnOutcome
from monitor.stream.paging import (
    CONTRADICTION,
    DEGRADING,
    HOUR_S,
    Pager,
    PagingPolicy,
    PostableAlert,
    certificate_alert,
    conversation_label,
)

T0 = 1_800_000_000.0
POLICY = PagingPolicy(deployment_labels={"env": "prod", "cluster": "eu-1"},
                      public_url="https://skg.example.com/", max_per_conversation_hour=3,
                      repost_s=60.0, ttl_s=300.0, certificate_hold_s=3600.0, expire_s=900.0)


def _event(cid: str, turn: int) -> TurnEvent:
    return TurnEvent(conversation_id=cid, turn_index=turn, role="assistant", text="x")


def _cert(cid: str, turn: int, severity: Severity = "page") -> ContradictionCertificate:
    claim = Claim(subject="museum", relation="open", object="monday", negated=True,
                  speaker="assistant", turn_index=turn,
                  sentence="The museum is not open on Mondays.")
    prior = claim.model_copy(update={"negated": False, "turn_index": 1,
                                     "sentence": "The museum is open on Mondays."})
    return ContradictionCertificate(
        id=content_id("cert", cid, turn), conversation_id=cid, turn_index=turn,
        conflicts_with=1, claim=claim, prior=prior, detector="negation", confidence=0.95,
        severity=severity, engine_version="test",
        explanation=f"turn {turn} says the museum is not open on Mondays; turn 1 says it is")


def _score(cid: str, turn: int, trend: Trend) -> TurnScore:
    return TurnScore(
        id=content_id("score", cid, turn), conversation_id=cid, turn_index=turn,
        regime="general", local_relevance=0.5, consistency=0.5, logic=1.0, quality=0.5,
        gates=GateFlags(logic_gate=False, joint_weakness=False, non_sequitur=False),
        drift=False, certificates=[], level=0.5, slope=-0.05 if trend == "DEGRADING" else 0.0,
        trend=trend, previous_turn_index=turn - 2, gap=False, engine_version="test")


def _outcome(cid: str, turn: int, trend: Trend = "STABLE", *, crossed: bool = False,
             certs: list[ContradictionCertificate] | None = None) -> TurnOutcome:
    alerts: list[Any] = [c for c in certs or [] if c.severity == "page"]
    if crossed:
        alerts.append(TrendAlert(
            id=content_id("trend", cid, turn), conversation_id=cid, turn_index=turn,
            previous_trend="STABLE", trend="DEGRADING", level=0.5, slope=-0.05,
            severity="warn", explanation=f"quality trend turned DEGRADING at turn {turn}"))
    return TurnOutcome(event=_event(cid, turn), score=_score(cid, turn, trend),
                       certificates=certs or [], alerts=alerts)


def _names(alerts: list[PostableAlert]) -> list[tuple[str, str, bool]]:
    return [(a.alertname, a.annotations["conversation_id"], a.resolved) for a in alerts]


def test_certificate_alert_carries_the_proof_with_bounded_labels() -> None:
    cert = _cert("user@example.com/chat 42", 7)
    alert = certificate_alert(cert, POLICY, T0)
    assert alert.labels == {"env": "prod", "cluster": "eu-1", "alertname": CONTRADICTION,
                            "severity": "page", "detector": "negation",
                            "conversation": conversation_label(cert.conversation_id),
                            "certificate": cert.id}
    # labels never carry the raw id: fixed-length hex digests only
    assert len(alert.labels["conversation"]) == 24
    assert int(alert.labels["conversation"], 16) >= 0
    ann = alert.annotations
    assert ann["conversation_id"] == "user@example.com/chat 42"
    assert (ann["turn_index"], ann["conflicts_with"]) == ("7", "1")
    assert ann["sentence"] == "The museum is not open on Mondays."
    assert ann["prior_sentence"] == "The museum is open on Mondays."
    assert ann["explanation"] == cert.explanation and ann["certificate_id"] == cert.id
    # the id is URL-quoted in the link (untrusted text stays data)
    assert ann["conversation_url"] == ("https://skg.example.com/conversations/"
                                       "user%40example.com%2Fchat%2042")
    body = alert.to_json()
    assert body["startsAt"] == datetime.fromtimestamp(T0, UTC).strftime(
        "%Y-%m-%dT%H:%M:%S.000Z")
    assert body["generatorURL"] == ann["conversation_url"]


def test_long_sentences_are_clipped_in_annotations() -> None:
    cert = _cert("c", 3)
    long = cert.model_copy(update={"claim": cert.claim.model_copy(
        update={"sentence": "word " * 2000})})
    assert len(certificate_alert(long, POLICY, T0).annotations["sentence"]) == 1000


@pytest.mark.parametrize("labels", [{"alertname": "x"}, {"conversation": "x"},
                                    {"bad-name": "x"}, {"env": ""}])
def test_deployment_labels_are_validated(labels: dict[str, str]) -> None:
    with pytest.raises(ValueError):
        PagingPolicy(deployment_labels=labels)


def test_ttl_must_exceed_the_repost_interval() -> None:
    with pytest.raises(ValueError, match="re-post"):
        PagingPolicy(repost_s=60, ttl_s=60)


def test_page_certificates_are_posted_warn_only_when_configured() -> None:
    outcome = _outcome("c", 3, certs=[_cert("c", 3, "page"), _cert("c", 5, "warn")])
    posted = Pager(POLICY).observe([outcome], T0).post
    assert [a.labels["severity"] for a in posted] == ["page"]
    with_warn = PagingPolicy(warn_certificates=True)
    assert len(Pager(with_warn).observe([outcome], T0).post) == 2


def test_a_replayed_certificate_is_the_same_alert_and_not_posted_twice() -> None:
    pager = Pager(POLICY)
    outcome = _outcome("c", 3, certs=[_cert("c", 3)])
    first = pager.observe([outcome], T0).post
    assert len(first) == 1 and first[0].ends_at == T0 + POLICY.ttl_s
    assert pager.observe([outcome], T0 + 1).post == []


def test_degrading_fires_on_the_crossing_and_resolves_on_recovery() -> None:
    pager = Pager(POLICY)
    fired = pager.observe([_outcome("c", 5, "DEGRADING", crossed=True)], T0).post
    assert _names(fired) == [(DEGRADING, "c", False)]
    assert fired[0].labels["severity"] == "warn" and "certificate" not in fired[0].labels
    assert pager.observe([_outcome("c", 7, "DEGRADING")], T0 + 10).post == []
    resolved = pager.observe([_outcome("c", 9, "IMPROVING")], T0 + 20).post
    assert _names(resolved) == [(DEGRADING, "c", True)]
    assert resolved[0].ends_at == T0 + 20 and resolved[0].starts_at == T0
    assert resolved[0].fingerprint == fired[0].fingerprint
    assert pager.active_counts() == {CONTRADICTION: 0, DEGRADING: 0}


def test_a_degrading_conversation_is_adopted_after_a_restart() -> None:
    pager = Pager(POLICY)  # a fresh worker: the crossing happened before it started
    adopted = pager.observe([_outcome("c", 9, "DEGRADING")], T0).post
    assert _names(adopted) == [(DEGRADING, "c", False)]


def test_active_alerts_are_reposted_while_they_hold() -> None:
    pager = Pager(replace(POLICY, expire_s=2 * HOUR_S))
    pager.observe([_outcome("c", 5, "DEGRADING", crossed=True,
                            certs=[_cert("c", 5)])], T0)
    assert pager.tick(T0 + 30).post == []  # not due yet
    due = pager.tick(T0 + 60).post
    assert sorted(a.alertname for a in due) == [CONTRADICTION, DEGRADING]
    assert {a.ends_at for a in due} == {T0 + 60 + POLICY.ttl_s}
    assert {a.starts_at for a in due} == {T0}
    # the certificate holds for an hour: the last re-post ends exactly then, then nothing
    late = pager.tick(T0 + HOUR_S - 100).post
    cert_post = next(a for a in late if a.alertname == CONTRADICTION)
    assert cert_post.ends_at == T0 + HOUR_S
    pager.observe([_outcome("c", 7, "DEGRADING")], T0 + HOUR_S - 50)  # keeps it active
    after = pager.tick(T0 + HOUR_S + 1).post
    assert [a.alertname for a in after] == [DEGRADING]
    assert pager.active_counts()[CONTRADICTION] == 0


def test_an_idle_degrading_conversation_expires_resolved() -> None:
    pager = Pager(POLICY)
    pager.observe([_outcome("c", 5, "DEGRADING", crossed=True)], T0)
    assert not any(a.resolved for a in pager.tick(T0 + POLICY.expire_s).post)
    expired = [a for a in pager.tick(T0 + POLICY.expire_s + 1).post if a.resolved]
    assert _names(expired) == [(DEGRADING, "c", True)]
    assert pager.tick(T0 + 2 * POLICY.expire_s).post == []
    # back, and still DEGRADING: alerted again
    back = pager.observe([_outcome("c", 7, "DEGRADING")], T0 + 2 * POLICY.expire_s).post
    assert _names(back) == [(DEGRADING, "c", False)]


def test_a_capped_degrading_alert_is_not_retried_until_recovery() -> None:
    pager = Pager(replace(POLICY, max_per_conversation_hour=1))
    assert len(pager.observe([_outcome("c", 3, certs=[_cert("c", 3)])], T0).post) == 1
    first = pager.observe([_outcome("c", 5, "DEGRADING", crossed=True)], T0 + 1)
    assert (first.post, first.capped) == ([], 1)
    again = pager.observe([_outcome("c", 7, "DEGRADING")], T0 + 2)
    assert (again.post, again.capped) == ([], 0)


def test_new_alerts_are_capped_per_conversation_per_hour() -> None:
    pager = Pager(POLICY)  # cap 3
    certs = [_cert("c", t) for t in range(3, 13, 2)]  # 5 certificates
    decision = pager.observe([_outcome("c", 13, certs=certs)], T0)
    assert (len(decision.post), decision.capped) == (3, 2)
    other = pager.observe([_outcome("d", 3, certs=[_cert("d", 3)])], T0)
    assert (len(other.post), other.capped) == (1, 0)  # the cap is per conversation
    # re-posts and resolutions are never capped; an hour later there is room again
    assert len(pager.tick(T0 + 60).post) == 4
    later = pager.observe([_outcome("c", 15, certs=[_cert("c", 15)])], T0 + HOUR_S + 1)
    assert (len(later.post), later.capped) == (1, 0)


def test_conversations_on_partitions_no_longer_owned_are_forgotten_unresolved() -> None:
    pager = Pager(POLICY)
    pager.observe([_outcome("c", 5, "DEGRADING", crossed=True)], T0, {"c": 2})
    # mid-rebalance the assignment is empty: that is "unknown", not "owns nothing"
    assert _names(pager.tick(T0 + 60, owned_partitions=set()).post) == [(DEGRADING, "c", False)]
    assert pager.tick(T0 + 120, owned_partitions={0, 1}).post == []  # no re-post, no resolve
    assert pager.active_counts()[DEGRADING] == 0
