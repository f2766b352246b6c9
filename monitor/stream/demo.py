"""`skg-monitor demo`: local broker + worker + replay of the examples, with a live summary."""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
import time
from pathlib import Path
from typing import Any

from aiokafka import AIOKafkaConsumer, TopicPartition
from rich.console import Console, Group
from rich.live import Live
from rich.table import Table

from monitor.kafka.settings import StreamSettings, consumer_profile_kwargs
from monitor.stream.admin import ensure_topics_async
from monitor.stream.clients import replay
from monitor.stream.local import LocalWorker, local_broker


class DemoState:
    def __init__(self) -> None:
        self.scores = 0
        self.certificates: list[dict[str, Any]] = []
        self.trends: dict[str, dict[str, Any]] = {}
        self.dead_letters = 0
        self.status = "starting"

    def render(self, web_port: int) -> Group:
        head = Table.grid(padding=(0, 2))
        head.add_row("status", self.status)
        head.add_row("turns scored (assistant)", str(self.scores))
        head.add_row("certificates", str(len(self.certificates)))
        head.add_row("dead letters", str(self.dead_letters))
        head.add_row("metrics", f"http://127.0.0.1:{web_port}/metrics")
        certs = Table(title="Contradiction certificates", expand=True)
        for col in ("conversation", "turn", "detector", "explanation"):
            certs.add_column(col)
        for c in self.certificates[-8:]:
            certs.add_row(c["conversation_id"], f'{c["turn_index"]} vs {c["conflicts_with"]}',
                          c["detector"], c["explanation"])
        convs = Table(title="Conversations", expand=True)
        for col in ("conversation", "last turn", "quality", "level", "slope", "trend"):
            convs.add_column(col)
        for cid, s in sorted(self.trends.items()):
            style = "bold red" if s["trend"] == "DEGRADING" else ""
            convs.add_row(cid, str(s["turn_index"]), f'{s["quality"]:.3f}',
                          f'{s["level"]:.3f}', f'{s["slope"]:+.4f}', s["trend"], style=style)
        return Group(head, convs, certs)


async def _follow(settings: StreamSettings, state: DemoState) -> None:
    consumer = AIOKafkaConsumer(bootstrap_servers=settings.bootstrap, group_id=None,
                                enable_auto_commit=False, auto_offset_reset="earliest",
                                **consumer_profile_kwargs(settings))
    await consumer.start()
    try:
        topics = [settings.topic_scores, settings.topic_certificates,
                  settings.topic_dead_letter]
        tps = [TopicPartition(t, p) for t in topics for p in range(settings.partitions)]
        consumer.assign(tps)
        await consumer.seek_to_beginning(*tps)
        while True:
            batch = await consumer.getmany(timeout_ms=200)
            for tp, records in batch.items():
                for r in records:
                    if r.value is None:
                        continue
                    data = json.loads(r.value)
                    if tp.topic == settings.topic_scores:
                        state.scores += 1
                        state.trends[data["conversation_id"]] = data
                    elif tp.topic == settings.topic_certificates:
                        state.certificates.append(data)
                    else:
                        state.dead_letters += 1
    finally:
        await consumer.stop()


async def _main(file: Path, duration: float | None, settings: StreamSettings,
                worker: LocalWorker, web_port: int, console: Console) -> None:
    state = DemoState()
    started = time.monotonic()
    await ensure_topics_async(settings)
    follow = asyncio.create_task(_follow(settings, state))
    replayed = False
    with Live(state.render(web_port), console=console, refresh_per_second=2) as live:
        try:
            while duration is None or time.monotonic() - started < duration:
                if worker.exited():
                    state.status = "worker exited"
                    break
                if not replayed:
                    state.status = "loading models and joining the group"
                    if worker.partitions() is not None:
                        lines = [ln for ln in file.read_bytes().splitlines() if ln.strip()]
                        await replay(settings, lines)
                        replayed = True
                        state.status = f"replayed {len(lines)} turns from {file}; Ctrl-C stops"
                live.update(state.render(web_port))
                await asyncio.sleep(0.5)
        finally:
            follow.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await follow
            live.update(state.render(web_port))


def run_demo(file: Path, duration: float | None, port: int | None, web_port: int) -> int:
    console = Console()
    with local_broker("skg-demo-", port, web_port=web_port) as local:
        settings, tmp = local.settings, local.tmp
        worker = LocalWorker(settings.broker, tmp / "data", tmp / "worker.log",
                             web_port).start()
        console.print(f"broker {settings.broker.removeprefix('kafka://')}, "
                      f"worker logs in {tmp}")
        try:
            asyncio.run(_main(file, duration, settings, worker, web_port, console))
        except KeyboardInterrupt:
            console.print("stopping")
        finally:
            worker.kill(signal.SIGTERM)
    return 0
