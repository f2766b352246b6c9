"""The stream benchmark's arrival order (monitor.bench.stream); the run itself is measured,
not tested."""

from __future__ import annotations

from monitor.bench.engine import generate_workload
from monitor.bench.stream import independent_arrivals


def test_independent_arrivals_keep_each_conversations_order_and_mix_the_rounds() -> None:
    lockstep = generate_workload(20, 6, seed=5)
    mixed = independent_arrivals(lockstep, seed=22)
    assert sorted(map(id, mixed)) == sorted(map(id, lockstep))
    for cid in {e.conversation_id for e in lockstep}:
        assert [e.turn_index for e in mixed if e.conversation_id == cid] == list(range(6))
    assert mixed == independent_arrivals(lockstep, seed=22)
    # lockstep: the first 20 records are every conversation's first (user) turn
    assert {e.role for e in lockstep[:20]} == {"user"}
    assert {e.role for e in mixed[:20]} == {"user", "assistant"}
