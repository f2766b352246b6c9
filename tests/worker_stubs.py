"""A `Monitor` with no broker and no models, for unit tests of the worker's own code: a
stub engine (subclass it for the behaviour a test needs) and the table as a dict."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from prometheus_client import CollectorRegistry

from monitor.kafka.settings import StreamSettings
from monitor.stream.metrics import Metrics


class StubEngine:
    """What the Monitor reads of an engine when it is built."""

    version = "stub"
    config = SimpleNamespace(trend_min_turns=3)


class DictTable(dict[bytes, bytes]):
    """The table as a dict, with DurableTable's changelog calls (nothing is refused)."""

    async def resend_refused(self) -> None:
        return None

    def forget_refused(self) -> None:
        return None


def stub_monitor(engine: Any, table: dict[bytes, bytes] | None = None,
                 **settings: Any) -> Any:
    """A Monitor around `engine`, its table a DictTable holding `table`."""
    from monitor.stream.app import Monitor

    monitor: Any = Monitor(StreamSettings(**settings), engine, Metrics(CollectorRegistry()))
    monitor.table = DictTable(table or {})
    return monitor
