"""Paging through a real Alertmanager (monitor/stream/alertmanager.py), end to end.

Real parts only: the local broker (tansu), one `skg-monitor worker` subprocess with
SKG_ALERTMANAGER_URL set, Debian's Alertmanager started here on a free port, and a small
HTTP server that receives Alertmanager's real webhook notifications. Alertmanager runs the
SHIPPED prometheus/alertmanager.yml with only the receivers' host and the group timers
changed, so the routing under test is the one deployed.

Workload (chosen not to depend on fine engine details; what the engine certifies is
read from the offline scorer, the same function the worker runs, and the test requires
only that the plain cases are certified):

* am-budget: the assistant contradicts a budget the user stated (600 GBP max / "your
  budget of 1,000 GBP");
* am-negation, am-outage: the assistant negates its own earlier sentence ("is open on
  Mondays" / "is not open on Mondays");
* am-degrading, am-recovering: the degrading conversation of the observability end-to-end
  test (tests/test_e2e_observability.py: on topic, then off topic; DEGRADING from turn 5);
  am-recovering then gets five good on-topic answers, and its trend leaves DEGRADING.

Phases: A (Alertmanager up) certificates and DEGRADING conversations appear as alerts,
grouped by conversation, and the webhook receives the explanation; B the recovering
conversation's alert is resolved; C Alertmanager is stopped, a new contradiction is
replayed and scored (scoring does not wait), and its alert arrives once Alertmanager is
back, together with the still-active alerts the worker re-posts.
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any, TypeVar

import aiohttp
import pytest
import yaml
from prometheus_client import CollectorRegistry

from monitor.contracts import ContradictionCertificate, TurnEvent, TurnScore
from monitor.stream.alertmanager import AlertmanagerHook, AlertmanagerMetrics, AlertQueue
from monitor.stream.broker import free_port, stop_process
from monitor.stream.paging import (
    CONTRADICTION,
    DEGRADING,
    PagingPolicy,
    PostableAlert,
    conversation_label,
)
from tests.conftest import WorkerProcess, serve_local
from tests.test_e2e_observability import _conversation
from tests.test_paging import _cert, _outcome
from tests.test_stream import replay, wait_for_scores

ROOT = Path(__file__).resolve().parent.parent
SHIPPED = ROOT / "prometheus" / "alertmanager.yml"
PUBLIC_URL = "https://skg.test"
T = TypeVar("T")


# ------------------------------------------------------------------------------ workload

def _turns(cid: str, turns: list[tuple[str, str]], start: int = 0) -> list[TurnEvent]:
    return [TurnEvent(conversation_id=cid, turn_index=start + i, role=role, text=text)  # type: ignore[arg-type]
            for i, (role, text) in enumerate(turns)]


def _negation(cid: str) -> list[TurnEvent]:
    return _turns(cid, [
        ("user", "Is the city museum open on Mondays?"),
        ("assistant", "The city museum is open on Mondays from 9:00 to 17:00."),
        ("user", "Great, and can I bring my dog?"),
        ("assistant", "The city museum is not open on Mondays. Dogs are not allowed inside."),
    ])


def _from_observability_test(cid: str, i: int) -> list[TurnEvent]:
    return [TurnEvent.model_validate({**e, "conversation_id": cid}) for e in _conversation(i)]


RECOVERY = [
    ("user", "Please, what are the opening hours of the museum in Porto?"),
    ("assistant", "The museum in Porto is open on Saturday from 10:00 to 18:00."),
    ("user", "And is there a cafe in the museum?"),
    ("assistant", "The museum in Porto has a cafe on the ground floor, open on Saturday."),
    ("user", "How much is a ticket for the museum?"),
    ("assistant", "A ticket for the museum in Porto costs 40 euros on Saturday."),
    ("user", "Can I buy the ticket at the museum?"),
    ("assistant", "You can buy the ticket for the museum in Porto at the entrance on Saturday."),
    ("user", "Is the museum accessible?"),
    ("assistant", "The museum in Porto is accessible, with a lift to every floor."),
]


def workload() -> dict[str, list[TurnEvent]]:
    """The turns of each phase (see the module docstring)."""
    budget = _turns("am-budget", [
        ("user", "I need a laptop for travel. My budget is 600 GBP max."),
        ("assistant", "A light laptop with a long battery life suits travel. The Swift Air "
                      "weighs 1.2 kg and its battery lasts 14 hours."),
        ("user", "Which one do you recommend?"),
        ("assistant", "With your budget of 1,000 GBP, the Swift Pro is the best choice for "
                      "travel."),
    ])
    recovering = _from_observability_test("am-recovering", 1)
    return {
        "A": (budget + _negation("am-negation")
              + _from_observability_test("am-degrading", 0) + recovering),
        "B": _turns("am-recovering", RECOVERY, start=len(recovering)),
        "C": _negation("am-outage"),
    }


@pytest.fixture(scope="module")
def offline() -> dict[str, list[Any]]:
    """The offline scorer's records per phase (phases scored in order, states carried)."""
    from monitor.runner.build import build_engine

    engine = build_engine()
    states: dict[str, Any] = {}
    out: dict[str, list[Any]] = {}
    for phase, events in workload().items():
        out[phase] = [r for o in engine.process_batch(events, states) for r in o.records()]
    return out


