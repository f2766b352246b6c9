"""The engine's one entry point: apply a batch of turn events to conversation states.

`Engine.process_batch` is what both the offline CLI and the Faust agent call, so that the
same input gives the same scores online and offline. A batch may mix conversations and hold
several turns of one conversation; it is processed in order, but the expensive parts (the
dependency parse and the embeddings) run once for the whole batch.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field, replace
from functools import partial
from typing import NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from monitor import __version__
from monitor.config import EngineConfig
from monitor.contracts import (
    Claim,
    ConflictAlert,
    ContradictionCertificate,
    Detector,
    GateFlags,
    Regime,
    SessionSummary,
    Trend,
    TrendAlert,
    TurnEvent,
    TurnScore,
    VerifierJudgement,
    content_id,
    round_score,
)
from monitor.engine import (
    aligned,
    amounts,
    bounds,
    contradiction,
    cues,
    lexicon,
    order,
    quantities,
    trend,
)
from monitor.engine.claims import claims_from_extraction
from monitor.engine.constraints import (
    Constraint,
    asked_for,
    binding,
    binds_answer,
    broken_by,
    cancels_someone,
    cap_lifted,
    denying_heading,
    explanation,
    free_heading,
    goes_over,
    heeded,
    is_situation,
    lifted_by,
    presumption,
    sets_cap,
    sets_time_limit,
    someone_elses,
    steering_heading,
    substitute_named,
    topic_words,
)
from monitor.engine.drift import is_drift
from monitor.engine.embedder import Embedder
from monitor.engine.extract import ANAPHOR, Extraction, Extractor, Utterance
from monitor.engine.followup import operation_of, quoted_operand
from monitor.engine.graph import Fact, head_word, may_merge
from monitor.engine.protocols import TurnScorers, mean_direction
from monitor.engine.signals import (
    Fused,
    clip01,
    fuse,
    graph_anchoring,
    local_relevance,
    regime_of,
    request_relevance,
    word_count,
)
from monitor.engine.state import ConversationState, RecentCertificate, RecentScore, Revision
from monitor.engine.verdict import (
    Scored,
    VerdictStage,
    instruction,
    pronoun_led,
    sentence_fact,
)
from monitor.engine.verifier import Verifier
from monitor.engine.warmup import warmup_turns

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


@dataclass(frozen=True)
class _Vectors:
    """The embeddings an answer's stages share (each text embedded once per turn)."""

    sentences: list[str]
    sentence: npt.NDArray[np.float32]
    response: npt.NDArray[np.float32]
    prompt: npt.NDArray[np.float32] | None
    reference: npt.NDArray[np.float32] | None


@dataclass(frozen=True)
class _Signals:
    local: float
    relevance: float
    consistency: float
    logic: float
    drift: bool
    regime: Regime
    fused: Fused
    operation: str | None
    shifted: bool


@dataclass(frozen=True)
class _TrendStep:
    previous: Trend
    label: Trend
    level: float
    slope: float


