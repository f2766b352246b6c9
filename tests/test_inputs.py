"""The input path, bytes to TurnEvent or a clear error: limits, and a fuzz test that it
never raises anything else (for the CLI's lines and the worker's messages)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from monitor.contracts import (
    MAX_METADATA_BYTES,
    MAX_TURN_INDEX,
    InvalidInput,
    TurnEvent,
    dump_record,
)
from monitor.inputs import InputError, decode_message, parse_event_bytes
from monitor.runner.offline import parse_lines
from monitor.stream.letters import dead_letter

BASE: dict[str, Any] = {"conversation_id": "c1", "turn_index": 1, "role": "user",
                        "text": "hello"}


def _line(**changes: Any) -> bytes:
    return json.dumps({**BASE, **changes}).encode()


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"a": value}
    return value


@pytest.mark.parametrize("raw, kind, words", [
    (_line(turn_index="4"), "schema", "turn_index: Input should be a valid integer"),
    (_line(turn_index=2.0), "schema", "turn_index: Input should be a valid integer"),
    (_line(turn_index=True), "schema", "turn_index: Input should be a valid integer"),
    (_line(turn_index=" 7 "), "schema", "turn_index: Input should be a valid integer"),
    (_line(turn_index=10**30), "schema", "less than or equal to 2147483647"),
    (_line(turn_index=-1), "schema", "greater than or equal to 0"),
    (_line(metadata={"note": "\ud800"}), "surrogate", "metadata.note: contains a lone surrogate"),
    (_line(text="hi \udfff"), "surrogate", "text: contains a lone surrogate U+DFFF"),
    (_line(metadata={"\ud800": 1}), "surrogate", "key contains a lone surrogate"),
    (_line(documents=[{"id": "d", "text": "x\ud801"}]), "surrogate", "documents.0.text"),
    (_line(metadata=_nested(300)), "too_deep", "nested deeper than 16"),
    (_line(metadata=_nested(9)), "schema", "metadata: Value error, a.a.a.a.a.a.a.a: nested"),
    (_line(metadata={"x": "y" * MAX_METADATA_BYTES}), "schema", "limit is 16384"),
    (b"[" * 20_000 + b"]" * 20_000, "too_deep", "nested deeper"),
    (b'{"a": ' * 5_000 + b"1" + b"}" * 5_000, "too_deep", "nested deeper"),
    (b'{"turn_index": ' + b"9" * 5_000 + b"}", "invalid_json", "4300 digits"),
    (_line().replace(b'"hello"', b"NaN"), "invalid_json", "NaN is not JSON"),
    (b'{"text": "\xff\xfe"}', "not_utf8", "not UTF-8"),
    (b"[1, 2]", "schema", "expected a JSON object"),
])
def test_each_limit_is_a_clear_error(raw: bytes, kind: str, words: str) -> None:
    with pytest.raises(InputError) as info:
        parse_event_bytes(raw)
    assert info.value.kind == kind
    assert words in info.value.reason


def test_limits_allow_what_is_within_them() -> None:
    event = parse_event_bytes(_line(turn_index=MAX_TURN_INDEX, metadata=_nested(8)))
    assert event.turn_index == MAX_TURN_INDEX
    assert dump_record(event)  # and it serialises


def test_dead_letter_of_a_huge_message_fits() -> None:
    value = b"x" * 900_000
    letter = dead_letter("skg.turns", 3, 17, b"k" * 5000, value, "oversized: " + "r" * 5000,
                         max_value_bytes=64 * 1024)
    assert letter.value_truncated and letter.value_bytes == 900_000
    assert len(dump_record(letter)) < 100_000
    assert letter.offset == 17 and letter.partition == 3
    import hashlib

    assert letter.value_sha256 == hashlib.sha256(value).hexdigest()


# --- fuzz: bytes in, an event or an InputError out, nothing else ---------------------------
_json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                       st.text())
_json = st.recursive(_json_leaf, lambda inner: st.lists(inner, max_size=4)
                     | st.dictionaries(st.text(max_size=8), inner, max_size=4), max_leaves=30)
_field_values = {
    "conversation_id": st.one_of(st.text(max_size=300), _json),
    "turn_index": st.one_of(st.integers(-5, 2**40), st.text(max_size=5), _json),
    "role": st.one_of(st.sampled_from(["user", "assistant", "system", "bot"]), _json),
    "text": st.one_of(st.text(max_size=50), _json),
    "metadata": _json,
    "documents": st.one_of(st.lists(st.fixed_dictionaries(
        {"id": st.text(max_size=5), "text": st.text(max_size=20)}), max_size=3), _json),
    "reference": st.one_of(st.text(max_size=20), _json),
    "timestamp": st.one_of(st.sampled_from(["2026-01-01T00:00:00Z", "2026-01-01T00:00:00",
                                            "yesterday"]), _json),
}
_events = st.fixed_dictionaries({}, optional=_field_values)


def _encode(data: Any, ascii_only: bool) -> bytes:
    return json.dumps(data, ensure_ascii=ascii_only).encode("utf-8", errors="surrogatepass")


_raw_lines = st.one_of(
    st.binary(max_size=300),
    st.builds(_encode, _events, st.booleans()),
    st.builds(lambda b, cut: b[:cut], st.builds(_encode, _events, st.booleans()),
              st.integers(0, 200)),
)


def _check_event(event: TurnEvent) -> None:
    line = dump_record(event)  # whatever got through can be written out again
    line.encode("utf-8")
    assert isinstance(event.turn_index, int) and not isinstance(event.turn_index, bool)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_raw_lines, max_size=5))
def test_cli_input_path_never_raises(lines: list[bytes]) -> None:
    items = list(parse_lines(lines))
    for number, item in items:
        if isinstance(item, InvalidInput):
            assert item.line == number and item.reason
            dump_record(item).encode("utf-8")
        else:
            _check_event(item)
    assert len(items) == sum(1 for line in lines if line.strip())


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(st.none(), st.binary(max_size=20), st.just(b"c1")), st.one_of(
    st.none(), _raw_lines))
def test_worker_decoder_never_raises(key: bytes | None, value: bytes | None) -> None:
    try:
        event = decode_message(key, value, max_bytes=4096)
    except InputError as exc:
        letter = dead_letter("skg.turns", 0, 1, key, value, f"{exc.kind}: {exc}")
        dump_record(letter).encode("utf-8")
        return
    _check_event(event)
    assert key is not None and key.decode() == event.conversation_id