def _page(records: list[Any]) -> list[ContradictionCertificate]:
    return [r for r in records if isinstance(r, ContradictionCertificate)
            and r.severity == "page"]


def _last_trend(records: list[Any], cid: str) -> str:
    return [r for r in records if isinstance(r, TurnScore) and r.conversation_id == cid][-1].trend


def test_workload_certifies_and_degrades_as_the_end_to_end_test_needs(
        offline: dict[str, list[Any]]) -> None:
    """The plain cases are certified and the trends move (a failure here means the engine
    changed, not the paging)."""
    page_a = {c.conversation_id for c in _page(offline["A"])}
    assert {"am-negation", "am-degrading", "am-recovering"} <= page_a
    assert [c.conversation_id for c in _page(offline["C"])] == ["am-outage"]
    assert _last_trend(offline["A"], "am-degrading") == "DEGRADING"
    assert _last_trend(offline["A"], "am-recovering") == "DEGRADING"
    assert _last_trend(offline["B"], "am-recovering") != "DEGRADING"


# ----------------------------------------------------------------- the queue, in isolation

def _alert(name: str, ends: float) -> PostableAlert:
    return PostableAlert({"alertname": name}, {}, 0.0, ends)


def test_queue_coalesces_by_identity_and_counts_what_does_not_fit() -> None:
    queue = AlertQueue(capacity=2)
    a1, b1, a2, c1 = _alert("a", 1), _alert("b", 1), _alert("a", 2), _alert("c", 1)
    assert queue.offer([a1, b1]) == 0
    assert queue.offer([a2, c1]) == 1  # a2 replaces a1 in place; c1 does not fit
    assert queue.peek(10) == [a2, b1]
    queue.remove([a1, b1])  # a1 was posted, but a newer a2 is waiting: a2 stays
    assert queue.peek(10) == [a2]


def _hook(url: str, registry: CollectorRegistry, queue_size: int = 100) -> AlertmanagerHook:
    return AlertmanagerHook(url, PagingPolicy(repost_s=1.0, ttl_s=30.0), queue_size,
                            AlertmanagerMetrics(registry), post_timeout_s=0.5)


def _count(registry: CollectorRegistry, name: str, **labels: str) -> float:
    return registry.get_sample_value(name, labels) or 0.0


def test_a_full_queue_drops_and_counts_on_the_scoring_path() -> None:
    registry = CollectorRegistry()
    hook = _hook("http://127.0.0.1:9", registry, queue_size=1)  # nothing listens there
    hook.observe([_outcome("c", 5, certs=[_cert("c", 3), _cert("c", 5)])])
    assert _count(registry, "skg_alertmanager_alerts_dropped_total", reason="queue_full") == 1
    assert _count(registry, "skg_alertmanager_queue_alerts") == 1
    assert _count(registry, "skg_alertmanager_active_alerts", alertname=CONTRADICTION) == 2


class _SlowServer:
    """Accepts POSTs and answers only after `delay` seconds (a hung Alertmanager)."""

    def __init__(self, delay: float) -> None:
        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                time.sleep(delay)
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server, self.url = serve_local(Handler)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_hung_alertmanager_times_out_and_keeps_the_alert_queued() -> None:
    registry = CollectorRegistry()
    slow = _SlowServer(delay=1.5)
    try:
        hook = _hook(slow.url, registry)
        hook.observe([_outcome("c", 3, certs=[_cert("c", 3)])])

        async def attempt() -> bool:
            async with aiohttp.ClientSession() as session:
                return await hook.post(session, hook.queue.peek(10))

        assert asyncio.run(attempt()) is False
        assert _count(registry, "skg_alertmanager_post_errors_total") == 1
        assert len(hook.queue) == 1  # kept for the retry
    finally:
        slow.close()