class Engine:
    """Holds the models and constants; all conversation memory lives in the states."""

    def __init__(self, config: EngineConfig, embedder: Embedder, extractor: Extractor,
                 scorers: TurnScorers, verifier: Verifier | None = None) -> None:
        self.config = config
        self.embedder = embedder
        self.extractor = extractor
        self.scorers = scorers
        self.verifier = verifier
        self.verdict = (VerdictStage(config, verifier, embedder.embed)
                        if verifier is not None else None)
        models = content_id(embedder.name, verifier.model_id if verifier else "rules-only")[:8]
        self.version = f"{__version__}+{config.fingerprint()}.{models}"

    # --- public -----------------------------------------------------------------------
    def new_state(self, conversation_id: str) -> ConversationState:
        return ConversationState(conversation_id=conversation_id)

    def warm_up(self) -> None:
        """Load every lazily loaded part now, on throw-away states (`engine.warmup`), and
        what a trend test needs, which a short warm-up conversation never reaches."""
        self.process_batch(warmup_turns(), {})
        trend.warm_up()

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
        return list(self.outcomes(events, states))

    def outcomes(
        self, events: Sequence[TurnEvent], states: dict[str, ConversationState]
    ) -> Iterator[TurnOutcome]:
        """`process_batch`, one outcome at a time as each turn is applied: the batch is
        parsed and embedded together first, then the turns are applied in order, and a
        caller (the worker) can send a turn's records while the next is being judged.
        Each outcome is final when yielded; `states` is complete once the iterator is
        exhausted."""
        repeated = order.duplicates_of(events, states)
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
        for event, duplicate in zip(events, repeated, strict=True):
            if duplicate:
                yield TurnOutcome(event=event, duplicate=True)
                continue
            original, event, cut = event, next(bounded_work), next(turn_cuts)
            state = states.get(event.conversation_id)
            if state is None:
                state = states[event.conversation_id] = self.new_state(event.conversation_id)
            started = time.perf_counter()
            outcome = self._apply(state, event, next(extracted))
            state.note_turn(event.turn_index, order.turn_digest(original), cfg.turn_digests)
            outcome.cut = {**cut, **outcome.cut}
            outcome.seconds = time.perf_counter() - started
            yield outcome

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
            mean_local_relevance=round_score(state.sum_local / n) if n else None,
            mean_consistency=round_score(state.sum_consistency / n) if n else None,
            mean_logic=round_score(state.sum_logic / n) if n else None,
            mean_quality=round_score(state.sum_quality / n) if n else None,
            level=round_score(level) if level is not None else None,
            slope=round_score(state.trend.slope(self.config.trend_min_turns)),
            trend=state.last_trend,
            certificates=state.certificates,
            gaps=state.gaps,
            engine_version=self.version,
        )

    # --- batch helpers ----------------------------------------------------------------
    def _prewarm(self, events: Sequence[TurnEvent], extractions: list[Extraction]) -> None:
        """One embedder call for everything the batch will need (the cache serves the rest)."""
        texts: list[str] = []
        for event, ex in zip(events, extractions, strict=True):
            if event.role == "assistant":  # an answer is embedded sentence by sentence
                texts.extend(ex.sentences or [event.text])
            else:
                texts.append(event.text)
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
        if event.role == "assistant" and _composed(state, state.prompt_text()):
            # a story, a role or a draft the user asked for: a character's words
            facts = [replace(f, modality="composed") for f in facts]
        if extraction.focus:
            state.focus = extraction.focus

        if event.role == "assistant":
            outcome = self._score_assistant(state, event, extraction, facts, previous, gap)
        else:
            if event.role == "user":
                facts = facts + self._apply_revision(state, event, facts)
                state.push_prompt(event.text, self.config.max_prompt_chars)
                state.add_user_topics(event.turn_index, _told_afresh(extraction.sentences),
                                      self.config.max_user_topics)
                self._follow_user(state, event.text)
            self._insert(state, facts, event.turn_index, quarantine=set())
            self._remember_statements(state, event, extraction)
            if event.role == "user":
                if cancels_someone(event.text):  # "priya's had to cancel": hers lift
                    state.lift_constraints(someone_elses)
                state.lift_constraints(  # "so we can drive now"
                    partial(lifted_by, sentences=extraction.sentences, turn=event.turn_index))
                state.add_constraints(
                    [c for s in extraction.sentences
                     for c in binding(s, event.turn_index, event.text)],
                    self.config.max_constraints)
                if self.verdict is not None:
                    self.verdict.remember(state, event.turn_index, "user", extraction.asserted,
                                          _subjects_by_sentence(facts))
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
        live_older = [n for n in older if not graph.is_quarantined(n)]
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

    def _follow_user(self, state: ConversationState, text: str) -> None:
        """Let the user lead the topic, and note a follow-up operation and its operand."""
        quoted = quoted_operand(text)
        state.topic.observe_user(self._vec(text), word_count(text), operation_of(text),
                                 self._vec(quoted) if quoted else None, self.config)

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
        sentence = text.strip()[:bounds.SENTENCE_CHARS]
        numbers = len(_NUMBER_RUN.findall(text))  # "the score is 2-1" reads no quantity
        for new in (_counted_as_before(state, q, numbers, turn) for q in fresh):
            matches = [c for c in candidates if _replaces(new, stale, c[3])
                       and not quantities.far_apart(new.value, c[3].value)]
            own = [m for m in matches if m[2].speaker == "user"]
            matches = own or matches  # the user's own "$300 total", not an answer's "$35"
            if matches and not stale:
                latest = max(m[0] for m in matches)
                matches = [m for m in matches if m[0] == latest]
            old_values = {m[3].value for m in matches} or _only_value_said(
                new, stale, _user_amounts(state, turn, new.dimension, new.unit))
            if not old_values:
                continue
            state.add_revision(Revision(
                dimension=new.dimension, unit=new.unit, new=new.value, surface=new.surface,
                turn=turn, sentence=sentence,
                old=tuple(sorted(old_values
                                 | {s.value for s in stale if s.dimension == new.dimension})),
            ), self.config.max_revisions)
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
        """The stages of one answer, in order; each reads what the earlier ones left."""
        prompt = state.prompt_text()
        vectors = self._turn_vectors(event, extraction, prompt)
        certificates, certified, cut = self._contradictions(state, event, extraction, facts,
                                                            prompt)
        new_nodes, anchoring = self._anchor(state, facts, event.turn_index, certified)
        signals = self._signals(state, event, prompt, vectors, anchoring, certificates)
        # an owned-up mistake is no failed turn: the correction anchors later turns
        if signals.fused.quality < self.config.logic_gate_cap or any(
                c.detector != "self_correction" for c in certificates):
            self._quarantine_turn(state, event.turn_index, new_nodes)
        trend = self._advance_trend(state, signals, len(certificates))
        score = self._turn_score(state, event, extraction, prompt, signals, trend,
                                 certificates, previous, gap)
        alerts = self._alerts(event, certificates, score, trend)
        state.last_answer = event.turn_index
        state.remember(
            RecentScore(event.turn_index, score.quality, trend.label, len(certificates)),
            [RecentCertificate(c.id, c.turn_index, c.conflicts_with, c.detector,
                               c.explanation) for c in certificates],
            (self.config.recent_scores, self.config.recent_certificates),
        )
        return TurnOutcome(event=event, score=score, certificates=certificates, alerts=alerts,
                           cut=cut)

    # --- stages of an answer -------------------------------------------------------------
    def _turn_vectors(self, event: TurnEvent, extraction: Extraction, prompt: str) -> _Vectors:
        sentences = extraction.sentences or [event.text]
        sentence = self.embedder.embed(sentences)
        return _Vectors(
            sentences=sentences,
            sentence=sentence,
            response=mean_direction(sentence),
            prompt=self._vec(prompt) if prompt else None,
            reference=self._vec(event.reference) if event.reference else None,
        )

    def _contradictions(
        self, state: ConversationState, event: TurnEvent, extraction: Extraction,
        facts: list[Fact], prompt: str,
    ) -> tuple[list[ContradictionCertificate], set[int], dict[str, int]]:
        """Candidates (rules, meaning, constraints) -> verdicts -> certificates, before the
        new claims join the history; returns the certificates, the indexes of the facts
        they rest on and what the per-turn cap cut."""
        cfg, turn = self.config, event.turn_index
        findings = self._findings(state, facts, turn)
        pairs = {(f.claim.sentence, f.prior.sentence) for _, f, _ in findings}
        creative = _composed(state, prompt)
        reverted = [] if cues.asks_for_fiction(prompt) else _reverted_amounts(
            state, turn, extraction.asserted)
        for found in (self._amount_findings(state, event, extraction, facts, prompt),
                      self._draft_findings(state, turn, extraction, prompt, creative),
                      reverted):
            found = [f for f in found if (f[1].claim.sentence, f[1].prior.sentence) not in pairs]
            pairs |= {(f.claim.sentence, f.prior.sentence) for _, f, _ in found}
            findings += found
        asserted = [] if creative else extraction.asserted
        recommending = [] if creative else [
            (s, extraction.scopes.get(s, "")) for s in _recommending(extraction)]
        offering = [*asserted, *recommending]
        subjects = _subjects_by_sentence(facts)
        # list items and labels state nothing by themselves: the verifier, trained on
        # captions of one scene, reads two different ones as a contradiction; the rules
        # still read their amounts and the constraints their foods
        claims = [(s, c) for s, c in asserted if s not in extraction.fragments]
        if self.verdict is not None:
            findings = self.verdict.judge(state, turn, claims, findings, subjects)
        # a situation is presumed in any sentence ("If it keeps happening, bring it up
        # with your manager" for a freelancer), a food offered only in an asserted one
        findings += self._constraint_findings(state, turn, offering, [] if creative else [
            (s, extraction.scopes.get(s, "")) for s in extraction.sentences], prompt)
        over_cap = [] if creative else self._cap_findings(state, turn, extraction,
                                                           recommending, prompt)
        if over_cap:  # not what a restated budget already certified
            covered = {(f.claim.sentence, f.prior.sentence) for _, f, _ in findings}
            findings += [f for f in over_cap
                         if (f[1].claim.sentence, f[1].prior.sentence) not in covered]
        findings, owned_up = self._owned_up(state, event, findings)
        findings = [f for f in findings if self._uncertified(state, f[1], f[2])]
        capped = bounds.most_confident(findings, cfg.max_certificates_per_turn,
                                       [f.confidence for _, f, _ in findings])
        cut = {"certificates": len(findings) - len(capped)} if len(capped) < len(findings) else {}
        keep = self.config.max_certified
        guesses = [self._guess(f, a) for _, f, a in capped]
        sure = {_conflict_key(f) for (_, f, _), guess in zip(capped, guesses, strict=True)
                if guess is None}
        kept = [(f, guess) for f, guess in zip(capped, guesses, strict=True)
                if not (guess is not None and _conflict_key(f[1]) in sure)
                and state.certify(_certified_key(f[1], guess is not None), keep)]
        findings = [f for f, _ in kept]
        for finding in owned_up:
            state.withdraw(finding.prior.turn, finding.prior.sentence, _owned_claim(finding),
                           turn)
        self._remember_statements(state, event, extraction, facts)
        if self.verdict is not None:
            self.verdict.remember(state, turn, "assistant", claims, subjects)
        # a claim that corrects a mistake is the right one: it anchors later turns
        certified = {i for i, f, _ in findings if i >= 0 and f.detector != "self_correction"}
        return ([self._certificate(event, f, a, guess) for (_, f, a), guess in kept],
                certified, cut)

    def _owned_up(
        self, state: ConversationState, event: TurnEvent, findings: list[Scored]
    ) -> tuple[list[Scored], list[contradiction.Finding]]:
        """An answer that opens by owning up to a mistake ("My apologies for the error.
        ..."; the corrected value usually follows in a sentence of its own) corrects its
        conflicts with the previous answer, and with older answers that made the same
        claim (`_claim_of`): they become `self_correction` findings, kept for the
        dashboards at a lower confidence and never paged (the user already has the right
        answer). A conflict with another claim of an older answer, or with what the user
        said, is not what the apology owns up to, and may page. Returns the findings and
        the claims owned up to, every one of them, whatever the per-turn cap and the
        certified keys keep: they are withdrawn (`ConversationState.withdraw`), so a later
        answer restating the correction in any words has nothing left to conflict with,
        and one going back to the mistake conflicts with the correction."""
        if state.last_answer < 0 or not lexicon.opens_with_self_correction(event.text):
            return findings, []
        answers = [f for _, f, _ in findings if f.prior.speaker == "assistant"]
        claims = {_claim_of(f.prior) for f in answers if f.prior.turn == state.last_answer}
        mistakes = {id(f) for f in answers
                    if f.prior.turn == state.last_answer or _claim_of(f.prior) in claims}
        relabelled = [(i, self._as_self_correction(f), a) if id(f) in mistakes else (i, f, a)
                      for i, f, a in findings]
        owned_up = [f for _, f, _ in findings if id(f) in mistakes]
        return relabelled, owned_up

    def _as_self_correction(self, finding: contradiction.Finding) -> contradiction.Finding:
        """The finding as a mistake owned up to: reduced confidence, never paged."""
        return replace(finding, detector="self_correction",
                       confidence=finding.confidence
                       * self.config.self_correction_confidence_factor)

    def _anchor(
        self, state: ConversationState, facts: list[Fact], turn: int, certified: set[int]
    ) -> tuple[list[str], float | None]:
        """Insert the turn's facts; how well its new nodes anchor in the older graph."""
        cfg = self.config
        older = state.graph.live_labels()
        new_nodes = self._insert(state, facts, turn, quarantine=certified)
        anchors = []
        for label in new_nodes:
            weight = clip01(state.graph.importance(label))
            if state.graph.has_fact_link(label, older):
                anchors.append((weight, cfg.anchor_fact))
            elif state.graph.has_semantic_link(label, older):
                anchors.append((weight, cfg.anchor_semantic))
            else:
                anchors.append((weight, cfg.anchor_none))
        # graph evidence exists only for new claims: an answer that adds none (a generic
        # "sounds fun!") is not thereby perfectly consistent (reference bug 13)
        g = graph_anchoring(anchors) if new_nodes and older else (None if older else 1.0)
        return new_nodes, g

    def _signals(
        self, state: ConversationState, event: TurnEvent, prompt: str, v: _Vectors,
        g: float | None, certificates: list[ContradictionCertificate],
    ) -> _Signals:
        """Relevance, consistency (session anchor, drift) and logic, fused by regime."""
        cfg = self.config
        s_local = local_relevance(v.prompt, v.sentence, v.reference, cfg)
        topic = state.topic
        operation, shifted = topic.operation, topic.shifted
        s_rel = request_relevance(
            s_local, topic.operand_similarity(v.response),
            topic.context_similarity(v.response)
            if word_count(prompt) < cfg.context_request_words else None,
        )
        request_match = float(np.max(v.sentence @ v.prompt)) if v.prompt is not None else None
        related = topic.relatedness(v.response, request_match)
        graph_term = 0.0 if g is None else g
        if state.anchor is None:
            state.anchor = v.response
            s_cons = 1.0 if g is None else g
        elif shifted:  # the user moved the topic: this answer opens a new segment
            state.anchor = v.response
            s_cons = clip01(max(graph_term, cfg.session_anchor_weight * related))
        else:
            s_cons = clip01(max(graph_term,
                                cfg.session_anchor_weight * float(v.response @ state.anchor)))
        drift = is_drift(state.assistant_turns, graph_term, related, cfg)
        if drift:
            s_cons = clip01(min(s_cons, related))
        topic.observe_answer(v.response, drift, cfg)
        s_logic = 1.0 - max((c.confidence for c in certificates), default=0.0)
        regime, both_short = regime_of(prompt, event.text, cfg)
        fused = fuse(regime, both_short, s_rel, s_cons, s_logic, cfg)
        return _Signals(s_local, s_rel, s_cons, s_logic, drift, regime, fused, operation,
                        shifted)

    def _advance_trend(
        self, state: ConversationState, signals: _Signals, certificates: int
    ) -> _TrendStep:
        """Add the turn to the session trend and the conversation's running sums."""
        cfg = self.config
        previous_trend = state.last_trend
        quality = signals.fused.quality
        state.trend.add(quality, cfg.trend_decay, cfg.trend_drop_turns)
        step = _TrendStep(previous_trend, state.trend.label(previous_trend, cfg),
                          state.trend.level or 0.0, state.trend.slope(cfg.trend_min_turns))
        state.assistant_turns += 1
        state.sum_local += signals.local
        state.sum_consistency += signals.consistency
        state.sum_logic += signals.logic
        state.sum_quality += quality
        state.certificates += certificates
        state.last_trend = step.label
        state.prompt = []
        return step

    def _turn_score(
        self, state: ConversationState, event: TurnEvent, extraction: Extraction, prompt: str,
        signals: _Signals, trend: _TrendStep, certificates: list[ContradictionCertificate],
        previous: int | None, gap: bool,
    ) -> TurnScore:
        cfg, turn = self.config, event.turn_index
        sentences = extraction.sentences or [event.text]
        mfss = self.scorers.score_mfss(event.text, event.reference, sentences, self.embedder,
                                       cfg.mfss_weights, prompt=prompt)
        conflict = self.scorers.score_conflict(
            claims_from_extraction(extraction, state.focus), event.documents,
            self.extractor, self.embedder, support_similarity=cfg.conflict_support_similarity,
            turn_index=turn,
        ) if event.documents else None
        fused = signals.fused
        return TurnScore(
            id=content_id("turn_score", event.conversation_id, turn, self.version),
            conversation_id=event.conversation_id, turn_index=turn, regime=signals.regime,
            local_relevance=round_score(signals.local), relevance=round_score(signals.relevance),
            operation=signals.operation, topic_shift=signals.shifted,
            consistency=round_score(signals.consistency), logic=round_score(signals.logic),
            quality=round_score(fused.quality),
            gates=GateFlags(logic_gate=fused.logic_gate, joint_weakness=fused.joint_weakness,
                            non_sequitur=fused.non_sequitur),
            drift=signals.drift, certificates=[c.id for c in certificates], mfss=mfss,
            conflict=conflict, level=round_score(trend.level), slope=round_score(trend.slope),
            trend=trend.label, previous_turn_index=previous, gap=gap,
            timestamp=event.timestamp, metadata=event.metadata, engine_version=self.version,
        )

    def _alerts(
        self, event: TurnEvent, certificates: list[ContradictionCertificate], score: TurnScore,
        trend: _TrendStep,
    ) -> list[Alert]:
        """Pages, a ConflictScore warning and a trend turning DEGRADING."""
        turn = event.turn_index
        alerts: list[Alert] = [c for c in certificates if c.severity == "page"]
        conflict_alert = self.scorers.conflict_alert(
            event.conversation_id, turn, score.conflict, self.config.conflict_alert_cs_c,
            self.version,
        ) if score.conflict is not None else None
        if conflict_alert is not None:
            alerts.append(conflict_alert)
        if trend.label == "DEGRADING" and trend.previous != "DEGRADING":
            alerts.append(TrendAlert(
                id=content_id("trend_alert", event.conversation_id, turn, self.version),
                conversation_id=event.conversation_id, turn_index=turn,
                previous_trend=trend.previous, trend=trend.label, level=round_score(trend.level),
                slope=round_score(trend.slope), severity="warn",
                explanation=(f"quality trend turned DEGRADING at turn {turn}: "
                             f"level {trend.level:.2f}, slope {trend.slope:+.3f} per turn"),
            ))
        return alerts

    def _findings(
        self, state: ConversationState, facts: list[Fact], turn: int
    ) -> list[tuple[int, contradiction.Finding, float]]:
        """Best finding per distinct pair of sentences, each with its alignment.

        Candidates come through the graph (facts on the same subject node, and on nodes
        with the same head word), and a pair is only judged when the two sentences are
        aligned: about the same thing (embedding similarity), under the same heading, not
        one sentence and its own copy, and with no user turn between them that told
        something new about what they mention (the situation may have changed).
        """
        found: dict[tuple[str, str], tuple[int, contradiction.Finding, float]] = {}
        by_head: dict[str, list[str]] = {}
        for label in state.graph.labels():
            by_head.setdefault(head_word(label), []).append(label)
        for i, fact in enumerate(facts):
            if fact.speaker != "assistant" or fact.modality != "asserted":
                continue
            for old in self._candidates(state, fact, turn, by_head):
                finding = contradiction.compare(fact, old, self.config.rule_confidence)
                if finding is None or (old.speaker == "user"
                                       and instruction(fact.sentence, (fact.subject,))):
                    continue  # "Run on flat surfaces first" tells nothing of the user's past
                alignment = self._alignment(state, fact, old, turn)
                if alignment is None:
                    continue
                if any(aligned.user_gave_amount(state.statements, old.turn, turn,
                                                None if old.speaker != "user" else a)
                       for a in aligned.measured(fact.object_text)):
                    continue  # the user gave a new value of this kind in between
                if finding.confidence < self.config.certificate_confidence_floor:
                    continue
                key = (fact.sentence, old.sentence)
                best = found.get(key)
                if best is None or finding.confidence > best[1].confidence:
                    found[key] = (i, finding, alignment)
            for finding in _reverted_values(state, fact):
                found.setdefault((fact.sentence, finding.prior.sentence), (i, finding, 1.0))
        return sorted(found.values(), key=lambda kv: (kv[1].prior.turn, kv[0],
                                                       kv[1].prior.sentence))

    def _remember_statements(self, state: ConversationState, event: TurnEvent,
                             extraction: Extraction, facts: list[Fact] | None = None) -> None:
        if facts and all(f.modality == "composed" for f in facts):
            return
        rows: list[tuple[int, str, str, str]] = [
            (event.turn_index, event.role, sentence[:bounds.SENTENCE_CHARS], context)
            for sentence, context in extraction.asserted if aligned.measured(sentence)]

        def remember(speaker: str, sentences: Iterable[str], keep: Callable[[str], object]
                     ) -> None:
            """Rows of `speaker` for the sentences not remembered yet that `keep` holds."""
            said = {row[2] for row in rows}
            rows.extend((event.turn_index, speaker, s[:bounds.SENTENCE_CHARS], "")
                        for s in sentences if s[:bounds.SENTENCE_CHARS] not in said and keep(s))

        if event.role == "user":
            # a question can still give a new value ("what if 8?")
            remember("user-question", extraction.sentences, aligned.measured)
            # a bare number the user states ("update: it's now 35") is a new value of what
            # the conversation counts; one in a question ("and for two?") asks about one
            remember("user-number", (s for s, _ in extraction.asserted), aligned.amounts_in)
            # a changed plan without a number ("update: we moved it to Lisbon") frees the
            # numbers said before it as much as a new number does
            remember("user-revision", extraction.sentences,
                     lambda s: lexicon.revision_kind(s) is not None)
        state.add_statements(rows, self.config.max_statements)

    def _amount_findings(
        self, state: ConversationState, event: TurnEvent, extraction: Extraction,
        facts: list[Fact], prompt: str,
    ) -> list[tuple[int, contradiction.Finding, float]]:
        """Amounts that clash between aligned sentences (see `engine.aligned`), and those
        the phrases of a sentence take as given, in asserted sentences and in those a
        trailing condition or a goal keeps from being asserted (`_presupposes`); no phrase
        is read alone where the user supposed another value or asked for another option
        ("what if I get the promotion?": "On $5,000 a month, ...")."""
        if facts and all(f.modality == "composed" for f in facts):
            return []
        said = {s for s, _ in (*extraction.asserted, *extraction.quoted)}
        presupposing = [(s, extraction.scopes.get(s, "")) for s in extraction.sentences
                        if s not in said and _presupposes(s)]
        return self._amount_clashes(state, event.turn_index, extraction.asserted,
                                    fragments=extraction.fragments,
                                    leads=not cues.asks_for_alternative(prompt),
                                    presupposing=presupposing)

    def _draft_findings(
        self, state: ConversationState, turn: int, extraction: Extraction, prompt: str,
        creative: bool,
    ) -> list[tuple[int, contradiction.Finding, float]]:
        """Amounts in a draft written for the user against what the user said of
        themselves: "6+ years in support" in a CV summary for a user who has 4.

        Composed text is otherwise kept out of the comparisons (a story's numbers are its
        own). A text the user asked for to send as themselves (a CV, a cover letter, an
        invitation; not a story, a poem or a role) speaks in the user's voice, whether it
        is the whole answer or a block quote in it. Its sentences that speak of nobody else
        ("Registered nurse with 12 years on a cardiac ward", not "Dad has worked 40 years
        at the mill") are compared with the user's own statements by the same rule as any
        user fact. (The parse cannot tell: it reads "team lead with 6 years" as a subject
        and its verb.)
        """
        if not cues.asks_for_user_draft(prompt) or cues.asks_for_fiction(prompt):
            return []
        drafted = [*extraction.quoted, *(extraction.asserted if creative else [])]
        in_voice = [(s, c) for s, c in drafted if not cues.speaks_of_others(s)]
        return self._amount_clashes(state, turn, in_voice, users_only=True,
                                    fragments=extraction.fragments)

    def _amount_clashes(
        self, state: ConversationState, turn: int, sentences: Sequence[tuple[str, str]],
        users_only: bool = False, fragments: AbstractSet[str] = frozenset(),
        leads: bool = True, presupposing: Sequence[tuple[str, str]] = (),
    ) -> list[tuple[int, contradiction.Finding, float]]:
        """Each sentence's amounts against the remembered statements (only the user's own
        with `users_only`): one finding per pair of sentences at most, by the words around
        the amounts (`_clash_by_words`) or, failing them, by meaning (`_meaning_check`;
        not for `fragments`, list items and labels: "Butter — 250 g" on a shopping list
        says nothing of the 20 g in one meal, and the verifier reads it as if it did).
        With `leads`, a sentence that works from a value said again is also read by its
        lead phrase alone (`aligned.premise`), and by each phrase that gives an amount as
        the user's own ("your 144 sq ft deck": `aligned.possessed`), where the whole finds
        nothing; by meaning too: such a phrase names what its value is of even where the
        whole reads as a fragment ("7 nights comes to ..." parses without a subject). The
        `presupposing` sentences, not asserted as a whole, are read by those phrases only:
        "For your 144 sq ft deck, ..., plus more if you're doing railings" asserts nothing
        as a whole, yet takes the deck's size as given. An item of a plan ("Month 3: ...")
        is not read at all: it says what a value will be."""
        found: list[tuple[int, contradiction.Finding, float]] = []
        checks: list[tuple[int, _MeaningCheck]] = []  # each after found[:position]
        for whole, context, stated in [*((s, c, True) for s, c in sentences),
                                       *((s, c, False) for s, c in presupposing)]:
            sentence = whole[:bounds.SENTENCE_CHARS]
            if cues.opens_plan_item(sentence):
                continue  # "Month 3: your savings reach $5,200": a later time's value
            # "At $45 a night for a dog, 10 nights is $450"; "for your 144 sq ft deck"
            said_again = (aligned.premise(sentence), *aligned.possessed(sentence)
                          ) if leads else ()
            readings = [_Said(text, context, turn, "assistant")
                        for text in ((sentence, *said_again) if stated else said_again)
                        if text is not None and aligned.measured(text)]
            if not readings:
                continue
            # a lead phrase says what its value is of, whatever the parse made of the rest
            by_meaning = [r for r in readings if r.sentence != sentence
                          or whole not in fragments]
            for old_turn, speaker, old_sentence, old_context in state.statements:
                if (old_turn >= turn or speaker in {"user-question", "user-number", "user-revision"}
                        or (users_only and speaker != "user")):
                    continue
                budget = (aligned.budget_restated(sentence, old_sentence)
                          if speaker == "user" and stated else None)
                if budget is not None and not aligned.user_gave_amount(
                        state.statements, old_turn, turn, budget[0]):
                    found.append(self._budget_finding(
                        sentence, context, old_sentence, old_context, turn, old_turn, budget))
                    continue
                if speaker == "user" and not cues.speaks_of_self(old_sentence):
                    continue  # a puzzle's data, not what the user says of their situation
                if cues.years(sentence) != cues.years(old_sentence):
                    continue  # "today ... back in 2022": different time frames
                if not any(aligned.may_conflict(r.sentence, old_sentence) for r in readings):
                    continue  # no amount of one measures what an amount of the other does
                old = _Said(old_sentence, old_context, old_turn, speaker)
                clash = next((found_ for new in readings if (
                    found_ := self._clash_by_words(state, new, old)) is not None), None)
                if clash is not None:
                    position, finding, alignment = clash
                    found.append((position, _said_whole(finding, sentence, stated),
                                  alignment))
                elif (self.verifier is not None
                      and len(checks) < self.config.amount_meaning_checks):
                    check = next((check_ for new in by_meaning if (
                        check_ := self._meaning_check(state, new, old)) is not None), None)
                    if check is not None:
                        checks.append((len(found), _said_whole(check, sentence, stated)))
        return self._by_meaning(found, checks)

    def _restated_amount(self, state: ConversationState, new: _Said, old: _Said,
                         clash: tuple[amounts.Amount, amounts.Amount]) -> bool:
        """The clash is a value said again wrongly, not a new value the user gave in between
        nor an addition ("bring one more 1 L bottle") or a possibility ("could be 30")."""
        # a price per night is not rescaled by "we're staying 7 nights"
        rate = aligned.span(new.sentence, clash[0])
        kept = (partial(aligned.leaves_rate, span=rate)
                if rate is not None and rate in aligned.TIME_SPANS and old.speaker != "user"
                and rate == aligned.span(old.sentence, clash[1]) else None)
        if aligned.user_gave_amount(state.statements, old.turn, new.turn,
                                    clash[0] if old.speaker == "user" else None, unless=kept):
            return False
        own = aligned.phrase(new.sentence, clash[0])
        return not (cues.adds_to(own) or cues.adds_to(aligned.phrase(old.sentence, clash[1]))
                    or lexicon.modality_cue(own.lower()) is not None)

    def _clash_by_words(self, state: ConversationState, new: _Said, old: _Said
                        ) -> Scored | None:
        """Amounts of two sentences that name the same things, share words around the
        amounts and are similar as wholes (at least `amount_alignment`)."""
        if aligned.names_differ(new.sentence, old.sentence) or aligned.other_one(
                new.sentence, old.sentence):
            return None  # "the previous generation", "Harman Kardon" vs none
        shared = aligned.shared_words(new.sentence, old.sentence)
        if not shared:
            return None
        clash = aligned.amount_conflict(new.sentence, old.sentence,
                                        1 if old.speaker == "user" else 2)
        if clash is None or not self._restated_amount(state, new, old, clash):
            return None
        claim, prior = new.fact(clash[0], shared), old.fact(clash[1], shared)
        alignment = self._alignment(state, claim, prior, new.turn)
        if alignment is None or alignment < self.config.amount_alignment:
            return None
        bound = clash[1].shape in {"upper", "lower"}
        confidence = self.config.amount_confidence * (1.0 if bound else 0.8)
        return (-1, contradiction.Finding(
            _amount_detector(old.speaker), confidence, claim, prior,
            f"{clash[0].surface} vs {clash[1].surface}"), alignment)

    def _meaning_check(self, state: ConversationState, new: _Said, old: _Said
                       ) -> _MeaningCheck | None:
        """The first pair of clashing amounts whose clauses the verifier is to compare
        (`aligned.restated_clause`): the old amount's clause with the new amount written
        in should entail the new amount's clause if both are one thing's.

        Restatements rarely keep the words ("about $120 per hour" for "a crew of two
        movers with a truck", then "at $150 an hour for two movers and a truck") or the
        names ("the tasting menu at Noma", then "the tasting menu"), so the word gates
        miss them; the scope, name and calculation checks of `_alignment` still hold, at
        its own similarity floor (`alignment_similarity`, below `amount_alignment`).
        """
        for a, b in aligned.conflicts(new.sentence, old.sentence):
            clauses = aligned.restated_clause(new.sentence, a, old.sentence, b)
            if clauses is None or not self._restated_amount(state, new, old, (a, b)):
                continue
            about = (aligned.shared_words(new.sentence, old.sentence)
                     or aligned.attribute(new.sentence, a))
            claim, prior = new.fact(a, about), old.fact(b, about)
            alignment = self._alignment(state, claim, prior, new.turn)
            if alignment is not None:
                return _MeaningCheck(clauses, claim, prior, alignment,
                                     f"{a.surface} vs {b.surface}")
        return None

    def _by_meaning(self, found: list[Scored], checks: list[tuple[int, _MeaningCheck]]
                    ) -> list[Scored]:
        """The checks' clauses judged in one verifier call; those the verifier reads as one
        thing's join `found` where they were met. The verifier is a weaker witness of
        sameness than shared words, so these findings carry the lower confidence of a
        point value and page only if the verifier also finds the two sentences
        incompatible (`VerdictStage`)."""
        if not checks or self.verifier is None:
            return found
        judged = self.verifier.judge([check.clauses for _, check in checks])
        added = [(position, (-1, contradiction.Finding(
            _amount_detector(check.prior.speaker), self.config.amount_confidence * 0.8,
            check.claim, check.prior,
            f"{check.values}; the earlier clause with {check.claim.object_text} in it "
            f"entails this one, P {judgement.entailment:.2f}", doubt=check.doubt),
            check.alignment))
            for (position, check), judgement in zip(checks, judged, strict=True)
            if judgement.entailment >= self.config.amount_same_entailment]
        keyed = [((i, 1), f) for i, f in enumerate(found)] + [((p, 0), f) for p, f in added]
        return [f for _, f in sorted(keyed, key=lambda kf: kf[0])]

    def _budget_finding(
        self, sentence: str, context: str, old_sentence: str, old_context: str, turn: int,
        old_turn: int, clash: tuple[amounts.Amount, amounts.Amount],
    ) -> tuple[int, contradiction.Finding, float]:
        """The answer names the user's budget as an amount the user's cap rules out
        (`aligned.budget_restated`): both sentences speak of one thing by construction."""
        shared = {"budget"}
        new = _statement_fact(sentence, context, "assistant", turn, clash[0], shared)
        old = _statement_fact(old_sentence, old_context, "user", old_turn, clash[1], shared)
        return (-1, contradiction.Finding(
            "user_fact", self.config.amount_confidence, new, old,
            f"{clash[0].surface} vs the user's cap of {clash[1].surface}"),
            self.config.page_alignment)

    def _constraint_findings(
        self, state: ConversationState, turn: int, asserted: Sequence[tuple[str, str]],
        presuming: Sequence[tuple[str, str]] = (), prompt: str = "",
    ) -> list[tuple[int, contradiction.Finding, float]]:
        """Answer sentences that offer what the user ruled out (engine.constraints): the
        `asserted` ones, and for a situation the user told also the `presuming` ones (a
        conditional presumes as much); the user's own rule binds no answer to a `prompt`
        about someone else's food (`binds_answer`). Where the answer steers around the
        constraint elsewhere and names it (`constraints.heeded`), or the sentence stands
        under a heading that steers ("Watch out for", `constraints.steering_heading`),
        what it names may be a warning: a doubt, never a page."""
        # one finding per answer sentence, user turn and offending word: "peanut butter"
        # breaks both "a severe peanut allergy" and "the school is nut-free", one page
        found: dict[tuple[str, int, str], tuple[int, contradiction.Finding, float]] = {}
        heeding: dict[Constraint, str | None] = {}  # per rule, asked once it is broken
        # per rule, once: does it bind this answer, and is it a situation (read in any
        # sentence) or a rule on what is offered (read in asserted ones)
        rules = [(rule, is_situation(rule.label)) for rule in state.constraints
                 if rule.turn < turn and binds_answer(rule, prompt)]
        if not rules:
            return []
        said = {s for s, _ in asserted}
        # what the answers said so far, where a substitute may have been named
        answered = [a.sentence for a in state.assertions
                    if a.turn < turn and a.speaker == "assistant"] + [s for s, _ in asserted]
        for sentence, context in [*asserted, *((s, c) for s, c in presuming if s not in said)]:
            stated = sentence in said
            sentence = sentence[:bounds.SENTENCE_CHARS]
            for rule, situation in rules:
                word = broken_by(sentence, rule) if stated or situation else None
                if word is None or (sentence, rule.turn, word.lower()) in found or (
                        state.changed_between(rule.turn, turn, topic_words(rule.label),
                                              min_shared=1)) or (
                        free_heading(context, rule.label) if not situation
                        else denying_heading(context)):
                    continue  # under "Gluten-free noodles", "Rice noodles" is one; under
                    # "What you don't need anymore", "Oil changes" is no presumption
                if rule not in heeding:
                    heeding[rule] = heeded((s[:bounds.SENTENCE_CHARS] for s, _ in asserted),
                                           rule)
                steering = heeding[rule]
                claim = sentence_fact(sentence, context, "assistant", turn, word.lower())
                prior = sentence_fact(rule.sentence, "", "user", rule.turn, rule.label)
                # "What to skip" warns of foods; it does not make "your previous trip" any
                # less of a presumption
                asked = None if situation else asked_for(word, prompt)
                named = None if situation else substitute_named(sentence, word, answered)
                doubt = (f'it is named under the heading "{context}"'
                         if steering_heading(context) and not situation
                         else f'the answer steers around it elsewhere: "{steering}"'
                         if steering is not None
                         else f'the user asked for it: "{asked}"' if asked is not None
                         else f'it may be the substitute named before: "{named}"'
                         if named is not None else None)
                found[(sentence, rule.turn, word.lower())] = (-1, contradiction.Finding(
                    "constraint", self.config.constraint_confidence, claim, prior,
                    explanation(word, rule.label), doubt=doubt), 1.0)
        return list(found.values())

    def _cap_findings(
        self, state: ConversationState, turn: int, extraction: Extraction,
        recommending: list[tuple[str, str]], prompt: str,
    ) -> list[tuple[int, contradiction.Finding, float]]:
        """Answer sentences that price what they offer above the user's spending cap
        ("Budget is £600 MAX" / "a velvet 3-seater ... around £899"): a constraint broken.
        A sentence that says it goes over ("if you can stretch", `constraints.goes_over`)
        or prices no offer ("was £899") is none; where another sentence of the answer
        says it goes over, the price may be such an option: a doubt, never a page. A price
        the user named ("options: one for £549, a nicer one for £850") is theirs to weigh,
        and a prompt that sets the cap aside ("if money were no object") lifts it. A
        heading offers too ("## 3. Bugaboo Dragonfly (~$450)"), but it may head one tier of
        a comparison: a doubt."""
        caps = [] if cap_lifted(prompt) else _user_caps(state, turn)
        if not caps:
            return []
        # prose that offers; a table row prices one option of several, as a comparison
        # lays them out, but times a step of the plan ("Saturday: practice test (2 hours)")
        # and a "Total" row sums the plan
        offered = [*extraction.asserted, *recommending, *((h, "") for h in extraction.headings)]
        headings = set(extraction.headings)
        named = [a for old_turn, speaker, sentence, _ in state.statements
                 if old_turn < turn and speaker.startswith("user")
                 for a in amounts.amounts(sentence) if a.shape != "lower"]
        # ("heating bills are $400+ a month" names no price of what the answer offers)
        going_over = next((s for s, _ in offered if s not in extraction.rows and goes_over(s)),
                          None)
        found: list[tuple[int, contradiction.Finding, float]] = []
        for sentence, context in offered:
            row = sentence in extraction.rows and not _TOTAL_ROW.match(sentence)
            sentence = sentence[:bounds.SENTENCE_CHARS]
            if goes_over(sentence) or cues.recalls_past_value(sentence):
                continue
            for amount in aligned.measured(sentence):
                if any(amounts.comparable(amount, a) and not amounts.incompatible(amount, a)
                       for a in named) or _PRICED_LOWER.match(sentence, amount.quantity.end):
                    continue  # "you get a $1,200+ chair for about $400": its value
                cap = next((c for c in caps if amount.shape != "upper" and (
                    not row or c[2].quantity.dimension == "time")
                            and amounts.comparable(amount, c[2])
                            and amounts.incompatible(amount, c[2])
                            and not _a_period(sentence, amount, c[2])
                            and not aligned.user_gave_amount(state.statements, c[0], turn,
                                                             amount)), None)
                if cap is None:
                    continue
                cap_turn, cap_sentence, cap_amount = cap
                timed = cap_amount.quantity.dimension == "time"
                doubt = (f'the answer speaks of going over it elsewhere: "{going_over}"'
                         if going_over is not None
                         else "what it times may be one step, not the whole" if timed
                         else "a heading's price may head one option of several"
                         if sentence in headings else None)
                about = {"time"} if timed else {"budget"}
                found.append((-1, contradiction.Finding(
                    "constraint", self.config.constraint_confidence,
                    _statement_fact(sentence, context, "assistant", turn, amount, about),
                    _statement_fact(cap_sentence, "", "user", cap_turn, cap_amount, about),
                    f"{amount.quantity.surface} is over the user's cap of "
                    f"{cap_amount.quantity.surface}", doubt=doubt), 1.0))
                break
        return found

    def _candidates(self, state: ConversationState, fact: Fact, turn: int,
                    by_head: dict[str, list[str]]) -> list[Fact]:
        """Earlier facts about the same thing: the same node, or a node of the same head."""
        graph = state.graph
        nodes = [fact.subject] + [n for n in by_head.get(head_word(fact.subject), [])
                                  if n != fact.subject and may_merge(fact.subject, n)]
        return [old for node in nodes for _, old in graph.facts_about(node)
                if old.turn < turn]

    def _alignment(
        self, state: ConversationState, new: Fact, old: Fact, turn: int
    ) -> float | None:
        """Cosine of the two sentences when they may be compared at all, else None."""
        if new.resolved or old.resolved:
            return None  # a pronoun's referent is a guess; no page rests on a guess
        a, b = _normal(new.sentence), _normal(old.sentence)
        if a == b or a in b or b in a:
            return None  # one statement and its own copy (or a piece of it)
        if cues.different_scopes(new.context, old.context):
            return None  # "Day 1" and "Day 2" items are about different days
        if new.relation != "amount" and cues.describes_new_state(new.sentence):
            return None  # "you have two books now": the situation moved on
        values = f"{new.object_text} {old.object_text} {new.object} {old.object}"
        if _measures(new) and aligned.different_names(new.sentence, old.sentence, values):
            return None  # "light from the Moon" / "light from the Sun"
        if aligned.numbered_names_differ(new.sentence, old.sentence):
            return None  # "Class 4-2" / "Class 4-1"
        if _measures(new) and any(check(s) for s in (new.sentence, old.sentence)
                                  for check in (aligned.derived, aligned.crowded)):
            return None  # a worked calculation, or a list of values in one sentence
        if _measures(new) and aligned.other_one(new.sentence, old.sentence):
            return None  # "the previous generation" against the current one
        shared = cues.content_words(new.sentence) & cues.content_words(old.sentence)
        if state.changed_between(old.turn, turn, shared):
            return None  # the user told something new about what both sentences share
        similarity = float(self._vec(new.sentence) @ self._vec(old.sentence))
        if _owned_by_user(new) and _owned_by_user(old) and new.subject == old.subject:
            # "my car is a Corolla" / "your car is a Civic": the same slot by construction
            return max(similarity, self.config.page_alignment)
        if similarity < self.config.alignment_similarity:
            return None
        return similarity

    def _pages(self, finding: contradiction.Finding, alignment: float) -> bool:
        """The finding is sure enough to page, whether its sentences are about one thing
        aside (`_sameness_guessed`)."""
        if finding.detector not in self.config.paging_detectors:
            return False
        confidence = round_score(finding.confidence)
        if finding.verdict is not None:  # judged by meaning: the calibrated threshold decides
            return confidence >= self.config.verifier_page
        return (confidence >= self.config.page_confidence
                and alignment >= self.config.page_alignment)

    def _guess(self, finding: contradiction.Finding, alignment: float) -> str | None:
        """Why a finding that would page may be about two things (`_sameness_guessed`):
        it is then a warning."""
        return _sameness_guessed(finding) if self._pages(finding, alignment) else None

    def _uncertified(self, state: ConversationState, finding: contradiction.Finding,
                     alignment: float) -> bool:
        """The conflict was not certified before. A conflict is certified once per
        conversation, but one kept from paging by a guess of sameness is certified once
        more where a later turn names the thing alike and it pages."""
        key = _conflict_key(finding)
        if key in state.certified:
            return False
        return f"{key}{_GUESSED}" not in state.certified or (
            self._pages(finding, alignment) and _sameness_guessed(finding) is None)

    def _certificate(
        self, event: TurnEvent, finding: contradiction.Finding, alignment: float,
        guess: str | None,
    ) -> ContradictionCertificate:
        """The finding as a certificate; `guess` (`_guess`) keeps it from paging."""
        claim = _claim(finding.claim, _conflict_words(finding.claim, finding.detector))
        prior = _claim(finding.prior, _conflict_words(finding.prior, finding.detector))
        confidence = round_score(finding.confidence)
        verdict = finding.verdict
        page = self._pages(finding, alignment) and guess is None  # no page rests on a guess
        same_subject = _why_same(finding, alignment)
        if guess is not None:
            same_subject += f"; not paged, as the two may be about different things: {guess}"
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
            severity="page" if page else "warn",
            explanation=contradiction.explain(finding),
            same_subject=same_subject,
            verifier=VerifierJudgement(
                model=self.verifier.model_id, contradiction=round_score(verdict.contradiction),
                entailment=round_score(verdict.entailment),
            ) if verdict is not None and self.verifier is not None else None,
            engine_version=self.version,
        )

    def _quarantine_turn(self, state: ConversationState, turn: int,
                         new_nodes: list[str]) -> None:
        """A failed turn's new nodes may not anchor later turns."""
        for label in new_nodes:
            state.graph.quarantine(label)


