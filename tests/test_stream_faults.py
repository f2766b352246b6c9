"""Fault suite on the real local broker (tansu): poison messages, private HTTP, broker faults.

Reuses the harness of tests/conftest.py and tests/test_stream.py (broker fixture, worker
subprocess, replay/consume helpers).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from monitor.bench.engine import generate_workload
from monitor.contracts import TurnEvent
from tests.conftest import WorkerProcess
from tests.test_stream import consume, replay, wait_for_scores

pytestmark = pytest.mark.broker

TOKEN = "s3cret-token"


def _turn(cid: str, index: Any, role: str, text: str, **extra: Any) -> bytes:
    return json.dumps({"conversation_id": cid, "turn_index": index, "role": role,
                       "text": text, **extra}).encode()


def _nested(depth: int) -> bytes:
    return b'{"a": ' * depth + b"1" + b"}" * depth


def _get(url: str, token: str | None = None) -> int:
    request = urllib.request.Request(url)
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=5) as resp:
            return int(resp.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)


def test_poison_interleaved_with_valid_turns_and_private_http(
        broker: str, workers: list[WorkerProcess], tmp_path: Path) -> None:
    good = generate_workload(3, 8, seed=23)
    cid = good[0].conversation_id
    c = cid.encode()
    # (expected dead-letter kind, key, value): the four crashers of issue 12 first
    poison: list[tuple[str, bytes | None, bytes]] = [
        ("oversized", c, _turn(cid, 99, "user", "x" * 900_000)),
        ("too_deep", c, b'{"x": ' + b"[" * 5_000 + b"]" * 5_000 + b"}"),
        ("too_deep", c, _turn(cid, 99, "user", "hi").replace(
            b"}", b', "metadata": ' + _nested(300) + b"}")),
        ("surrogate", c, _turn(cid, 99, "user", "hi", metadata={"n": "\ud800"})),
        ("schema", c, _turn(cid, "4", "user", "hi")),
        ("schema", c, _turn(cid, 10**30, "user", "hi")),
        ("schema", c, _turn(cid, True, "user", "hi")),
    ]
    lines: list[bytes] = []
    keys: list[bytes | None] = []
    for i, event in enumerate(good):
        if i % 2 == 1 and poison:
            _, key, value = poison.pop(0)
            lines.append(value)
            keys.append(key)
        lines.append(event.model_dump_json().encode())
        keys.append(event.conversation_id.encode())
    assert not poison
    # misordered turns of their own conversation: a conflicting repeat and a late turn
    order = [_turn("ord", 0, "user", "Is the museum open on Mondays?"),
             _turn("ord", 1, "assistant", "The museum is open on Mondays."),
             _turn("ord", 1, "assistant", "The museum is closed on Mondays."),
             _turn("ord", 1, "assistant", "The museum is open on Mondays."),  # redelivery
             _turn("ord", 3, "user", "Thanks, and the café?"),
             _turn("ord", 2, "assistant", "You are welcome."),
             _turn("ord", 4, "assistant", "The café is open daily.")]
    lines += order
    keys += [b"ord"] * len(order)

    worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log",
                           extra_env={"SKG_API_TOKEN": TOKEN}).start()
    workers.append(worker)
    worker.wait_ready()
    replay(broker, lines, keys=keys)

    assistant = [e for e in good if e.role == "assistant"]
    scores = wait_for_scores(broker, len(assistant) + 2, timeout=120, worker=worker)
    scored = {(r["conversation_id"], r["turn_index"]) for r in scores}
    want = {(e.conversation_id, e.turn_index) for e in assistant} | {("ord", 1), ("ord", 4)}
    assert scored == want
    by_turn = {(r["conversation_id"], r["turn_index"]): r for r in scores}
    assert by_turn[("ord", 4)]["previous_turn_index"] == 3  # the late turn 2 was not applied

    deadline = time.monotonic() + 30
    letters: list[dict[str, Any]] = []
    while time.monotonic() < deadline and len(letters) < 9:
        letters = consume(broker, "skg.dead-letter", until_idle=0.5)
    kinds = sorted(d["reason"].split(":", 1)[0] for d in letters)
    assert kinds == sorted(["oversized", "too_deep", "too_deep", "surrogate", "schema",
                            "schema", "schema", "turn_conflict", "out_of_order"])
    big = next(d for d in letters if d["reason"].startswith("oversized"))
    assert big["value_truncated"] and big["value_bytes"] > 900_000
    assert len(json.dumps(big)) < 200_000 and big["offset"] >= 0 and big["value_sha256"]
    assert worker.metric("skg_dead_letters_total") == 9
    assert worker.metric("skg_batch_failures_total") == 0
    assert worker.proc is not None and worker.proc.poll() is None
    health = worker.health()
    assert health is not None and health["ready"] is True

    # private HTTP: Faust's own views are gone, the conversation view wants the token
    assert _get(f"{worker.url}/table/states/{cid}/") == 404
    assert _get(f"{worker.url}/table/") == 404
    assert _get(f"{worker.url}/router/") == 404
    assert _get(f"{worker.url}/stats/") == 404
    assert _get(f"{worker.url}/conversations/{cid}") == 401
    assert _get(f"{worker.url}/conversations/{cid}", token="wrong") == 401
    assert _get(f"{worker.url}/conversations/{cid}", token=TOKEN) == 200
    assert _get(f"{worker.url}/metrics") == 200
    assert _get(f"{worker.url}/healthz") == 200


def _events_lines(events: list[TurnEvent]) -> list[bytes]:
    return [e.model_dump_json(exclude_none=True).encode() for e in events]


def test_idle_conversations_expire_with_a_session_record_and_a_tombstone(
        broker: str, workers: list[WorkerProcess], tmp_path: Path) -> None:
    from monitor.kafka.settings import StreamSettings
    from monitor.stream.clients import consume as do_consume
    from tests.conftest import run, stream_settings

    events = generate_workload(2, 4, seed=41)
    worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log",
                           extra_env={"SKG_STATE_TTL_S": "4", "SKG_STATE_SWEEP_S": "1"}
                           ).start()
    workers.append(worker)
    worker.wait_ready()
    replay(broker, _events_lines(events))
    cids = sorted({e.conversation_id for e in events})
    wait_for_scores(broker, sum(e.role == "assistant" for e in events), timeout=90,
                    worker=worker)

    deadline = time.monotonic() + 60
    while worker.metric("skg_conversations_expired_total") < len(cids):
        assert time.monotonic() < deadline, worker.log.read_text()[-2000:]
        time.sleep(1.0)
    sessions = [r for r in consume(broker, "skg.scores") if r["type"] == "session"]
    assert sorted(s["conversation_id"] for s in sessions) == cids
    assert all(s["last_turn_index"] == 3 and s["assistant_turns"] == 2 for s in sessions)
    for cid in cids:
        assert worker.get(f"/conversations/{cid}")[0] == 404

    changelog = StreamSettings().changelog_topic
    tombstones: list[bytes | None] = []

    def on_record(key: bytes | None, value: bytes | None, ts: int) -> None:
        if value is None:
            tombstones.append(key)

    run(do_consume(stream_settings(broker), changelog, until_idle=1.0, on_record=on_record))
    assert sorted(k.decode() for k in tombstones if k) == cids

    # a conversation that comes back starts afresh
    again = [e.model_copy(update={"turn_index": e.turn_index + 10}) for e in events
             if e.conversation_id == cids[0]]
    replay(broker, _events_lines(again))
    deadline = time.monotonic() + 60
    while worker.get(f"/conversations/{cids[0]}")[0] != 200:
        assert time.monotonic() < deadline
        time.sleep(0.5)
    _, body = worker.get(f"/conversations/{cids[0]}")
    assert body["summary"]["turns"] == 4 and body["summary"]["last_turn_index"] == 13


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_broker_command_stops_its_tansu_on_a_signal(sig: str, tmp_path: Path) -> None:
    import signal
    import subprocess
    import sys

    from monitor.stream.broker import free_port, stop_process, wait_for_port

    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "monitor.cli", "broker", "--port",
                             str(port)], cwd=Path(__file__).resolve().parents[1],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(port, timeout=60)
        proc.send_signal(getattr(signal, sig))
        proc.wait(30)
        deadline = time.monotonic() + 10
        while _port_open(port) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _port_open(port), "tansu still listening after its parent stopped"
    finally:
        stop_process(proc, signal.SIGKILL)


def test_replay_fails_when_nothing_is_acknowledged(tmp_path: Path) -> None:
    import subprocess
    import sys

    from monitor.stream.broker import free_port

    path = tmp_path / "turns.jsonl"
    path.write_bytes(b"\n".join(_events_lines(generate_workload(1, 2, seed=1))) + b"\n")
    result = subprocess.run([sys.executable, "-m", "monitor.cli", "replay", str(path),
                             "--broker", f"kafka://127.0.0.1:{free_port()}"],
                            capture_output=True, text=True, timeout=300,
                            cwd=Path(__file__).resolve().parents[1])
    assert result.returncode == 1
    assert "replay failed" in result.stderr and "Traceback" not in result.stderr


def test_worker_waits_for_its_broker_and_recovers_from_an_empty_restart(
        workers: list[WorkerProcess], tmp_path: Path) -> None:
    import signal

    from monitor.stream.broker import free_port, start_broker, stop_process, tansu_path

    try:
        tansu_path()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    port = free_port()
    url = f"kafka://127.0.0.1:{port}"
    worker = WorkerProcess(url, tmp_path / "data", tmp_path / "worker.log").start()
    workers.append(worker)
    time.sleep(15)  # longer than the 11 s after which the worker used to give up
    assert worker.proc is not None and worker.proc.poll() is None, worker.log.read_text()
    assert not (worker.health() or {}).get("ready")

    broker = start_broker(port, tmp_path / "tansu1.log")
    try:
        worker.wait_ready(timeout=180)
        first = generate_workload(4, 6, seed=51)
        replay(url, _events_lines(first))
        wait_for_scores(url, sum(e.role == "assistant" for e in first), timeout=120,
                        worker=worker)

        stop_process(broker, signal.SIGKILL)  # the broker dies and loses everything
        deadline = time.monotonic() + 30
        while (worker.health() or {}).get("ready"):
            assert time.monotonic() < deadline, "still ready with the broker down"
            time.sleep(0.5)
        assert worker.metric("skg_broker_up") == 0
        time.sleep(5)
        assert worker.proc.poll() is None, worker.log.read_text()[-3000:]

        broker = start_broker(port, tmp_path / "tansu2.log")  # back, empty
        # the worker sees a new broker epoch and exits (3) without committing; its
        # supervisor (here: the test) restarts it and the restart drops the local tables
        from monitor.stream.epoch import EXIT_EPOCH_CHANGED

        assert worker.proc.wait(120) == EXIT_EPOCH_CHANGED, worker.log.read_text()[-3000:]
        worker.start()
        worker.wait_ready(timeout=240)
        second = [e.model_copy(update={"conversation_id": "after-" + e.conversation_id})
                  for e in generate_workload(4, 6, seed=52)]
        replay(url, _events_lines(second))
        scores = wait_for_scores(url, sum(e.role == "assistant" for e in second),
                                 timeout=240, worker=worker)
        got = {(r["conversation_id"], r["turn_index"]) for r in scores}
        assert got == {(e.conversation_id, e.turn_index) for e in second
                       if e.role == "assistant"}
        assert worker.metric("skg_broker_up") == 1
        # the first conversations' local states were ahead of the empty changelog
        assert worker.metric("skg_state_resets_total") >= 1
        assert worker.proc.poll() is None
    finally:
        stop_process(broker, signal.SIGKILL)
