"""The engine's one entry point: apply a batch of turn events to conversation states.

`Engine.process_batch` is what both the offline CLI and the Faust agent call, so that the
same input gives the same scores online and offline. A batch may mix conversations and hold
several turns of one conversation; it is processed in order, but the expensive parts (the
dependency parse and the embeddings) run once for the whole batch.
"""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import numpy as np
import numpy.typing as npt

from monitor import __version__
from monitor.config import EngineConfig
from monitor.contracts import (
    Claim,
    ConflictAlert,
    ContradictionCertificate,
    GateFlags,
    SessionSummary,
    TrendAlert,
    TurnEvent,
    TurnScore,
    content_id,
)
from monitor.engine import bounds, contradiction, lexicon, order, quantities
from monitor.engine.embedder import Embedder
from monitor.engine.extract import ANAPHOR, Extraction, Extractor, Utterance
from monitor.engine.graph import Fact
from monitor.engine.signals import clip01, fuse, graph_anchoring, local_relevance, regime_of
from monitor.engine.state import ConversationState
from monitor.quality import conflict as quality_conflict
from monitor.quality import mfss as quality_mfss

Alert = TrendAlert | ConflictAlert | ContradictionCertificate
_OLD_VALUE_MARK = re.compile(r"(instead of|rather than|not|from|no longer)\s*$", re.I)
_ANAPHORIC_OBJECTS = frozenset({"it", "them", "this", "that"})
_REVISION_VERBS = frozenset(
    {"change", "move", "switch", "update", "push", "set", "make", "shift", "reschedule",
     "bump", "increase", "reduce", "lower", "raise"}
)


@dataclass
class TurnOutcome:
    """What one event did: nothing (a duplicate), or a score with its certificates."""

    event: TurnEvent
    duplicate: bool = False
    score: TurnScore | None = None
    certificates: list[ContradictionCertificate] = field(default_factory=list)
    alerts: list[Alert] = field(default_factory=list)
    gap: bool = False
    cut: dict[str, int] = field(default_factory=dict)
    """What the per-turn bounds left out (engine.bounds): text_chars, documents, claims,
    certificates."""
    seconds: float = 0.0
    """Time spent on this event alone (the batch's shared parse and embedding excluded).
    Kept out of the score itself so that offline output is byte-for-byte reproducible."""

    def records(self) -> list[TurnScore | ContradictionCertificate]:
        out: list[TurnScore | ContradictionCertificate] = []
        if self.score is not None:
            out.append(self.score)
        out.extend(self.certificates)
        return out


def _r(value: float) -> float:
    """Scores are published with 6 decimals: stable text, no false precision."""
    return round(float(value), 6)