_PERSONS = frozenset({"user", "assistant"})
_NON_WORD = re.compile(r"[^a-z0-9]+")


def _subjects_by_sentence(facts: Sequence[Fact]) -> dict[str, tuple[str, ...]]:
    """Head words of each sentence's parsed subjects (a guessed pronoun's excepted)."""
    heads: dict[str, set[str]] = {}
    for fact in facts:
        if not fact.resolved:
            heads.setdefault(fact.sentence, set()).add(head_word(fact.subject))
    return {s: tuple(sorted(h)) for s, h in heads.items()}


def _normal(sentence: str) -> str:
    return _NON_WORD.sub(" ", sentence.lower()).strip()


_RECOMMENDING = re.compile(
    r"\W*if\s+i\s+(?:were|had\s+to|could\s+only)\b|\bi(?:'d|\u2019d|\s+would)\s+"
    r"(?:(?!not\b|never\b)\w+\s+)?"
    r"(?:book|go\s+(?:for|with)|pick|choose|recommend|suggest|take|buy|get|start\s+with|"
    r"opt\s+for)\b", re.I)
"""A sentence that recommends though it says "would" ("If I were buying for your room,
I'd go for ...", "Honestly, for this leg I'd book the 1h35 hop"): what it names and
prices is offered; not "I would not book ...", "I'd never pick ..."."""


