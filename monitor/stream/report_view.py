"""`/conversations/{id}/report`: the HTML conversation report, live from the worker.

The page is the same as `skg-monitor report` renders offline (`monitor.report`). Its
inputs here: the full records of the conversation's recent turns, which this worker keeps
in a small bounded memory as it produces them (turn text included, so the transcript
shows), the session summary, and the knowledge graph of the stored engine state. After a
restart or a rebalance that memory is empty for a conversation until its next turns
arrive; the summary and the graph come from the table and are always there.

The only coupling to the engine's internals is `engine_facts`, which reads fact edges as
plain values and yields nothing (with a warning) if their shape changes.
"""

from __future__ import annotations

import logging
from collections import OrderedDict, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from faust.web import Response, View

from monitor.contracts import ContradictionCertificate, TurnEvent, TurnScore
from monitor.engine.pipeline import TurnOutcome
from monitor.engine.state import ConversationState
from monitor.report.graph import FactEdge, graph_from_facts
from monitor.report.model import Records, build_reports
from monitor.report.render import CSP, render_report
from monitor.stream.http import add_conversation_page

if TYPE_CHECKING:
    from monitor.stream.app import Monitor

log = logging.getLogger(__name__)

KEEP_TURNS = 40
KEEP_CERTIFICATES = 20
KEEP_CONVERSATIONS = 512
MAX_TEXT = 4_000


@dataclass
class _Recent:
    events: deque[TurnEvent] = field(default_factory=lambda: deque(maxlen=KEEP_TURNS))
    scores: deque[TurnScore] = field(default_factory=lambda: deque(maxlen=KEEP_TURNS))
    certificates: deque[ContradictionCertificate] = field(
        default_factory=lambda: deque(maxlen=KEEP_CERTIFICATES))


class RecentRecords:
    """The last turns, scores and certificates of recently active conversations (LRU)."""

    def __init__(self, capacity: int = KEEP_CONVERSATIONS) -> None:
        self.capacity = capacity
        self._by_cid: OrderedDict[str, _Recent] = OrderedDict()

    def observe(self, outcomes: list[TurnOutcome]) -> None:
        for outcome in outcomes:
            cid = outcome.event.conversation_id
            recent = self._by_cid.pop(cid, None) or _Recent()
            self._by_cid[cid] = recent
            event = outcome.event
            if len(event.text) > MAX_TEXT:
                event = event.model_copy(update={"text": event.text[:MAX_TEXT] + " …"})
            recent.events.append(event)
            # a turn retried in this process must not show twice: records are deduped by id
            if outcome.score is not None and all(s.id != outcome.score.id
                                                  for s in recent.scores):
                recent.scores.append(outcome.score)
            known = {c.id for c in recent.certificates}
            recent.certificates.extend(c for c in outcome.certificates if c.id not in known)
        while len(self._by_cid) > self.capacity:
            self._by_cid.popitem(last=False)

    def records(self, cid: str) -> Records:
        recent = self._by_cid.get(cid) or _Recent()
        return Records(scores=list(recent.scores),
                       certificates=[(c, [], []) for c in recent.certificates],
                       events=list(recent.events))


def engine_facts(state: ConversationState) -> list[FactEdge]:
    """The engine graph's fact edges as plain `FactEdge`s (empty if their shape changed)."""
    try:
        facts = []
        for fact in state.graph.all_facts():
            facts.append(FactEdge(str(fact.subject), str(fact.relation), str(fact.object),
                                  bool(fact.negated), str(fact.speaker), int(fact.turn)))
        return facts
    except (AttributeError, TypeError, ValueError) as exc:
        log.warning("report: cannot read the engine graph's facts: %s", exc)
        return []


def render_live(state: ConversationState, monitor: Monitor, recent: RecentRecords) -> str:
    cid = state.conversation_id
    kept = recent.records(cid)
    records = Records(scores=kept.scores, certificates=kept.certificates,
                      sessions=[monitor.engine.summary(state)], events=kept.events)
    graph = graph_from_facts(engine_facts(state), [c for c, _, _ in kept.certificates])
    [report] = build_reports(records, {cid: graph})
    return render_report([report], title=f"{cid} · skg-monitor", live=True)


def add_report_page(monitor: Monitor) -> RecentRecords:
    """Register the route on the monitor's app; feed the returned memory its outcomes."""
    recent = RecentRecords()

    def respond(web: View, state: ConversationState) -> Response:
        return web.html(render_live(state, monitor, recent),
                        headers={"Content-Security-Policy": CSP,
                                 "X-Content-Type-Options": "nosniff",
                                 "Cache-Control": "no-store"})

    add_conversation_page(monitor, "/conversations/{conversation_id}/report",
                          "conversation_report", respond)
    return recent
