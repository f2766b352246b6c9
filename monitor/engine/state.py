"""Everything the engine remembers about one conversation, and its compact stored form.

The stored form is the versioned plain form (plain values only, vectors as base64 float32,
exact, so a restored conversation continues bit-for-bit as if it had never stopped) packed
with MessagePack (`ormsgpack`, keys sorted, so the same state always gives the same bytes;
floats as IEEE doubles, NaN and infinities included) and compressed with zstd, behind a
one-byte format marker (`FORMAT_MSGPACK_ZSTD`). About 2.5x faster to encode and decode
than the JSON + zlib form it replaced, and within 3% of its size (`skg-monitor bench
state-codec`). That older form (no marker: a zlib stream, whose first byte is 0x78) is still
read, and is still written for the rare plain form MessagePack cannot hold (an integer past
64 bits). Node embeddings are not stored: they are a pure function of the node label and are
recomputed through the embedder's cache on demand.

Reading a stored state fails only with `StateDecodeError`, whose `kind` says what to do:

* `corrupt`: not a state at all (bad zstd, MessagePack, zlib, JSON or fields);
* `unknown_version`: a version this code does not know, e.g. written by a newer release
  before a rollback: it must not be overwritten, the caller quarantines it;
* `old_version`: an older version without a migration in `MIGRATIONS`: the caller may
  start the conversation afresh, loudly (`StateTooOld`).

An older version with a migration is upgraded on read (`MIGRATIONS[v]` turns the plain
form of version v into that of v + 1), so bumping `STATE_VERSION` means adding a step.
"""

from __future__ import annotations

import base64
import json
import threading
import zlib
from collections.abc import Callable
from collections.abc import Set as AbstractSet
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import ormsgpack
import zstandard

from monitor.contracts import Trend
from monitor.engine.bounds import SENTENCE_CHARS
from monitor.engine.constraints import Constraint
from monitor.engine.drift import TopicState
from monitor.engine.graph import ConversationGraph, Fact
from monitor.engine.meaning import Assertion
from monitor.engine.trend import TrendStats

STATE_VERSION = 2
FORMAT_MSGPACK_ZSTD = 0x01
"""First byte of the stored form: MessagePack, zstd-compressed (level `ZSTD_LEVEL`)."""
ZSTD_LEVEL = 6
"""The level at which zstd matches zlib 6's size on real states; lower levels are faster
but 3-6% larger (`skg-monitor bench state-codec`)."""
MAX_STATE_BYTES = 64 << 20
"""A stored state says how large it decompresses to; more than this is corrupt."""
"""Digests of this many last applied turns are kept (see `monitor.engine.order`)."""

DecodeFailure = Literal["corrupt", "unknown_version", "old_version"]


class StateDecodeError(ValueError):
    """A stored state that cannot be read; `kind` is a bounded metric label."""

    def __init__(self, kind: DecodeFailure, reason: str) -> None:
        super().__init__(reason)
        self.kind: DecodeFailure = kind
        self.reason = reason


class StateTooOld(StateDecodeError):
    """An older STATE_VERSION without a migration: start afresh (and say so)."""

    def __init__(self, version: int) -> None:
        super().__init__("old_version", f"conversation state version {version} is older "
                         f"than {STATE_VERSION} and has no migration")
        self.version = version


def _v1_to_v2(data: dict[str, Any]) -> dict[str, Any]:
    """Version 2 added user topics, certified conflict keys and amount statements."""
    return {**data, "v": 2, "user_topics": data.get("user_topics", []),
            "certified": data.get("certified", []),
            "statements": data.get("statements", [])}


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {1: _v1_to_v2}
"""version v -> the function from the plain form of v to that of v + 1."""


def migrate(data: dict[str, Any]) -> dict[str, Any]:
    """The plain form of any readable version as the current version, or StateDecodeError."""
    version = data.get("v")
    if not isinstance(version, int) or isinstance(version, bool):
        raise StateDecodeError("corrupt", f"conversation state has no version ({version!r})")
    if version > STATE_VERSION:
        raise StateDecodeError("unknown_version", f"unsupported conversation state version "
                               f"{version} (this release reads up to {STATE_VERSION})")
    while version < STATE_VERSION:
        step = MIGRATIONS.get(version)
        if step is None:
            raise StateTooOld(version)
        data = step(data)
        version = data["v"]
    return data


def _vec_out(vec: npt.NDArray[np.float32] | None) -> str | None:
    if vec is None:
        return None
    return base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode("ascii")


