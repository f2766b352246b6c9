"""Which broker is this? A broker that came back empty must not be taken for the old one.

A worker's local table (RocksDB) mirrors the changelog of the broker it was built from.
When that broker loses its data (restarted without storage, re-created), the local copy
belongs to a broker that no longer exists; Faust's recovery only notices when the local
offsets are ahead of the new log, and a batch in flight during the outage can finish
against the new broker and write small new offsets, so stale states survive and re-sent
turns are skipped as duplicates (issue 21).

So each broker gets an **epoch**: a random id, the first record of the topic
`<app_id>-broker-epoch` (whoever writes first wins; every worker reads the first record).
A broker that lost its data has no epoch record, so the next reader writes a new one. The
worker keeps the epoch its local tables belong to in `<data_dir>/broker-epoch`:

* at start-up, a different epoch on the broker drops the local tables (they are rebuilt
  from the broker's changelog as it is now) before Faust reads them;
* while running, the epoch is read again whenever the broker was unreachable (the probe
  saw it go and come back, a batch failed as a whole, or a batch ran across an outage),
  before that batch writes any state; a different epoch stops the worker at once with
  exit status 3 and no offset committed, and the restart drops the local tables.
"""

from __future__ import annotations

import asyncio
import logging
import shutil
import uuid
from pathlib import Path

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition

from monitor.kafka.security import aiokafka_security_kwargs
from monitor.kafka.settings import (
    StreamSettings,
    consumer_profile_kwargs,
    producer_profile_kwargs,
)

log = logging.getLogger(__name__)

EPOCH_FILE = "broker-epoch"
EXIT_EPOCH_CHANGED = 3


async def _first_record(settings: StreamSettings, tp: TopicPartition) -> str | None:
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.bootstrap, group_id=None,
                                enable_auto_commit=False, auto_offset_reset="earliest",
                                **consumer_profile_kwargs(settings),
                                **aiokafka_security_kwargs(settings))
    await consumer.start()
    try:
        consumer.assign([tp])
        end = (await consumer.end_offsets([tp]))[tp]
        if end == 0:
            return None
        await consumer.seek_to_beginning(tp)
        for _ in range(50):
            batch = await consumer.getmany(tp, timeout_ms=200, max_records=1)
            for records in batch.values():
                for record in records:
                    if record.value:
                        return bytes(record.value).decode("utf-8", errors="replace")
        return None
    finally:
        await consumer.stop()


async def broker_epoch(settings: StreamSettings) -> str:
    """The broker's epoch id, written now if it has none (the topic must exist)."""
    tp = TopicPartition(settings.epoch_topic, 0)
    found = await _first_record(settings, tp)
    if found is not None:
        return found
    producer = AIOKafkaProducer(bootstrap_servers=settings.bootstrap,
                                **producer_profile_kwargs(settings),
                                **aiokafka_security_kwargs(settings))
    await producer.start()
    try:
        await (await producer.send(tp.topic, value=uuid.uuid4().hex.encode(), key=b"epoch",
                                   partition=0))
    finally:
        await producer.stop()
    found = await _first_record(settings, tp)  # a racing writer may have been first
    if found is None:
        raise RuntimeError(f"no epoch record on {tp.topic} after writing one")
    return found


def stored_epoch(data_dir: Path) -> str | None:
    try:
        return (data_dir / EPOCH_FILE).read_text(encoding="ascii").strip() or None
    except (FileNotFoundError, UnicodeDecodeError):
        return None


def adopt_epoch(settings: StreamSettings, tabledir: Path, epoch: str) -> bool:
    """Before Faust starts: drop the local tables if they belong to another broker
    epoch, then record `epoch` as theirs. True when tables were dropped."""
    data_dir = Path(settings.data_dir)
    before = stored_epoch(data_dir)
    dropped = False
    if before is not None and before != epoch and tabledir.exists():
        log.error("STATE RESET: the broker's epoch is %s but the local tables were built "
                  "from epoch %s (the broker lost its data): dropping %s, the tables are "
                  "rebuilt from the broker", epoch, before, tabledir)
        shutil.rmtree(tabledir)
        dropped = True
    data_dir.mkdir(parents=True, exist_ok=True)
    (data_dir / EPOCH_FILE).write_text(epoch + "\n", encoding="ascii")
    return dropped


def startup_epoch(settings: StreamSettings, tabledir: Path) -> tuple[str, bool]:
    """(the broker's epoch, whether local tables were dropped), for `skg-monitor worker`."""
    epoch = asyncio.run(broker_epoch(settings))
    return epoch, adopt_epoch(settings, tabledir, epoch)
