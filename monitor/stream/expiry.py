"""State that ends: conversations idle longer than the TTL are summarised and deleted.

Each table value is the conversation state behind a small header (`pack`): the input
partition the conversation lives on and when the worker last applied one of its turns.
The header stays out of the state itself, so the state remains a pure function of the
turns (equal online and offline). A periodic sweep deletes every conversation idle for
longer than `state_ttl_s`: its final `session` record goes to the scores topic (keyed by
conversation_id, as the CLI ends each conversation with one), and the deletion writes a
tombstone to the changelog, which is compacted, so the key is gone from the topic too.
Values stored before the header existed read as "seen now" and expire one TTL later.
"""

from __future__ import annotations

import struct
import time
import weakref
from collections.abc import Iterable
from dataclasses import dataclass

from faust.streams import _current_event

MAGIC = b"\x00S1"
_HEADER = struct.Struct(">3sId")  # magic, input partition, last seen (unix seconds)


def pack(state: bytes, partition: int, seen: float) -> bytes:
    return _HEADER.pack(MAGIC, partition, seen) + state


def unpack(raw: bytes) -> tuple[bytes, int | None, float | None]:
    """(state bytes, partition, last seen); a value without the header: (raw, None, None)."""
    if raw[:3] == MAGIC and len(raw) >= _HEADER.size:
        _, partition, seen = _HEADER.unpack_from(raw)
        return raw[_HEADER.size:], partition, seen
    return raw, None, None


def expired(items: Iterable[tuple[bytes, bytes]], ttl_s: float, now: float,
            first_seen: dict[bytes, float]) -> list[tuple[bytes, bytes, int]]:
    """(key, state bytes, partition) of every conversation idle for more than `ttl_s`.

    `first_seen` remembers when a value without a header (or a partition) was first met,
    so such values expire a TTL after that.
    """
    out = []
    for key, raw in items:
        state, partition, seen = unpack(raw)
        if seen is None or partition is None:
            seen = first_seen.setdefault(key, now)
            continue
        if now - seen > ttl_s:
            out.append((key, state, partition))
    return out


@dataclass
class _Message:
    topic: str
    partition: int


@dataclass
class _Event:
    """What Faust's table looks up to find a key's partition outside a stream: the
    deletion is attributed to the conversation's input partition, as its writes were."""

    message: _Message


def delete_key(table: object, key: bytes, topic: str, partition: int) -> None:
    """`del table[key]` outside the agent, with the changelog tombstone on `partition`."""
    event = _Event(_Message(topic, partition))
    token = _current_event.set(weakref.ref(event))  # type: ignore[arg-type]
    try:
        del table[key]  # type: ignore[attr-defined]
    finally:
        _current_event.reset(token)


def now() -> float:
    return time.time()
