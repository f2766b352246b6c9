"""A broker that lost its data must not put the worker into a crash loop.

Faust keeps, next to each local table partition, the changelog offset it last wrote. When
the broker comes back empty (or a topic was re-created), that offset lies beyond the new
log's end, and Faust's recovery raises `ConsistencyError` on every start until someone
deletes the worker's data directory. The broker is the source of truth, so the local copy
of such a partition is reset to what the broker has (dropped, then rebuilt from the
changelog as it is now), with an ERROR log line and `skg_state_resets_total`.

Recovery can also wait for ever: Faust reads each changelog partition until its last
offset, and a partition whose offsets are counted but never delivered keeps the worker
"recovering" with nothing to show. The local broker (tansu) does this after it came back
empty while a producer was retrying writes: its changelog said 5-9 records per
partition and a fetch from offset 0 returned none, for 6 minutes in CI. (Faust itself
only handles the transactional case, a trailing control record.) So a watchdog looks at
every active changelog partition that still has records to read. When one gave nothing
for `stall_after_s`: if the consumer is already past the log's end, the rest is a gap and
the partition is caught up (ERROR); otherwise it is sought again where it stopped (ERROR),
and after `max_reseeks` seeks without progress recovery goes on without those records
(CRITICAL: the states they hold are lost). A restart would not help (the broker serves
the same log), and a worker that recovers for ever scores nothing. Each stall counts in
`skg_recovery_stalls_total{action}`.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from faust.tables.manager import TableManager
from faust.tables.recovery import Recovery
from faust.types import TP
from mode import Service

log = logging.getLogger(__name__)

#: called with (changelog partition, local offset, broker's last offset) on each reset
ResetHook = Callable[[TP, int, int], None]
#: called with (changelog partition, what was done: "gap", "reseek" or "skipped") per stall
StallHook = Callable[[TP, str], None]


def reset_partition(table: Any, tp: TP) -> None:
    """Drop the local data (and its persisted offset) of one table partition."""
    store = table.data
    partition = tp.partition
    dbs = getattr(store, "_dbs", None)
    if dbs is not None and hasattr(store, "partition_path"):  # RocksDB: one DB per partition
        db = dbs.pop(partition, None)
        if db is not None and hasattr(db, "close"):
            with contextlib.suppress(Exception):
                db.close()
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(store.partition_path(partition))
        key_index = getattr(store, "_key_index", None)
        if key_index is not None:
            key_index.clear()
        return
    with contextlib.suppress(Exception):  # memory store: nothing persisted across restarts
        store.reset_state()


@dataclass
class StallWatch:
    """Which partitions made no recovery progress for `after_s` (pure: the clock is
    passed in). Progress is a change in the records left to read."""

    after_s: float
    seen: dict[TP, tuple[int, float]] = field(default_factory=dict)
    """Per partition: (records left, when that number was first seen)."""

    def stalled(self, remaining: Mapping[TP, int], now: float) -> list[TP]:
        for tp in [tp for tp in self.seen if remaining.get(tp, 0) <= 0]:
            del self.seen[tp]
        out = []
        for tp, left in sorted(remaining.items()):
            if left <= 0:
                continue
            before = self.seen.get(tp)
            if before is None or before[0] != left:
                self.seen[tp] = (left, now)
            elif now - before[1] >= self.after_s:
                out.append(tp)
                self.seen[tp] = (left, now)  # the next look waits another after_s
        return out


class ResettingRecovery(Recovery):
    on_reset: ResetHook | None = None
    on_stall: StallHook | None = None
    stall_after_s = 60.0
    max_reseeks = 3

    async def _build_highwaters(self, consumer: Any, tps: set[TP], destination: Any,
                                title: str) -> None:
        await super()._build_highwaters(consumer, tps, destination, title)
        offsets = self.active_offsets if title == "active" else self.standby_offsets
        for tp in tps:
            local, last = offsets.get(tp), destination.get(tp)
            if local is None or last is None or local <= last:
                continue
            log.error("STATE RESET: local table %s has offset %s but the broker's changelog "
                      "ends at %s (the broker lost its data?); dropping the local copy and "
                      "restoring from the broker", tp, local, last)
            reset_partition(self.tp_to_table[tp], tp)
            offsets[tp] = None  # type: ignore[assignment]  # faust: None = from the start
            if self.on_reset is not None:
                self.on_reset(tp, local, last)

    @Service.task
    async def _watch_stalls(self) -> None:
        watch = StallWatch(self.stall_after_s)
        reseeks: dict[TP, int] = {}
        while not self.should_stop:
            await self.sleep(max(1.0, self.stall_after_s / 4))
            if not self.in_recovery:
                watch.seen.clear()
                reseeks.clear()
                continue
            for tp in watch.stalled(self.active_remaining(), time.monotonic()):
                try:
                    await self._unstick(tp, reseeks)
                except Exception:  # the watchdog must outlive a failed look
                    log.exception("recovery watchdog: could not look at %s", tp)

    async def _unstick(self, tp: TP, reseeks: dict[TP, int]) -> None:
        consumer = self.app.consumer
        last, have = self.active_highwaters[tp], self.active_offsets[tp]
        position = await consumer.position(tp)
        if position is not None and position > last:
            log.error("RECOVERY STALLED on %s: offsets %s..%s were never delivered but the "
                      "consumer is past the log's end (%s): treating the partition as "
                      "caught up", tp, have + 1, last, position)
            self.active_offsets[tp] = last
            self._hook(tp, "gap")
            return
        reseeks[tp] = reseeks.get(tp, 0) + 1
        if reseeks[tp] <= self.max_reseeks:
            log.error("RECOVERY STALLED on %s: no record for %.0f s at offset %s of %s "
                      "(consumer at %s): seeking it again", tp, self.stall_after_s, have, last,
                      position)
            self._hook(tp, "reseek")
            await consumer.seek_wait({tp: max(have, 0)})
            return
        log.critical("RECOVERY STALLED on %s: offsets %s..%s of the changelog could not be "
                     "read after %d seeks (consumer at %s); recovery goes on without them: "
                     "the states they hold are lost, and their conversations are scored as "
                     "if new", tp, have + 1, last, self.max_reseeks, position)
        self.active_offsets[tp] = last
        self._hook(tp, "skipped")

    def _hook(self, tp: TP, action: str) -> None:
        if self.on_stall is not None:
            self.on_stall(tp, action)


class ResettingTableManager(TableManager):
    """The app's table manager with `ResettingRecovery` (set as `TableManager=`); the
    worker sets the hooks on its own app's manager before recovery starts."""

    on_reset: ResetHook | None = None
    on_stall: StallHook | None = None
    stall_after_s = ResettingRecovery.stall_after_s

    @property
    def recovery(self) -> Recovery:
        if self._recovery is None:
            recovery = ResettingRecovery(self.app, self, beacon=self.beacon, loop=self.loop)
            recovery.on_reset, recovery.on_stall = self.on_reset, self.on_stall
            recovery.stall_after_s = self.stall_after_s
            self._recovery = recovery
        return self._recovery