def _recommending(extraction: Extraction) -> list[str]:
    """The sentences not stated as fact that recommend what they name (`_RECOMMENDING`)."""
    said = {s for s, _ in extraction.asserted}
    return [s for s in extraction.sentences if s not in said and _RECOMMENDING.search(s)]


_EVERY = re.compile(r"\b(?:every|each|per)\s+$", re.I)
"""Words before a time that make it how often ("every 1-2 weeks"), not how long."""
_DAY_S = 86_400.0
"""A day in seconds: a span of days is no duration against a limit of minutes."""


def _a_period(sentence: str, amount: amounts.Amount, cap: amounts.Amount) -> bool:
    """A time that says how often, or a span of days against a limit of minutes or hours
    ("Add weight every 1-2 weeks" against "20 minutes max per workout"): no duration."""
    if cap.quantity.dimension != "time":
        return False
    return bool(_EVERY.search(sentence[:amount.quantity.start])) or (
        amount.low >= _DAY_S > cap.high)


_TOTAL_ROW = re.compile(r"[^:;]*:\s*(?:grand\s+|estimated\s+|monthly\s+|overall\s+)?total\b",
                        re.IGNORECASE)
"""A table row that sums the plan ("Item: Total; Cost: $520"): no option of several."""
_PRICED_LOWER = re.compile(r"\+?\s+(?:[\w-]+\s+){0,3}?for\s+(?:about\s+|around\s+|roughly\s+|"
                           r"only\s+|just\s+|under\s+|as\s+little\s+as\s+)?(?:[£$€]\s?\d|half\b|"
                           r"a\s+(?:third|quarter|fraction)\b|(?:much\s+|far\s+)?less\b)")
