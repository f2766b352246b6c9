"""Streaming worker against a real Kafka-protocol broker (tansu), worker as a subprocess."""

from __future__ import annotations

import base64
import json
import os
import signal
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from monitor.bench.engine import generate_workload
from monitor.contracts import (
    ContradictionCertificate,
    TurnEvent,
    TurnScore,
    content_id,
    dump_record,
)
from tests.conftest import WorkerProcess, run, stream_settings

pytestmark = pytest.mark.broker

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "conversations.jsonl"


@pytest.fixture(scope="module")
def engine() -> Any:
    from monitor.runner.build import build_engine

    return build_engine()


def _lines(events: list[TurnEvent]) -> list[bytes]:
    return [e.model_dump_json(exclude_none=True).encode() for e in events]


def replay(broker: str, lines: list[bytes], rate: float | None = None,
           keys: list[bytes | None] | None = None) -> None:
    from monitor.stream.clients import replay as do_replay

    run(do_replay(stream_settings(broker), lines, rate, keys=keys))


def consume(broker: str, topic: str, until_idle: float = 1.5) -> list[dict[str, Any]]:
    from monitor.stream.clients import consume as do_consume

    return [json.loads(v) for v in run(do_consume(stream_settings(broker), topic, until_idle))]


def wait_for_scores(broker: str, expected: int, timeout: float,
                    worker: WorkerProcess | None = None) -> list[dict[str, Any]]:
    deadline = time.monotonic() + timeout
    records: list[dict[str, Any]] = []
    while time.monotonic() < deadline:
        records = consume(broker, "skg.scores", until_idle=1.0)
        if len({r["id"] for r in records}) >= expected:
            return records
        if worker is not None and worker.proc is not None and worker.proc.poll() is not None:
            raise AssertionError(f"worker died: {worker.log.read_text()[-3000:]}")
        time.sleep(1.0)
    state = f"; worker /healthz: {worker.health()}" if worker is not None else ""
    raise AssertionError(f"only {len({r['id'] for r in records})} of {expected} scores{state}")


def canonical(record: dict[str, Any]) -> str:
    """The worker's record as the offline CLI would write it (latency_ms is the only diff)."""
    out = dict(record)
    if out.get("type") == "turn_score":
        out["latency_ms"] = None
    return json.dumps(out, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def offline_states(engine: Any, events: list[TurnEvent]) -> dict[str, Any]:
    states: dict[str, Any] = {}
    for start in range(0, len(events), 64):
        engine.process_batch(events[start:start + 64], states)
    return states


def wait_states(worker: WorkerProcess, expected: dict[str, Any], timeout: float) -> None:
    """Every conversation's state on the worker equals the offline (crash-free) one."""
    deadline = time.monotonic() + timeout
    pending = dict(expected)
    last: Any = None
    while pending and time.monotonic() < deadline:
        for cid, state in list(pending.items()):
            status, body = worker.get(f"/conversations/{cid}")
            last = (cid, status, body)
            if status == 200 and body["summary"]["last_turn_index"] == state.last_turn_index:
                assert body["state_sha256"] == content_id("state", state.to_plain()), cid
                del pending[cid]
        if pending:
            time.sleep(1.0)
    assert not pending, f"{len(pending)} conversations not caught up; last: {last}"


def test_worker_output_equals_offline_score(broker: str, workers: list[WorkerProcess],
                                            tmp_path: Path, engine: Any) -> None:
    from monitor.config import EngineConfig
    from monitor.runner.offline import parse_lines, score_events

    lines = [ln for ln in EXAMPLES.read_bytes().splitlines() if ln.strip()]
    lines += _lines(generate_workload(8, 12, seed=3))
    items = list(parse_lines([ln.decode() for ln in lines]))
    offline = score_events(items, EngineConfig())
    want_scores = {r.id: dump_record(r) for r in offline if isinstance(r, TurnScore)}
    want_certs = {r.id: dump_record(r) for r in offline if isinstance(r, ContradictionCertificate)}
    assert want_certs, "the examples contain contradictions"

    worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log").start()
    workers.append(worker)
    worker.wait_ready()
    replay(broker, lines)
    scores = wait_for_scores(broker, len(want_scores), timeout=90, worker=worker)
    certs = consume(broker, "skg.certificates")

    assert all(r["latency_ms"] is not None for r in scores)
    assert {r["id"]: canonical(r) for r in scores} == want_scores
    assert {r["id"]: canonical(r) for r in certs} == want_certs
    alerts = consume(broker, "skg.alerts", until_idle=0.5)
    assert {a["type"] for a in alerts} >= {"certificate"}

    # the HTTP view and the metrics agree with what was produced
    status, body = worker.get("/conversations/trip-lisbon")
    assert status == 200 and body["summary"]["assistant_turns"] == 4
    assert body["recent_scores"] and body["summary"]["certificates"] >= 1
    assert worker.get("/conversations/nope")[0] == 404
    assert worker.get("/healthz")[0] == 200
    assert worker.metric("skg_turns_total") == len(lines)
    assert worker.metric("skg_certificates_total") == len(want_certs)


def test_poison_messages_are_dead_lettered(broker: str, workers: list[WorkerProcess],
                                           tmp_path: Path) -> None:
    worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log",
                           extra_env={"SKG_MAX_MESSAGE_BYTES": "20000"}).start()
    workers.append(worker)
    good = generate_workload(2, 8, seed=11)
    cids = sorted({e.conversation_id for e in good})
    valid = {e.conversation_id: e for e in good if e.turn_index == 0}
    poison: list[tuple[str, bytes | None, bytes]] = [
        ("invalid_json", cids[0].encode(), b'{"conversation_id": "x", '),
        ("schema", cids[0].encode(), json.dumps({"conversation_id": cids[0],
                                                  "turn_index": -1, "role": "bot",
                                                  "text": "hi"}).encode()),
        ("oversized", cids[0].encode(), b'{"text": "' + b"a" * 30_000 + b'"}'),
        ("not_utf8", cids[1].encode(), b'{"text": "\xff\xfe\xfd"}'),
        ("missing_key", None, valid[cids[0]].model_dump_json().encode()),
        ("key_mismatch", b"someone-else", valid[cids[1]].model_dump_json().encode()),
    ]
    lines: list[bytes] = []
    keys: list[bytes | None] = []
    for i, event in enumerate(good):
        if i % 2 == 0 and poison:
            _, key, value = poison.pop(0)
            lines.append(value)
            keys.append(key)
            poison_sent = True
        lines.append(event.model_dump_json().encode())
        keys.append(event.conversation_id.encode())
    assert poison_sent and not poison
    worker.wait_ready()
    replay(broker, lines, keys=keys)

    assistant = [e for e in good if e.role == "assistant"]
    wait_for_scores(broker, len(assistant), timeout=60, worker=worker)
    deadline = time.monotonic() + 20
    letters: list[dict[str, Any]] = []
    while time.monotonic() < deadline and len(letters) < 6:
        letters = consume(broker, "skg.dead-letter", until_idle=0.5)
    reasons = sorted(d["reason"].split(":", 1)[0] for d in letters)
    assert reasons == sorted(["invalid_json", "schema", "oversized", "not_utf8",
                              "missing_key", "key_mismatch"])
    by_reason = {d["reason"].split(":", 1)[0]: d for d in letters}
    assert by_reason["missing_key"]["key_b64"] is None
    assert base64.b64decode(by_reason["not_utf8"]["value_b64"]) == b'{"text": "\xff\xfe\xfd"}'
    assert by_reason["key_mismatch"]["source_topic"] == "skg.turns"
    assert all(d["offset"] >= 0 for d in letters)
    assert worker.metric("skg_dead_letters_total") == 6
    assert worker.proc is not None and worker.proc.poll() is None


