"""Shared fixtures: the local Kafka-protocol broker (tansu) and streaming worker processes."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from monitor.stream.broker import stop_process

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[str]:
    """A fresh tansu broker on a free port (in-memory storage); killed afterwards."""
    from monitor.stream.broker import free_port, start_broker, tansu_path

    try:
        tansu_path()
    except FileNotFoundError as exc:
        pytest.skip(str(exc))
    port = free_port()
    proc = start_broker(port, tmp_path / "tansu.log")
    try:
        yield f"kafka://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait(10)


def stream_settings(broker: str, **updates: Any) -> Any:
    from monitor.stream.settings import StreamSettings

    return StreamSettings(broker=broker, local_broker_profile=True, **updates)


class WorkerProcess:
    """`skg-monitor worker` as a subprocess, with its HTTP views at hand."""

    def __init__(self, broker: str, data_dir: Path, log: Path, web_port: int | None = None,
                 extra_env: dict[str, str] | None = None,
                 extra_args: list[str] | None = None) -> None:
        from monitor.stream.broker import free_port

        self.broker = broker
        self.data_dir = data_dir
        self.log = log
        self.web_port = web_port or free_port()
        self.extra_env = extra_env or {}
        self.extra_args = extra_args or []
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def start(self) -> WorkerProcess:
        env = dict(os.environ)
        env.update({"SKG_LOCAL_BROKER_PROFILE": "1", "SKG_WEB_HOST": "127.0.0.1",
                    **self.extra_env})
        cmd = [sys.executable, "-m", "monitor.cli", "worker", "--broker", self.broker,
               "--web-port", str(self.web_port), "--data-dir", str(self.data_dir),
               *self.extra_args]
        out = self.log.open("ab")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=out,
                                     stderr=subprocess.STDOUT)
        return self

    def get(self, path: str, timeout: float = 5.0) -> tuple[int, Any]:
        try:
            with urllib.request.urlopen(self.url + path, timeout=timeout) as resp:
                body = resp.read()
                status = resp.status
        except urllib.error.HTTPError as exc:
            body, status = exc.read(), exc.code
        try:
            return status, json.loads(body)
        except ValueError:
            return status, body.decode("utf-8", errors="replace")

    def health(self) -> dict[str, Any] | None:
        """The worker's /healthz body, or None while it does not answer."""
        try:
            status, body = self.get("/healthz", timeout=2.0)
        except (OSError, urllib.error.URLError):
            return None
        return body if status == 200 and isinstance(body, dict) else None

    def partitions(self) -> list[int] | None:
        health = self.health()
        return health.get("partitions") if health else None

    def wait_ready(self, timeout: float = 90.0, partitions: int | None = None) -> None:
        """Until the worker scores: assigned (`partitions` of them if given), not recovering."""
        deadline = time.monotonic() + timeout
        health = None
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"worker exited: {self.log.read_text()[-3000:]}")
            health = self.health()
            parts = health.get("partitions") if health and health.get("ready") else None
            if parts and (partitions is None or len(parts) == partitions):
                return
            time.sleep(0.3)
        raise AssertionError(f"worker not ready (last /healthz {health}): "
                             f"{self.log.read_text()[-3000:]}")

    def metric(self, name: str) -> float:
        status, body = self.get("/metrics")
        assert status == 200
        total = 0.0
        for line in str(body).splitlines():
            if re.match(rf"^{name}(\{{| )", line):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.proc is not None:
            stop_process(self.proc, sig)


@pytest.fixture
def workers(tmp_path: Path) -> Iterator[list[WorkerProcess]]:
    """Collects WorkerProcess objects and kills whatever is left at the end."""
    made: list[WorkerProcess] = []
    try:
        yield made
    finally:
        for w in made:
            w.kill(signal.SIGTERM)


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def serve_local(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    """A threaded HTTP server for `handler` on a free loopback port, and its base URL.
    The caller stops it with `shutdown()` and `server_close()`."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"