def _vec_in(text: str | None) -> npt.NDArray[np.float32] | None:
    if text is None:
        return None
    return np.frombuffer(base64.b64decode(text), dtype="<f4").astype(np.float32)


@dataclass(frozen=True)
class Revision:
    """A value the user replaced ("make it 10 people"): an answer going back to one of the
    `old` values is certified against this turn (engine.pipeline `_reverted_values`)."""

    dimension: str
    unit: str
    new: float
    surface: str
    turn: int
    sentence: str
    old: tuple[float, ...]

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> Revision:
        """The stored dict (`asdict`'s keys) back; `old` is stored as a list."""
        return cls(**{**data, "old": tuple(data["old"])})


@dataclass(frozen=True)
class RecentScore:
    """One of the last `EngineConfig.recent_scores` answers, for the conversation's HTTP view."""

    turn_index: int
    quality: float
    trend: str
    certificates: int


@dataclass(frozen=True)
class RecentCertificate:
    """One of the last `EngineConfig.recent_certificates` certificates, for the HTTP view."""

    id: str
    turn_index: int
    conflicts_with: int
    detector: str
    explanation: str


def _topic_in(data: dict[str, Any] | None) -> TopicState:
    """States stored before topic tracking existed start with an empty topic."""
    if not data:
        return TopicState()
    return TopicState(_vec_in(data["topic"]), _vec_in(data["last"]), _vec_in(data["operand"]),
                      data["op"], bool(data["shifted"]))