# ------------------------------------------------------------------ real Alertmanager

class Webhook:
    """Receives Alertmanager's webhook JSON (version 4) on a free port."""

    def __init__(self) -> None:
        self.received: list[tuple[str, dict[str, Any]]] = []
        lock = threading.Lock()
        received = self.received

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with lock:
                    received.append((self.path, json.loads(body)))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server, self.url = serve_local(Handler)

    def alerts(self, path: str) -> list[tuple[dict[str, Any], dict[str, Any]]]:
        """(notification, alert) for every alert in every notification sent to `path`."""
        return [(note, alert) for p, note in list(self.received) if p == path
                for alert in note["alerts"]]

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def config_for_test(webhook_url: str) -> dict[str, Any]:
    """The shipped config with the receivers pointed at `webhook_url` and 1 s group timers."""
    doc = yaml.safe_load(SHIPPED.read_text(encoding="utf-8"))
    for receiver in doc["receivers"]:
        for hook in receiver["webhook_configs"]:
            path = hook["url"].split("://", 1)[1].split("/", 1)[1]
            hook["url"] = f"{webhook_url}/{path}"

    def fast(route: dict[str, Any]) -> None:
        for key in ("group_wait", "group_interval"):
            if key in route:
                route[key] = "1s"
        for child in route.get("routes", []):
            fast(child)

    fast(doc["route"])
    doc["route"]["group_wait"] = doc["route"]["group_interval"] = "1s"
    return doc


class AlertmanagerProcess:
    def __init__(self, binary: str, workdir: Path, webhook_url: str) -> None:
        self.port = free_port()
        workdir.mkdir(parents=True, exist_ok=True)
        config = workdir / "alertmanager.yml"
        config.write_text(yaml.safe_dump(config_for_test(webhook_url)), encoding="utf-8")
        self.log = workdir / "alertmanager.log"
        self.cmd = [binary, f"--config.file={config}", f"--storage.path={workdir / 'data'}",
                    f"--web.listen-address=127.0.0.1:{self.port}",
                    "--cluster.listen-address="]
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> AlertmanagerProcess:
        self.proc = subprocess.Popen(self.cmd, stdout=self.log.open("ab"),
                                     stderr=subprocess.STDOUT)
        until(lambda: self._ready(), 30, "alertmanager ready")
        return self

    def _ready(self) -> bool:
        assert self.proc is not None
        if self.proc.poll() is not None:
            raise AssertionError(f"alertmanager exited: {self.log.read_text()[-3000:]}")
        try:
            with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as resp:
                return resp.status == 200
        except (OSError, urllib.error.URLError):
            return False

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(self.url + path, timeout=5) as resp:
            return json.loads(resp.read())

    def alerts(self, name: str) -> dict[str, dict[str, Any]]:
        """Active alerts called `name`, by their `certificate` or `conversation` label."""
        key = "certificate" if name == CONTRADICTION else "conversation"
        return {a["labels"][key]: a for a in self.get("/api/v2/alerts")
                if a["labels"]["alertname"] == name}

    def stop(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, grace=10)


def until(check: Callable[[], T], timeout: float, what: str) -> T:
    """Poll `check` until it returns something truthy; fail naming `what`."""
    deadline = time.monotonic() + timeout
    last: T = check()
    while not last:
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.5)
        last = check()
    return last


@pytest.fixture
def alertmanager_binary() -> str:
    binary = shutil.which("prometheus-alertmanager") or shutil.which("alertmanager")
    if binary is None:
        pytest.skip("Alertmanager is not installed (Debian package prometheus-alertmanager; "
                    "CI installs it with .ci/install-prometheus.sh)")
    return binary


@pytest.fixture
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    try:
        yield hook
    finally:
        hook.close()