"""After an amount, the price paid for it: "a $1,200+ chair for about $400" (or "for about
half the price") values the chair at $1,200 and offers it for less."""


def _user_caps(state: ConversationState, turn: int
               ) -> list[tuple[int, str, amounts.Amount]]:
    """The user's latest spending cap in each currency said before this turn, with its
    turn and sentence ("£600 max", "my budget is $1,200", read as at most that), and their
    latest time limit ("dinners that take 20 minutes max"). Two caps of one measure in one
    turn are left out: which thing each caps is not read."""
    latest: dict[tuple[str, str | None], list[tuple[int, str, amounts.Amount]]] = {}
    for old_turn, speaker, sentence, _ in state.statements:
        if speaker != "user" or old_turn >= turn:
            continue
        spending, limit = sets_cap(sentence), sets_time_limit(sentence)
        for amount in aligned.measured(sentence) if spending or limit else ():
            if amount.quantity.dimension == "time":
                if not (limit and amount.shape == "upper"):
                    continue  # "20 minutes max" bounds; "we have 3 hours" may not
            elif not (spending and amount.quantity.dimension.startswith("currency")):
                continue
            elif amount.shape != "upper":  # "my budget is $1,200": at most that
                amount = replace(amount, low=float("-inf"), shape="upper")
            rows = latest.setdefault(amounts.measure(amount), [])
            if rows and rows[-1][0] != old_turn:
                rows.clear()  # a later turn's cap replaces the earlier one
            rows.append((old_turn, sentence, amount))
    return [rows[0] for rows in latest.values()
            if len({row[2].high for row in rows}) == 1]


