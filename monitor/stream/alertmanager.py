"""Page through Alertmanager without ever holding up scoring.

With `--alertmanager-url` (SKG_ALERTMANAGER_URL) the worker hands every batch's outcomes to
`AlertmanagerHook.observe`, which runs the paging policy (`monitor.stream.paging.Pager`)
and puts the alerts to post in a bounded queue; that is all the scoring path does, no
network and no await. One background task (`run`) drains the queue to `POST
/api/v2/alerts`, retries a slow, failing or absent Alertmanager with exponential backoff,
and ticks the pager (re-posts, expiries).

The queue coalesces: an alert waiting to be posted is replaced by its newer version (a
re-post with a later `endsAt`, or its resolution), so an outage grows the queue by distinct
alerts only. When it is full, new alerts are dropped and counted; active alerts come back
with their next re-post anyway. Everything not posted is counted in
`skg_alertmanager_alerts_dropped_total{reason}` (queue_full, conversation_cap, rejected).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping
from typing import Final

import aiohttp
from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge

from monitor.engine.pipeline import TurnOutcome
from monitor.kafka.settings import StreamSettings
from monitor.stream.paging import (
    ALERTNAMES,
    Decision,
    Fingerprint,
    Pager,
    PagingPolicy,
    PostableAlert,
)

log = logging.getLogger(__name__)

DROP_REASONS: Final = ("queue_full", "conversation_cap", "rejected")
MAX_BATCH: Final = 100
BACKOFF_MIN_S: Final = 0.5
BACKOFF_MAX_S: Final = 15.0
POST_TIMEOUT_S: Final = 5.0


class AlertmanagerMetrics:
    """skg_alertmanager_* series: bounded labels (alert name, state, reason) only."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        reg = registry if registry is not None else REGISTRY
        self.posted = Counter("skg_alertmanager_alerts_posted",
                              "Alerts Alertmanager accepted (first posts, re-posts and "
                              "resolutions)", ["alertname", "state"], registry=reg)
        self.dropped = Counter("skg_alertmanager_alerts_dropped",
                               "Alerts never posted: queue full, over the per-conversation "
                               "hourly cap, or rejected by Alertmanager", ["reason"],
                               registry=reg)
        self.errors = Counter("skg_alertmanager_post_errors",
                              "Failed POSTs to Alertmanager (retried with backoff)",
                              registry=reg)
        self.queued = Gauge("skg_alertmanager_queue_alerts",
                            "Alerts waiting to be posted", registry=reg)
        self.active = Gauge("skg_alertmanager_active_alerts",
                            "Alerts this worker holds active (re-posted until they end)",
                            ["alertname"], registry=reg)
        for name in ALERTNAMES:
            self.active.labels(alertname=name)
            for state in ("firing", "resolved"):
                self.posted.labels(alertname=name, state=state)
        for reason in DROP_REASONS:
            self.dropped.labels(reason=reason)


class AlertQueue:
    """Bounded and coalescing by alert identity (label set); oldest first."""

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self._items: OrderedDict[Fingerprint, PostableAlert] = OrderedDict()

    def __len__(self) -> int:
        return len(self._items)

    def offer(self, alerts: Iterable[PostableAlert]) -> int:
        """Queue the alerts; returns how many did not fit."""
        dropped = 0
        for alert in alerts:
            key = alert.fingerprint
            if key in self._items or len(self._items) < self.capacity:
                self._items[key] = alert  # a newer version keeps its place in line
            else:
                dropped += 1
        return dropped

    def peek(self, n: int) -> list[PostableAlert]:
        return [alert for _, alert in zip(range(n), self._items.values(), strict=False)]

    def remove(self, posted: Iterable[PostableAlert]) -> None:
        """Remove what was posted, unless a newer version arrived in the meantime."""
        for alert in posted:
            if self._items.get(alert.fingerprint) is alert:
                del self._items[alert.fingerprint]