def test_hook_posts_to_a_real_alertmanager_and_drops_what_it_refuses(
        alertmanager_binary: str, webhook: Webhook, tmp_path: Path) -> None:
    am = AlertmanagerProcess(alertmanager_binary, tmp_path / "am", webhook.url).start()
    registry = CollectorRegistry()
    hook = _hook(am.url, registry)
    cert = _cert("c", 3)

    async def scenario() -> None:
        runner = asyncio.create_task(hook.run(lambda: None))
        hook.observe([_outcome("c", 3, certs=[cert])])
        for _ in range(100):
            if _count(registry, "skg_alertmanager_alerts_posted_total",
                      alertname=CONTRADICTION, state="firing"):
                break
            await asyncio.sleep(0.1)
        # Alertmanager refuses an alert that ends before it starts: dropped, not retried
        bad = PostableAlert({"alertname": CONTRADICTION}, {}, 100.0, 50.0)
        async with aiohttp.ClientSession() as session:
            assert await hook.post(session, [bad]) is True
        runner.cancel()

    try:
        asyncio.run(scenario())
        assert cert.id in am.alerts(CONTRADICTION)
        assert _count(registry, "skg_alertmanager_alerts_dropped_total", reason="rejected") == 1
        assert _count(registry, "skg_alertmanager_post_errors_total") == 0
    finally:
        am.stop()


def _sample(worker: WorkerProcess, name: str, **labels: str) -> float:
    """One sample of the worker's /metrics, parsed by prometheus_client's own parser."""
    from prometheus_client.parser import text_string_to_metric_families

    status, body = worker.get("/metrics")
    assert status == 200
    for family in text_string_to_metric_families(str(body)):
        for sample in family.samples:
            if sample.name == name and sample.labels == labels:
                return float(sample.value)
    raise AssertionError(f"no sample {name}{labels}")


def _assistant(events: list[TurnEvent]) -> int:
    return sum(e.role == "assistant" for e in events)


def _lines(events: list[TurnEvent]) -> list[bytes]:
    return [e.model_dump_json(exclude_none=True).encode() for e in events]


@pytest.mark.broker
@pytest.mark.slow
def test_alertmanager_pages_per_certificate_and_per_conversation(
        broker: str, workers: list[WorkerProcess], tmp_path: Path, alertmanager_binary: str,
        webhook: Webhook, offline: dict[str, list[Any]]) -> None:
    phases = workload()
    am = AlertmanagerProcess(alertmanager_binary, tmp_path / "am", webhook.url).start()
    try:
        worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log", extra_env={
            "SKG_ALERTMANAGER_URL": am.url, "SKG_PUBLIC_URL": PUBLIC_URL,
            "SKG_ALERT_LABELS": '{"env": "e2e"}', "SKG_ALERT_REPOST_S": "1",
            "SKG_ALERT_TTL_S": "30"}).start()
        workers.append(worker)
        worker.wait_ready()
        _phase_a(am, worker, webhook, broker, phases["A"], offline["A"])
        _phase_b(am, webhook, broker, worker, phases, offline["B"])
        _phase_c(am, worker, broker, phases, offline)
        assert worker.metric("skg_alertmanager_alerts_dropped_total") == 0
    finally:
        am.stop()


