"""`engine.order`: new, repeated, reused and late turns, decided once for the worker, the
CLI and the engine."""

from __future__ import annotations

from monitor.config import EngineConfig
from monitor.contracts import TurnEvent
from monitor.engine.order import classify, duplicates_of, turn_digest
from monitor.engine.state import ConversationState


def _turn(index: int, text: str = "hello", cid: str = "c") -> TurnEvent:
    return TurnEvent(conversation_id=cid, turn_index=index, role="user", text=text)


def _state(applied: list[TurnEvent]) -> ConversationState:
    state = ConversationState(conversation_id="c")
    for event in applied:
        state.last_turn_index = event.turn_index
        state.note_turn(event.turn_index, turn_digest(event), EngineConfig().turn_digests)
    return state


def test_each_kind_of_turn_is_told_apart() -> None:
    states = {"c": _state([_turn(0), _turn(1, "bye")])}
    events = [_turn(1, "bye"), _turn(1, "other text"), _turn(2), _turn(2), _turn(0, "late?")]
    verdicts = [v for v, _ in classify(events, states)]
    assert verdicts == ["duplicate", "conflict", "new", "duplicate", "conflict"]
    reasons = [r for _, r in classify([_turn(5), _turn(3)], {"c": _state([_turn(0)])})]
    assert reasons[0] == "" and "arrived after turn 5" in reasons[1]


def test_the_engines_duplicates_are_whatever_classify_does_not_call_new() -> None:
    states = {"c": _state([_turn(0), _turn(1, "bye")])}
    events = [_turn(1, "bye"), _turn(1, "x"), _turn(2), _turn(2), _turn(3, cid="d")]
    assert [v for v, _ in classify(events, states)] == [
        "duplicate", "conflict", "new", "duplicate", "new"]
    assert duplicates_of(events, states) == [True, True, False, True, False]


def test_a_turn_older_than_the_digest_window_is_taken_for_a_redelivery() -> None:
    state = ConversationState(conversation_id="c")
    for i in range(10):
        state.last_turn_index = i
        state.note_turn(i, turn_digest(_turn(i)), limit=4)
    assert sorted(state.digests) == [6, 7, 8, 9]
    assert classify([_turn(2, "changed")], {"c": state}) == [("duplicate", "")]
