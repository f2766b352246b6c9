"""Faust-streaming 0.15 behaviours that can lose a turn, and their fixes.

The crash test (SIGKILL a worker mid-replay, restart it) lost a turn in about one run of
three; looking for the cause in faust's code turned up both.

1. **Records delivered while the consumer seeks.** At start-up the consumer's flow is
   active before the first assignment (only a revocation of a non-empty assignment stops
   it). When table recovery has changelog to read, the fetcher is already running as
   recovery ends with `resume_partitions(input)` then `await perform_seek()`, so input
   records keep being delivered into the stream's queue while the seek to the committed
   offsets is in flight. The next `flow_control.resume()` clears those queues (they are
   `clear_on_resume`); meanwhile the fetcher's read offset has been reset and overtaken
   again, so records fetched from the new position are dropped as "already read" and the
   next jump is recorded as a "gap", which faust treats as acknowledged. The cleared
   records are never processed and their offsets are committed. `SeekSafeConsumer` stops
   the flow and waits until no fetched batch is being delivered before it seeks, so every
   record after the committed offset is fetched again (duplicates are then skipped by the
   engine's idempotence). tests/test_stream.py reproduces the race on purpose.

2. **Offsets committed before the changelog is written.** `ProducerBuffer.flush` gives up
   after 0.1 s without a sent message, and a message taken off the buffer may not yet be
   in aiokafka's accumulator when the commit flushes that, so an input offset can be
   committed while the state change it produced is still in the worker's memory.
   `DurableTable` hands out the changelog futures so the agent awaits them before the
   batch is acknowledged.

3. **Offsets committed for a batch that never succeeded, at shutdown.** Faust's shutdown
   waits for the batch being processed and then commits what was acknowledged; a batch
   that fails as a whole is retried for ever, so the worker would not stop. The agent
   returns from such a batch when the worker stops, after setting
   `SeekSafeConsumer.hold_commits`: from then on no offset is committed, so the batch is
   read again after the restart.

4. **State writes the broker refused.** A batch whose changelog writes fail is retried;
   the local table already holds its states, so the retry finds its turns applied and
   writes nothing, and the changelog would never get those states (a restart would then
   recover older ones). `DurableTable.resend_refused` sends them again before the retry.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

import faust
from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread, Consumer, Transport
from faust.types import TP, FutureMessage, Message

from monitor.kafka.settings import LOCAL_FETCH_MAX_WAIT_MS

log = logging.getLogger(__name__)

#: longest wait for the fetcher to finish delivering before a seek. The fetcher normally
#: stops at its next record; the bound only guards against a fetcher that was cancelled
#: mid-batch (then faust's own behaviour applies, with a warning).
SEEK_WAIT_S = 30.0


class SeekSafeConsumer(Consumer):
    """A consumer whose seek to the committed offsets never races a delivery (fix 1)."""

    hold_commits: bool = False
    """Set (fix 3): commit nothing more in this process."""
    commit_gate: Any = None
    """A callable; while it returns False no offset is committed (the worker sets it to
    hold commits while the broker may have been replaced: monitor.stream.epoch)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._not_delivering = asyncio.Event()
        self._not_delivering.set()
        super().__init__(*args, **kwargs)

    async def _commit(self, offsets: Any) -> bool:
        if self.hold_commits:
            log.warning("offset commit held back (a failed batch at shutdown): %s", offsets)
            return False
        if self.commit_gate is not None and not self.commit_gate():
            log.warning("offset commit held back until the broker's epoch is checked")
            return False
        return bool(await super()._commit(offsets))

    async def getmany(self, timeout: float) -> AsyncIterator[tuple[TP, Message]]:
        # Faust yields a fetched batch record by record, without awaiting between the
        # fetch and the first yield: "delivering" is exactly from the first yield until the
        # fetcher asks for the record after the last one (it has then stored its read
        # offset for every record it was given).
        try:
            async for tp_message in super().getmany(timeout):
                self._not_delivering.clear()
                yield tp_message
        finally:
            self._not_delivering.set()

    async def perform_seek(self) -> None:
        # Every caller resumes the flow after the seek (recovery's _resume_streams), or
        # calls from getmany while the flow is already stopped (nothing is being delivered
        # then, so this does not wait on itself).
        self.stop_flow()
        try:
            await asyncio.wait_for(self._not_delivering.wait(), SEEK_WAIT_S)
        except TimeoutError:
            log.warning("fetcher still delivering after %.0f s; seeking anyway", SEEK_WAIT_S)
        await super().perform_seek()


class _ShortFetchConsumerThread(AIOKafkaConsumerThread):
    """Faust hard-codes fetch_max_wait_ms=1500 when it builds the worker consumer."""

    def _create_worker_consumer(self, transport: Transport) -> Any:
        consumer = super()._create_worker_consumer(transport)
        consumer._fetch_max_wait_ms = LOCAL_FETCH_MAX_WAIT_MS
        return consumer


class _LocalBrokerConsumer(SeekSafeConsumer):
    def _new_consumer_thread(self) -> AIOKafkaConsumerThread:
        return _ShortFetchConsumerThread(self, loop=self.loop, beacon=self.beacon)


class MonitorTransport(Transport):
    """The aiokafka transport with `SeekSafeConsumer`, for any broker."""

    Consumer = SeekSafeConsumer


class LocalBrokerTransport(MonitorTransport):
    """`MonitorTransport` plus the local (tansu) broker profile's short fetch wait."""

    Consumer = _LocalBrokerConsumer


class DurableTable(faust.Table):
    """A table whose changelog writes can be awaited (fix 2), and sent again when the
    broker refused them (fix 4)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._unconfirmed: list[FutureMessage] = []
        self._refused: dict[Any, int | None] = {}
        """Keys whose last changelog write failed, with their partition: the local table
        has a state the changelog lacks until it is sent again."""
        super().__init__(*args, **kwargs)

    def send_changelog(self, *args: Any, **kwargs: Any) -> FutureMessage:
        fut = super().send_changelog(*args, **kwargs)
        self._unconfirmed.append(fut)
        return fut

    async def confirm_changelog(self) -> None:
        """Wait until the broker has acknowledged every changelog write made so far; raise
        the first failure, remembering every refused key for `resend_refused`."""
        pending, self._unconfirmed = self._unconfirmed, []
        if not pending:
            return
        results = await asyncio.gather(*pending, return_exceptions=True)
        failures = [(fut, r) for fut, r in zip(pending, results, strict=True)
                    if isinstance(r, BaseException)]
        for fut, _ in failures:
            self._refused[fut.message.key] = fut.message.partition
        if failures:
            raise failures[0][1]

    def forget_refused(self) -> None:
        """The failed batch's partitions went to another worker: it processes the batch
        again from the committed offsets and writes those states itself."""
        self._refused.clear()

    async def resend_refused(self) -> None:
        """Send the current local value of every key whose changelog write was refused,
        and wait for the broker. Called before a failed batch is tried again: the retry
        finds the batch's states already applied (its turns are duplicates) and writes
        nothing, so without this the changelog would keep the older states for good."""
        if not self._refused:
            return
        refused, self._refused = self._refused, {}
        log.warning("sending %d conversation states again whose changelog write failed",
                    len(refused))
        for key, partition in refused.items():
            self.send_changelog(partition, key, self.get(key))
        await self.confirm_changelog()