def _faults(**env: str) -> dict[str, str]:
    """Worker environment that loads tests/faults/sitecustomize.py with these settings."""
    path = os.pathsep.join([str(ROOT / "tests" / "faults"), os.environ.get("PYTHONPATH", "")])
    return {"PYTHONPATH": path, **env}


def test_engine_failure_dead_letters_only_that_turn(broker: str, workers: list[WorkerProcess],
                                                    tmp_path: Path) -> None:
    marker = "ENGINE-FAULT-MARKER"
    events = generate_workload(3, 8, seed=17)
    bad = next(e for e in events if e.role == "assistant" and e.turn_index == 3)
    events = [e.model_copy(update={"text": f"{e.text} {marker}"}) if e is bad else e
              for e in events]
    worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log",
                           extra_env=_faults(SKG_TEST_ENGINE_FAIL_ON=marker)).start()
    workers.append(worker)
    worker.wait_ready()
    replay(broker, _lines(events))

    others = [e for e in events if e.role == "assistant" and marker not in e.text]
    scores = wait_for_scores(broker, len(others), timeout=90, worker=worker)
    scored = {(r["conversation_id"], r["turn_index"]) for r in scores}
    assert scored == {(e.conversation_id, e.turn_index) for e in others}
    letters = consume(broker, "skg.dead-letter", until_idle=1.0)
    assert [d["reason"] for d in letters] == ["processing_error: RuntimeError: injected "
                                              "engine fault"]
    assert json.loads(base64.b64decode(letters[0]["value_b64"]))["turn_index"] == 3
    # the turns sent before the engine failed are not sent again by the turn-by-turn retry
    scores = consume(broker, "skg.scores", until_idle=1.0)
    assert len(scores) == len({r["id"] for r in scores}) == len(others)
    assert worker.proc is not None and worker.proc.poll() is None


