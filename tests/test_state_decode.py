"""Stored states that cannot be read: what `ConversationState.from_bytes` says, how the
worker's per-conversation read quarantines one conversation, and a stop during retries.
No broker, no models (a stub engine)."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import math
import time
import zlib
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import ormsgpack
import pytest
import zstandard
from hypothesis import given, settings
from hypothesis import strategies as st

from monitor.contracts import TurnEvent
from monitor.engine.graph import Fact
from monitor.engine.meaning import Assertion
from monitor.engine.state import (
    FORMAT_MSGPACK_ZSTD,
    MIGRATIONS,
    STATE_VERSION,
    ConversationState,
    StateDecodeError,
    StateTooOld,
)
from monitor.stream import expiry
from tests.worker_stubs import StubEngine, stub_monitor


def _blob(plain: dict[str, Any]) -> bytes:
    return zlib.compress(json.dumps(plain).encode())


def _plain(cid: str = "c") -> dict[str, Any]:
    return ConversationState(conversation_id=cid).to_plain()


@pytest.mark.parametrize("raw, kind", [
    (b"garbage", "corrupt"),
    (b"", "corrupt"),
    (zlib.compress(b"not json"), "corrupt"),
    (zlib.compress(b"\xff\xfe"), "corrupt"),
    (zlib.compress(b"[1, 2]"), "corrupt"),
    (_blob({"v": STATE_VERSION}), "corrupt"),
    (_blob({**_plain(), "counts": 5}), "corrupt"),
    (_blob({**_plain(), "v": None}), "corrupt"),
    (_blob({**_plain(), "v": 999}), "unknown_version"),
    (_blob({**_plain(), "v": 0}), "old_version"),
])
def test_every_unreadable_state_is_a_state_decode_error(raw: bytes, kind: str) -> None:
    with pytest.raises(StateDecodeError) as info:
        ConversationState.from_bytes(raw)
    assert info.value.kind == kind
    assert isinstance(info.value, StateTooOld) == (kind == "old_version")


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300) | st.builds(zlib.compress, st.binary(max_size=300)))
def test_from_bytes_raises_nothing_else(raw: bytes) -> None:
    with contextlib.suppress(StateDecodeError):
        ConversationState.from_bytes(raw)


def test_a_version_1_state_is_migrated() -> None:
    assert 1 in MIGRATIONS
    plain = _plain("old")
    for added in ("user_topics", "certified", "statements"):
        del plain[added]
    plain["v"] = 1
    state = ConversationState.from_bytes(_blob(plain))
    assert state.conversation_id == "old" and state.certified == []
    assert ConversationState.from_bytes(state.to_bytes()).to_plain()["v"] == STATE_VERSION


# --- the worker's read, with a dict for the table -------------------------------------

def _monitor(table: dict[bytes, bytes], **settings: Any) -> Any:
    return stub_monitor(StubEngine(), table, **settings)


def _turn(cid: str, index: int = 5) -> TurnEvent:
    return TurnEvent(conversation_id=cid, turn_index=index, role="user", text="hi")


def test_one_unreadable_state_quarantines_only_its_conversation() -> None:
    good = ConversationState(conversation_id="good", last_turn_index=4)
    table = {b"good": expiry.pack(good.to_bytes(), 0, 1.0),
             b"junk": b"garbage",
             b"future": expiry.pack(_blob({**_plain("future"), "v": 999}), 1, 1.0),
             b"ancient": expiry.pack(_blob({**_plain("ancient"), "v": 0}), 2, 1.0)}
    monitor = _monitor(table)
    reg = monitor.metrics
    turns = [_turn(c) for c in ("good", "junk", "future", "ancient", "new")]
    states, bad = monitor.read_states(turns)
    assert sorted(states) == ["good"] and states["good"].last_turn_index == 4
    assert sorted(bad) == ["future", "junk"]
    assert bad["future"].kind == "unknown_version" and bad["junk"].kind == "corrupt"
    assert reg.quarantined._value.get() == 2
    assert reg.state_decode_failures.labels(kind="old_version")._value.get() == 1

    # later turns follow suit without decoding again; other bytes lift the quarantine
    states, bad = monitor.read_states([_turn("junk", 6)])
    assert list(bad) == ["junk"]
    assert reg.state_decode_failures.labels(kind="corrupt")._value.get() == 1
    fresh = ConversationState(conversation_id="junk").to_bytes()
    monitor.table[b"junk"] = expiry.pack(fresh, 0, 1.0)
    states, bad = monitor.read_states([_turn("junk", 7)])
    assert list(states) == ["junk"] and not bad
    assert reg.quarantined._value.get() == 1


def test_quarantined_turns_are_dead_lettered_and_the_rest_kept() -> None:
    monitor = _monitor({})
    letters: list[tuple[Any, Any]] = []

    async def dead_letter(event: Any, exc: Any) -> None:
        letters.append((event, exc))

    monitor.dead_letter = dead_letter
    valid = [("e1", _turn("a")), ("e2", _turn("b")), ("e3", _turn("a", 6))]
    kept = asyncio.run(monitor.quarantined_turns(
        valid, {"a": StateDecodeError("corrupt", "zlib: bad")}))
    assert kept == [valid[1]]
    assert [(e, x.kind) for e, x in letters] == [("e1", "state_unreadable"),
                                                  ("e3", "state_unreadable")]
    assert letters[0][1].reason == "corrupt: zlib: bad"


def test_a_stop_ends_the_retries_of_a_failing_batch_and_holds_the_offsets() -> None:
    monitor = _monitor({})
    consumer = SimpleNamespace(hold_commits=False)
    stopping = {"now": False}
    monitor.stopping = lambda: stopping["now"]
    monitor.app = SimpleNamespace(consumer=consumer)
    monitor.owned_partitions = lambda: {0}
    attempts = []

    async def failing(events: Any) -> None:
        attempts.append(time.monotonic())
        raise RuntimeError("broker gone")

    monitor.handle_batch = failing
    event = SimpleNamespace(message=SimpleNamespace(partition=0))

    async def scenario() -> float:
        task = asyncio.create_task(monitor.handle_until_done([event]))
        await asyncio.sleep(2.0)  # two or three failed attempts (back-off 1 s, 2 s, ...)
        stopped = time.monotonic()
        stopping["now"] = True
        await asyncio.wait_for(task, 2.0)
        return time.monotonic() - stopped

    took = asyncio.run(scenario())
    assert took < 0.5 and len(attempts) >= 2
    assert consumer.hold_commits is True
    assert monitor.failures.failing  # not ready: the batch never succeeded


def test_a_stop_cancels_a_batch_still_in_flight_after_the_grace() -> None:
    monitor = _monitor({}, stop_grace_s=0.5)
    consumer = SimpleNamespace(hold_commits=False)
    stopping = {"now": False}
    monitor.stopping = lambda: stopping["now"]
    monitor.app = SimpleNamespace(consumer=consumer)
    cancelled = []

    async def hanging(events: Any) -> None:
        try:
            await asyncio.sleep(3600)  # a produce the broker never answers
        except asyncio.CancelledError:
            cancelled.append(True)
            raise

    monitor.handle_batch = hanging

    async def scenario() -> float:
        task = asyncio.create_task(monitor.handle_until_done([]))
        await asyncio.sleep(0.5)
        stopped = time.monotonic()
        stopping["now"] = True
        await asyncio.wait_for(task, 3.0)
        return time.monotonic() - stopped

    took = asyncio.run(scenario())
    assert 0.4 < took < 1.5 and cancelled == [True] and consumer.hold_commits is True


# --- the stored format: MessagePack + zstd behind a marker byte, JSON + zlib still read --

LEGACY_BLOB = Path(__file__).parent / "data" / "state-v2-json-zlib.b64"
"""A real state (the first six turns of examples/conversations.jsonl) as the release before
the format marker stored it: key-sorted JSON, zlib level 6."""


def test_a_stored_json_zlib_state_still_decodes() -> None:
    blob = base64.b64decode(LEGACY_BLOB.read_text())
    assert blob[:1] == b"\x78"  # a zlib stream, no format marker
    state = ConversationState.from_bytes(blob)
    assert state.conversation_id == "trip-lisbon" and state.turns == 6
    assert state.to_plain() == json.loads(zlib.decompress(blob))
    again = state.to_bytes()
    assert again[0] == FORMAT_MSGPACK_ZSTD
    assert ConversationState.from_bytes(again).to_plain() == state.to_plain()


def test_same_state_same_bytes() -> None:
    state = ConversationState.from_bytes(base64.b64decode(LEGACY_BLOB.read_text()))
    blob = state.to_bytes()
    assert ConversationState.from_bytes(blob).to_bytes() == blob
    shuffled = ConversationState.from_plain(dict(reversed(state.to_plain().items())))
    assert shuffled.to_bytes() == blob


def test_non_finite_floats_round_trip_exactly() -> None:
    state = ConversationState(conversation_id="f")
    state.sum_quality, state.sum_local, state.sum_logic = math.inf, -math.inf, 5e-324
    state.sum_consistency = math.nan
    back = ConversationState.from_bytes(state.to_bytes())
    assert (back.sum_quality, back.sum_local, back.sum_logic) == (math.inf, -math.inf, 5e-324)
    assert math.isnan(back.sum_consistency)


def test_a_plain_form_msgpack_cannot_hold_is_stored_as_json_zlib() -> None:
    state = ConversationState(conversation_id="big")
    state.focus = [10**30]  # type: ignore[assignment]  # past 64 bits: only JSON holds it
    blob = state.to_bytes()
    assert blob[:1] == b"\x78"
    assert ConversationState.from_bytes(blob).focus == [10**30]


def _framed(payload: bytes) -> bytes:
    return bytes([FORMAT_MSGPACK_ZSTD]) + zstandard.ZstdCompressor().compress(payload)


@pytest.mark.parametrize("raw", [
    b"\x01", b"\x01garbage", _framed(b""), _framed(b"\xc1"), _framed(ormsgpack.packb([1, 2])),
    _framed(ormsgpack.packb({"v": STATE_VERSION})),
    bytes([FORMAT_MSGPACK_ZSTD]) + zstandard.ZstdCompressor(write_content_size=False)
    .compress(ormsgpack.packb(_plain())),
])
def test_every_unreadable_framed_state_is_corrupt(raw: bytes) -> None:
    with pytest.raises(StateDecodeError) as info:
        ConversationState.from_bytes(raw)
    assert info.value.kind == "corrupt"


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300).map(lambda b: b"\x01" + b) | st.binary(max_size=300).map(_framed))
def test_framed_bytes_raise_nothing_else(raw: bytes) -> None:
    with contextlib.suppress(StateDecodeError):
        ConversationState.from_bytes(raw)


def test_the_latest_answer_survives_storage() -> None:
    """An answer that owns up to a mistake corrects the latest one, across batches too."""
    state = ConversationState(conversation_id="a")
    state.last_answer = 5
    assert ConversationState.from_bytes(state.to_bytes()).last_answer == 5
    assert ConversationState.from_bytes(ConversationState("b").to_bytes()).last_answer == -1


def test_a_constraint_keeps_its_place_across_storage() -> None:
    """ "no screws in the walls" holds in the walls after a batch boundary too, and a state
    stored before constraints had places still decodes."""
    from monitor.engine.constraints import constraints_in

    state = ConversationState(conversation_id="a")
    state.add_constraints(constraints_in("my tenancy says no screws in the walls.", 0), 10)
    restored = ConversationState.from_bytes(state.to_bytes())
    assert restored.constraints == state.constraints
    assert [c.within for c in restored.constraints] == [("wall",)]
    plain = state.to_plain()
    plain["constraints"] = [row[:4] for row in plain["constraints"]]
    assert ConversationState.from_plain(plain).constraints[0].within == ()


def _said(state: ConversationState, turn: int, sentence: str, *subjects: str) -> list[Fact]:
    facts = []
    for subject in subjects:
        for label in (subject, sentence.lower()):
            state.graph.touch(label, "concept", 1.0, "assistant", turn)
        fact = Fact(subject=subject, relation="cost", object=sentence.lower(),
                    object_text=sentence, negated=False, modality="asserted",
                    speaker="assistant", turn=turn, sentence=sentence, predicate="cost",
                    prep="", time_scope=None, importance=1.0)
        state.graph.add_fact(fact)
        facts.append(fact)
    state.add_statements([(turn, "assistant", sentence, "")], 10)
    state.add_assertions([Assertion(turn, "assistant", sentence, "", ())], 10)
    return facts


def test_a_withdrawn_claim_leaves_every_store_and_stays_withdrawn() -> None:
    """What the assistant owned up to as wrong is out of the graph's live facts, and its
    sentence out of the amount statements and the verifier's window; the sentence's
    other facts stay live; the same words in another turn stay; all of it survives
    storage."""
    both, alone = "The tour costs 50 euros and the ticket 12.", "The tour costs 50 euros."
    state = ConversationState(conversation_id="w")
    _said(state, 1, both, "tour", "ticket")
    _said(state, 3, alone, "tour")
    _said(state, 4, alone, "tour")

    def about_the_tour(fact: Fact) -> bool:
        return fact.subject == "tour"

    state.withdraw(1, both, about_the_tour, at=5)
    state.withdraw(3, alone, about_the_tour, at=5)
    state = ConversationState.from_bytes(state.to_bytes())
    live = {(f.turn, f.subject) for f in state.graph.all_facts() if f.superseded_at is None}
    assert live == {(1, "ticket"), (4, "tour")}
    assert sorted(f.superseded_at or 0 for f in state.graph.all_facts()) == [0, 0, 5, 5]
    assert [(t, s) for t, _, s, _ in state.statements] == [(4, alone)]
    assert [(a.turn, a.sentence) for a in state.assertions] == [(4, alone)]
