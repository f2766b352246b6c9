"""ConflictScore: the CS-C / CS-R arithmetic, labelling with the real extractor and
embedder, the alert, and the engine carrying MFSS and ConflictScore in its turn score."""

from __future__ import annotations

from typing import Any

import pytest

from monitor.contracts import ConflictAlert, ConflictScore, Document, TurnEvent, dump_record
from monitor.engine import claims as engine_claims
from monitor.quality import conflict
from monitor.quality.conflict import CONTRADICT, IRRELEVANT, SUPPORT

S, C, X = SUPPORT, CONTRADICT, IRRELEVANT


# --- arithmetic on hand-made labels -------------------------------------------------------
def test_cs_c_and_cs_r_hand_computed() -> None:
    labels = [
        [S, C, X],  # conflicted: |D-| / (|D+| + |D-|) = 1/2
        [S, S],     # supported only
        [C, X],     # contradicted only
        [S, C, C],  # conflicted: 2/3
    ]
    cs_c, cs_r = conflict.conflict_metrics(labels)
    assert cs_c == pytest.approx(2 / 4)
    assert cs_r == pytest.approx((1 / 2 + 2 / 3) / 2)


def test_no_conflicted_claims_gives_zero_ratio() -> None:
    assert conflict.conflict_metrics([[S, S], [C], [X]]) == (0.0, 0.0)
    assert conflict.conflict_metrics([]) == (0.0, 0.0)
    assert conflict.conflict_metrics([[]]) == (0.0, 0.0)


def test_every_claim_conflicted() -> None:
    cs_c, cs_r = conflict.conflict_metrics([[S, C], [C, C, C, S]])
    assert cs_c == 1.0
    assert cs_r == pytest.approx((0.5 + 0.75) / 2)


# --- labelling with the real extractor and embedder ----------------------------------------
@pytest.fixture(scope="module")
def models() -> tuple[Any, Any]:
    from monitor.engine.extract import default_extractor
    from monitor.runner.build import build_embedder

    return default_extractor(), build_embedder()


def _claims(extractor: Any, text: str) -> list[engine_claims.AtomicClaim]:
    from monitor.engine.extract import Utterance

    return engine_claims.claims_from_extraction(
        extractor.extract([Utterance(text, "assistant", 1)])[0])


def _labels(models: tuple[Any, Any], claim: str, docs: list[str]) -> list[str]:
    extractor, embedder = models
    evidence = engine_claims.evidence_from_documents(
        [Document(id=f"d{i}", text=t) for i, t in enumerate(docs)], extractor)
    return list(conflict.label_all(_claims(extractor, claim), evidence, embedder)[0])


def test_closed_contradicts_open(models: tuple[Any, Any]) -> None:
    assert _labels(models, "The museum is open on Mondays.",
                   ["The museum is closed on Mondays."]) == [CONTRADICT]


def test_supporting_and_irrelevant_documents(models: tuple[Any, Any]) -> None:
    assert _labels(models, "The museum is open on Mondays.",
                   ["The museum is open every Monday.", "Penguins live in Antarctica."]) == [
        SUPPORT, IRRELEVANT]


def test_numeric_contradiction(models: tuple[Any, Any]) -> None:
    assert _labels(models, "Tickets cost 12 euros.", ["Tickets cost 15 euros."]) == [CONTRADICT]


def test_questions_are_not_claims(models: tuple[Any, Any]) -> None:
    extractor, _ = models
    claims = _claims(extractor, "The museum is open on Mondays. Shall I book a ticket?")
    assert [c.text for c in claims] == ["The museum is open on Mondays."]
    assert claims[0].facts and claims[0].facts[0].subject == "museum"


