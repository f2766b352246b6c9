"""The Faust app: turns in, scores / certificates / alerts / dead letters out.

Per micro-batch (`stream.take_events`):

1. decode and validate every message; a bad one becomes a DeadLetter (nothing is dropped);
2. load each conversation's state from the table and drop turns that are not newer than
   the state's last turn_index (idempotence: redelivered turns change nothing, emit nothing);
3. run the engine (`Engine.outcomes`, the same code as `skg-monitor score`) in a one-thread
   executor, so the event loop keeps heartbeating while batches stay in order; each turn's
   records are handed to the producer as soon as the engine has that turn (`scored`), not
   when the whole batch is done;
4. WAIT for the broker to acknowledge every output of the batch (`settled`);
5. only then write the new states to the table, and WAIT for the broker to acknowledge
   those changelog writes (`faust_fixes.DurableTable`: Faust's own flush before a commit
   can return early);
6. the batch's offsets are acked when the handler returns, and committed later.

A stored state that cannot be read (`StateDecodeError`: garbage, or a STATE_VERSION this
release does not know) is that conversation's problem only: its turns are dead-lettered
(`state_unreadable`) and it is quarantined (`Quarantine`) until an operator resets it
(`POST /conversations/{id}/reset`) or a release that reads it takes over; every other
conversation of the batch goes on. An older version without a migration is reset loudly
(ERROR log, `skg_state_decode_failures_total{kind="old_version"}`) and starts afresh.

Why outputs before state: a crash after 4 and before 5 leaves the old state, so the turn is
reprocessed from the same state and yields byte-identical records with the same ids (a
consumer dedupes them by id). A crash after 5 and before 6 makes the redelivered turn a
duplicate, skipped, and its outputs are already on the topics. The reverse order (state
first) could lose outputs forever: the saved state would mark the turn as done although
its score never reached the topic. So the table always equals a crash-free run's, and each
assistant turn has exactly one distinct score id on the topic.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import os
import time
import weakref
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any, NoReturn, cast

import faust
from aiokafka import errors as kafka_errors
from faust.streams import _current_event
from faust.types import EventT
from faust.web import Request, Response, View
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

from monitor import __version__
from monitor.contracts import TurnEvent, content_id, dump_record
from monitor.engine import order
from monitor.engine.pipeline import Engine, TurnOutcome
from monitor.engine.state import ConversationState, StateDecodeError, StateTooOld
from monitor.inputs import InputError, decode_message
from monitor.kafka.security import faust_credentials
from monitor.kafka.settings import StreamSettings, faust_profile_kwargs
from monitor.stream import expiry
from monitor.stream.alertmanager import AlertmanagerHook
from monitor.stream.collector import FullCollections
from monitor.stream.faust_fixes import DurableTable, LocalBrokerTransport, MonitorTransport
from monitor.stream.health import BatchFailures, BrokerProbe
from monitor.stream.http import PRIVATE_WEB, add_conversation_page, require_token
from monitor.stream.letters import dead_letter, dead_letter_key
from monitor.stream.metrics import ActiveConversations, Metrics
from monitor.stream.recovery import ResettingTableManager
from monitor.stream.report_view import add_report_page

log = logging.getLogger(__name__)

#: produce errors that concern one record (dead-lettered); any other fails the batch
RECORD_REFUSED: tuple[type[BaseException], ...] = (
    kafka_errors.MessageSizeTooLargeError, kafka_errors.RecordTooLargeError,
    kafka_errors.RecordListTooLargeError, kafka_errors.InvalidMessageError,
    kafka_errors.InvalidTimestampError, kafka_errors.InvalidTopicError)


class MonitorApp(faust.App):
    """faust.App on the transport of `monitor.stream.faust_fixes` (local profile or not)."""

    local_broker: bool = False

    def _new_transport(self) -> Any:
        transport = LocalBrokerTransport if self.local_broker else MonitorTransport
        return transport(self.conf.broker_consumer, self)


def new_faust_app(settings: StreamSettings, app_id: str | None = None,
                  **extra: Any) -> MonitorApp:
    """A Faust app configured from the settings and the broker profile."""
    kwargs: dict[str, Any] = dict(
        broker=settings.broker,
        store=settings.store,
        datadir=str(settings.data_dir),
        web_port=settings.web_port,
        web_bind=settings.web_bind,
        topic_partitions=settings.partitions,
        topic_replication_factor=settings.replication_factor,
        table_standby_replicas=0,
        consumer_auto_offset_reset="earliest",
        producer_max_request_size=max(1_048_576, settings.max_message_bytes * 4),
        consumer_max_fetch_size=max(4 * 1_048_576, settings.max_message_bytes * 4),
        Table=DurableTable,
        TableManager=ResettingTableManager,
        **PRIVATE_WEB,
    )
    if settings.web_host:
        kwargs["web_host"] = settings.web_host
    credentials = faust_credentials(settings)
    if credentials is not None:
        kwargs["broker_credentials"] = credentials
    kwargs.update(faust_profile_kwargs(settings))
    kwargs.update(extra)
    app = MonitorApp(app_id or settings.app_id, **kwargs)
    app.local_broker = settings.local_broker_profile
    return app


class LiveStates:
    """Decoded states of recently seen conversations, trusted only while the table agrees.

    Decoding a state on every batch costs more than scoring a short turn. An entry is kept
    with the exact bytes it was stored as and reused only when the table still holds those
    bytes (after a rebalance or a restart the table wins); it is removed while a batch uses
    it, so a batch that fails half-way can never leave a half-updated state behind.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._entries: OrderedDict[str, tuple[bytes, ConversationState]] = OrderedDict()

    def take(self, cid: str, stored: bytes) -> ConversationState:
        entry = self._entries.pop(cid, None)
        if entry is not None and entry[0] == stored:
            return entry[1]
        return ConversationState.from_bytes(stored)

    def drop(self, cid: str) -> None:
        self._entries.pop(cid, None)

    def keep(self, cid: str, stored: bytes, state: ConversationState) -> None:
        self._entries[cid] = (stored, state)
        self._entries.move_to_end(cid)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)


