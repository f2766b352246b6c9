"""The worker's whole-heap garbage collections between batches (monitor.stream.collector)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from monitor.stream.collector import FullCollections


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> weakref.ref[_Node]:
    """Two objects that refer to each other: freed only by a collection."""
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    return weakref.ref(a)


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture(autouse=True)
def _unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()  # the rest of the test session keeps Python's own schedule
    gc.collect()


def test_a_batch_leaves_its_survivors_frozen_until_the_periodic_full_pass() -> None:
    clock, seen = _Clock(), []
    collections = FullCollections(300.0, seen.append, clock)
    cycle = _cycle()
    assert collections.after_batch() is None  # not due: freezes
    assert gc.get_freeze_count() > 0
    gc.collect()
    assert cycle() is not None  # out of the collector's sight

    clock.now = 299.0
    assert collections.after_batch() is None
    gc.collect()
    assert cycle() is not None and seen == []

    clock.now = 300.0
    seconds = collections.after_batch()
    assert cycle() is None  # the full pass found it
    assert seconds is not None and seen == [seconds]
    assert gc.get_freeze_count() > 0  # and froze what lives on

    clock.now = 301.0  # the next pass is due 300 s after this one, not before
    assert collections.after_batch() is None and seen == [seconds]


def test_every_zero_leaves_the_collector_as_python_has_it() -> None:
    collections = FullCollections(0.0, clock=_Clock())
    cycle = _cycle()
    assert collections.after_batch() is None
    assert gc.get_freeze_count() == 0
    gc.collect()
    assert cycle() is None