class AlertmanagerHook:
    """The worker's side of paging: policy + queue + one background poster."""

    def __init__(self, url: str, policy: PagingPolicy, queue_size: int,
                 metrics: AlertmanagerMetrics | None = None,
                 clock: Callable[[], float] = time.time,
                 post_timeout_s: float = POST_TIMEOUT_S) -> None:
        self.endpoint = url.rstrip("/") + "/api/v2/alerts"
        self.post_timeout_s = post_timeout_s
        self.pager = Pager(policy)
        self.queue = AlertQueue(queue_size)
        self.metrics = metrics or AlertmanagerMetrics()
        self.clock = clock
        self.tick_s = max(0.2, min(5.0, policy.repost_s / 4))
        self._wake = asyncio.Event()
        self._failing = False

    @classmethod
    def from_settings(cls, settings: StreamSettings,
                      metrics: AlertmanagerMetrics | None = None) -> AlertmanagerHook | None:
        """The hook when an Alertmanager URL is set, else None (paging off)."""
        if not settings.alertmanager_url:
            return None
        policy = PagingPolicy(
            deployment_labels=dict(settings.alert_labels), public_url=settings.public_url,
            warn_certificates=settings.alert_warn_certificates,
            max_per_conversation_hour=settings.alert_max_per_conversation_hour,
            repost_s=settings.alert_repost_s, ttl_s=settings.alert_ttl_s,
            certificate_hold_s=settings.alert_certificate_hold_s,
            expire_s=settings.idle_window_s)
        return cls(settings.alertmanager_url, policy, settings.alert_queue_size, metrics)

    # --- called on the scoring path: no I/O, no await ----------------------------------------
    def observe(self, outcomes: Iterable[TurnOutcome],
                partitions: Mapping[str, int] | None = None) -> None:
        self._enqueue(self.pager.observe(outcomes, self.clock(), partitions))

    def _enqueue(self, decision: Decision) -> None:
        if decision.capped:
            self.metrics.dropped.labels(reason="conversation_cap").inc(decision.capped)
        if decision.post:
            full = self.queue.offer(decision.post)
            if full:
                self.metrics.dropped.labels(reason="queue_full").inc(full)
            self._wake.set()
        self.metrics.queued.set(len(self.queue))
        for name, count in self.pager.active_counts().items():
            self.metrics.active.labels(alertname=name).set(count)

    # --- the background task -----------------------------------------------------------------
    async def run(self, owned_partitions: Callable[[], set[int] | None]) -> None:
        """Post forever: drain the queue, back off while Alertmanager fails, tick the pager."""
        backoff = BACKOFF_MIN_S
        next_tick = 0.0
        async with aiohttp.ClientSession() as session:
            while True:
                now = self.clock()
                if now >= next_tick:
                    self._enqueue(self.pager.tick(now, owned_partitions()))
                    next_tick = now + self.tick_s
                batch = self.queue.peek(MAX_BATCH)
                if batch:
                    if await self.post(session, batch):
                        backoff = BACKOFF_MIN_S
                        continue
                    await asyncio.sleep(backoff)
                    backoff = min(backoff * 2, BACKOFF_MAX_S)
                    continue
                self._wake.clear()
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self._wake.wait(), self.tick_s)

    async def post(self, session: aiohttp.ClientSession, batch: list[PostableAlert]) -> bool:
        """One POST; True when the batch is done with (accepted, or rejected for good)."""
        body = [alert.to_json() for alert in batch]
        try:
            async with session.post(self.endpoint, json=body, timeout=aiohttp.ClientTimeout(
                    total=self.post_timeout_s)) as resp:
                status = resp.status
                detail = "" if status == 200 else (await resp.text())[:300]
        except (aiohttp.ClientError, TimeoutError, OSError) as exc:
            return self._failed(f"{type(exc).__name__}: {exc}")
        if status == 200:
            self.queue.remove(batch)
            for alert in batch:
                state = "resolved" if alert.resolved else "firing"
                self.metrics.posted.labels(alertname=alert.alertname, state=state).inc()
            if self._failing:
                log.warning("alertmanager %s reachable again", self.endpoint)
                self._failing = False
        elif 400 <= status < 500 and status != 429:
            # invalid for Alertmanager: retrying the same body cannot succeed
            self.queue.remove(batch)
            self.metrics.dropped.labels(reason="rejected").inc(len(batch))
            log.error("alertmanager rejected %d alerts (%d): %s", len(batch), status, detail)
        else:
            return self._failed(f"HTTP {status}: {detail}")
        self.metrics.queued.set(len(self.queue))
        return True

    def _failed(self, reason: str) -> bool:
        self.metrics.errors.inc()
        if not self._failing:  # one line per outage, not one per retry
            log.warning("alertmanager %s failing (%s); %d alerts queued, retrying with "
                        "backoff", self.endpoint, reason, len(self.queue))
            self._failing = True
        return False
