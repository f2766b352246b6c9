"""The worker hands each turn's records to the producer as the engine yields that turn, and
a failed engine attempt sends no turn twice. No broker, no models: a stub engine whose
timing the test controls, and the producer side recorded."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator, Sequence
from typing import Any

from monitor.contracts import TurnEvent
from monitor.engine.pipeline import TurnOutcome
from tests.worker_stubs import StubEngine, stub_monitor


class _GatedEngine(StubEngine):
    """Yields the first turn, then waits until the test has seen it sent (or 5 s)."""

    def __init__(self) -> None:
        self.first_sent = threading.Event()
        self.waited_for_send: bool | None = None

    def outcomes(self, events: Sequence[TurnEvent], states: dict[str, Any]
                 ) -> Iterator[TurnOutcome]:
        for i, event in enumerate(events):
            if i == 1:
                self.waited_for_send = self.first_sent.wait(5.0)
            yield TurnOutcome(event=event)


class _FailingEngine(StubEngine):
    """Raises on the turn whose text is 'bad', in a batch and alone."""

    def outcomes(self, events: Sequence[TurnEvent], states: dict[str, Any]
                 ) -> Iterator[TurnOutcome]:
        for event in events:
            if event.text == "bad":
                raise RuntimeError("engine bug")
            yield TurnOutcome(event=event)

    def process_batch(self, events: Sequence[TurnEvent], states: dict[str, Any]
                      ) -> list[TurnOutcome]:
        return list(self.outcomes(events, states))


def _monitor(engine: Any) -> Any:
    from monitor.stream.app import Sending

    monitor = stub_monitor(engine)
    monitor.sent = []
    monitor.letters = []

    async def send_turn(item: Any, outcome: TurnOutcome) -> Sending:
        monitor.sent.append(outcome.event.text)
        if outcome.event.text == "one" and hasattr(engine, "first_sent"):
            engine.first_sent.set()
        return Sending(item, outcome)

    async def dead_letter(event: Any, exc: Any) -> None:
        monitor.letters.append((event, exc.kind))

    monitor.send_turn = send_turn
    monitor.dead_letter = dead_letter
    return monitor


def _todo(*texts: str) -> list[tuple[str, TurnEvent]]:
    return [(f"e-{text}", TurnEvent(conversation_id="c", turn_index=i, role="assistant",
                                    text=text)) for i, text in enumerate(texts)]


def test_a_turn_is_sent_before_the_rest_of_its_batch_is_scored() -> None:
    engine = _GatedEngine()
    monitor = _monitor(engine)
    sendings, _ = asyncio.run(monitor.scored(_todo("one", "two", "three"), {}))
    assert engine.waited_for_send is True  # the engine saw turn one sent before turn two
    assert monitor.sent == ["one", "two", "three"]
    assert [s.outcome.event.text for s in sendings] == ["one", "two", "three"]


def test_a_failed_attempt_sends_no_turn_twice() -> None:
    monitor = _monitor(_FailingEngine())
    sendings, _ = asyncio.run(monitor.scored(_todo("one", "bad", "three"), {}))
    assert monitor.sent == ["one", "three"]  # "one" from the first attempt, not again
    assert [s.outcome.event.text for s in sendings] == ["one", "three"]
    assert monitor.letters == [("e-bad", "processing_error")]
