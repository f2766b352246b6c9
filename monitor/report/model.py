"""What the report shows, built from output records: one `ConversationReport` each.

Records are read leniently where the contract may grow (a certificate's claims may gain
character offsets of the conflicting words, `spans`: a list of `[start, end)` pairs into
`sentence`) and strictly everywhere else: a line that is not a known record is an error
naming the line, so a truncated or foreign file is never rendered as if it were complete.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from monitor import data
from monitor.contracts import (
    MFSS_FACTORS,
    Claim,
    ContradictionCertificate,
    SessionSummary,
    TurnEvent,
    TurnScore,
)
from monitor.report.graph import KnowledgeGraph, graph_from_certificates

Span = tuple[int, int]

# record types the report reads; the other output records (alerts, invalid) are skipped
_SKIPPED = {"trend_alert", "conflict_alert", "invalid", "dead_letter"}
_NEGATION_CUES = data.words("negation.tsv", "shown")
_STOP = {"a", "an", "the", "of", "to", "in", "on", "at", "for", "and", "or", "is", "be",
         "it", "its", "with", "by", "as"}
_TOKEN = re.compile(r"[0-9]+(?:[.,][0-9]+)*|[A-Za-z]+(?:['’][A-Za-z]+)*")


class ReportInputError(ValueError):
    """A line of the input that is not a record the report can use."""

    def __init__(self, source: str, line: int, reason: str) -> None:
        super().__init__(f"{source}:{line}: {reason}")
        self.line = line


@dataclass(frozen=True)
class Records:
    scores: list[TurnScore] = field(default_factory=list)
    certificates: list[tuple[ContradictionCertificate, list[Span], list[Span]]] = field(
        default_factory=list)
    sessions: list[SessionSummary] = field(default_factory=list)
    events: list[TurnEvent] = field(default_factory=list)


def _pop_spans(claim: dict[str, Any]) -> list[Span]:
    raw = claim.pop("spans", None)
    if not isinstance(raw, list):
        return []
    spans: list[Span] = []
    for item in raw:
        if (isinstance(item, list | tuple) and len(item) == 2
                and all(isinstance(v, int) for v in item)):
            spans.append((int(item[0]), int(item[1])))
    return spans


def _certificate(data: dict[str, Any]) -> tuple[ContradictionCertificate, list[Span], list[Span]]:
    """A certificate plus the optional offsets of its claims (dropped before validation)."""
    data = dict(data)
    spans = []
    for key in ("claim", "prior"):
        claim = dict(data.get(key) or {})
        spans.append(_pop_spans(claim))
        claim = {k: v for k, v in claim.items() if k in Claim.model_fields}
        data[key] = claim
    data = {k: v for k, v in data.items() if k in ContradictionCertificate.model_fields}
    return ContradictionCertificate.model_validate(data), spans[0], spans[1]


def read_records(lines: Iterable[str], source: str = "scores",
                 events: Iterable[str] = ()) -> Records:
    """Parse the scorer's JSON Lines (and TurnEvent lines) into typed records."""
    records = Records()
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            kind = data.get("type") if isinstance(data, dict) else None
            if kind == "turn_score":
                records.scores.append(TurnScore.model_validate(data))
            elif kind == "certificate":
                records.certificates.append(_certificate(data))
            elif kind == "session":
                records.sessions.append(SessionSummary.model_validate(data))
            elif kind not in _SKIPPED:
                raise ValueError(f"not a monitor output record (type {kind!r})")
        except (ValueError, ValidationError) as exc:
            raise ReportInputError(source, number, str(exc).splitlines()[0]) from exc
    for number, line in enumerate(events, start=1):
        if not line.strip():
            continue
        try:
            records.events.append(TurnEvent.model_validate_json(line))
        except ValidationError as exc:
            raise ReportInputError("events", number, str(exc).splitlines()[0]) from exc
    return records


# --- highlighting -------------------------------------------------------------------------
def _number(token: str) -> float | None:
    try:
        return float(token.replace(",", ""))
    except ValueError:
        return None


def conflict_spans(claim: Claim, given: list[Span]) -> list[Span]:
    """Where the conflicting words are in the claim's sentence.

    Offsets from the record win when they fit the sentence. Without them, the words of the
    claim's object, its quantity and (for a negated claim) the negation cue are found by
    token, which is what a reader compares when checking a certificate by eye.
    """
    n = len(claim.sentence)
    valid = sorted((s, e) for s, e in given if 0 <= s < e <= n)
    if valid:
        return valid
    # an attribute claim ("Box 1 is empty") has no object: its relation is the value
    words = claim.object if claim.object.strip() else claim.relation
    wanted = {w for w in (t.lower() for t in _TOKEN.findall(words)) if w not in _STOP}
    spans: list[Span] = []
    for match in _TOKEN.finditer(claim.sentence):
        token = match.group().lower()
        value = _number(token) if token[0].isdigit() else None
        if (token in wanted
                or (claim.quantity is not None and value is not None
                    and abs(value - claim.quantity) < 1e-9)
                or (claim.negated and (token in _NEGATION_CUES or token.endswith("n't")))):
            spans.append(match.span())
    return spans


