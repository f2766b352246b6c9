"""The small faults of issue 21: a byte-order mark, a lowercase bearer scheme, /healthz
while the worker waits for its broker."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from monitor.inputs import decode_message
from monitor.stream.broker import free_port, stop_process
from monitor.stream.http import token_matches

ROOT = Path(__file__).resolve().parents[1]
TURN = '{"conversation_id": "c", "turn_index": 0, "role": "user", "text": "hi"}'


def test_a_line_starting_with_a_byte_order_mark_is_read() -> None:
    from monitor.runner.offline import parse_lines

    chat = '{"conversation_id": "d", "messages": [{"role": "user", "content": "hi"}]}'
    items = [item for _, item in parse_lines(
        [("\ufeff" + TURN).encode(), "\ufeff" + TURN, "\ufeff" + chat], "auto")]
    assert [type(i).__name__ for i in items] == ["TurnEvent"] * 3
    event = decode_message(b"c", ("\ufeff" + TURN).encode())
    assert (event.conversation_id, event.text) == ("c", "hi")


@pytest.mark.parametrize("header, ok", [
    ("Bearer abc", True), ("bearer abc", True), ("BEARER abc", True), ("bEaReR  abc ", True),
    ("Bearer abd", False), ("Bearer", False), ("Bearer ", False), ("Basic abc", False),
    ("abc", False), (None, False),
])
def test_the_bearer_scheme_is_case_insensitive(header: str | None, ok: bool) -> None:
    assert token_matches(header, "abc") is ok


def _health(port: int) -> dict[str, object] | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2) as resp:
            body: dict[str, object] = json.loads(resp.read())
            return body
    except OSError:
        return None


def test_starting_health_serves_until_stopped() -> None:
    from monitor.stream.health import StartingHealth

    port = free_port()
    starting = StartingHealth("127.0.0.1", port, "9.9").start()
    starting.stage = "waiting for the broker"
    try:
        body = _health(port)
        assert body is not None and body["ready"] is False
        assert body["stage"] == "waiting for the broker" and body["status"] == "ok"
    finally:
        starting.stop()
    assert _health(port) is None
    again = StartingHealth("127.0.0.1", port, "9.9").start()  # the port is free again
    again.stop()


def test_a_worker_waiting_for_its_broker_answers_healthz_not_ready(tmp_path: Path) -> None:
    web_port = free_port()
    cmd = [sys.executable, "-m", "monitor.cli", "worker", "--broker",
           f"kafka://127.0.0.1:{free_port()}", "--web-port", str(web_port), "--data-dir",
           str(tmp_path / "data"), "--local-broker"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        body = None
        while body is None and time.monotonic() < deadline:
            assert proc.poll() is None
            body = _health(web_port)
            time.sleep(0.5)
        assert body is not None, "no /healthz while waiting for the broker"
        assert body["ready"] is False and body["stage"] == "waiting for the broker"
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(15) is not None
    finally:
        stop_process(proc, signal.SIGKILL)
