"""A small producer API for chat applications: send turns to the monitor's input topic.

    from monitor.client import TurnClient
    with TurnClient() as client:   # SKG_BROKER, SKG_SECURITY_PROTOCOL, ... from the env
        client.send_messages("chat-42", messages)   # OpenAI-style messages

Every turn is validated with the contracts before anything is sent (a bad turn raises
`InputError` naming the field and sends nothing), keyed by its conversation id (so one
worker sees a conversation in order), and each call returns once the broker has
acknowledged it. `send_messages` takes a whole conversation so far, as chat applications
hold it, and sends only the turns this client has not sent yet; the worker's idempotence by
turn index makes any repeat harmless anyway (after a restart of the application, say).
`AsyncTurnClient` is the asyncio version (aiokafka); `TurnClient` runs it on a private
event loop thread, so it also works where a loop is already running.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Coroutine, Mapping, Sequence
from types import TracebackType
from typing import Any, TypeVar

from aiokafka import AIOKafkaProducer
from pydantic import ValidationError

from monitor.contracts import TurnEvent
from monitor.formats.openai import openai_events
from monitor.inputs import InputError, describe_validation_error
from monitor.kafka.security import aiokafka_security_kwargs
from monitor.kafka.settings import StreamSettings, producer_profile_kwargs

T = TypeVar("T")

#: conversations whose last sent turn index the client remembers (least recent forgotten)
REMEMBERED_CONVERSATIONS = 10_000


def validate_turn(turn: TurnEvent | Mapping[str, Any]) -> TurnEvent:
    if isinstance(turn, TurnEvent):
        return turn
    try:
        return TurnEvent.model_validate(dict(turn))
    except ValidationError as exc:
        raise InputError("schema", describe_validation_error(exc)) from exc


class AsyncTurnClient:
    """Produce TurnEvents to `settings.topic_turns` with aiokafka."""

    def __init__(self, settings: StreamSettings | None = None, *, broker: str | None = None,
                 topic: str | None = None) -> None:
        settings = settings or StreamSettings()
        if broker is not None:
            settings = settings.model_copy(
                update={"broker": broker if "://" in broker else f"kafka://{broker}"})
        self.settings = settings
        self.topic = topic or settings.topic_turns
        self._sent: OrderedDict[str, int] = OrderedDict()
        self._producer: AIOKafkaProducer | None = None

    async def start(self) -> AsyncTurnClient:
        s = self.settings
        self._producer = AIOKafkaProducer(
            bootstrap_servers=s.bootstrap, acks="all",
            max_request_size=max(1_048_576, s.max_message_bytes * 4),
            **producer_profile_kwargs(s), **aiokafka_security_kwargs(s))
        await self._producer.start()
        return self

    async def stop(self) -> None:
        if self._producer is not None:
            await self._producer.stop()
            self._producer = None

    async def __aenter__(self) -> AsyncTurnClient:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    def check_size(self, turns: Sequence[TurnEvent]) -> None:
        """InputError("oversized") if a turn would exceed `max_message_bytes` on the wire."""
        for turn in turns:
            self._encode(turn)

    def _encode(self, turn: TurnEvent) -> bytes:
        value = turn.model_dump_json(exclude_none=True).encode("utf-8")
        if len(value) > self.settings.max_message_bytes:
            raise InputError("oversized", f"turn {turn.turn_index} of {turn.conversation_id!r}"
                             f" is {len(value)} bytes, limit is "
                             f"{self.settings.max_message_bytes}")
        return value

    async def _send(self, turns: list[TurnEvent]) -> None:
        if self._producer is None:
            raise RuntimeError("client not started (use `async with` or `await start()`)")
        values = [self._encode(t) for t in turns]  # all checked before the first send
        pending = [await self._producer.send(self.topic, value=v,
                                             key=t.conversation_id.encode("utf-8"))
                   for t, v in zip(turns, values, strict=True)]
        await asyncio.gather(*pending)
        for t in turns:
            self._remember(t.conversation_id, t.turn_index)

    def _remember(self, cid: str, turn_index: int) -> None:
        self._sent[cid] = max(turn_index, self._sent.get(cid, -1))
        self._sent.move_to_end(cid)
        while len(self._sent) > REMEMBERED_CONVERSATIONS:
            self._sent.popitem(last=False)

    async def send_new_turns(self, turns: Sequence[TurnEvent]) -> list[TurnEvent]:
        """Send the turns newer than the last one this client sent for their conversation
        (the rest repeat what was sent); returns the turns sent."""
        last = dict(self._sent)
        new = []
        for t in turns:
            if t.turn_index > last.get(t.conversation_id, -1):
                new.append(t)
                last[t.conversation_id] = t.turn_index
        if new:
            await self._send(new)
        return new

    async def send_turn(self, turn: TurnEvent | Mapping[str, Any]) -> TurnEvent:
        """Validate and send one turn; returns it once the broker acknowledged it."""
        event = validate_turn(turn)
        await self._send([event])
        return event

    async def send_messages(self, conversation_id: str, messages: Sequence[Mapping[str, Any]],
                            metadata: Mapping[str, Any] | None = None) -> list[TurnEvent]:
        """Send the new turns of a conversation given as OpenAI-style messages (the rules
        of `monitor.formats.messages`); returns the turns sent."""
        record: dict[str, Any] = {"conversation_id": conversation_id,
                                  "messages": list(messages)}
        if metadata is not None:
            record["metadata"] = dict(metadata)
        return await self.send_new_turns(openai_events(record))


class TurnClient:
    """The same API, blocking: an AsyncTurnClient on its own event loop thread."""

    def __init__(self, settings: StreamSettings | None = None, *, broker: str | None = None,
                 topic: str | None = None, timeout: float = 60.0) -> None:
        self.timeout = timeout
        self._client = AsyncTurnClient(settings, broker=broker, topic=topic)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever,
                                        name="skg-turn-client", daemon=True)
        self._thread.start()
        try:
            self._call(self._client.start())
        except BaseException:
            self._shutdown()
            raise

    def _call(self, coro: Coroutine[Any, Any, T]) -> T:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result(self.timeout)

    def _shutdown(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(10)
        self._loop.close()

    def send_turn(self, turn: TurnEvent | Mapping[str, Any]) -> TurnEvent:
        return self._call(self._client.send_turn(turn))

    def send_messages(self, conversation_id: str, messages: Sequence[Mapping[str, Any]],
                      metadata: Mapping[str, Any] | None = None) -> list[TurnEvent]:
        return self._call(self._client.send_messages(conversation_id, messages, metadata))

    def close(self) -> None:
        if self._loop.is_closed():
            return
        try:
            self._call(self._client.stop())
        finally:
            self._shutdown()

    def __enter__(self) -> TurnClient:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
