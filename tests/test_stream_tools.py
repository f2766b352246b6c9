"""Tools that tell the truth (issue 21 item 4): `replay` counts acknowledgements, `broker`
stops at once on a signal, a file that cannot be read is one line and exit 2."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from monitor.stream.broker import free_port, stop_process, tansu_path, wait_for_port

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "conversations.jsonl"
CLI = [sys.executable, "-m", "monitor.cli"]


def _cli(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout)


def _port_open(port: int) -> bool:
    import socket

    with socket.socket() as s:
        s.settimeout(0.2)
        return s.connect_ex(("127.0.0.1", port)) == 0


def _broker_command(port: int) -> subprocess.Popen[bytes]:
    try:
        tansu_path()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    proc = subprocess.Popen([*CLI, "broker", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_port(port, timeout=60)
    return proc


@pytest.mark.broker
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_broker_stops_within_two_seconds_with_exit_0(sig: signal.Signals) -> None:
    port = free_port()
    proc = _broker_command(port)
    try:
        started = time.monotonic()
        proc.send_signal(sig)
        rc = proc.wait(30)
        took = time.monotonic() - started
        stderr = proc.stderr.read().decode() if proc.stderr else ""
        assert rc == 0 and took < 2.0, (rc, took, stderr)
        assert "Traceback" not in stderr
        assert not _port_open(port), "tansu still listening after its parent stopped"
    finally:
        stop_process(proc, signal.SIGKILL)


@pytest.mark.broker
def test_the_readme_replay_command_exits_0_with_every_record_on_the_topic() -> None:
    """Against `skg-monitor broker` without the local profile: tansu then reports the end
    offset of a multi-record batch as its base + 1, which replay used to call a loss."""
    from monitor.stream.clients import consume
    from tests.conftest import run, stream_settings

    readme = (ROOT / "README.md").read_text()
    assert "skg-monitor replay examples/conversations.jsonl --broker kafka://127.0.0.1:9092" \
        in readme
    port = free_port()
    proc = _broker_command(port)
    try:
        result = _cli("replay", "examples/conversations.jsonl", "--broker",
                      f"kafka://127.0.0.1:{port}")
        lines = [ln for ln in EXAMPLES.read_text().splitlines() if ln.strip()]
        assert result.returncode == 0, result.stderr
        assert f"sent {len(lines)} records" in result.stderr
        values = run(consume(stream_settings(f"kafka://127.0.0.1:{port}"), "skg.turns",
                             until_idle=1.5))
        assert sorted(values) == sorted(ln.encode() for ln in lines)
    finally:
        stop_process(proc, signal.SIGKILL)


@pytest.mark.broker
def test_replay_returns_the_acknowledged_count(broker: str) -> None:
    from monitor.stream.clients import replay_acknowledged
    from tests.conftest import run, stream_settings

    lines = [json.dumps({"conversation_id": f"c{i % 7}", "turn_index": i, "role": "user",
                         "text": "hi"}).encode() for i in range(300)]
    settings = stream_settings(broker).model_copy(update={"local_broker_profile": False})
    from monitor.stream.admin import ensure_topics

    ensure_topics(settings, [settings.topic_turns])
    assert run(replay_acknowledged(settings, lines)) == 300


@pytest.mark.parametrize("args", [
    ["replay", "missing.jsonl"],
    ["replay", "examples"],
    ["score", "missing.jsonl"],
    ["score", "examples"],
    ["bench", "engine", "--real", "missing.jsonl"],
])
def test_a_file_that_cannot_be_read_is_one_line_and_exit_2(args: list[str]) -> None:
    result = _cli(*args, timeout=120)
    assert result.returncode == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: input file "), result.stderr
    assert result.stdout == ""