def _phase_a(am: AlertmanagerProcess, worker: WorkerProcess, webhook: Webhook, broker: str,
             events: list[TurnEvent], records: list[Any]) -> None:
    replay(broker, _lines(events))
    wait_for_scores(broker, _assistant(events), timeout=90, worker=worker)
    certs = {c.id: c for c in _page(records)}
    alerts = until(lambda: (got := am.alerts(CONTRADICTION)).keys() == certs.keys() and got,
                   30, f"{len(certs)} SkgContradiction alerts")
    for cid, cert in certs.items():
        alert = alerts[cid]
        assert alert["labels"] == {
            "alertname": CONTRADICTION, "severity": "page", "detector": cert.detector,
            "conversation": conversation_label(cert.conversation_id), "certificate": cert.id,
            "env": "e2e"}
        ann = alert["annotations"]
        assert ann["conversation_id"] == cert.conversation_id
        assert (ann["turn_index"], ann["conflicts_with"]) == (
            str(cert.turn_index), str(cert.conflicts_with))
        assert ann["sentence"] == cert.claim.sentence
        assert ann["prior_sentence"] == cert.prior.sentence
        assert ann["explanation"] == cert.explanation and ann["certificate_id"] == cert.id
        assert ann["conversation_url"] == f"{PUBLIC_URL}/conversations/{cert.conversation_id}"
    degrading = {conversation_label(c): c for c in ("am-degrading", "am-recovering")}
    got = until(lambda: (d := am.alerts(DEGRADING)).keys() == degrading.keys() and d, 30,
                "SkgConversationDegrading for am-degrading and am-recovering")
    for label, conv in degrading.items():
        assert got[label]["labels"] == {"alertname": DEGRADING, "severity": "warn",
                                        "conversation": label, "env": "e2e"}
        assert got[label]["annotations"]["conversation_id"] == conv

    # grouped by conversation: every group of these alerts is one conversation's
    groups = [g for g in am.get("/api/v2/alerts/groups")
              if g["alerts"] and g["alerts"][0]["labels"]["alertname"] in (CONTRADICTION,
                                                                           DEGRADING)]
    for group in groups:
        assert list(group["labels"]) == ["conversation"], group["labels"]
        assert {a["labels"]["conversation"] for a in group["alerts"]} == {
            group["labels"]["conversation"]}
        names = {a["labels"]["alertname"] for a in group["alerts"]}
        assert group["receiver"]["name"] == ("skg-page" if names == {CONTRADICTION}
                                             else "skg-warn")
    by_conv = {c.conversation_id for c in certs.values()} | {"am-degrading", "am-recovering"}
    assert len(groups) == len({c.conversation_id for c in certs.values()}) + 2
    assert {g["labels"]["conversation"] for g in groups} == {conversation_label(c)
                                                             for c in by_conv}

    # the page receiver is notified, one notification per conversation, proof included
    explanations = {c.explanation for c in certs.values()}
    notes = until(lambda: (n := webhook.alerts("/skg/page")) and {
        a["annotations"]["explanation"] for _, a in n} >= explanations and n, 30,
        "webhook notifications with every certificate's explanation")
    for note, alert in notes:
        assert note["receiver"] == "skg-page" and note["status"] == "firing"
        assert note["groupLabels"] == {"conversation": alert["labels"]["conversation"]}
        assert alert["labels"]["alertname"] == CONTRADICTION
    until(lambda: {a["labels"]["conversation"] for _, a in webhook.alerts("/skg/warn")}
          >= set(degrading), 30, "webhook notification of both DEGRADING conversations")


def _phase_b(am: AlertmanagerProcess, webhook: Webhook, broker: str, worker: WorkerProcess,
             phases: dict[str, list[TurnEvent]], records: list[Any]) -> None:
    replay(broker, _lines(phases["B"]))
    wait_for_scores(broker, _assistant(phases["A"]) + _assistant(phases["B"]), timeout=60,
                    worker=worker)
    recovered = conversation_label("am-recovering")
    until(lambda: recovered not in am.alerts(DEGRADING), 30,
          "am-recovering's SkgConversationDegrading to be resolved")
    assert conversation_label("am-degrading") in am.alerts(DEGRADING)
    until(lambda: any(note["status"] == "resolved" and a["status"] == "resolved"
                      and a["labels"]["conversation"] == recovered
                      for note, a in webhook.alerts("/skg/warn")), 30,
          "a resolved notification for am-recovering")
    assert _sample(worker, "skg_alertmanager_alerts_posted_total", alertname=DEGRADING,
                   state="resolved") >= 1


def _phase_c(am: AlertmanagerProcess, worker: WorkerProcess, broker: str,
             phases: dict[str, list[TurnEvent]], offline: dict[str, list[Any]]) -> None:
    am.stop()
    replay(broker, _lines(phases["C"]))
    total = sum(_assistant(events) for events in phases.values())
    scores = wait_for_scores(broker, total, timeout=60, worker=worker)  # scoring goes on
    assert len({(s["conversation_id"], s["turn_index"]) for s in scores}) == total
    # the outage certificate is queued when its score is out: the next failed POST held it
    errors_before = worker.metric("skg_alertmanager_post_errors_total")
    until(lambda: worker.metric("skg_alertmanager_post_errors_total") >= errors_before + 2,
          40, "failed posts while Alertmanager is down")
    assert worker.metric("skg_alertmanager_queue_alerts") >= 1
    assert am.proc is not None and am.proc.poll() is not None  # it really was down

    am.start()  # same port, same storage; it remembers no alerts
    [outage] = _page(offline["C"])
    alerts = until(lambda: (a := am.alerts(CONTRADICTION)).get(outage.id) and a, 60,
                   "the certificate raised while Alertmanager was down")
    assert alerts[outage.id]["annotations"]["explanation"] == outage.explanation
    # what still holds is re-posted: the older certificates and am-degrading are back
    assert {c.id for c in _page(offline["A"])} <= alerts.keys()
    assert list(until(lambda: am.alerts(DEGRADING), 30, "re-posted DEGRADING alert")) == [
        conversation_label("am-degrading")]