def test_crash_and_restart_keeps_exactly_one_score(broker: str, workers: list[WorkerProcess],
                                                   tmp_path: Path, engine: Any) -> None:
    events = generate_workload(100, 20, seed=5)  # 2,000 turns, 1,000 assistant
    assistant = [e for e in events if e.role == "assistant"]
    expected_states = offline_states(engine, events)
    data = tmp_path / "data"
    first = WorkerProcess(broker, data, tmp_path / "worker1.log").start()
    workers.append(first)
    first.wait_ready()

    producer = threading.Thread(target=replay, args=(broker, _lines(events), 300.0))
    producer.start()
    deadline = time.monotonic() + 120
    while first.metric("skg_turns_total") < 500:
        assert time.monotonic() < deadline, "worker too slow"
        time.sleep(0.2)
    first.kill(signal.SIGKILL)

    second = WorkerProcess(broker, data, tmp_path / "worker2.log",
                           web_port=first.web_port).start()
    workers.append(second)
    second.wait_ready()
    producer.join(120)
    scores = wait_for_scores(broker, len(assistant), timeout=180, worker=second)

    per_turn: dict[tuple[str, int], set[str]] = defaultdict(set)
    for r in scores:
        per_turn[(r["conversation_id"], r["turn_index"])].add(r["id"])
    assert set(per_turn) == {(e.conversation_id, e.turn_index) for e in assistant}
    assert all(len(ids) == 1 for ids in per_turn.values())
    # the workload has no gaps in turn_index: a gap would mean a skipped input record
    assert second.metric("skg_turn_gaps_total") == 0
    wait_states(second, expected_states, timeout=60)


def test_restart_with_a_backlog_and_a_slow_seek_loses_nothing(
        broker: str, workers: list[WorkerProcess], tmp_path: Path) -> None:
    """Regression test for the lost-turn race (see monitor.stream.faust_fixes).

    A worker is replaced by one on a fresh data directory (a pod rescheduled elsewhere)
    while a backlog waits: the new worker restores the table from the changelog, which
    starts faust's fetcher before the seek to the committed offsets, and that seek is made
    slow (fault injection in tests/faults) so the fetcher has time to deliver backlog
    records while it is in flight. Every turn must still be scored, and no conversation
    may show a gap in turn_index.
    """
    events = generate_workload(60, 20, seed=13)  # 1,200 turns, 600 assistant
    assistant = [e for e in events if e.role == "assistant"]
    first_part = [e for e in events if e.turn_index < 6]
    backlog = [e for e in events if e.turn_index >= 6]
    first = WorkerProcess(broker, tmp_path / "data", tmp_path / "first.log").start()
    workers.append(first)
    first.wait_ready()
    replay(broker, _lines(first_part))
    wait_for_scores(broker, sum(e.role == "assistant" for e in first_part), timeout=120,
                    worker=first)
    time.sleep(4.0)  # let the worker commit its offsets (every 2.8 s)
    first.kill(signal.SIGTERM)
    replay(broker, _lines(backlog))

    second = WorkerProcess(broker, tmp_path / "data2", tmp_path / "second.log",
                           extra_env=_faults(SKG_TEST_SEEK_DELAY_S="1.5")).start()
    workers.append(second)
    second.wait_ready()
    scores = wait_for_scores(broker, len(assistant), timeout=180, worker=second)
    scored = {(r["conversation_id"], r["turn_index"]) for r in scores}
    missing = {(e.conversation_id, e.turn_index) for e in assistant} - scored
    assert not missing, f"{len(missing)} turns never scored, e.g. {sorted(missing)[:5]}"
    assert second.metric("skg_turn_gaps_total") == 0


def test_two_workers_split_partitions_and_take_over(broker: str, workers: list[WorkerProcess],
                                                    tmp_path: Path) -> None:
    events = generate_workload(40, 10, seed=9)
    assistant = [e for e in events if e.role == "assistant"]
    a = WorkerProcess(broker, tmp_path / "a", tmp_path / "a.log").start()
    b = WorkerProcess(broker, tmp_path / "b", tmp_path / "b.log").start()
    workers.extend([a, b])
    a.wait_ready()
    b.wait_ready()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        pa, pb = a.partitions() or [], b.partitions() or []
        if pa and pb and sorted(pa + pb) == [0, 1, 2, 3]:
            break
        time.sleep(0.5)
    else:
        raise AssertionError(f"partitions not split: {a.partitions()} {b.partitions()}")

    half = len(events) // 2
    replay(broker, _lines(events[:half]))
    first_half = [e for e in events[:half] if e.role == "assistant"]
    wait_for_scores(broker, len(first_half), timeout=90)
    # /conversations is routed to the owner: both workers answer for every conversation
    for cid in sorted({e.conversation_id for e in events})[:6]:
        sa, body_a = a.get(f"/conversations/{cid}")
        sb, body_b = b.get(f"/conversations/{cid}")
        assert sa == sb == 200 and body_a == body_b

    b.kill(signal.SIGKILL)
    replay(broker, _lines(events[half:]))
    a.wait_ready(partitions=4, timeout=90)
    scores = wait_for_scores(broker, len(assistant), timeout=120, worker=a)
    got = {(r["conversation_id"], r["turn_index"]) for r in scores}
    assert got == {(e.conversation_id, e.turn_index) for e in assistant}
    for cid in sorted({e.conversation_id for e in events}):
        status, body = a.get(f"/conversations/{cid}")
        assert status == 200 and body["summary"]["last_turn_index"] == 9