def _composed(state: ConversationState, prompt: str) -> bool:
    """The answer is a composed text: the user asked for one, or asks to change the one
    just written ("make it a little funnier", after a eulogy)."""
    return cues.is_creative_request(prompt) or (
        cues.asks_to_edit(prompt) and state.graph.composed_at(state.last_answer))


_MAX_TOLD_WORDS = 60


def _told_afresh(sentences: list[str]) -> list[str]:
    """The words of what a user turn tells (statements) or asks about as changed."""
    words: set[str] = set()
    for sentence in sentences:
        if cues.plans_or_requests(sentence):
            continue
        if not cues.asks(sentence) or cues.narrates_change(sentence):
            words |= cues.content_words(sentence)
    return sorted(words)[:_MAX_TOLD_WORDS]


class _Said(NamedTuple):
    """A sentence with amounts: the new answer's, or a remembered statement."""

    sentence: str
    context: str
    turn: int
    speaker: str

    def fact(self, amount: amounts.Amount, about: set[str]) -> Fact:
        return _statement_fact(self.sentence, self.context, self.speaker, self.turn, amount,
                               about)


@dataclass(frozen=True)
class _MeaningCheck:
    """Two clashing amounts waiting for the verifier to say whether they are one thing's."""

    clauses: tuple[str, str]
    claim: Fact
    prior: Fact
    alignment: float
    values: str
    doubt: str | None = None


