"""Shared fixtures: the local Kafka-protocol broker (tansu) and streaming worker processes."""

from __future__ import annotations

import asyncio
import re
import signal
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from monitor.stream.local import LocalWorker

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
    from monitor.kafka.settings import StreamSettings

    return StreamSettings(broker=broker, local_broker_profile=True, **updates)


class WorkerProcess(LocalWorker):
    """`skg-monitor worker` as a subprocess (`monitor.stream.local`), run from the root."""

    def __init__(self, broker: str, data_dir: Path, log: Path, web_port: int | None = None,
                 extra_env: dict[str, str] | None = None,
                 extra_args: list[str] | None = None) -> None:
        super().__init__(broker, data_dir, log, web_port, extra_env, extra_args, cwd=ROOT)


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


class FakeEmbedder:
    """Instant and deterministic: a text's vector is its hashed lower-case words,
    L2-normalised, so texts that share words are similar. No model is loaded; for unit
    tests of the engine's logic (the real MiniLM stays in the integration tests)."""

    name = "fake-hashed-words-64"
    dim = 64

    def embed(self, texts: Any) -> Any:
        import hashlib

        import numpy as np

        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[row, hashlib.blake2b(word.encode(), digest_size=2).digest()[0] % self.dim] += 1
            out[row] /= max(float(np.linalg.norm(out[row])), 1e-12)
        return out


class CountingEmbedder(FakeEmbedder):
    """The fake embedder, recording every text it was asked for."""

    def __init__(self) -> None:
        self.texts: list[str] = []

    def embed(self, texts: Any) -> Any:
        self.texts.extend(texts)
        return super().embed(texts)


class FakeExtractor:
    """Sentences only, no triples (no spaCy): enough for relevance, trend and MFSS."""

    name = "fake-sentences"

    def extract(self, items: Any) -> Any:
        from monitor.engine.extract import Extraction

        return [Extraction(sentences=[s for s in re.split(r"(?<=[.!?])\s+", u.text.strip())
                                      if s]) for u in items]


@pytest.fixture
def fake_embedder() -> FakeEmbedder:
    return FakeEmbedder()


@pytest.fixture
def fake_engine(fake_embedder: FakeEmbedder) -> Any:
    """The engine with MFSS and ConflictScore, on the fake embedder and extractor."""
    from monitor.runner.build import build_engine

    return build_engine(embedder=fake_embedder, extractor=FakeExtractor())
