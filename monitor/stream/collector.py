"""The garbage collector's whole-heap passes, taken out of the batches.

A full collection walks every object the worker holds: the decoded states of up to
`live_states` conversations, the engine's bounded caches, the recent outputs the HTML views
show (340,000 objects after `bench stream`'s 12,000 turns). CPython starts one whenever the
objects that survived since the last one grow by a quarter, in the middle of whatever batch
is running: one `bench stream` run (stop 47) logged 17 in two minutes, growing from 0.07 to
0.68 s each, and the turns queued behind one were the half-rate run's slowest (p99 429 ms,
all of them behind a 0.34 s pass).

So after every batch its survivors are frozen (`gc.freeze`: out of every collection's sight,
still freed by reference counting when dropped); the young generations go on collecting the
cycles a batch makes and drops within it. A frozen object that later becomes part of an
unreachable cycle waits for the periodic pass: every `every_s` seconds, between two
batches, everything is unfrozen, collected once and frozen again. The engine's states make
no such cycles (`graph._Graph`): `python -m monitor.bench.memory` (20,000 turns over 5,000
conversations, states evicted all the time) ends at the same RSS as with Python's own
schedule (513.6 and 510.0 MB), in 49.1 s against 51.0, and the pass at its end takes 0.25 s.
"""

from __future__ import annotations

import gc
import logging
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class FullCollections:
    """Call `after_batch` between batches; `every_s` 0 leaves the collector as Python has it."""

    def __init__(self, every_s: float, observe: Callable[[float], None] | None = None,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.every_s = every_s
        self.observe = observe
        self.clock = clock
        self.last = clock()

    def after_batch(self) -> float | None:
        """Freeze what the batch left, or run the periodic full pass when it is due.
        Returns that pass's seconds, None when none ran."""
        if self.every_s <= 0:
            return None
        if self.clock() - self.last < self.every_s:
            gc.freeze()
            return None
        return self.collect_now()

    def collect_now(self) -> float:
        """The whole heap unfrozen, collected once and frozen again; its seconds."""
        started = time.perf_counter()
        gc.unfreeze()
        found = gc.collect()
        gc.freeze()
        seconds = time.perf_counter() - started
        log.info("whole-heap garbage collection: %d unreachable objects in %.2f s", found,
                 seconds)
        self.last = self.clock()
        if self.observe is not None:
            self.observe(seconds)
        return seconds