def _presupposes(sentence: str) -> bool:
    """A sentence not asserted as a whole whose opening or possessed phrases may still take
    a value as given ("For your 144 sq ft deck, ..., plus more if you're doing railings");
    not a question (one may ask about another value: "At $1,600 a month, would ...?"), a
    supposition, a form to fill in or a sentence about what can be known."""
    return not (sentence.rstrip().endswith("?") or cues.opens_conditional(sentence)
                or cues.is_template(sentence) or cues.is_epistemic(sentence.lower()))


_Quoted = TypeVar("_Quoted", contradiction.Finding, _MeaningCheck)


def _said_whole(found: _Quoted, sentence: str, stated: bool = True) -> _Quoted:
    """A finding (or a check) on a phrase of `sentence` (`aligned.premise`,
    `aligned.possessed`), with its claim as the whole sentence says it: the certificate
    quotes what the answer said, and a finding on the phrase is the same finding as one
    on the whole (one certificate per pair of sentences). Its doubt names what was
    compared; it is set for any finding in a sentence not `stated` as a whole, even where
    the phrase is all of it ("Your 10,000 steps a day target")."""
    if found.claim.sentence == sentence and stated:
        return found
    return replace(found, claim=replace(found.claim, sentence=sentence),
                   doubt=f'only its phrase "{found.claim.sentence}" was compared')


def _amount_detector(speaker: str) -> Detector:
    return "user_fact" if speaker == "user" else "numeric"


def _owned_by_user(fact: Fact) -> bool:
    """A fact about the user or one of the user's things ("user", "user car")."""
    return fact.subject.split(" ")[0] == "user" and fact.relation != "amount"


def _measures(fact: Fact) -> bool:
    return fact.relation == "amount" or bool(aligned.measured(fact.object_text))


def _statement_fact(sentence: str, context: str, speaker: str, turn: int,
                    amount: amounts.Amount, shared: set[str]) -> Fact:
    """A sentence-level amount claim in the shape certificates quote."""
    return replace(sentence_fact(sentence, context, speaker, turn, " ".join(sorted(shared)[:4])),
                   relation="amount", object=amount.surface.lower(),
                   object_text=amount.surface, predicate="amount")


def _owned_claim(finding: contradiction.Finding) -> Callable[[Fact], bool]:
    """Which facts of the mistaken sentence the finding owns up to: a fact itself; an
    amount the facts that give it; a verifier's claim (a whole sentence) the facts about
    the words the two sentences share, all of them (the certificate's subject keeps
    only four)."""
    prior = finding.prior
    if prior.relation == "states":
        shared = cues.content_words(finding.claim.sentence) & cues.content_words(prior.sentence)
        return lambda fact: head_word(fact.subject) in shared
    if prior.relation == "amount":
        amount = f" {_normal(prior.object_text)} "
        return lambda fact: amount in f" {_normal(fact.object_text)} "
    claim = (prior.subject, prior.relation, prior.object)
    return lambda fact: (fact.subject, fact.relation, fact.object) == claim


def _claim_of(fact: Fact) -> tuple[str, str, str]:
    """What a claim says, whoever said it when: a fact's subject, relation and value; a
    sentence-level claim's words."""
    if fact.relation == "states":
        return ("", fact.relation, _normal(fact.sentence))
    return (fact.subject, fact.relation, _normal(fact.object_text or fact.object))


def _conflict_key(finding: contradiction.Finding) -> str:
    """The same conflict restated on either side has the same key."""
    new, old = finding.claim, finding.prior
    if new.relation == "states":  # a whole-sentence claim (verdict stage): the sentences
        return content_id(finding.detector, sorted({_normal(new.sentence),
                                                    _normal(old.sentence)}))[:16]
    values = sorted({_normal(new.object_text or new.object or new.predicate),
                     _normal(old.object_text or old.object or old.predicate)})
    return content_id(head_word(new.subject), contradiction.relation_key(new.relation),
                      finding.detector, values)[:16]


def _sameness_guessed(finding: contradiction.Finding) -> str | None:
    """Why the two sentences may not be about one thing after all, for a reader, if they
    may not: the doubt of the stage that made the finding (`Finding.doubt`: a value
    compared by a phrase of its sentence alone, a food named in an answer that steers
    around it), a finding of the verifier alone on a sentence that names its subject only
    by a pronoun ("It offers an async client" after "requests does not support async":
    which "it"?), two of the assistant's sentences that count one thing differently and
    differ in another value (`aligned.counted_apart`; against the user's own count, the
    other count is the mistake), two of its list lines that open with their amounts
    (`aligned.listed_apart`: two recipes' ingredients), two amounts whose surrounding
    words share no thing (`aligned.measured_apart`), or two sentences that qualify their
    thing apart (`aligned.qualified_apart`). A broken constraint has no other: its rule
    and offending word name what they are about."""
    claim, prior = finding.claim, finding.prior
    if finding.doubt is not None:
        return finding.doubt
    if finding.detector == "constraint":
        return None
    if finding.detector == "nli":  # the verifier's alone: the rules read no subject
        for sentence, whose in ((claim.sentence, "this"), (prior.sentence, "the earlier")):
            if pronoun_led(sentence):
                return f"{whose} sentence names its subject only by a pronoun"
    apart = (aligned.counted_apart(claim.sentence, prior.sentence)
             or aligned.listed_apart(claim.sentence, prior.sentence)
             if prior.speaker == "assistant" else None)
    if apart is None and claim.relation == "amount" and prior.relation == "amount":
        apart = aligned.measured_apart(claim.sentence, prior.sentence, claim.object_text,
                                       prior.object_text)
    return apart or aligned.qualified_apart(claim.sentence, prior.sentence,
                                            claim.object_text, prior.object_text)


def _certified_key(finding: contradiction.Finding, guessed: bool) -> str:
    """The key the conflict is remembered by (`_conflict_key`); one kept from paging by a
    guess of sameness has a key of its own (`Engine._uncertified`)."""
    key = _conflict_key(finding)
    return f"{key}{_GUESSED}" if guessed else key


_GUESSED = ":guessed"


def _why_same(finding: contradiction.Finding, alignment: float) -> str:
    new, old = finding.claim, finding.prior
    how = f"sentences {alignment:.2f} similar"
    if finding.detector == "constraint" and is_situation(old.subject):
        return f"the answer names {new.subject!r}, which {presumption(old.subject)}"
    if finding.detector == "constraint":
        return f"the answer names {new.subject!r}, which the user ruled out ({old.subject!r})"
    if new.relation == "states":
        return f"nearest earlier assertion, sharing {new.subject!r} ({how})"
    if new.relation == "amount":
        return f"aligned sentences sharing {new.subject!r} ({how})"
    if new.subject == old.subject:
        return f"same subject {new.subject!r} ({how})"
    return f"subjects {new.subject!r} and {old.subject!r} share their head word ({how})"