class Quarantine:
    """Conversations whose stored state cannot be read, remembered by the stored bytes.

    The marker is the unreadable value itself, left in the table as it is (an operator may
    still migrate it); this remembers its digest and why it failed, so later turns follow
    suit without decoding it again, and forgets an entry as soon as the table holds other
    bytes for the conversation (reset, migrated, or expired). Bounded like LiveStates.
    """

    def __init__(self, capacity: int) -> None:
        self.capacity = max(1, capacity)
        self._entries: OrderedDict[str, tuple[bytes, StateDecodeError]] = OrderedDict()

    @staticmethod
    def _digest(stored: bytes) -> bytes:
        return hashlib.sha256(stored).digest()

    def get(self, cid: str, stored: bytes) -> StateDecodeError | None:
        entry = self._entries.get(cid)
        if entry is None:
            return None
        if entry[0] != self._digest(stored):
            del self._entries[cid]
            return None
        return entry[1]

    def add(self, cid: str, stored: bytes, error: StateDecodeError) -> None:
        self._entries[cid] = (self._digest(stored), error)
        self._entries.move_to_end(cid)
        while len(self._entries) > self.capacity:
            self._entries.popitem(last=False)

    def drop(self, cid: str) -> None:
        self._entries.pop(cid, None)

    def __contains__(self, cid: object) -> bool:
        return cid in self._entries

    def __len__(self) -> int:
        return len(self._entries)


@dataclass
class Sending:
    """One turn's records on their way to the broker (`Monitor.send_turn`)."""

    item: tuple[EventT, TurnEvent]
    outcome: TurnOutcome
    delivery: asyncio.Future[list[Any]] | None = None
    """The broker's acknowledgements (an exception in place of one a record did not get);
    None: the turn had no records."""
    failure: BaseException | None = None
    """Why its records did not leave: an InputError (serialising failed) or what the
    producer raised on `send` (`Monitor.settled` tells a refused record from the broker)."""


