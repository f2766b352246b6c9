"""Is the worker able to score right now? The pieces `/healthz` reports besides Faust's.

Faust keeps a worker "running" while its broker is gone (aiokafka retries for ever) and
while an agent's batch keeps failing, so neither shows in its own state. Each is tracked
here, logged loudly when it changes, and exported as a gauge, so that a readiness probe,
an alert and an operator all see the same thing.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from typing import Any

from monitor.stream.metrics import Metrics

log = logging.getLogger(__name__)


class BrokerProbe:
    """A TCP connect to each bootstrap address; reachable if any one accepts."""

    def __init__(self, bootstrap: str, metrics: Metrics, timeout_s: float = 1.0) -> None:
        self.addresses = [part.rsplit(":", 1) for part in bootstrap.split(",") if part]
        self.metrics = metrics
        self.timeout_s = timeout_s
        self.reachable = True
        self.since = time.monotonic()
        self.changes = 0
        """How often reachability changed: a batch that saw it change ran across an outage."""

    async def _connects(self, host: str, port: str) -> bool:
        try:
            _, writer = await asyncio.wait_for(asyncio.open_connection(host, int(port)),
                                               self.timeout_s)
        except (OSError, TimeoutError, ValueError):
            return False
        writer.close()
        with contextlib.suppress(OSError):
            await writer.wait_closed()
        return True

    async def check(self) -> bool:
        ok = False
        for host, port in self.addresses:
            if await self._connects(host, port):
                ok = True
                break
        if ok != self.reachable:
            self.reachable, self.since = ok, time.monotonic()
            self.changes += 1
            if ok:
                log.warning("broker %s reachable again", self.addresses)
            else:
                log.error("BROKER UNREACHABLE at %s: worker not ready until it is back",
                          self.addresses)
        self.metrics.broker_up.set(1 if ok else 0)
        return ok


class BatchFailures:
    """A batch that failed as a whole (not one bad message: the broker, the store...).

    The agent retries it with back-off instead of crashing: a crash would let Faust
    restart the agent and commit the batch's offsets although its turns were never
    scored. While it fails the worker is not ready.
    """

    def __init__(self, metrics: Metrics, max_backoff_s: float = 30.0) -> None:
        self.metrics = metrics
        self.max_backoff_s = max_backoff_s
        self.failing = False
        self.attempt = 0

    def failed(self) -> float:
        """Count one failure; the seconds to wait before the next attempt."""
        self.failing = True
        self.attempt += 1
        self.metrics.batch_failures.inc()
        self.metrics.agent_up.set(0)
        return float(min(self.max_backoff_s, 0.5 * 2 ** min(self.attempt, 10)))

    def succeeded(self) -> None:
        if self.failing:
            log.warning("batch processing recovered after %d failed attempts", self.attempt)
        self.failing, self.attempt = False, 0
        self.metrics.agent_up.set(1)


class StartingHealth:
    """`/healthz` (200, `ready: false`, what it waits for) while the worker is starting.

    Before Faust runs, a worker waits for its broker (for ever, if need be) and loads its
    models; its HTTP port would answer nothing, so a liveness probe would kill a worker
    that is only waiting. This serves the port from a thread until `stop()`, just before
    Faust binds it. A port already taken is logged and left alone.
    """

    def __init__(self, host: str, port: int, version: str) -> None:
        self.host, self.port, self.version = host, port, version
        self.stage = "starting"
        self._server: Any = None

    def start(self) -> StartingHealth:
        import json
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # the name http.server calls
                if self.path.split("?")[0].rstrip("/") != "/healthz":
                    self.send_error(404)
                    return
                body = json.dumps({"status": "ok", "version": owner.version,
                                   "ready": False, "stage": owner.stage,
                                   "partitions": []}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:
                pass

        try:
            self._server = ThreadingHTTPServer((self.host, self.port), Handler)
        except OSError as exc:
            log.warning("cannot serve /healthz on %s:%s while starting: %s", self.host,
                        self.port, exc)
            return self
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, name="starting-healthz",
                         daemon=True).start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None
