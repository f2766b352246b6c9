"""`Engine` on fakes (tests/conftest.py): no model is loaded, so these run in milliseconds.

The real extractor and MiniLM are exercised by the integration tests (test_contradictions,
test_state_and_cli, ...)."""

from __future__ import annotations

from typing import Any

from monitor.contracts import Document, TurnEvent, dump_record
from monitor.engine.pipeline import _revision_quantities, _told_afresh
from monitor.engine.state import ConversationState
from monitor.quality.scorers import QualityScorers
from monitor.runner.build import build_engine
from tests.conftest import CountingEmbedder, FakeEmbedder, FakeExtractor


def _conversation(cid: str = "c", turns: int = 6) -> list[TurnEvent]:
    events = []
    for i in range(turns):
        role = "user" if i % 2 == 0 else "assistant"
        text = (f"Which museum in Lyon opens on day {i}?" if role == "user"
                else f"The museum in Lyon opens at {9 + i} on day {i}. It is quiet then.")
        events.append(TurnEvent(conversation_id=cid, turn_index=i, role=role, text=text))
    return events


def test_one_score_per_assistant_turn_and_byte_identical_again(fake_engine: Any) -> None:
    events = _conversation()
    first = fake_engine.process_batch(events, {})
    again = build_engine(embedder=FakeEmbedder(), extractor=FakeExtractor()).process_batch(
        events, {})
    scores = [o.score for o in first if o.score is not None]
    assert len(scores) == 3
    assert [dump_record(r) for o in first for r in o.records()] == \
        [dump_record(r) for o in again for r in o.records()]
    assert all(s.mfss is not None and s.conflict is None for s in scores)


def test_redelivered_turns_are_duplicates_and_change_nothing(fake_engine: Any) -> None:
    events = _conversation()
    states: dict[str, ConversationState] = {}
    fake_engine.process_batch(events, states)
    before = states["c"].to_bytes()
    outcomes = fake_engine.process_batch(events[2:4], states)
    assert all(o.duplicate and o.score is None for o in outcomes)
    assert states["c"].to_bytes() == before


def test_warm_up_keeps_no_state_and_changes_no_score(fake_engine: Any) -> None:
    events = _conversation()
    cold = [dump_record(r) for o in fake_engine.process_batch(events, {}) for r in o.records()]
    fake_engine.warm_up()
    warm = [dump_record(r) for o in fake_engine.process_batch(events, {}) for r in o.records()]
    assert cold == warm


class _RecordingScorers(QualityScorers):
    def __init__(self) -> None:
        super().__init__(verifier=None)
        self.calls: list[str] = []

    def score_mfss(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.calls.append("mfss")
        return super().score_mfss(*args, **kwargs)

    def score_conflict(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        self.calls.append("conflict")
        return super().score_conflict(*args, **kwargs)


def test_the_scorers_are_the_ones_passed_in(fake_embedder: FakeEmbedder) -> None:
    from monitor.config import EngineConfig
    from monitor.engine.pipeline import Engine

    scorers = _RecordingScorers()
    engine = Engine(EngineConfig(), fake_embedder, FakeExtractor(), scorers)
    question, answer = _conversation(turns=2)
    answer = answer.model_copy(update={"documents": [Document(id="d", text=answer.text)]})
    [_, outcome] = engine.process_batch([question, answer], {})
    assert scorers.calls == ["mfss", "conflict"]
    assert outcome.score is not None and outcome.score.conflict is not None


class _FragmentExtractor(FakeExtractor):
    """Every sentence asserted; those without a full stop are list items (fragments)."""

    def extract(self, items: Any) -> Any:
        out = super().extract(items)
        for ex in out:
            ex.asserted = [(s, "") for s in ex.sentences]
            ex.fragments = {s for s in ex.sentences if not s.endswith(".")}
        return out


class _RecordingVerifier:
    model_id = "recording"

    def __init__(self) -> None:
        self.seen: set[str] = set()

    def judge(self, pairs: Any) -> Any:
        from monitor.engine.protocols import Judgement

        for a, b in pairs:
            self.seen |= {a, b}
        return [Judgement(0.1, 0.8, 0.1) for _ in pairs]


def test_the_verifier_never_judges_list_items(fake_embedder: FakeEmbedder) -> None:
    verifier = _RecordingVerifier()
    engine = build_engine(embedder=fake_embedder, extractor=_FragmentExtractor(),
                          verifier=verifier)  # type: ignore[arg-type]
    texts = ["What should I pack?", "The museum opens at nine. Museum lunch boxes with cheese",
             "And for lunch?", "The museum opens at ten. Museum lunch boxes with apples"]
    engine.process_batch([TurnEvent(conversation_id="c", turn_index=i,
                                    role="user" if i % 2 == 0 else "assistant", text=t)
                          for i, t in enumerate(texts)], {})
    assert "The museum opens at ten." in verifier.seen  # claims reach it ...
    assert not verifier.seen & {"Museum lunch boxes with cheese", "Museum lunch boxes with apples"}


def test_an_answer_is_embedded_by_its_sentences_only() -> None:
    # its own vector is their mean direction: the whole text is never a model input
    embedder = CountingEmbedder()
    engine = build_engine(embedder=embedder, extractor=FakeExtractor())
    question, answer = _conversation(turns=2)
    engine.process_batch([question, answer], {})
    assert answer.text not in embedder.texts
    assert "It is quiet then." in embedder.texts
    assert question.text in embedder.texts  # a user turn is still one text


def test_mean_direction_is_a_unit_vector_and_one_row_is_itself() -> None:
    import numpy as np

    from monitor.engine.protocols import mean_direction

    rows = FakeEmbedder().embed(["the museum opens at nine", "it is quiet then"])
    mean = mean_direction(rows)
    assert abs(float(np.linalg.norm(mean)) - 1.0) < 1e-6
    assert mean.tobytes() == mean_direction(rows.copy()).tobytes()
    assert np.array_equal(mean_direction(rows[:1]), rows[0])
    assert not mean_direction(np.zeros((2, 4), dtype=np.float32)).any()


def test_a_question_without_its_mark_tells_nothing_new() -> None:
    # users often drop the question mark: asking about the timeout does not change it,
    # so what the assistant said of it before is still compared with what it says next
    asked = "do i actually need the timeout param if i'm just calling an internal service"
    assert _told_afresh([asked]) == []
    assert _told_afresh([asked + "?"]) == []
    assert "timeout" in _told_afresh(["I set the timeout param to 10 seconds."])
    # a lead-in before a statement, or a rhetorical question, tells something
    assert "pagination" in _told_afresh(
        ["did you check the docs, the orders API supports pagination with a cursor"])
    assert "queue" in _told_afresh(["Is it just me or is the job queue locking up"])
    assert "gateway" in _told_afresh(["did you know the internal gateway retries calls"])


def test_an_increment_in_a_revision_is_no_new_value() -> None:
    # "two more kids" adds to the count; the new count is "12"
    fresh, stale = _revision_quantities("Two more kids said yes, so we're at 12 now.")
    assert [q.surface for q in fresh] == ["12"] and stale == []
    # alone, the increment is the new value: "make it 10 more minutes"
    fresh, _ = _revision_quantities("Make it 10 more minutes.")
    assert [q.surface for q in fresh] == ["10 more minutes"]