class Monitor:
    """The worker: app, topics, table, agent, views and metrics around one Engine."""

    def __init__(self, settings: StreamSettings, engine: Engine,
                 metrics: Metrics | None = None) -> None:
        self.settings = settings
        self.engine = engine
        self.metrics = metrics or Metrics()
        self.metrics.info.labels(version=f"{__version__}").set(1)
        self.active = ActiveConversations(self.metrics, settings.idle_window_s)
        self.executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="engine")
        self.live = LiveStates(settings.live_states)
        self.quarantine = Quarantine(max(1_000, settings.live_states))
        self.pager = AlertmanagerHook.from_settings(settings)  # None: paging is off
        self.failures = BatchFailures(self.metrics)
        self.collections = FullCollections(settings.full_collection_every_s,
                                           self.metrics.full_collections.observe)
        self._first_seen: dict[bytes, float] = {}
        self.broker_probe = BrokerProbe(settings.bootstrap, self.metrics)
        self.broker_epoch: str | None = None
        """The broker epoch the local tables belong to (monitor.stream.epoch); None: not
        checked (tests that build a Monitor without `skg-monitor worker`)."""
        self.epoch_suspect = False
        """Set when the broker may have been replaced (an outage, a failed batch): the
        epoch is read again before the next state write."""
        self.app = app = new_faust_app(settings)
        tables = cast(ResettingTableManager, app.tables)
        tables.on_reset = self._on_state_reset
        tables.on_stall = lambda tp, action: self.metrics.recovery_stalls.labels(action).inc()
        tables.stall_after_s = settings.recovery_stall_s
        self.evaluations = None
        if settings.otlp_endpoint:  # OpenTelemetry out: see monitor.stream.otel_events
            from monitor.stream.otel_events import EvaluationEmitter

            self.evaluations = EvaluationEmitter(settings.otlp_endpoint)

        def raw_topic(name: str) -> faust.TopicT:
            return app.topic(name, key_type=bytes, value_type=bytes, key_serializer="raw",
                             value_serializer="raw", partitions=settings.partitions)

        self.turns = raw_topic(settings.topic_turns)
        self.scores = raw_topic(settings.topic_scores)
        self.certificates = raw_topic(settings.topic_certificates)
        self.alerts = raw_topic(settings.topic_alerts)
        self.dead_letters = raw_topic(settings.topic_dead_letter)
        # key_type/value_type bytes select the "raw" codec for the table and its changelog
        self.table = cast(DurableTable, app.Table(
            settings.table_name, default=None, key_type=bytes, value_type=bytes,
            partitions=settings.partitions))
        self._wire()

    # --- wiring ---------------------------------------------------------------------------
    def _wire(self) -> None:
        """The agent, timers and background task (here), then the HTTP pages."""
        app, settings = self.app, self.settings

        @app.agent(self.turns, name="score-turns")
        async def score_turns(stream: faust.StreamT) -> None:
            take_events = stream.take_events  # type: ignore[attr-defined]  # not in StreamT
            async for events in take_events(settings.batch_size,
                                            within=settings.batch_within_s):
                await self.handle_until_done(list(events))
                self.collections.after_batch()

        @app.timer(2.0)
        async def refresh_gauges() -> None:
            self.active.refresh(self.owned_partitions())
            self.gate_commits()
            was_reachable = self.broker_probe.reachable
            reachable = await self.broker_probe.check()
            if not reachable:
                self.epoch_suspect = True  # whatever comes back may be another broker
            elif not was_reachable:
                await self.broker_back()

        @app.timer(settings.state_sweep_s)
        async def expire_idle() -> None:
            if settings.state_ttl_s > 0 and self.ready():  # never while recovering
                await self.expire_idle(expiry.now())

        self.agent = score_turns
        if self.pager is not None:
            pager = self.pager

            @app.task
            async def page_alertmanager() -> None:
                await pager.run(self.owned_partitions)
        self._wire_pages()

    def _wire_pages(self) -> None:
        """/healthz, /metrics, /conversations/{id} (+ /reset, /report)."""
        app, table = self.app, self.table

        @app.page("/healthz")
        async def healthz(web: View, request: Request) -> Response:
            return web.json({"status": "ok", "version": __version__,
                             "engine_version": self.engine.version,
                             "partitions": sorted(self.owned_partitions() or []),
                             "ready": self.ready()})

        @app.page("/metrics")
        async def metrics(web: View, request: Request) -> Response:
            # aiohttp refuses a charset inside content_type; Prometheus assumes UTF-8 anyway
            return web.bytes(generate_latest(),
                             content_type=CONTENT_TYPE_LATEST.split(";")[0] + "; version=0.0.4")

        add_conversation_page(self, "/conversations/{conversation_id}", "conversation",
                              lambda web, state: web.json(self.conversation_view(state)))

        reset_token = self.settings.api_token

        @app.page("/conversations/{conversation_id}/reset")
        class ResetConversation(View):
            """POST: delete a conversation's stored state (the way out of a quarantine).
            Destructive, so it needs SKG_API_TOKEN configured and sent as a bearer token."""

            @require_token(reset_token)
            @app.table_route(table=table, match_info="conversation_id")
            async def post(web: View, request: Request,  # self is the View
                           conversation_id: str) -> Response:
                if reset_token is None or not reset_token.get_secret_value():
                    return web.json({"error": "reset needs SKG_API_TOKEN to be set"},
                                     status=403)
                existed = await self.reset_conversation(conversation_id)
                return web.json({"conversation_id": conversation_id, "reset": existed},
                                status=200 if existed else 404)

        self.recent = add_report_page(self)  # /conversations/{id}/report

    async def broker_back(self) -> None:
        """The broker is reachable again, and may have come back empty.

        A broker without the epoch topic lost its data: the worker stops at once, before
        it creates anything there (`exit_replaced`). Writes still queued in its producer
        from before the outage then find no topic, instead of landing in the new broker's
        changelog as states of the old one for the restarted worker to recover. Any other
        missing topic is created again, and the epoch is read."""
        from monitor.stream.admin import ensure_topics_async, missing_topics_async

        self.epoch_suspect = True
        try:
            epoch_topic = self.settings.epoch_topic
            if self.broker_epoch is not None and await missing_topics_async(
                    self.settings, [epoch_topic]):
                self.exit_replaced(f"the broker has no {epoch_topic} topic any more")
            await ensure_topics_async(self.settings, attempts=20)
            await self.verify_epoch()
        except Exception:
            log.exception("could not re-create the topics after the broker came back")

    async def verify_epoch(self) -> None:
        """Stop at once if the broker is not the one the local tables belong to.

        Raises if the epoch cannot be read (the broker is still away): the caller's batch
        then fails and is retried. A different epoch means every local table partition
        holds states of a broker that lost its data (`exit_replaced`)."""
        if self.broker_epoch is None:
            self.epoch_suspect = False
            return
        from monitor.stream.epoch import broker_epoch

        now = await asyncio.wait_for(broker_epoch(self.settings), 30.0)
        if now == self.broker_epoch:
            self.epoch_suspect = False
            return
        self.exit_replaced(f"its epoch is {now}")

    def exit_replaced(self, why: str) -> NoReturn:
        """The broker lost its data: nothing more may be written or committed, so the
        worker exits (status 3) without committing, and its restart drops the local tables
        (`monitor.stream.epoch.adopt_epoch`)."""
        from monitor.stream.epoch import EXIT_EPOCH_CHANGED

        self.hold_offsets()
        log.critical("BROKER REPLACED: %s, the local tables belong to epoch %s (the broker "
                     "lost its data). Exiting without committing; the restart drops the "
                     "local tables and rebuilds them from the broker.", why, self.broker_epoch)
        logging.shutdown()
        os._exit(EXIT_EPOCH_CHANGED)

    def _on_state_reset(self, tp: Any, local: int, last: int) -> None:
        self.metrics.state_resets.inc()
        self.live = LiveStates(self.settings.live_states)  # decoded states may be stale too

    def owned_partitions(self) -> set[int] | None:
        try:
            assignment = self.app.consumer.assignment()
        except Exception:
            return None
        return {tp.partition for tp in assignment if tp.topic == self.settings.topic_turns}

    def ready(self) -> bool:
        """Scoring: partitions assigned, no rebalance or table recovery under way, flowing.

        /healthz stays 200 while a worker recovers (it is alive); `ready` tells a
        readiness probe, a test or an operator whether turns are being scored right now.
        """
        try:
            flowing = bool(getattr(self.app.consumer, "flow_active", False))
        except Exception:  # the consumer is built lazily; not there yet = not ready
            return False
        return (bool(self.owned_partitions()) and not self.app.rebalancing and flowing
                and not self.failures.failing and self.broker_probe.reachable)

    def stored_state(self, conversation_id: str) -> ConversationState | None:
        """The conversation's state as this worker's table holds it (None: unknown);
        StateDecodeError when it cannot be read (the conversation is quarantined)."""
        raw = self.table.get(conversation_id.encode("utf-8"))
        return None if raw is None else ConversationState.from_bytes(expiry.unpack(raw)[0])

    @staticmethod
    def unreadable_view(conversation_id: str, exc: StateDecodeError) -> dict[str, Any]:
        """The 409 body of a quarantined conversation's views: what is wrong, what to do."""
        return {"error": "conversation state unreadable", "conversation_id": conversation_id,
                "kind": exc.kind, "reason": exc.reason, "quarantined": True,
                "action": f"POST /conversations/{conversation_id}/reset drops the state "
                          "(the conversation starts afresh), or run a release that reads it"}

    def conversation_view(self, state: ConversationState) -> dict[str, Any]:
        summary = self.engine.summary(state)
        return {"summary": summary.model_dump(mode="json"),
                "recent_scores": [asdict(r) for r in state.recent_scores],
                "recent_certificates": [asdict(c) for c in state.recent_certificates],
                "state_sha256": content_id("state", state.to_plain())}

    # --- one batch ------------------------------------------------------------------------
    async def handle_until_done(self, events: list[EventT]) -> None:
        """`handle_batch`, retried with back-off until it succeeds.

        Everything one message or one conversation's state can break is caught inside
        `handle_batch`; what is left (the broker gone, the store failing) concerns the
        whole batch. Returning would acknowledge the batch and let its offsets be committed
        unprocessed; raising would crash the agent, which Faust restarts, with the same
        effect. So the batch is retried (idempotence makes the retry's outputs identical),
        the worker is not ready meanwhile, and a retry stops only when this worker no
        longer owns the partitions, or when the worker is stopping: then no offset is
        committed any more (`hold_offsets`) and the handler returns, so that Faust's
        shutdown, which waits for the batch, ends within its timeout; the batch is
        processed again by whoever owns its partitions next.
        """
        while True:
            try:
                await self.table.resend_refused()  # a failed attempt's states first
                if not await self.attempt(events):
                    self.hold_offsets()
                    log.error("worker stopping while a batch of %d messages was still in "
                              "flight after %.1f s: cancelled it; no offset is committed "
                              "from now on, the batch is processed again after the restart",
                              len(events), self.settings.stop_grace_s)
                    return
            except asyncio.CancelledError:
                raise
            except Exception:
                self.epoch_suspect = True  # the broker may have gone and come back empty
                delay = self.failures.failed()
                log.exception("BATCH FAILED (%d messages, attempt %d); offsets held back, "
                              "retrying in %.1f s", len(events), self.failures.attempt, delay)
                if await self.stopping_within(delay):
                    self.hold_offsets()
                    log.error("worker stopping with a failed batch of %d messages: no "
                              "offset is committed from now on, the batch is processed "
                              "again after the restart", len(events))
                    return
                owned = self.owned_partitions() or set()
                if not any(e.message.partition in owned for e in events):
                    log.warning("partitions of the failed batch were revoked; its new owner "
                                "resumes from the committed offsets")
                    self.table.forget_refused()  # the new owner writes those states
                    self.failures.succeeded()
                    return
                continue
            self.failures.succeeded()
            return

    async def attempt(self, events: list[EventT]) -> bool:
        """One `handle_batch`; False when the worker stopped and the batch, still in flight
        (a produce to a broker that does not answer, say) `stop_grace_s` later, was
        cancelled. Cancelling is as safe as a crash at that point (module docstring)."""
        task = asyncio.ensure_future(self.handle_batch(events))
        try:
            while True:
                done, _ = await asyncio.wait({task}, timeout=0.25)
                if done:
                    task.result()  # its exception, if any
                    return True
                if self.stopping():
                    done, _ = await asyncio.wait({task}, timeout=self.settings.stop_grace_s)
                    if done:
                        task.result()
                        return True
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await task
                    return False
        finally:
            if not task.done():  # we were cancelled ourselves
                task.cancel()

    def stopping(self) -> bool:
        return bool(self.app.should_stop)

    async def stopping_within(self, seconds: float, step: float = 0.2) -> bool:
        """Sleep up to `seconds`, waking early (True) when the worker starts stopping."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        while not self.stopping():
            left = deadline - loop.time()
            if left <= 0:
                return False
            await asyncio.sleep(min(step, left))
        return True

    def gate_commits(self) -> None:
        """No offset is committed while the broker may have been replaced (the offsets of
        the old broker would skip the new one's records): see monitor.stream.epoch."""
        try:
            consumer = self.app.consumer
        except Exception:
            return
        if getattr(consumer, "commit_gate", False) is None:
            setattr(consumer, "commit_gate",  # noqa: B010  # not on faust's ConsumerT
                    lambda: not (self.epoch_suspect and self.broker_epoch is not None))

    def hold_offsets(self) -> None:
        """Commit no input offset any more in this process (see `SeekSafeConsumer`)."""
        try:
            consumer = self.app.consumer
        except Exception:  # never built: nothing to commit either
            return
        if hasattr(consumer, "hold_commits"):
            consumer.hold_commits = True

    async def handle_batch(self, events: list[EventT]) -> None:
        """Decode, keep the new turns, score them, produce the outputs, then store the
        states (after the outputs: see the module docstring)."""
        probe_changes = self.broker_probe.changes
        valid = await self.decoded(events)
        if not valid:
            return
        states, unreadable = self.read_states([t for _, t in valid])
        if unreadable:
            valid = await self.quarantined_turns(valid, unreadable)
        todo = await self.new_turns(valid, states)
        if not todo:
            return
        started = time.perf_counter()
        sendings, states = await self.scored(todo, states)
        if not sendings:
            return
        per_turn = (time.perf_counter() - started) / len(sendings)

        produced, produced_outcomes = await self.settled(sendings)
        if self.pager is not None:  # queues only; a background task posts
            self.pager.observe(produced_outcomes, {t.conversation_id: e.message.partition
                                                   for e, t in todo})
        self.recent.observe(produced_outcomes)
        now = time.time()
        for (event, _), outcome in zip(produced, produced_outcomes, strict=True):
            self.observe(event, outcome, per_turn, now)

        # never store states for a broker that lost its data (an outage during or before
        # this batch: check the broker's epoch first)
        if self.epoch_suspect or self.broker_probe.changes != probe_changes \
                or not self.broker_probe.reachable:
            self.epoch_suspect = True
            await self.verify_epoch()
        self.store_states(todo, states, now)
        # the batch is acknowledged when this returns: its state must be on the changelog
        await self.table.confirm_changelog()

    async def decoded(self, events: list[EventT]) -> list[tuple[EventT, TurnEvent]]:
        """The batch's turns that decode; the others go to the dead-letter topic."""
        valid: list[tuple[EventT, TurnEvent]] = []
        for event in events:
            try:
                valid.append((event, self.decode(event)))
            except InputError as exc:
                await self.dead_letter(event, exc)
            except Exception as exc:  # a decoder bug must not take the batch with it
                log.exception("decoding failed")
                await self.dead_letter(event, InputError("decode_error",
                                                         f"{type(exc).__name__}: {exc}"))
        return valid

    async def new_turns(self, valid: list[tuple[EventT, TurnEvent]],
                        states: dict[str, ConversationState]
                        ) -> list[tuple[EventT, TurnEvent]]:
        """The turns to score (`order.classify`): repeats are counted and skipped, a
        reused index or a late turn is dead-lettered."""
        verdicts = order.classify([t for _, t in valid], states)
        self.metrics.duplicates.inc(sum(v == "duplicate" for v, _ in verdicts))
        todo = []
        for (event, turn), (verdict, reason) in zip(valid, verdicts, strict=True):
            if verdict in ("conflict", "out_of_order"):
                kind = "turn_conflict" if verdict == "conflict" else "out_of_order"
                await self.dead_letter(event, InputError(kind, reason))
            elif verdict == "new":
                todo.append((event, turn))
        return todo

    async def scored(
        self, todo: list[tuple[EventT, TurnEvent]], states: dict[str, ConversationState]
    ) -> tuple[list[Sending], dict[str, ConversationState]]:
        """The engine on the whole batch, in its thread, each turn's records handed to the
        producer as soon as the engine yields that turn (`send_turn`): a turn early in the
        batch does not wait for the rest to be judged. If the engine fails, turn by turn
        from the stored states (what failed is dead-lettered); a turn already sent in the
        failed attempt is not sent again (the engine is deterministic: the same state and
        turn give the same records). Only a failure that does not repeat in the same place
        (memory running out, say) can fail such a turn on its own in the retry: it is then
        dead-lettered although its records were sent. Returns the sendings and the states
        they came from.
        """
        loop = asyncio.get_running_loop()
        arrived: asyncio.Queue[TurnOutcome | None] = asyncio.Queue()
        turns = [t for _, t in todo]

        def hand_over(outcome: TurnOutcome | None) -> None:
            with contextlib.suppress(RuntimeError):  # the loop closed: the worker is gone
                loop.call_soon_threadsafe(arrived.put_nowait, outcome)

        def score() -> None:
            try:
                for outcome in self.engine.outcomes(turns, states):
                    hand_over(outcome)
            finally:
                hand_over(None)  # after the last outcome: call_soon_threadsafe keeps order

        scoring = loop.run_in_executor(self.executor, score)
        sendings: list[Sending] = []
        while (outcome := await arrived.get()) is not None:
            sendings.append(await self.send_turn(todo[len(sendings)], outcome))
        try:
            await scoring
            return sendings, states
        except Exception:
            log.exception("engine failed on a batch; retrying its turns one by one")
        # the failed attempt may have applied part of the batch: start again from the
        # stored states (LiveStates gave these objects away, so they are decoded anew)
        sent = {(s.item[1].conversation_id, s.item[1].turn_index): s for s in sendings}
        states = self.load_states(turns)
        kept, outcomes = await self.process_one_by_one(todo, states)
        again = []
        for item, outcome in zip(kept, outcomes, strict=True):
            earlier = sent.get((item[1].conversation_id, item[1].turn_index))
            again.append(earlier if earlier is not None else await self.send_turn(item, outcome))
        return again, states

    def store_states(self, todo: list[tuple[EventT, TurnEvent]],
                     states: dict[str, ConversationState], now: float) -> None:
        """Each scored conversation's state into the table (its changelog write is
        awaited by the caller), the live cache and the activity gauges."""
        last_event: dict[str, EventT] = {t.conversation_id: e for e, t in todo}
        for cid, event in last_event.items():
            state = states[cid]
            token = _current_event.set(weakref.ref(event))
            blob = state.to_bytes()
            try:
                self.table[cid.encode("utf-8")] = expiry.pack(blob, event.message.partition,
                                                              now)
            finally:
                _current_event.reset(token)
            self.live.keep(cid, blob, state)
            self.active.touch(cid, event.message.partition, state.trend.level,
                              state.trend.slope(self.engine.config.trend_min_turns),
                              state.last_trend == "DEGRADING")

    def load_states(self, turns: list[TurnEvent]) -> dict[str, ConversationState]:
        """The stored state of each readable conversation in `turns` (absent: never seen,
        reset, or unreadable: see `read_states`)."""
        return self.read_states(turns)[0]

    def read_states(self, turns: list[TurnEvent]
                    ) -> tuple[dict[str, ConversationState], dict[str, StateDecodeError]]:
        """(readable states, why each unreadable one is not), decoded per conversation.

        Never raises for a bad value: an unreadable state is quarantined; an older version
        without a migration is reset loudly (the conversation starts afresh).
        """
        states: dict[str, ConversationState] = {}
        unreadable: dict[str, StateDecodeError] = {}
        for turn in turns:
            cid = turn.conversation_id
            if cid in states or cid in unreadable:
                continue
            raw = self.table.get(cid.encode("utf-8"))
            if raw is None:
                continue
            stored = expiry.unpack(raw)[0]
            known = self.quarantine.get(cid, stored)
            if known is not None:
                unreadable[cid] = known
                continue
            try:
                states[cid] = self.live.take(cid, stored)
            except StateTooOld as exc:
                self.metrics.state_decode_failures.labels(kind=exc.kind).inc()
                log.error("STATE RESET: conversation %r: %s; it starts afresh", cid, exc)
            except StateDecodeError as exc:
                self.metrics.state_decode_failures.labels(kind=exc.kind).inc()
                self.quarantine.add(cid, stored, exc)
                log.error("CONVERSATION QUARANTINED: %r: %s (%s); its turns go to the dead-"
                          "letter topic until it is reset", cid, exc.reason, exc.kind)
                unreadable[cid] = exc
        self.metrics.quarantined.set(len(self.quarantine))
        return states, unreadable

    async def quarantined_turns(self, valid: list[tuple[EventT, TurnEvent]],
                                unreadable: dict[str, StateDecodeError]
                                ) -> list[tuple[EventT, TurnEvent]]:
        """Dead-letter the turns of unreadable conversations; the others, in order."""
        kept = []
        for event, turn in valid:
            exc = unreadable.get(turn.conversation_id)
            if exc is None:
                kept.append((event, turn))
            else:
                await self.dead_letter(event, InputError("state_unreadable",
                                                         f"{exc.kind}: {exc.reason}"))
        return kept

    async def reset_conversation(self, conversation_id: str) -> bool:
        """The operator's way out of a quarantine: delete the stored state (a tombstone on
        the changelog); later turns start the conversation afresh. False: nothing stored."""
        key = conversation_id.encode("utf-8")
        raw = self.table.get(key)
        self.quarantine.drop(conversation_id)
        self.metrics.quarantined.set(len(self.quarantine))
        self.live.drop(conversation_id)
        if raw is None:
            return False
        partition = expiry.unpack(raw)[1]
        if partition is None:  # a value without the header: the key's default partition
            partition = self.app.producer.key_partition(self.settings.topic_turns, key
                                                        ).partition
        expiry.delete_key(self.table, key, self.settings.topic_turns, partition)
        await self.table.confirm_changelog()
        log.warning("conversation %r reset by an operator: its state was deleted",
                    conversation_id)
        return True

    async def expire_idle(self, now: float) -> int:
        """Summarise and delete every conversation idle for longer than the TTL.

        The deletions happen without an await between finding and deleting, so a batch
        cannot slip in between; a batch already holding such a state writes it back
        (the conversation was not idle after all). Returns how many were deleted.
        """
        table = self.table
        items = [(k, v) for k, v in table.items() if k is not None and v is not None]
        gone = expiry.expired(items, self.settings.state_ttl_s, now, self._first_seen)
        summaries = []
        for key, state_bytes, partition in gone:
            try:
                state = ConversationState.from_bytes(state_bytes)
            except StateDecodeError:
                continue  # quarantined: kept for the operator (see read_states)
            summaries.append((key, self.engine.summary(state)))
            expiry.delete_key(table, key, self.settings.topic_turns, partition)
            self.live.drop(key.decode("utf-8", errors="replace"))
            self._first_seen.pop(key, None)
        if not summaries:
            return 0
        pending = [await self.scores.send(key=key, value=dump_record(summary).encode())
                   for key, summary in summaries]
        await asyncio.gather(*pending)
        await table.confirm_changelog()
        self.metrics.expired.inc(len(summaries))
        log.info("expired %d idle conversations (TTL %.0f s)", len(summaries),
                 self.settings.state_ttl_s)
        return len(summaries)

    async def process_one_by_one(
        self, todo: list[tuple[EventT, TurnEvent]], states: dict[str, ConversationState]
    ) -> tuple[list[tuple[EventT, TurnEvent]], list[TurnOutcome]]:
        """Isolate a turn the engine cannot process: dead-letter it, keep the others.

        Without this, one bad turn would stop the agent, and the batch's offsets would be
        acknowledged all the same. The failing turn's conversation goes back to its state
        from before that turn, so the rest of the batch continues from a consistent state.
        """
        loop = asyncio.get_running_loop()
        kept: list[tuple[EventT, TurnEvent]] = []
        outcomes: list[TurnOutcome] = []
        for event, turn in todo:
            cid = turn.conversation_id
            backup = states[cid].to_bytes() if cid in states else None
            try:
                [outcome] = await loop.run_in_executor(
                    self.executor, self.engine.process_batch, [turn], states)
            except Exception as exc:
                log.exception("engine failed on %s turn %s", cid, turn.turn_index)
                if backup is None:
                    states.pop(cid, None)
                else:
                    states[cid] = ConversationState.from_bytes(backup)
                reason = f"{type(exc).__name__}: {exc}"[:500]
                await self.dead_letter(event, InputError("processing_error", reason))
                continue
            kept.append((event, turn))
            outcomes.append(outcome)
        return kept, outcomes

    def decode(self, event: EventT) -> TurnEvent:
        return decode_message(event.message.key, event.message.value,
                              self.settings.max_message_bytes)

    async def dead_letter(self, event: EventT, exc: InputError) -> None:
        msg = event.message
        record = dead_letter(msg.topic, msg.partition, msg.offset, msg.key, msg.value,
                             f"{exc.kind}: {exc.reason}", self.settings.dead_letter_max_bytes)
        fut = await self.dead_letters.send(key=dead_letter_key(msg.key),
                                           value=dump_record(record).encode())
        await fut
        self.metrics.dead_letters.labels(reason=exc.kind).inc()
        log.warning("dead letter %s/%s@%s: %s", msg.topic, msg.partition, msg.offset, record.reason)

    def serialise(self, outcome: TurnOutcome) -> list[tuple[faust.TopicT, bytes]]:
        """(topic, value) of every record of one turn, in order."""
        out: list[tuple[faust.TopicT, bytes]] = []
        if outcome.score is not None:
            score = outcome.score.model_copy(
                update={"latency_ms": round(outcome.seconds * 1000.0, 3)})
            out.append((self.scores, dump_record(score).encode("utf-8")))
        for cert in outcome.certificates:
            out.append((self.certificates, dump_record(cert).encode("utf-8")))
        for alert in outcome.alerts:
            out.append((self.alerts, dump_record(alert).encode("utf-8")))
        return out

    async def send_turn(self, item: tuple[EventT, TurnEvent], outcome: TurnOutcome
                        ) -> Sending:
        """Serialise one turn's records and hand them to the producer, in order; the
        broker's acknowledgements are awaited later (`settled`). Serialising comes first,
        so a failure there sends nothing for that turn."""
        try:
            records = self.serialise(outcome)
        except Exception as exc:
            log.exception("serialising the outputs of %s turn %s failed",
                          outcome.event.conversation_id, outcome.event.turn_index)
            return Sending(item, outcome, failure=InputError(
                "serialise_error", f"{type(exc).__name__}: {exc}"))
        key = item[1].conversation_id.encode("utf-8")
        try:
            pending = [await topic.send(key=key, value=value) for topic, value in records]
        except Exception as exc:  # refused before it left (too large, say): see `settled`
            return Sending(item, outcome, failure=exc)
        return Sending(item, outcome, delivery=asyncio.gather(*pending, return_exceptions=True)
                       if pending else None)

    async def settled(self, sendings: list[Sending]
                      ) -> tuple[list[tuple[EventT, TurnEvent]], list[TurnOutcome]]:
        """Wait for the broker to acknowledge every turn's records: the turns it took, in
        order. A turn whose records could not be serialised or were refused by the broker
        for what they are (too large, invalid) is dead-lettered with the reason, the others
        go on; any other produce error fails the batch (retried): the broker being
        unreachable fails the dead letter too, and so the whole batch, which
        `handle_until_done` then retries.
        """
        done_items, done_outcomes = [], []
        for sending in sendings:
            failure = sending.failure
            if failure is None and sending.delivery is not None:
                results = await sending.delivery
                failure = next((r for r in results if isinstance(r, BaseException)), None)
            if isinstance(failure, InputError):
                await self.dead_letter(sending.item[0], failure)
                continue
            if failure is not None:
                if not isinstance(failure, RECORD_REFUSED):
                    # the broker, not this record (UnknownError from a broker that just
                    # came back, a timeout): fail the batch, which is retried
                    raise failure
                await self.dead_letter(sending.item[0], InputError(
                    "produce_error", f"{type(failure).__name__}: {failure}"))
                continue
            done_items.append(sending.item)
            done_outcomes.append(sending.outcome)
        if self.evaluations is not None:  # OpenTelemetry events, after Kafka acknowledged
            self.evaluations.emit(done_outcomes)
        return done_items, done_outcomes

    def observe(self, event: EventT, outcome: TurnOutcome, seconds: float, now: float) -> None:
        m = self.metrics
        for what, count in outcome.cut.items():
            m.cut.labels(what=what).inc(count)
        if outcome.gap:
            m.gaps.inc()
            msg = event.message
            log.warning("turn gap: %s turn %s at %s/%s@%s", outcome.event.conversation_id,
                        outcome.event.turn_index, msg.topic, msg.partition, msg.offset)
        if outcome.score is None:
            m.turns.labels(role=outcome.event.role, regime="none").inc()
            m.processing.observe(seconds)
        else:
            m.observe_score(outcome.score, seconds)
            ts = event.message.timestamp
            if ts:
                m.lag.observe(max(0.0, now - ts))
        for cert in outcome.certificates:
            m.certificates.labels(detector=cert.detector, severity=cert.severity).inc()
        for alert in outcome.alerts:
            m.observe_alert(alert)


def create_monitor(settings: StreamSettings, engine: Engine | None = None) -> Monitor:
    if engine is None:
        from monitor.runner.build import build_engine

        engine = build_engine()
    return Monitor(settings, engine)