def segments(text: str, spans: list[Span]) -> list[tuple[str, bool]]:
    """`text` cut into (piece, highlighted) so the template escapes each piece itself."""
    out: list[tuple[str, bool]] = []
    pos = 0
    for start, end in sorted(spans):
        start = max(start, pos)
        if start >= end:
            continue
        if start > pos:
            out.append((text[pos:start], False))
        out.append((text[start:end], True))
        pos = end
    if pos < len(text):
        out.append((text[pos:], False))
    return out


# --- the report's view of one conversation ------------------------------------------------
@dataclass(frozen=True)
class CertificateView:
    cert: ContradictionCertificate
    claim: list[tuple[str, bool]]
    prior: list[tuple[str, bool]]


@dataclass
class TurnView:
    index: int
    role: str
    text: str | None = None
    timestamp: str | None = None
    score: TurnScore | None = None
    certificates: list[CertificateView] = field(default_factory=list)


@dataclass
class ConversationReport:
    conversation_id: str
    anchor: str
    turns: list[TurnView]
    scores: list[TurnScore]
    certificates: list[CertificateView]
    session: SessionSummary | None
    graph: KnowledgeGraph
    has_text: bool

    @property
    def worst_quality(self) -> float | None:
        return min((s.quality for s in self.scores), default=None)

    @property
    def mean_quality(self) -> float | None:
        if not self.scores:
            return None
        return sum(s.quality for s in self.scores) / len(self.scores)

    @property
    def last(self) -> TurnScore | None:
        return self.scores[-1] if self.scores else None

    @property
    def trend(self) -> str:
        if self.session is not None:
            return self.session.trend
        return self.last.trend if self.last else "STABLE"

    @property
    def slope(self) -> float:
        if self.session is not None:
            return self.session.slope
        return self.last.slope if self.last else 0.0

    @property
    def level(self) -> float | None:
        if self.session is not None:
            return self.session.level
        return self.last.level if self.last else None

    @property
    def page_certificates(self) -> int:
        return sum(1 for c in self.certificates if c.cert.severity == "page")

    def mfss_means(self) -> dict[str, float] | None:
        """Mean MFSS factors over the turns that had a reference (accuracy is set)."""
        with_ref = [s.mfss for s in self.scores if s.mfss and s.mfss.accuracy is not None]
        if not with_ref:
            return None
        means: dict[str, float] = {}
        for name in MFSS_FACTORS:
            values = [getattr(m, name) for m in with_ref if getattr(m, name) is not None]
            if values:
                means[name] = sum(values) / len(values)
        return means


def anchor_of(conversation_id: str) -> str:
    """A stable HTML id for a conversation whose own id is untrusted text."""
    return "c-" + hashlib.sha256(conversation_id.encode("utf-8")).hexdigest()[:16]


def _conversation(cid: str, records: Records, events: list[TurnEvent],
                  graph: KnowledgeGraph | None) -> ConversationReport:
    scores = sorted((s for s in records.scores if s.conversation_id == cid),
                    key=lambda s: s.turn_index)
    certs = [CertificateView(c, segments(c.claim.sentence, conflict_spans(c.claim, cs)),
                             segments(c.prior.sentence, conflict_spans(c.prior, ps)))
             for c, cs, ps in records.certificates if c.conversation_id == cid]
    certs.sort(key=lambda v: (v.cert.turn_index, v.cert.conflicts_with, v.cert.id))
    session = next((s for s in reversed(records.sessions) if s.conversation_id == cid), None)
    turns: dict[int, TurnView] = {}
    for event in sorted(events, key=lambda e: e.turn_index):
        turns[event.turn_index] = TurnView(
            event.turn_index, event.role, event.text,
            event.timestamp.isoformat() if event.timestamp else None)
    for score in scores:
        view = turns.setdefault(score.turn_index, TurnView(score.turn_index, "assistant"))
        view.score = score
        if view.timestamp is None and score.timestamp is not None:
            view.timestamp = score.timestamp.isoformat()
    for cv in certs:
        turns.setdefault(cv.cert.turn_index, TurnView(cv.cert.turn_index, "assistant"))
        turns[cv.cert.turn_index].certificates.append(cv)
    return ConversationReport(
        conversation_id=cid, anchor=anchor_of(cid),
        turns=[turns[i] for i in sorted(turns)], scores=scores, certificates=certs,
        session=session,
        graph=graph if graph is not None else graph_from_certificates([c.cert for c in certs]),
        has_text=bool(events),
    )


def build_reports(records: Records,
                  graphs: dict[str, KnowledgeGraph] | None = None) -> list[ConversationReport]:
    """One report per conversation, worst quality first (the default sort of the index)."""
    ids: dict[str, None] = {}
    for cid in [*(s.conversation_id for s in records.scores),
                *(c.conversation_id for c, _, _ in records.certificates),
                *(s.conversation_id for s in records.sessions),
                *(e.conversation_id for e in records.events)]:
        ids.setdefault(cid, None)
    by_cid: dict[str, list[TurnEvent]] = {}
    for event in records.events:
        by_cid.setdefault(event.conversation_id, []).append(event)
    reports = [_conversation(cid, records, by_cid.get(cid, []), (graphs or {}).get(cid))
               for cid in ids]
    reports.sort(key=lambda r: (r.worst_quality if r.worst_quality is not None else 2.0,
                                r.conversation_id))
    return reports
