"""A broker that lost its data must not put the worker into a crash loop.

Faust keeps, next to each local table partition, the changelog offset it last wrote. When
the broker comes back empty (or a topic was re-created), that offset lies beyond the new
log's end, and Faust's recovery raises `ConsistencyError` on every start until someone
deletes the worker's data directory. The broker is the source of truth, so the local copy
of such a partition is reset to what the broker has (dropped, then rebuilt from the
changelog as it is now), with an ERROR log line and `skg_state_resets_total`.
"""

from __future__ import annotations

import contextlib
import logging
import shutil
from collections.abc import Callable
from typing import Any

from faust.tables.manager import TableManager
from faust.tables.recovery import Recovery
from faust.types import TP

log = logging.getLogger(__name__)

#: called with (changelog partition, local offset, broker's last offset) on each reset
ResetHook = Callable[[TP, int, int], None]


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


class ResettingRecovery(Recovery):
    on_reset: ResetHook | None = None

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


class ResettingTableManager(TableManager):
    """The app's table manager with `ResettingRecovery` (set as `TableManager=`)."""

    @property
    def recovery(self) -> Recovery:
        if self._recovery is None:
            self._recovery = ResettingRecovery(self.app, self, beacon=self.beacon,
                                               loop=self.loop)
        return self._recovery