@dataclass
class ConversationState:
    conversation_id: str
    graph: ConversationGraph = field(default_factory=ConversationGraph)
    anchor: npt.NDArray[np.float32] | None = None
    topic: TopicState = field(default_factory=TopicState)
    trend: TrendStats = field(default_factory=TrendStats)
    last_turn_index: int = -1
    last_answer: int = -1
    """The turn of the assistant's latest answer (-1: none yet): the answer a new one
    corrects when it opens by owning up to a mistake."""
    focus: str | None = None
    prompt: list[str] = field(default_factory=list)
    turns: int = 0
    assistant_turns: int = 0
    sum_local: float = 0.0
    sum_consistency: float = 0.0
    sum_logic: float = 0.0
    sum_quality: float = 0.0
    certificates: int = 0
    gaps: int = 0
    last_trend: Trend = "STABLE"
    recent_scores: list[RecentScore] = field(default_factory=list)
    recent_certificates: list[RecentCertificate] = field(default_factory=list)
    revisions: list[Revision] = field(default_factory=list)
    """Values the user replaced, newest last."""
    digests: dict[int, str] = field(default_factory=dict)
    """turn_index -> digest of the last `EngineConfig.turn_digests` applied turns
    (engine.order)."""

    def note_turn(self, turn_index: int, digest: str, limit: int) -> None:
        self.digests[turn_index] = digest
        while len(self.digests) > limit:
            del self.digests[min(self.digests)]

    user_topics: list[tuple[int, list[str]]] = field(default_factory=list)
    """(turn, head words) of what each recent user turn told or asked afresh: an earlier
    claim about one of those things may be out of date after it."""
    certified: list[str] = field(default_factory=list)
    """Keys of the conflicts already certified, oldest first: a restated side of a known
    conflict is not certified again."""

    statements: list[tuple[int, str, str, str]] = field(default_factory=list)
    """(turn, speaker, sentence, heading) of recent asserted sentences with amounts."""

    assertions: list[Assertion] = field(default_factory=list)
    """The verdict stage's window: recent asserted sentences of the assistant and what the
    user said about themselves, oldest first (engine.verdict)."""

    constraints: list[Constraint] = field(default_factory=list)
    """What the user ruled out (allergies, diets, "no flights"), oldest first."""

    def add_constraints(self, rows: list[Constraint], limit: int) -> None:
        if rows:
            self.constraints = [*self.constraints, *rows][-limit:]

    def lift_constraints(self, lifted: Callable[[Constraint], bool]) -> None:
        """The user said something that ends these constraints (the person they were for
        is not coming)."""
        self.constraints = [c for c in self.constraints if not lifted(c)]

    def add_assertions(self, rows: list[Assertion], limit: int) -> None:
        if rows:
            self.assertions = [*self.assertions, *rows][-limit:]

    def add_statements(self, rows: list[tuple[int, str, str, str]], limit: int) -> None:
        if rows:
            self.statements = [*self.statements, *rows][-limit:]

    def add_user_topics(self, turn: int, heads: list[str], limit: int) -> None:
        if heads:
            self.user_topics = [*self.user_topics, (turn, sorted(set(heads)))][-limit:]

    def changed_between(self, after: int, before: int, heads: AbstractSet[str],
                        min_shared: int = 2) -> bool:
        """Did a user turn strictly between the two turns speak afresh about these things?"""
        return any(after < turn < before and len(heads & set(words)) >= min_shared
                   for turn, words in self.user_topics)

    def certify(self, key: str, limit: int) -> bool:
        """Record a conflict; False when it was certified before."""
        if key in self.certified:
            return False
        self.certified = [*self.certified, key][-limit:]
        return True

    def withdraw(self, turn: int, sentence: str, claim: Callable[[Fact], bool],
                 at: int) -> None:
        """A claim its speaker has since owned up to as wrong ("My apologies for the
        error. ..."): the facts of that turn's sentence that `claim` picks are out of date
        from turn `at`, so later answers are read against the correction, not against the
        mistake. The sentence leaves the amount statements and the verifier's window,
        which hold whole sentences; what else it said stays with the rules, as facts
        ("The tour costs 50 euros and lasts 2 hours": the duration is still read against
        a later one)."""
        said = (turn, sentence[:SENTENCE_CHARS])  # as every store keeps its sentences
        self.graph.supersede_claims(*said, claim, at)
        self.statements = [row for row in self.statements if (row[0], row[2]) != said]
        self.assertions = [a for a in self.assertions if (a.turn, a.sentence) != said]

    def add_revision(self, record: Revision, limit: int) -> None:
        self.revisions = [*self.revisions, record][-limit:]

    def prompt_text(self) -> str:
        return " ".join(self.prompt)

    def push_prompt(self, text: str, limit: int) -> None:
        """Keep the user's words since the last assistant turn, newest last, at most
        `limit` characters."""
        self.prompt.append(text)
        while len(self.prompt) > 1 and sum(len(p) for p in self.prompt) > limit:
            self.prompt.pop(0)
        if len(self.prompt[0]) > limit:
            self.prompt[0] = self.prompt[0][-limit:]

    def remember(self, score: RecentScore, certificates: list[RecentCertificate],
                 limits: tuple[int, int]) -> None:
        """The answer's score and certificates for the HTTP view; `limits`: how many of
        each are kept."""
        keep_scores, keep_certificates = limits
        self.recent_scores = [*self.recent_scores, score][-keep_scores:] if keep_scores else []
        if certificates:
            self.recent_certificates = [*self.recent_certificates, *certificates][
                -keep_certificates:] if keep_certificates else []

    # --- stored form ------------------------------------------------------------------
    def to_plain(self) -> dict[str, Any]:
        return {
            "v": STATE_VERSION,
            "id": self.conversation_id,
            "graph": self.graph.to_plain(),
            "anchor": _vec_out(self.anchor),
            "topic": {"topic": _vec_out(self.topic.topic),
                      "last": _vec_out(self.topic.last_answer),
                      "operand": _vec_out(self.topic.operand),
                      "op": self.topic.operation, "shifted": self.topic.shifted},
            "trend": self.trend.to_plain(),
            "last": self.last_turn_index,
            # written once there is an answer: a state stored before the field existed
            # reads back as it was written
            **({"last_answer": self.last_answer} if self.last_answer >= 0 else {}),
            "focus": self.focus,
            "prompt": self.prompt,
            "counts": [self.turns, self.assistant_turns, self.certificates, self.gaps],
            "sums": [self.sum_local, self.sum_consistency, self.sum_logic, self.sum_quality],
            "last_trend": self.last_trend,
            "recent_scores": [asdict(r) for r in self.recent_scores],
            "recent_certificates": [asdict(c) for c in self.recent_certificates],
            "revisions": [asdict(r) for r in self.revisions],
            "user_topics": [[t, w] for t, w in self.user_topics],
            "certified": self.certified,
            "statements": [list(row) for row in self.statements],
            "assertions": [[a.turn, a.speaker, a.sentence, a.context, list(a.subjects)]
                           for a in self.assertions],
            "constraints": [[c.turn, c.sentence, c.label, list(c.breaks), list(c.within)]
                            for c in self.constraints],
            "digests": sorted([i, d] for i, d in self.digests.items()),
        }

    @classmethod
    def from_plain(cls, data: dict[str, Any]) -> ConversationState:
        """The state of a plain form of any readable version (migrated), or
        StateDecodeError (and nothing else)."""
        if not isinstance(data, dict):
            raise StateDecodeError("corrupt", f"conversation state is a "
                                   f"{type(data).__name__}, not an object")
        data = migrate(data)
        try:
            return cls._from_current(data)
        except (KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
            raise StateDecodeError("corrupt", f"conversation state does not decode: "
                                   f"{type(exc).__name__}: {exc}"[:500]) from exc

    @classmethod
    def _from_current(cls, data: dict[str, Any]) -> ConversationState:
        turns, assistant_turns, certificates, gaps = data["counts"]
        s_local, s_cons, s_logic, s_quality = data["sums"]
        return cls(
            conversation_id=data["id"],
            graph=ConversationGraph.from_plain(data["graph"]),
            anchor=_vec_in(data["anchor"]),
            topic=_topic_in(data.get("topic")),
            trend=TrendStats.from_plain(data["trend"]),
            last_turn_index=data["last"],
            last_answer=int(data.get("last_answer", -1)),
            focus=data["focus"],
            prompt=list(data["prompt"]),
            turns=turns, assistant_turns=assistant_turns, certificates=certificates,
            gaps=gaps,
            sum_local=s_local, sum_consistency=s_cons, sum_logic=s_logic,
            sum_quality=s_quality,
            last_trend=data["last_trend"],
            recent_scores=[RecentScore(**r) for r in data["recent_scores"]],
            recent_certificates=[RecentCertificate(**c) for c in data["recent_certificates"]],
            revisions=[Revision.from_plain(r) for r in data["revisions"]],
            user_topics=[(int(t), list(w)) for t, w in data["user_topics"]],
            certified=list(data["certified"]),
            statements=[(int(t), sp, se, c) for t, sp, se, c in data["statements"]],
            assertions=[Assertion(int(row[0]), row[1], row[2], row[3],
                                  tuple(row[4]) if len(row) > 4 else ())
                        for row in data.get("assertions", [])],
            constraints=[Constraint(int(row[0]), row[1], row[2], tuple(row[3]),
                                    tuple(row[4]) if len(row) > 4 else ())
                         for row in data.get("constraints", [])],
            digests={int(i): str(d) for i, d in data.get("digests", [])},
        )

    def to_bytes(self) -> bytes:
        plain = self.to_plain()
        try:
            packed = ormsgpack.packb(plain, option=ormsgpack.OPT_SORT_KEYS)
        except (TypeError, ormsgpack.MsgpackEncodeError):  # an int past 64 bits, say
            return _legacy_bytes(plain)
        return bytes([FORMAT_MSGPACK_ZSTD]) + _zstd_compressor().compress(packed)

    @classmethod
    def from_bytes(cls, data: bytes) -> ConversationState:
        """The stored form back (any readable version or format), or StateDecodeError."""
        try:
            if data[:1] == bytes([FORMAT_MSGPACK_ZSTD]):
                frame = memoryview(data)[1:]
                size = zstandard.frame_content_size(frame)
                if not 0 <= size <= MAX_STATE_BYTES:
                    raise ValueError(f"stored state claims {size} bytes decompressed")
                plain = ormsgpack.unpackb(_zstd_decompressor().decompress(frame))
            else:  # before the format marker: JSON compressed with zlib
                plain = json.loads(zlib.decompress(data).decode("utf-8"))
        except (zstandard.ZstdError, ormsgpack.MsgpackDecodeError, zlib.error,
                UnicodeDecodeError, ValueError, RecursionError, TypeError) as exc:
            raise StateDecodeError("corrupt", f"conversation state does not decode: "
                                   f"{type(exc).__name__}: {exc}"[:500]) from exc
        return cls.from_plain(plain)


def _legacy_bytes(plain: dict[str, Any]) -> bytes:
    """The stored form before FORMAT_MSGPACK_ZSTD: compact key-sorted JSON, zlib level 6."""
    blob = json.dumps(plain, separators=(",", ":"), sort_keys=True)
    return zlib.compress(blob.encode("utf-8"), 6)


_codecs = threading.local()


def _zstd_compressor() -> zstandard.ZstdCompressor:
    """One per thread: a zstandard (de)compressor must not be used by two threads at once."""
    compressor = getattr(_codecs, "compressor", None)
    if compressor is None:
        compressor = _codecs.compressor = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    return compressor


def _zstd_decompressor() -> zstandard.ZstdDecompressor:
    decompressor = getattr(_codecs, "decompressor", None)
    if decompressor is None:
        decompressor = _codecs.decompressor = zstandard.ZstdDecompressor()
    return decompressor
