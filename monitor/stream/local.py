"""A worker on a local broker, as benchmarks, `demo` and the tests start one.

`LocalWorker` runs `skg-monitor worker` as a subprocess with the local broker profile, on a
free web port, and reads its HTTP views; `local_broker` starts the broker beside it
(`monitor.stream.broker.start_broker`) with the settings that reach it. One start-up, so a
benchmark measures the worker the tests check.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.kafka.settings import StreamSettings
from monitor.stream.broker import free_port, start_broker, stop_process

LOCAL_ENV = {"SKG_LOCAL_BROKER_PROFILE": "1", "SKG_WEB_HOST": "127.0.0.1"}
"""What a worker on the local test broker runs with (tansu workarounds, loopback views)."""


def worker_command(broker: str, web_port: int, data_dir: Path, *args: str) -> list[str]:
    """`skg-monitor worker` with this interpreter (no console script needed)."""
    return [sys.executable, "-m", "monitor.cli", "worker", "--broker", broker,
            "--web-port", str(web_port), "--data-dir", str(data_dir), *args]


@dataclass(frozen=True)
class LocalBroker:
    """A running local broker: its folder, the settings that reach it, its process."""

    tmp: Path
    settings: StreamSettings
    proc: subprocess.Popen[bytes]


@contextmanager
def local_broker(prefix: str, port: int | None = None,
                 **settings: Any) -> Iterator[LocalBroker]:
    """tansu on `port` (default: a free one), logging into a fresh temporary folder whose
    `data/` holds the tables; the settings have the local broker profile, plus `settings`.
    The broker is killed on the way out (it keeps nothing)."""
    tmp = Path(tempfile.mkdtemp(prefix=prefix))
    port = port or free_port()
    proc = start_broker(port, tmp / "tansu.log")
    try:
        yield LocalBroker(tmp, StreamSettings(broker=f"kafka://127.0.0.1:{port}",
                                              local_broker_profile=True,
                                              data_dir=tmp / "data", **settings), proc)
    finally:
        stop_process(proc, signal.SIGKILL)


class LocalWorker:
    """`skg-monitor worker` as a subprocess, with its HTTP views at hand."""

    def __init__(self, broker: str, data_dir: Path, log: Path, web_port: int | None = None,
                 extra_env: dict[str, str] | None = None,
                 extra_args: list[str] | None = None, cwd: Path | None = None) -> None:
        self.broker = broker
        self.data_dir = data_dir
        self.log = log
        self.web_port = web_port or free_port()
        self.extra_env = extra_env or {}
        self.extra_args = extra_args or []
        self.cwd = cwd
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.web_port}"

    def start(self) -> LocalWorker:
        env = {**os.environ, **LOCAL_ENV, **self.extra_env}
        cmd = worker_command(self.broker, self.web_port, self.data_dir, *self.extra_args)
        out = self.log.open("ab")
        self.proc = subprocess.Popen(cmd, cwd=self.cwd, env=env, stdout=out,
                                     stderr=subprocess.STDOUT)
        return self

    def exited(self) -> bool:
        return self.proc is not None and self.proc.poll() is not None

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

    def ready(self, partitions: int | None = None) -> bool:
        """Scoring: assigned (`partitions` of them if given) and not recovering."""
        health = self.health()
        parts = health.get("partitions") if health and health.get("ready") else None
        if not parts:
            return False
        return partitions is None or len(parts) == partitions

    def wait_ready(self, timeout: float = 90.0, partitions: int | None = None) -> None:
        """Until `ready`; AssertionError with the log's tail if it exits or times out."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.exited():
                raise AssertionError(f"worker exited: {self.log.read_text()[-3000:]}")
            if self.ready(partitions):
                return
            time.sleep(0.3)
        raise AssertionError(f"worker not ready (last /healthz {self.health()}): "
                             f"{self.log.read_text()[-3000:]}")

    def metric(self, name: str) -> float:
        """The sum of a Prometheus metric's samples on /metrics (all label sets)."""
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
