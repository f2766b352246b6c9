"""The recovery watchdog's decisions, without a broker: which partitions stalled, and
what is done about one (monitor.stream.recovery)."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from faust.types import TP

from monitor.stream.faust_fixes import DurableTable
from monitor.stream.recovery import ResettingRecovery, StallWatch

A, B = TP("skg-monitor-states-changelog", 0), TP("skg-monitor-states-changelog", 3)


def test_a_partition_is_stalled_only_after_no_progress_for_the_whole_interval() -> None:
    watch = StallWatch(after_s=60.0)
    assert watch.stalled({A: 5, B: 7}, now=0.0) == []
    assert watch.stalled({A: 4, B: 7}, now=59.0) == []  # A moved; B not yet 60 s
    assert watch.stalled({A: 3, B: 7}, now=60.0) == [B]
    assert watch.stalled({A: 2, B: 7}, now=61.0) == []  # B is looked at again after 60 s
    assert watch.stalled({A: 2, B: 7}, now=120.0) == [B]
    assert watch.stalled({A: 0, B: 0}, now=500.0) == []  # caught up: forgotten
    assert watch.seen == {}


class _Consumer:
    def __init__(self, position: int | None) -> None:
        self._position = position
        self.sought: list[dict[TP, int]] = []

    async def position(self, tp: TP) -> int | None:
        return self._position

    async def seek_wait(self, partitions: dict[TP, int]) -> None:
        self.sought.append(dict(partitions))


def _recovery(position: int | None, have: int, last: int) -> Any:
    hooks: list[tuple[TP, str]] = []
    fake = SimpleNamespace(app=SimpleNamespace(consumer=_Consumer(position)),
                           active_highwaters={B: last}, active_offsets={B: have},
                           max_reseeks=2, stall_after_s=60.0, hooks=hooks)
    fake._hook = lambda tp, action: hooks.append((tp, action))
    return fake


def test_a_consumer_past_the_logs_end_means_the_rest_is_a_gap_and_recovery_is_done() -> None:
    fake = _recovery(position=10, have=6, last=9)  # offsets 7..9 never came
    asyncio.run(ResettingRecovery._unstick(fake, B, {}))
    assert fake.active_offsets[B] == 9
    assert fake.hooks == [(B, "gap")]
    assert fake.app.consumer.sought == []


def test_a_consumer_short_of_the_end_is_sought_again_where_recovery_stopped() -> None:
    fake = _recovery(position=7, have=6, last=9)
    reseeks: dict[TP, int] = {}
    asyncio.run(ResettingRecovery._unstick(fake, B, reseeks))
    asyncio.run(ResettingRecovery._unstick(fake, B, reseeks))
    assert fake.app.consumer.sought == [{B: 6}, {B: 6}]
    assert fake.active_offsets[B] == 6  # nothing pretended
    assert fake.hooks == [(B, "reseek"), (B, "reseek")]


def test_after_max_reseeks_without_progress_recovery_goes_on_without_those_records() -> None:
    fake = _recovery(position=0, have=-1, last=8)  # the broker counts 9 and serves none
    reseeks = {B: fake.max_reseeks}
    asyncio.run(ResettingRecovery._unstick(fake, B, reseeks))
    assert fake.active_offsets[B] == 8  # nothing left to wait for: recovery can end
    assert fake.hooks == [(B, "skipped")]
    assert fake.app.consumer.sought == []


class _Table:
    """DurableTable's changelog bookkeeping on a dict, with a broker that refuses the
    keys in `refuse` (faust_fixes fix 4)."""

    confirm_changelog = DurableTable.confirm_changelog
    resend_refused = DurableTable.resend_refused
    forget_refused = DurableTable.forget_refused

    def __init__(self, data: dict[bytes, bytes]) -> None:
        self.data, self.refuse = data, set(data)
        self._unconfirmed: list[Any] = []
        self._refused: dict[Any, int | None] = {}
        self.sent: list[tuple[int | None, bytes, bytes | None]] = []

    def get(self, key: bytes) -> bytes | None:
        return self.data.get(key)

    def send_changelog(self, partition: int | None, key: bytes, value: bytes | None) -> Any:
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if key in self.refuse:
            fut.set_exception(RuntimeError("UnknownError"))
        else:
            fut.set_result(None)
            self.sent.append((partition, key, value))
        fut.message = SimpleNamespace(key=key, partition=partition)  # type: ignore[attr-defined]
        self._unconfirmed.append(fut)
        return fut


def test_refused_state_writes_are_sent_again_with_the_current_state() -> None:
    import pytest

    async def scenario() -> _Table:
        table = _Table({b"c1": b"state-1", b"c2": b"state-2"})
        table.refuse = {b"c2"}
        for key in (b"c1", b"c2"):
            table.send_changelog(key[-1] - 48, key, table.data[key])
        with pytest.raises(RuntimeError):
            await table.confirm_changelog()
        table.data[b"c2"] = b"state-2b"  # newer by the time the retry comes
        table.refuse = set()
        await table.resend_refused()
        await table.resend_refused()  # nothing left: sends nothing
        return table

    table = asyncio.run(scenario())
    assert table.sent == [(1, b"c1", b"state-1"), (2, b"c2", b"state-2b")]
    assert table._refused == {}


def test_a_revoked_batch_forgets_its_refused_writes() -> None:
    table = _Table({b"c1": b"s"})
    table._refused = {b"c1": 1}
    table.forget_refused()
    asyncio.run(table.resend_refused())
    assert table.sent == []
