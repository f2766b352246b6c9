"""Dead letters that always fit on the dead-letter topic.

A dead letter carries the message it rejects, base64 in JSON: a third bigger than the
message itself. Built naively from a message near the broker's size limit it exceeds the
producer's `max_request_size`, the produce fails and the whole batch with it. So the
copied value is cut at `max_value_bytes` (and the key at `MAX_KEY_BYTES`), and the record
says so, with the original size and a SHA-256 of the whole value: enough to find the
original on the source topic by its partition and offset, and to prove it is the same.
"""

from __future__ import annotations

import base64
import hashlib

from monitor.contracts import DeadLetter, content_id

MAX_KEY_BYTES = 1024
MAX_REASON_CHARS = 1000
DEFAULT_MAX_VALUE_BYTES = 64 * 1024


def _b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode("ascii")


def dead_letter(topic: str, partition: int, offset: int, key: bytes | None,
                value: bytes | None, reason: str,
                max_value_bytes: int = DEFAULT_MAX_VALUE_BYTES) -> DeadLetter:
    """The dead letter of one message; its JSON is at most ~4/3 * max_value_bytes + 3 KB."""
    raw = value or b""
    return DeadLetter(
        id=content_id("dead_letter", topic, partition, offset),
        reason=reason[:MAX_REASON_CHARS], source_topic=topic, partition=partition,
        offset=offset,
        key_b64=_b64(key[:MAX_KEY_BYTES]) if key is not None else None,
        value_b64=_b64(raw[:max_value_bytes]),
        value_bytes=len(raw),
        value_sha256=hashlib.sha256(raw).hexdigest(),
        value_truncated=len(raw) > max_value_bytes,
    )


def dead_letter_key(key: bytes | None) -> bytes | None:
    """The dead letter's own message key: the source key, cut like the copy inside it."""
    return key[:MAX_KEY_BYTES] if key is not None else None
