"""Explicit topic creation (the local broker does not auto-create topics reliably)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from aiokafka.errors import TopicAlreadyExistsError

from monitor.kafka.security import aiokafka_security_kwargs, topic_configs
from monitor.kafka.settings import StreamSettings

log = logging.getLogger(__name__)
T = TypeVar("T")


#: The table's changelog keeps the latest state of each conversation and nothing else:
#: compacted, never deleted by time (retention.ms=-1; the TTL sweep of
#: monitor.stream.expiry writes tombstones instead), a tombstone kept for a day so a
#: worker restoring the table sees the deletion.
CHANGELOG_CONFIGS = {"cleanup.policy": "compact", "retention.ms": "-1",
                     "delete.retention.ms": "86400000"}


def new_topic(settings: StreamSettings, name: str) -> NewTopic:
    """The topic as the monitor creates it (the changelog and the broker epoch compacted
    and kept for ever)."""
    configs = (CHANGELOG_CONFIGS if name in (settings.changelog_topic, settings.epoch_topic)
               else topic_configs(settings, name))
    return NewTopic(name=name, num_partitions=settings.partitions,
                    replication_factor=settings.replication_factor,
                    topic_configs=dict(configs))


async def _with_admin(settings: StreamSettings,
                      call: Callable[[AIOKafkaAdminClient], Awaitable[T]],
                      attempts: int | None, what: str) -> T:
    """`call` with a fresh admin client, tried again every 0.25 s while the broker does
    not answer (a broker whose port is open may not answer metadata yet); `attempts=None`
    waits for ever, saying so every 10 s."""
    last: Exception | None = None
    started = said = time.monotonic()
    attempt = 0
    while attempts is None or attempt < attempts:
        attempt += 1
        if attempts is None and time.monotonic() - said >= 10.0:
            said = time.monotonic()
            log.warning("waiting for the broker at %s (%.0f s so far): %r",
                        settings.bootstrap, said - started, last)
        admin = AIOKafkaAdminClient(bootstrap_servers=settings.bootstrap,
                                    **aiokafka_security_kwargs(settings))
        try:
            await admin.start()
            return await call(admin)
        except Exception as exc:  # broker not ready yet
            last = exc
            await asyncio.sleep(0.25)
        finally:
            await admin.close()
    raise RuntimeError(f"could not {what} on {settings.bootstrap}: {last!r}")


async def ensure_topics_async(settings: StreamSettings, topics: list[str] | None = None,
                              attempts: int | None = 40) -> None:
    """Create the missing topics; `attempts=None` waits for the broker for ever (a worker
    started before its broker waits, saying so every 10 s, instead of exiting)."""
    names = topics if topics is not None else settings.all_topics()

    async def create_missing(admin: AIOKafkaAdminClient) -> None:
        existing = set(await admin.list_topics())
        missing = [n for n in names if n not in existing]
        if missing:
            with contextlib.suppress(TopicAlreadyExistsError):
                await admin.create_topics([new_topic(settings, n) for n in missing])

    await _with_admin(settings, create_missing, attempts, "create topics")


async def missing_topics_async(settings: StreamSettings, names: list[str],
                               attempts: int = 20) -> list[str]:
    """Which of `names` the broker does not have; raises if it could not be asked in
    `attempts` tries."""

    async def missing(admin: AIOKafkaAdminClient) -> list[str]:
        existing = set(await admin.list_topics())
        return [n for n in names if n not in existing]

    return await _with_admin(settings, missing, attempts, "list the topics")


def ensure_topics(settings: StreamSettings, topics: list[str] | None = None,
                  attempts: int | None = 40) -> None:
    asyncio.run(ensure_topics_async(settings, topics, attempts))
