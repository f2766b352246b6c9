"""Fault injection for worker subprocesses in tests (on PYTHONPATH only when a test asks).

SKG_TEST_SEEK_DELAY_S: make every seek to the committed offsets that many seconds slower,
before the seek reaches the broker and again after it returns. On a real broker this
widens both windows in which faust-streaming's fetcher can deliver records while a
restarted worker seeks (see `monitor.stream.faust_fixes`), so the regression test does
not depend on luck.

SKG_TEST_ENGINE_FAIL_ON: the engine raises on any turn whose text contains that string,
as a bug in the engine would (the worker must dead-letter that turn and go on).
"""

import asyncio
import os

_delay = float(os.environ.get("SKG_TEST_SEEK_DELAY_S", "0") or 0)
if _delay > 0:
    from faust.transport.drivers.aiokafka import AIOKafkaConsumerThread

    _seek_to_committed = AIOKafkaConsumerThread.seek_to_committed

    async def _slow_seek_to_committed(self):  # type: ignore[no-untyped-def]
        await asyncio.sleep(_delay)
        offsets = await _seek_to_committed(self)
        await asyncio.sleep(_delay)
        return offsets

    AIOKafkaConsumerThread.seek_to_committed = _slow_seek_to_committed  # type: ignore[method-assign]

_fail_on = os.environ.get("SKG_TEST_ENGINE_FAIL_ON", "")
if _fail_on:
    from monitor.engine import pipeline

    _apply = pipeline.Engine._apply

    def _failing_apply(self, state, event, extraction):  # type: ignore[no-untyped-def]
        if _fail_on in event.text:
            raise RuntimeError("injected engine fault")
        return _apply(self, state, event, extraction)

    pipeline.Engine._apply = _failing_apply  # type: ignore[method-assign]