def test_score_conflict_end_to_end(models: tuple[Any, Any]) -> None:
    extractor, embedder = models
    docs = [Document(id="open", text="The museum is open every Monday."),
            Document(id="closed", text="The museum is closed on Mondays."),
            Document(id="penguins", text="Penguins live in Antarctica.")]
    claims = _claims(extractor, "The museum is open on Mondays. Penguins live in Antarctica.")
    score = conflict.score_conflict(claims, docs, extractor, embedder)
    assert score.claims[0].support == ["open"]
    assert score.claims[0].contradict == ["closed"]
    assert score.claims[1].support == ["penguins"]
    assert score.claims[1].contradict == []
    assert (score.cs_c, score.cs_r) == (0.5, 0.5)
    again = conflict.score_conflict(claims, docs, extractor, embedder)
    assert again.model_dump_json() == score.model_dump_json()


# --- alert --------------------------------------------------------------------------------
def _score(cs_c: float) -> ConflictScore:
    from monitor.contracts import ClaimSupport

    return ConflictScore(cs_c=cs_c, cs_r=0.5, claims=[
        ClaimSupport(text="The museum is open on Mondays.", support=["a"], contradict=["b"]),
        ClaimSupport(text="Tickets cost 12 euros.", support=["c"], contradict=[]),
    ])


def test_conflict_alert_threshold_and_explanation() -> None:
    assert conflict.conflict_alert("conv", 3, _score(0.5), 0.6, "v") is None
    assert conflict.conflict_alert("conv", 3, ConflictScore(cs_c=0.0, cs_r=0.0, claims=[]),
                                   0.0, "v") is None
    alert = conflict.conflict_alert("conv", 3, _score(0.5), 0.5, "v")
    assert alert is not None and alert.severity == "warn"
    assert '"The museum is open on Mondays."' in alert.explanation
    assert "supported by a and contradicted by b" in alert.explanation
    assert "Tickets" not in alert.explanation
    same = conflict.conflict_alert("conv", 3, _score(0.5), 0.5, "v")
    assert same is not None and same.id == alert.id


# --- the engine -----------------------------------------------------------------------------
def test_engine_turn_score_carries_mfss_and_conflict() -> None:
    from monitor.runner.build import build_engine

    engine = build_engine()
    events = [
        TurnEvent(conversation_id="q", turn_index=0, role="user",
                  text="Is the museum open on Mondays?"),
        TurnEvent(conversation_id="q", turn_index=1, role="assistant",
                  text="Yes, the museum is open on Mondays.",
                  reference="The museum is open on Mondays.",
                  documents=[Document(id="site", text="The museum is open on Mondays."),
                             Document(id="blog", text="The museum is closed on Mondays.")]),
        TurnEvent(conversation_id="q", turn_index=2, role="user", text="And the café?"),
        TurnEvent(conversation_id="q", turn_index=3, role="assistant",
                  text="The café opens at nine."),
    ]
    outcomes = engine.process_batch(events, {})
    grounded, plain = outcomes[1].score, outcomes[3].score
    assert grounded is not None and plain is not None
    assert grounded.mfss is not None and grounded.mfss.accuracy is not None
    assert set(grounded.mfss.weights) == {"accuracy", "conciseness", "factual_consistency",
                                          "readability", "coherence", "rouge"}
    assert grounded.conflict is not None
    assert grounded.conflict.cs_c == 1.0 and grounded.conflict.cs_r == 0.5
    assert grounded.conflict.claims[0].support == ["site"]
    assert grounded.conflict.claims[0].contradict == ["blog"]
    alerts = [a for a in outcomes[1].alerts if isinstance(a, ConflictAlert)]
    assert len(alerts) == 1 and "site" in alerts[0].explanation and "blog" in alerts[0].explanation
    # no reference, no documents: reference factors absent, no ConflictScore
    assert plain.mfss is not None and plain.mfss.accuracy is None and plain.mfss.rouge is None
    assert plain.conflict is None
    assert sum(plain.mfss.weights.values()) == pytest.approx(1.0)
    # same input, same bytes
    again = build_engine().process_batch(events, {})
    assert dump_record(again[1].score) == dump_record(grounded)  # type: ignore[arg-type]