def _claim(fact: Fact, words: list[str]) -> Claim:
    q = quantities.parse_quantities(fact.object_text) if fact.object_text else []
    return Claim(
        subject=fact.subject, relation=fact.relation, object=fact.object_text or fact.object,
        negated=fact.negated, quantity=q[0].value if q else None,
        unit=q[0].unit if q else None, speaker=fact.speaker,  # type: ignore[arg-type]
        turn_index=fact.turn, sentence=fact.sentence, spans=_spans(fact.sentence, words),
    )


_NEGATORS = re.compile(r"\b(?:not|no|never|n't|cannot|none|neither|nor)\b", re.IGNORECASE)


def _spans(sentence: str, words: list[str]) -> list[tuple[int, int]]:
    """Where the words a conflict rests on stand in the sentence (first occurrence each)."""
    found: set[tuple[int, int]] = set()
    lower = sentence.lower()
    for word in words:
        word = word.strip().lower()
        at = lower.find(word) if word else -1
        if at >= 0:
            found.add((at, at + len(word)))
    return sorted(found)


def _conflict_words(fact: Fact, detector: str) -> list[str]:
    """The value, the opposite word or the negation of one side of a finding."""
    words = [fact.object_text] if detector in {"numeric", "exclusive", "user_fact"} else []
    if detector == "antonym":
        words.append(fact.predicate)
    if detector == "negation":
        words += [m.group(0) for m in _NEGATORS.finditer(fact.sentence)][:1]
        words.append(fact.object_text or fact.predicate)
    return [w for w in words if w]


def _revision_quantities(
    text: str,
) -> tuple[list[quantities.Quantity], list[quantities.Quantity]]:
    """Split a revision's numbers into new values and the old values it names. An
    increment beside a total ("two more kids said yes, so we're at 12 now") is neither;
    alone ("make it 10 more minutes") it is the new value."""
    said = quantities.parse_quantities(text)
    totals = [q for q in said if not cues.adds_to(q.surface)]
    fresh, stale = [], []
    for q in totals or said:
        if _OLD_VALUE_MARK.search(text[: q.start].rstrip(" ,:;")):
            stale.append(q)
        else:
            fresh.append(q)
    return fresh, stale


def _replaces(new: quantities.Quantity, stale: list[quantities.Quantity],
              q: quantities.Quantity) -> bool:
    """`new` replaces `q`: a different value, and one of the old values the user named
    ("8, not 12"), if they named any."""
    return quantities.same_value(q, new) is False and (
        not stale or any(_value_matches(s, q) for s in stale))


def _user_amounts(state: ConversationState, before: int, dimension: str, unit: str | None
                  ) -> list[quantities.Quantity]:
    """The amounts of this dimension and unit (any unit: None) the user stated before turn
    `before`."""
    return [q for t, speaker, text, _ in state.statements
            if t < before and speaker == "user"
            for q in quantities.parse_quantities(text)
            if q.dimension == dimension and unit in {None, q.unit}]


_NUMBER_RUN = re.compile(r"\d+(?:[.,:]\d+)*")


def _counted_as_before(state: ConversationState, q: quantities.Quantity, numbers: int,
                       turn: int) -> quantities.Quantity:
    """A bare number, the only number (`numbers`) of a revision, counts the people the
    user counted before, where they counted people of one kind: "40 guests", then "we're
    now at 48". Not laps, pages or tickets: "we're at 8 now" is progress as often as a
    head count."""
    if q.dimension != "number" or numbers != 1:
        return q
    units = {c.unit for c in _user_amounts(state, turn, "count", None)}
    return (replace(q, dimension="count", unit=units.pop())
            if len(units) == 1 and units <= quantities.HEAD_COUNTS else q)


def _only_value_said(new: quantities.Quantity, stale: list[quantities.Quantity],
                     said: list[quantities.Quantity]) -> set[float]:
    """The old value of a revision the graph has no fact for ("12 kids coming", then
    "scratch that, 8 kids now"): the one value of this unit the user stated before. Two
    ("2 kids of our own", "12 kids coming") leave it open which one changed: none."""
    values = {q.value for q in said if _replaces(new, stale, q)}
    return values if len(values) == 1 else set()


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


def _replacements(revisions: Sequence[Revision], q: quantities.Quantity, turn: int
                  ) -> list[Revision]:
    """The user's revisions before `turn` that replaced this value by another."""
    return [rev for rev in revisions
            if rev.turn < turn and rev.dimension == q.dimension and rev.unit == q.unit
            and any(quantities.same_value(q, replace(q, value=v)) for v in rev.old)
            and not quantities.same_value(q, replace(q, value=rev.new))]


def _revision_fact(rev: Revision, subject: str) -> Fact:
    """The user's revision in the shape certificates quote."""
    return Fact(
        subject=subject, relation="revise to", object=rev.surface.lower(),
        object_text=rev.surface, negated=False, modality="asserted",
        speaker="user", turn=rev.turn, sentence=rev.sentence,
        predicate="revise", prep="to", time_scope=None, importance=1.0,
    )


def _reverted_values(state: ConversationState, fact: Fact) -> list[contradiction.Finding]:
    """An assistant claim that states a value the user explicitly replaced."""
    if (not state.revisions or fact.modality != "asserted" or fact.negated
            or not fact.object_text):
        return []  # most conversations have no revision: no sentence parsed for one
    stated = quantities.parse_quantities(fact.sentence)
    return [contradiction.Finding("numeric", 0.9, fact, _revision_fact(rev, fact.subject),
                                  f"{q.surface} was replaced by {rev.surface}")
            for q in quantities.parse_quantities(fact.object_text)
            for rev in _reverts(state.revisions, fact.sentence, stated, q, fact.turn)]


def _reverts(revisions: Sequence[Revision], sentence: str, stated: list[quantities.Quantity],
             q: quantities.Quantity, turn: int) -> list[Revision]:
    """The revisions that `q`, stated in `sentence`, goes back on.

    A sentence that also names the new value, or speaks of the old one as past ("down
    from 12", "instead of 12"), compares the two and keeps to the update.
    """
    if cues.recalls_past_value(sentence):
        return []
    return [rev for rev in _replacements(revisions, q, turn)
            if not any(p.dimension == rev.dimension and p.unit == rev.unit
                       and quantities.same_value(p, replace(p, value=rev.new))
                       for p in stated)]


def _values_before(state: ConversationState, rev: Revision) -> set[float]:
    """The values the revision may have replaced: its own old ones and every value of its
    unit the user stated before it. More than one ("2 kids of our own", "12 kids
    coming") leaves open which the revision changed."""
    return set(rev.old) | {
        q.value for q in _user_amounts(state, rev.turn, rev.dimension, rev.unit)}


def _same_attribute(sentence: str, amount: amounts.Amount, rev: Revision) -> bool:
    """The amount measures what the revision changed: a word around it is a word around
    the revision's new value ("budget" in "budget goes up to $5.5k")."""
    ours = aligned.attribute(sentence, amount)
    return any(a.quantity.surface == rev.surface and ours & aligned.attribute(rev.sentence, a)
               for a in aligned.measured(rev.sentence))


def _reverted_amounts(state: ConversationState, turn: int,
                      sentences: Sequence[tuple[str, str]]
                      ) -> list[tuple[int, contradiction.Finding, float]]:
    """Sentences that state a value the user replaced, read from their text: a table row
    ("Guests: 12 kids"), a list item or a draft's line after "scratch that, 8 kids now".
    `_reverted_values` reads the graph's facts, which only parsed clauses give; reading
    any sentence, this asks more: the revision replaced one value only."""
    revisions = [rev for rev in state.revisions if len(_values_before(state, rev)) == 1]
    if not revisions:
        return []
    found: list[tuple[int, contradiction.Finding, float]] = []
    for sentence, context in sentences:
        sentence = sentence[:bounds.SENTENCE_CHARS]
        stated = quantities.parse_quantities(sentence)
        for amount in aligned.measured(sentence):
            q = amount.quantity
            for rev in _reverts(revisions, sentence, stated, q, turn):
                # a count's noun is its own attribute ("12 kids" / "8 kids now"); other
                # values need a word in common or to be the user's own ("under your
                # $300"): not "$200 for printing" after "the budget goes up to $5.5k"
                if q.dimension != "count" and not (_same_attribute(sentence, amount, rev)
                                                   or aligned.said_as_users(sentence, q.start)):
                    continue
                claim = sentence_fact(sentence, context, "assistant", turn, rev.unit)
                found.append((-1, contradiction.Finding(
                    "numeric", 0.9, claim, _revision_fact(rev, rev.unit),
                    f"{q.surface} was replaced by {rev.surface}"), 1.0))
    return found