class Engine:
    """Holds the models and constants; all conversation memory lives in the states."""

    def __init__(self, config: EngineConfig, embedder: Embedder, extractor: Extractor) -> None:
        self.config = config
        self.embedder = embedder
        self.extractor = extractor
        self.version = f"{__version__}+{config.fingerprint()}"

    # --- public -----------------------------------------------------------------------
    def new_state(self, conversation_id: str) -> ConversationState:
        return ConversationState(conversation_id=conversation_id)

    def process(self, state: ConversationState, event: TurnEvent) -> TurnOutcome:
        return self.process_batch([event], {event.conversation_id: state})[0]

    def process_batch(
        self, events: Sequence[TurnEvent], states: dict[str, ConversationState]
    ) -> list[TurnOutcome]:
        """Apply events in order; missing states are created in `states`.

        Idempotence by `turn_index`: an event not newer than the last one applied to its
        conversation (a redelivery or a replay) changes nothing and yields an outcome with
        `duplicate=True`; it is recognised before any parsing, so it costs nothing either.
        """
        repeated = duplicates_of(events, states)
        cfg = self.config
        work, cuts = [], []
        for e, dup in zip(events, repeated, strict=True):
            if not dup:
                bounded, cut = bounds.bound_event(e, cfg)
                work.append(bounded)
                cuts.append(cut)
        extractions = []
        for ex, cut in zip(self.extractor.extract(
                [Utterance(e.text, e.role, e.turn_index) for e in work]), cuts, strict=True):
            ex, dropped = bounds.cap_claims(ex, cfg.max_claims_per_turn)
            if dropped:
                cut["claims"] = dropped
            extractions.append(ex)
        self._prewarm(work, extractions)
        extracted = iter(extractions)
        bounded_work, turn_cuts = iter(work), iter(cuts)
        outcomes = []
        for event, duplicate in zip(events, repeated, strict=True):
            if duplicate:
                outcomes.append(TurnOutcome(event=event, duplicate=True))
                continue
            original, event, cut = event, next(bounded_work), next(turn_cuts)
            state = states.get(event.conversation_id)
            if state is None:
                state = states[event.conversation_id] = self.new_state(event.conversation_id)
            started = time.perf_counter()
            outcome = self._apply(state, event, next(extracted))
            state.note_turn(event.turn_index, order.turn_digest(original))
            outcome.cut = {**cut, **outcome.cut}
            outcome.seconds = time.perf_counter() - started
            outcomes.append(outcome)
        return outcomes

    def summary(self, state: ConversationState) -> SessionSummary:
        n = state.assistant_turns
        level = state.trend.level
        return SessionSummary(
            id=content_id("session", state.conversation_id, state.last_turn_index,
                          self.version),
            conversation_id=state.conversation_id,
            turns=state.turns,
            assistant_turns=n,
            last_turn_index=state.last_turn_index,
            mean_local_relevance=_r(state.sum_local / n) if n else None,
            mean_consistency=_r(state.sum_consistency / n) if n else None,
            mean_logic=_r(state.sum_logic / n) if n else None,
            mean_quality=_r(state.sum_quality / n) if n else None,
            level=_r(level) if level is not None else None,
            slope=_r(state.trend.slope(self.config.trend_min_turns)),
            trend=state.trend.label(self.config.trend_min_turns,
                                    self.config.trend_slope_threshold),
            certificates=state.certificates,
            gaps=state.gaps,
            engine_version=self.version,
        )

    # --- batch helpers ----------------------------------------------------------------
    def _prewarm(self, events: Sequence[TurnEvent], extractions: list[Extraction]) -> None:
        """One embedder call for everything the batch will need (the cache serves the rest)."""
        texts: list[str] = []
        for event, ex in zip(events, extractions, strict=True):
            texts.append(event.text)
            if event.role == "assistant":  # only answers are scored sentence by sentence
                texts.extend(ex.sentences)
            if event.reference:
                texts.append(event.reference)
            for t in ex.triples:
                texts.append(t.subject)
                if t.object:
                    texts.append(t.object)
        texts = [t for t in dict.fromkeys(texts) if t and t != ANAPHOR]
        if texts:
            self.embedder.embed(texts)

    def _vec(self, text: str) -> npt.NDArray[np.float32]:
        return self.embedder.embed([text])[0]

    # --- one event ---------------------------------------------------------------------
    def _apply(
        self, state: ConversationState, event: TurnEvent, extraction: Extraction
    ) -> TurnOutcome:
        previous = state.last_turn_index if state.last_turn_index >= 0 else None
        gap = event.turn_index > state.last_turn_index + 1
        if gap:
            state.gaps += 1
        state.last_turn_index = event.turn_index
        state.turns += 1

        facts = self._canonical_facts(state, extraction)
        if extraction.focus:
            state.focus = extraction.focus

        if event.role == "assistant":
            outcome = self._score_assistant(state, event, extraction, facts, previous, gap)
        else:
            if event.role == "user":
                facts = facts + self._apply_revision(state, event, facts)
                state.push_prompt(event.text)
            self._insert(state, facts, event.turn_index, quarantine=set())
            outcome = TurnOutcome(event=event)
        outcome.gap = gap
        state.graph.compact(self.config.max_nodes, self.config.max_fact_edges,
                            event.turn_index)
        return outcome

    def _canonical_facts(
        self, state: ConversationState, extraction: Extraction
    ) -> list[Fact]:
        """Resolve anaphora and node identity, and turn triples into facts."""
        known = state.graph.labels()
        known_vecs = self.embedder.embed(known) if known else None
        cache: dict[str, str] = {}

        def node(label: str) -> str:
            if label not in cache:
                cache[label] = state.graph.resolve(
                    label, self._vec(label), known, known_vecs,
                    self.config.node_merge_similarity,
                )
            return cache[label]

        facts: list[Fact] = []
        for triple in extraction.triples:
            subject = triple.subject
            if subject == ANAPHOR:
                if not state.focus:
                    continue
                subject = state.focus
            triple = contradiction.index_subject(replace(triple, subject=subject))
            if triple.object in _ANAPHORIC_OBJECTS and state.focus:
                triple = replace(triple, object=state.focus)
            obj = node(triple.object) if triple.object else ""
            facts.append(Fact.from_triple(triple, node(triple.subject), obj))
        return facts

    def _insert(
        self, state: ConversationState, facts: list[Fact], turn: int, quarantine: set[int]
    ) -> list[str]:
        """Add facts to the graph; return the nodes this turn created."""
        graph = state.graph
        older = set(graph.labels())
        new_nodes: list[str] = []
        for i, fact in enumerate(facts):
            if i in quarantine:
                fact = replace(fact, quarantined=True)
            for label, kind in ((fact.subject, "concept"), (fact.object, "concept")):
                if label and graph.touch(label, kind, fact.importance, fact.speaker, turn):
                    new_nodes.append(label)
            graph.add_fact(fact)
        live_older = [n for n in older if not graph.g.nodes[n]["quarantined"]]
        if new_nodes and live_older:
            live_older.sort()
            older_vecs = self.embedder.embed(live_older)
            for label in new_nodes:
                sims = older_vecs @ self._vec(label)
                order = np.argsort(-sims, kind="stable")[: self.config.semantic_link_top_k]
                for idx in order:
                    if sims[idx] > self.config.semantic_link_similarity:
                        graph.add_semantic(label, live_older[int(idx)], float(sims[idx]))
        return new_nodes

    # --- revisions --------------------------------------------------------------------
    def _apply_revision(self, state: ConversationState, event: TurnEvent,
                        facts: list[Fact]) -> list[Fact]:
        """A user turn that authorises a change supersedes the old value for good.

        The superseded fact stays in the graph (for audit) but is never compared again; a
        copy carrying the new value is returned, to be recorded at the revision turn, so
        that an assistant going back to the old value is certified against the revision.
        """
        if lexicon.revision_kind(event.text) is None:
            return []
        turn = event.turn_index
        graph = state.graph
        revised: list[Fact] = []
        # (a) a restated single-valued fact: "I now live in Porto"
        for fact in facts:
            for key, old in graph.facts_about(fact.subject):
                if (old.relation == fact.relation and old.object != fact.object
                        and old.superseded_at is None and old.turn < turn
                        and not old.negated and not fact.negated):
                    graph.replace_fact(key, replace(old, superseded_at=turn))
        # (b) "change the deadline to Friday": verb + object + "to" value
        targets = {f.object for f in facts
                   if f.predicate in _REVISION_VERBS and not f.prep and f.object}
        new_values = [f for f in facts if f.predicate in _REVISION_VERBS and f.prep == "to"]
        if targets and new_values:
            for subject in list(graph.labels()):
                if not any(subject == t or subject.endswith(" " + t) for t in targets):
                    continue
                for key, old in graph.facts_about(subject):
                    if old.superseded_at is None and old.turn < turn and not old.negated:
                        value = _matching_value(old, new_values)
                        if value is None:
                            continue
                        graph.replace_fact(key, replace(old, superseded_at=turn))
                        revised.append(replace(
                            old, object=value.object, object_text=value.object_text,
                            turn=turn, speaker="user", sentence=value.sentence,
                            superseded_at=None, quarantined=False,
                        ))
        # (c) numbers: "make it 4 people instead of 6", "correction: 3,000, not 2,000"
        fresh, stale = _revision_quantities(event.text)
        if fresh:
            revised.extend(self._supersede_quantities(state, fresh, stale, turn, event.text))
        return revised

    def _supersede_quantities(
        self,
        state: ConversationState,
        fresh: list[quantities.Quantity],
        stale: list[quantities.Quantity],
        turn: int,
        text: str,
    ) -> list[Fact]:
        graph = state.graph
        candidates: list[tuple[int, int, Fact, quantities.Quantity]] = []
        for subject in graph.labels():
            for key, old in graph.facts_about(subject):
                if old.superseded_at is not None or old.turn >= turn or old.negated:
                    continue
                for q in quantities.parse_quantities(old.object_text):
                    candidates.append((old.turn, key, old, q))
        revised: list[Fact] = []
        sentence = text.strip()[:240]
        for new in fresh:
            matches = [
                c for c in candidates
                if quantities.same_value(c[3], new) is False
                and (not stale or any(_value_matches(s, c[3]) for s in stale))
            ]
            if not matches:
                continue
            if not stale:
                latest = max(m[0] for m in matches)
                matches = [m for m in matches if m[0] == latest]
            state.add_revision({
                "dimension": new.dimension, "unit": new.unit, "new": new.value,
                "surface": new.surface, "turn": turn, "sentence": sentence,
                "old": sorted({m[3].value for m in matches}
                              | {s.value for s in stale if s.dimension == new.dimension}),
            })
            for _, key, old, _q in matches:
                graph.replace_fact(key, replace(old, superseded_at=turn))
                revised.append(replace(
                    old, object=new.surface.lower(), object_text=new.surface, turn=turn,
                    speaker="user", sentence=sentence, superseded_at=None,
                ))
        return revised

    # --- assistant turns ----------------------------------------------------------------
    def _score_assistant(
        self,
        state: ConversationState,
        event: TurnEvent,
        extraction: Extraction,
        facts: list[Fact],
        previous: int | None,
        gap: bool,
    ) -> TurnOutcome:
        cfg = self.config
        turn = event.turn_index
        prompt = state.prompt_text()
        sentences = extraction.sentences or [event.text]
        sent_vecs = self.embedder.embed(sentences)
        response_vec = self._vec(event.text)
        prompt_vec = self._vec(prompt) if prompt else None
        ref_vec = self._vec(event.reference) if event.reference else None

        # contradictions, before the new claims join the history
        findings = self._findings(state, facts, turn)
        capped = bounds.most_confident(findings, cfg.max_certificates_per_turn,
                                       [f.confidence for _, f in findings])
        cut = {"certificates": len(findings) - len(capped)} if len(capped) < len(findings) else {}
        findings = capped
        certified = {i for i, _ in findings}
        certificates = [self._certificate(event, f) for _, f in findings]

        # graph anchoring of this turn's new nodes
        older = {n for n, d in state.graph.g.nodes(data=True) if not d["quarantined"]}
        new_nodes = self._insert(state, facts, turn, quarantine=certified)
        anchors = []
        for label in new_nodes:
            weight = clip01(state.graph.g.nodes[label]["importance"])
            if state.graph.has_fact_link(label, older):
                anchors.append((weight, cfg.anchor_fact))
            elif state.graph.has_semantic_link(label, older):
                anchors.append((weight, cfg.anchor_semantic))
            else:
                anchors.append((weight, cfg.anchor_none))
        g = graph_anchoring(anchors) if older else 1.0

        if state.anchor is None:
            state.anchor = response_vec
            s_cons = g
            anchor_sim = 1.0
        else:
            anchor_sim = float(response_vec @ state.anchor)
            s_cons = clip01(max(g, cfg.session_anchor_weight * anchor_sim))
        recent_sim = float(response_vec @ state.recent) if state.recent is not None else 1.0
        drift = (
            state.assistant_turns > 0 and g < cfg.drift_consistency
            and max(anchor_sim, recent_sim) < cfg.drift_consistency
        )
        if drift:
            s_cons = clip01(min(s_cons, max(anchor_sim, recent_sim)))
        state.recent = _normalise(
            response_vec if state.recent is None else state.recent * 0.5 + response_vec * 0.5
        )

        s_local = local_relevance(prompt_vec, sent_vecs, ref_vec, cfg)
        s_logic = 1.0 - max((c.confidence for c in certificates), default=0.0)
        regime, both_short = regime_of(prompt, event.text, cfg)
        fused = fuse(regime, both_short, s_local, s_cons, s_logic, cfg)
        if fused.quality < cfg.logic_gate_cap or certificates:
            self._quarantine_turn(state, turn, new_nodes)

        previous_trend = state.trend.label(cfg.trend_min_turns, cfg.trend_slope_threshold)
        state.trend.add(fused.quality, cfg.trend_decay)
        trend = state.trend.label(cfg.trend_min_turns, cfg.trend_slope_threshold)
        level = state.trend.level or 0.0
        slope = state.trend.slope(cfg.trend_min_turns)

        state.assistant_turns += 1
        state.sum_local += s_local
        state.sum_consistency += s_cons
        state.sum_logic += s_logic
        state.sum_quality += fused.quality
        state.certificates += len(certificates)
        state.last_trend = trend
        state.prompt = []

        mfss = quality_mfss.score_mfss(event.text, event.reference, sentences, self.embedder,
                                       cfg.mfss_weights)
        conflict = quality_conflict.score_conflict(
            quality_conflict.claims_from_extraction(extraction, state.focus), event.documents,
            self.extractor, self.embedder, support_similarity=cfg.conflict_support_similarity,
            turn_index=turn,
        ) if event.documents else None
        score = TurnScore(
            id=content_id("turn_score", event.conversation_id, turn, self.version),
            conversation_id=event.conversation_id,
            turn_index=turn,
            regime=regime,
            local_relevance=_r(s_local),
            consistency=_r(s_cons),
            logic=_r(s_logic),
            quality=_r(fused.quality),
            gates=GateFlags(logic_gate=fused.logic_gate, joint_weakness=fused.joint_weakness,
                            non_sequitur=fused.non_sequitur),
            drift=drift,
            certificates=[c.id for c in certificates],
            mfss=mfss,
            conflict=conflict,
            level=_r(level),
            slope=_r(slope),
            trend=trend,
            previous_turn_index=previous,
            gap=gap,
            timestamp=event.timestamp,
            metadata=event.metadata,
            engine_version=self.version,
        )
        alerts: list[Alert] = [c for c in certificates if c.severity == "page"]
        conflict_alert = quality_conflict.conflict_alert(
            event.conversation_id, turn, conflict, cfg.conflict_alert_cs_c, self.version
        ) if conflict is not None else None
        if conflict_alert is not None:
            alerts.append(conflict_alert)
        if trend == "DEGRADING" and previous_trend != "DEGRADING":
            alerts.append(TrendAlert(
                id=content_id("trend_alert", event.conversation_id, turn, self.version),
                conversation_id=event.conversation_id, turn_index=turn,
                previous_trend=previous_trend, trend=trend, level=_r(level), slope=_r(slope),
                severity="warn",
                explanation=(f"quality trend turned DEGRADING at turn {turn}: "
                             f"level {level:.2f}, slope {slope:+.3f} per turn"),
            ))
        state.remember(
            {"turn_index": turn, "quality": score.quality, "trend": trend,
             "certificates": len(certificates)},
            [{"id": c.id, "turn_index": c.turn_index, "conflicts_with": c.conflicts_with,
              "detector": c.detector, "explanation": c.explanation} for c in certificates],
        )
        return TurnOutcome(event=event, score=score, certificates=certificates, alerts=alerts,
                           cut=cut)

    def _findings(
        self, state: ConversationState, facts: list[Fact], turn: int
    ) -> list[tuple[int, contradiction.Finding]]:
        """Best finding per (new claim, earlier turn), through the subject index."""
        found: dict[tuple[str, int], tuple[int, contradiction.Finding]] = {}
        for i, fact in enumerate(facts):
            if fact.speaker != "assistant":
                continue
            for _, old in state.graph.facts_about(fact.subject):
                if old.turn >= turn:
                    continue
                finding = contradiction.compare(fact, old)
                if finding is None:
                    continue
                if lexicon.is_self_correction(fact.sentence):
                    finding = replace(
                        finding, detector="self_correction",
                        confidence=finding.confidence
                        * self.config.self_correction_confidence_factor,
                    )
                if finding.confidence < self.config.certificate_confidence_floor:
                    continue
                key = (fact.sentence, old.turn)
                best = found.get(key)
                if best is None or finding.confidence > best[1].confidence:
                    found[key] = (i, finding)
            for finding in _reverted_values(state, fact):
                found.setdefault((fact.sentence, finding.prior.turn), (i, finding))
        return sorted(found.values(), key=lambda kv: (kv[1].prior.turn, kv[0]))

    def _certificate(
        self, event: TurnEvent, finding: contradiction.Finding
    ) -> ContradictionCertificate:
        claim, prior = _claim(finding.claim), _claim(finding.prior)
        confidence = _r(finding.confidence)
        return ContradictionCertificate(
            id=content_id("certificate", event.conversation_id, event.turn_index,
                          prior.turn_index, finding.detector, claim.sentence, prior.sentence),
            conversation_id=event.conversation_id,
            turn_index=event.turn_index,
            conflicts_with=prior.turn_index,
            claim=claim,
            prior=prior,
            detector=finding.detector,
            confidence=confidence,
            severity="page" if confidence >= self.config.page_confidence else "warn",
            explanation=contradiction.explain(finding),
            engine_version=self.version,
        )

    def _quarantine_turn(self, state: ConversationState, turn: int,
                         new_nodes: list[str]) -> None:
        """A failed turn's new nodes may not anchor later turns."""
        for label in new_nodes:
            state.graph.g.nodes[label]["quarantined"] = True


