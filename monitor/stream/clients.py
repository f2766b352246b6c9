"""Plain aiokafka clients: replay a JSON Lines file, read a topic back."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterable
from typing import Any

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from monitor.kafka.security import aiokafka_security_kwargs
from monitor.kafka.settings import (
    StreamSettings,
    consumer_profile_kwargs,
    producer_profile_kwargs,
)


def line_key(line: bytes) -> bytes | None:
    """The conversation_id of a line as the message key; None if the line has none."""
    try:
        data = json.loads(line)
    except (ValueError, UnicodeDecodeError):
        return None
    cid = data.get("conversation_id") if isinstance(data, dict) else None
    return cid.encode("utf-8") if isinstance(cid, str) and cid else None


class ReplayFailed(RuntimeError):
    """A replay that stopped early: `acknowledged` records were on the broker before it."""

    def __init__(self, acknowledged: int, cause: BaseException) -> None:
        super().__init__(f"{acknowledged} records acknowledged, then "
                         f"{type(cause).__name__}: {cause}")
        self.acknowledged = acknowledged


async def replay(settings: StreamSettings, lines: Iterable[bytes], rate: float | None = None,
                 topic: str | None = None,
                 on_sent: Callable[[int], None] | None = None,
                 keys: Iterable[bytes | None] | None = None) -> int:
    """Produce each line (raw bytes, invalid ones too) keyed by its conversation_id.

    Returns how many records the broker acknowledged (all of them: the first refusal or
    timeout raises ReplayFailed with the count acknowledged until then)."""
    producer = AIOKafkaProducer(bootstrap_servers=settings.bootstrap,
                                max_request_size=max(1_048_576, settings.max_message_bytes * 4),
                                **producer_profile_kwargs(settings),
                                **aiokafka_security_kwargs(settings))
    await producer.start()
    acked = 0

    async def settle(pending: list[asyncio.Future[Any]]) -> None:
        nonlocal acked
        results = await asyncio.gather(*pending, return_exceptions=True)
        ok = sum(not isinstance(r, BaseException) for r in results)
        acked += ok
        if on_sent and ok:
            on_sent(ok)
        failed = next((r for r in results if isinstance(r, BaseException)), None)
        if failed is not None:
            raise ReplayFailed(acked, failed)

    try:
        started = time.monotonic()
        pending: list[asyncio.Future[Any]] = []
        key_iter = iter(keys) if keys is not None else None
        for queued, line in enumerate(lines):
            key = next(key_iter) if key_iter is not None else line_key(line)
            if rate:
                delay = started + queued / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            pending.append(await producer.send(topic or settings.topic_turns, value=line,
                                               key=key))
            if len(pending) >= 256 or rate:
                await settle(pending)
                pending = []
        if pending:
            await settle(pending)
    except ReplayFailed:
        raise
    except Exception as exc:  # the send itself refused (too large, broker gone)
        raise ReplayFailed(acked, exc) from exc
    finally:
        await producer.stop()
    return acked


async def consume(settings: StreamSettings, topic: str, until_idle: float = 5.0,
                  on_record: Callable[[bytes | None, bytes | None, int], None] | None = None,
                  ) -> list[bytes]:
    """Everything the topic holds from the beginning, until nothing arrives for until_idle."""
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.bootstrap, group_id=None,
                                enable_auto_commit=False, auto_offset_reset="earliest",
                                **consumer_profile_kwargs(settings),
                                **aiokafka_security_kwargs(settings))
    await consumer.start()
    values: list[bytes] = []
    try:
        parts = None
        for _ in range(50):
            parts = consumer.partitions_for_topic(topic)
            if parts:
                break
            await consumer._client.force_metadata_update()
            await asyncio.sleep(0.1)
        if not parts:
            raise RuntimeError(f"topic {topic} not found")
        tps = [TopicPartition(topic, p) for p in sorted(parts)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        last = time.monotonic()
        while time.monotonic() - last < until_idle:
            batch = await consumer.getmany(timeout_ms=200, max_records=1000)
            for records in batch.values():
                for record in records:
                    if record.value is not None:
                        values.append(record.value)
                    if on_record:
                        on_record(record.key, record.value, record.timestamp)
                    last = time.monotonic()
    finally:
        await consumer.stop()
    return values


async def end_offsets(settings: StreamSettings, topic: str) -> dict[int, int]:
    """The log-end offset of each partition of `topic` ({} if the topic does not exist)."""
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.bootstrap, group_id=None,
                                enable_auto_commit=False)
    await consumer.start()
    try:
        parts = consumer.partitions_for_topic(topic)
        if not parts:
            await consumer._client.force_metadata_update()
            parts = consumer.partitions_for_topic(topic)
        if not parts:
            return {}
        ends = await consumer.end_offsets([TopicPartition(topic, p) for p in parts])
        return {tp.partition: int(offset) for tp, offset in ends.items()}
    finally:
        await consumer.stop()


async def replay_acknowledged(settings: StreamSettings, lines: list[bytes],
                              rate: float | None = None, topic: str | None = None,
                              on_sent: Callable[[int], None] | None = None) -> int:
    """`replay`, counting the broker's acknowledgements; the end offsets are a second
    signal only.

    The acknowledgements are the count: a broker's log-end offset is not (tansu reports
    the last batch's base offset + 1, so 30 records in one batch "grow" the topic by 1).
    The offsets still catch a broker that lost its data: a topic gone, or a partition
    whose end offset went backwards, raises RuntimeError (the `replay` command then exits
    1), as does a record that was not acknowledged (ReplayFailed).
    """
    name = topic or settings.topic_turns
    before = await end_offsets(settings, name)
    acked = await replay(settings, lines, rate, topic, on_sent)
    after = await end_offsets(settings, name)
    shrunk = {p: (before[p], after.get(p, 0)) for p in before if after.get(p, 0) < before[p]}
    if not after or shrunk:
        raise RuntimeError(f"{acked} records acknowledged but {name} "
                           f"{'is gone' if not after else 'went backwards'} (partition: "
                           f"(end offset before, after) {shrunk}): the broker lost data")
    return acked
