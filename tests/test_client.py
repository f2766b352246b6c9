"""monitor.client against the real local broker: keys, validation, only new turns, and the
README example run as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from monitor.client import AsyncTurnClient, TurnClient
from monitor.inputs import InputError
from tests.conftest import run, stream_settings

pytestmark = pytest.mark.broker

ROOT = Path(__file__).resolve().parents[1]

CHAT = [{"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Is the museum open on Mondays?"},
        {"role": "assistant", "content": "Yes, from ten."}]


def _turns(broker: str) -> list[tuple[bytes, dict[str, object]]]:
    from monitor.stream.clients import consume

    got: list[tuple[bytes, dict[str, object]]] = []
    run(consume(stream_settings(broker), "skg.turns", until_idle=1.0,
                on_record=lambda k, v, _ts: got.append((k or b"", json.loads(v or b"{}")))))
    return got


def _ensure(broker: str) -> None:
    from monitor.stream.admin import ensure_topics

    ensure_topics(stream_settings(broker), ["skg.turns"])


def test_sync_client_sends_validated_keyed_and_only_new_turns(broker: str) -> None:
    _ensure(broker)
    with TurnClient(stream_settings(broker)) as client:
        first = client.send_messages("c1", CHAT[:2])
        again = client.send_messages("c1", [*CHAT, {"role": "user", "content": "Thanks."}])
        with pytest.raises(InputError, match="role"):
            client.send_turn({"conversation_id": "c1", "turn_index": 9, "role": "robot",
                              "text": "x"})
        with pytest.raises(InputError, match="turn_index: field required"):
            client.send_turn({"conversation_id": "c1", "role": "user", "text": "x"})
        client.send_turn({"conversation_id": "c2", "turn_index": 0, "role": "user",
                          "text": "Hello there."})
    assert [t.turn_index for t in first] == [0, 1]
    assert [t.turn_index for t in again] == [2, 3]
    turns = _turns(broker)
    assert [(k, t["turn_index"]) for k, t in turns if k == b"c1"] == [
        (b"c1", 0), (b"c1", 1), (b"c1", 2), (b"c1", 3)]
    assert all(t["conversation_id"] == k.decode() for k, t in turns)
    assert [t["role"] for k, t in turns if k == b"c1"] == ["system", "user", "assistant",
                                                          "user"]
    assert len(turns) == 5  # the invalid turns never left the client


def test_async_client(broker: str) -> None:
    _ensure(broker)

    async def go() -> None:
        async with AsyncTurnClient(stream_settings(broker)) as client:
            await client.send_turn({"conversation_id": "a", "turn_index": 0, "role": "user",
                                    "text": "Hi."})
            sent = await client.send_messages("a", CHAT)
            assert [t.turn_index for t in sent] == [1, 2]  # index 0 was sent above

    run(go())
    assert [t["turn_index"] for _, t in _turns(broker)] == [0, 1, 2]


def test_readme_client_example_runs_as_written(broker: str) -> None:
    readme = (ROOT / "README.md").read_text()
    section = readme.split("### Python client", 1)[1]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None
    _ensure(broker)
    env = {**os.environ, "SKG_BROKER": broker, "SKG_LOCAL_BROKER_PROFILE": "1"}
    result = subprocess.run([sys.executable, "-c", code.group(1)], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert [(k, t["turn_index"]) for k, t in _turns(broker)] == [
        (b"chat-42", 0), (b"chat-42", 1), (b"chat-42", 2)]