def duplicates_of(
    events: Sequence[TurnEvent], states: dict[str, ConversationState]
) -> list[bool]:
    """Which events repeat a turn already applied (in the states or earlier in the batch)."""
    last = {cid: s.last_turn_index for cid, s in states.items()}
    flags = []
    for event in events:
        seen = last.get(event.conversation_id, -1)
        flags.append(event.turn_index <= seen)
        last[event.conversation_id] = max(seen, event.turn_index)
    return flags


def _claim(fact: Fact) -> Claim:
    q = quantities.parse_quantities(fact.object_text) if fact.object_text else []
    return Claim(
        subject=fact.subject, relation=fact.relation, object=fact.object_text or fact.object,
        negated=fact.negated, quantity=q[0].value if q else None,
        unit=q[0].unit if q else None, speaker=fact.speaker,  # type: ignore[arg-type]
        turn_index=fact.turn, sentence=fact.sentence,
    )


def _normalise(vec: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    norm = float(np.linalg.norm(vec))
    return (vec / norm).astype(np.float32) if norm > 0 else vec


def _revision_quantities(
    text: str,
) -> tuple[list[quantities.Quantity], list[quantities.Quantity]]:
    """Split a revision's numbers into new values and the old values it names."""
    fresh, stale = [], []
    for q in quantities.parse_quantities(text):
        if _OLD_VALUE_MARK.search(text[: q.start].rstrip(" ,:;")):
            stale.append(q)
        else:
            fresh.append(q)
    return fresh, stale


def _value_matches(stale: quantities.Quantity, candidate: quantities.Quantity) -> bool:
    if stale.dimension == candidate.dimension:
        return quantities.same_value(stale, candidate) is True
    return abs(stale.value - candidate.value) < 1e-9 or stale.surface.strip() in (
        candidate.surface
    )


def _matching_value(old: Fact, values: list[Fact]) -> Fact | None:
    """The new value that replaces `old`: a number for a number, a name for a name."""
    old_has_number = bool(quantities.parse_quantities(old.object_text))
    for value in values:
        if bool(quantities.parse_quantities(value.object_text)) == old_has_number:
            return value
    return None


def _reverted_values(state: ConversationState, fact: Fact) -> list[contradiction.Finding]:
    """An assistant claim that states a value the user explicitly replaced."""
    if fact.modality != "asserted" or fact.negated or not fact.object_text:
        return []
    found = []
    for q in quantities.parse_quantities(fact.object_text):
        for rev in state.revisions:
            if rev["turn"] >= fact.turn or rev["dimension"] != q.dimension or (
                rev["unit"] != q.unit
            ):
                continue
            same = [quantities.same_value(q, replace(q, value=v)) for v in rev["old"]]
            if any(same) and not quantities.same_value(q, replace(q, value=rev["new"])):
                prior = Fact(
                    subject=fact.subject, relation="revise to", object=rev["surface"].lower(),
                    object_text=rev["surface"], negated=False, modality="asserted",
                    speaker="user", turn=rev["turn"], sentence=rev["sentence"],
                    predicate="revise", prep="to", time_scope=None, importance=1.0,
                )
                found.append(contradiction.Finding(
                    "numeric", 0.9, fact, prior,
                    f"{q.surface} was replaced by {rev['surface']}",
                ))
    return found
