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


async def replay(settings: StreamSettings, lines: Iterable[bytes], rate: float | None = None,
                 topic: str | None = None,
                 on_sent: Callable[[int], None] | None = None,
                 keys: Iterable[bytes | None] | None = None) -> int:
    """Produce each line (raw bytes, invalid ones too) keyed by its conversation_id."""
    producer = AIOKafkaProducer(bootstrap_servers=settings.bootstrap,
                                max_request_size=max(1_048_576, settings.max_message_bytes * 4),
                                **producer_profile_kwargs(settings),
                                **aiokafka_security_kwargs(settings))
    await producer.start()
    sent = 0
    try:
        started = time.monotonic()
        pending: list[asyncio.Future[Any]] = []
        key_iter = iter(keys) if keys is not None else None
        for line in lines:
            key = next(key_iter) if key_iter is not None else line_key(line)
            if rate:
                delay = started + sent / rate - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            pending.append(await producer.send(topic or settings.topic_turns, value=line,
                                               key=key))
            sent += 1
            if len(pending) >= 256 or rate:
                await asyncio.gather(*pending)
                if on_sent:
                    on_sent(len(pending))
                pending = []
        if pending:
            await asyncio.gather(*pending)
            if on_sent:
                on_sent(len(pending))
    finally:
        await producer.stop()
    return sent


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
    """`replay`, then check that the topic grew by at least as many records as were sent.

    A producer's acknowledgement is not the end of the story: a broker that restarts
    without its data acknowledges and forgets. Raises RuntimeError when the records are
    not on the topic afterwards (the `replay` command then exits non-zero).
    """
    name = topic or settings.topic_turns
    before = await end_offsets(settings, name)
    sent = await replay(settings, lines, rate, topic, on_sent)
    after = await end_offsets(settings, name)
    grown = sum(after.get(p, 0) - before.get(p, 0) for p in after)
    if not after or grown < sent:
        raise RuntimeError(f"sent {sent} records but {name} grew by {max(grown, 0)} "
                           f"(partitions after: {after or 'topic missing'})")
    return sent
