"""The throughput ceiling for `bench stream`: a Faust agent that only forwards messages.

Same broker, same profile, same micro-batching as the monitor, no engine and no table.
Run: python -m monitor.bench.ceiling --broker kafka://HOST:PORT
"""

from __future__ import annotations

import sys

import faust

from monitor.kafka.settings import StreamSettings
from monitor.stream.app import new_faust_app

CEILING_IN = "bench.ceiling.in"
CEILING_OUT = "bench.ceiling.out"


def create_ceiling_app(settings: StreamSettings) -> faust.App:
    app = new_faust_app(settings, app_id="skg-ceiling", web_enabled=False)
    src = app.topic(CEILING_IN, key_type=bytes, value_type=bytes, key_serializer="raw",
                    value_serializer="raw", partitions=settings.partitions)
    dst = app.topic(CEILING_OUT, key_type=bytes, value_type=bytes, key_serializer="raw",
                    value_serializer="raw", partitions=settings.partitions)

    @app.agent(src, name="forward")
    async def forward(stream: faust.StreamT) -> None:
        async for events in stream.take_events(settings.batch_size,  # type: ignore[attr-defined]
                                               within=settings.batch_within_s):
            pending = [await dst.send(key=e.message.key, value=e.message.value)
                       for e in events]
            for fut in pending:
                await fut

    return app


def main(argv: list[str]) -> None:
    from faust.worker import Worker

    broker = argv[argv.index("--broker") + 1]
    settings = StreamSettings(broker=broker, local_broker_profile=True)
    Worker(create_ceiling_app(settings), loglevel="warning", quiet=True).execute_from_commandline()


if __name__ == "__main__":
    main(sys.argv[1:])
