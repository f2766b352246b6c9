"""End-to-end observability check (issue 5) with real parts.

Local broker (tansu), one `skg-monitor worker` subprocess and a real Prometheus (Debian's
`prometheus` binary) that scrapes the worker's /metrics every second and evaluates a test
copy of prometheus/alerts.yml (short `for:`, lowered minimum-population guards). A
generated workload with self-contradictions and conversations that drift off-topic is
replayed; then

(a) every PromQL expression of the Grafana dashboards (extracted from the JSON by
    tests/promql.py, so a new panel is covered automatically) returns a non-empty result
    with at least one finite value from that Prometheus, and
(b) the DEGRADING-share and contradiction-rate alerts become pending or firing.

A second, offline test checks that the workload really produces page-severity
certificates and DEGRADING trends with the offline scorer, so a failure of the
end-to-end test is not a silently toothless workload.
"""

from __future__ import annotations

import json
import math
import random
import re
import shutil
import signal
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from monitor.stream.broker import stop_process
from tests.conftest import WorkerProcess, run, stream_settings
from tests.promql import dashboard_exprs

pytestmark = [pytest.mark.broker, pytest.mark.prometheus, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
ALERTS = ROOT / "prometheus" / "alerts.yml"
DASHBOARDS = ROOT / "grafana" / "dashboards"

N_CONVERSATIONS = 30
TEST_FOR = "5s"  # every rule's `for:` in the test copy
TEST_MIN_POPULATION = 5  # replaces guards such as `sum(skg_active_conversations) >= 20`
REPLAY_RATE = 12.0  # lines/s: traffic keeps flowing while the dashboards are queried
WANTED_ALERTS = ("SkgDegradingShareHigh", "SkgContradictionRateHigh")

# ---------------------------------------------------------------------------- workload

_PLACES = [("hotel", "Lisbon"), ("museum", "Porto"), ("restaurant", "Madrid"),
           ("gallery", "Seville"), ("clinic", "Paris"), ("library", "Lyon"),
           ("theatre", "Rome"), ("spa", "Milan"), ("gym", "Berlin"), ("bakery", "Munich")]
_OFF_TOPIC = [
    "Penguins huddle together in the Antarctic winter to keep warm.",
    "The Pythagorean theorem relates the sides of a right triangle.",
    "Volcanic soil is often very fertile for growing grapes.",
    "Jupiter has dozens of moons and a great red spot.",
    "Medieval monks copied manuscripts by candlelight.",
    "Bees communicate the location of flowers with a waggle dance.",
]
# two lines the worker must dead-letter (broken JSON; schema violation)
INVALID_LINES = [
    b'{"conversation_id": "e2e-000", ',
    b'{"conversation_id": "e2e-001", "turn_index": -1, "role": "bot", "text": "x"}',
]


def _conversation(i: int) -> list[dict[str, Any]]:
    """On topic at first (with a grounding document), then the assistant negates a fact
    it stated (turn 7 vs turn 3) and its answers drift off-topic: quality degrades."""
    rng = random.Random(i)
    place, city = _PLACES[i % len(_PLACES)]
    price = 40 + 10 * (i % 7)
    off = rng.sample(_OFF_TOPIC, 4)
    turns: list[tuple[str, str]] = [
        ("user", f"I want to visit the {place} in {city} on Saturday. "
                 f"My budget is {price} euros."),
        ("assistant", f"The {place} in {city} is open on Saturday. The {place} has a garden "
                      f"and the ticket costs {price - 10} euros."),
        ("user", f"Does the {place} in {city} have parking?"),
        ("assistant", f"The {place} has parking for visitors. The {place} in {city} is open "
                      f"on Saturday until 18:00."),
        ("user", f"Great. What else should I know about the {place}?"),
        ("assistant", off[0]),
        ("user", f"Sorry, is the {place} open on Saturday?"),
        ("assistant", f"The {place} does not have parking. {off[1]}"),
        ("user", "That does not answer my question."),
        ("assistant", off[2]),
        ("user", "Hello?"),
        ("assistant", off[3]),
    ]
    events: list[dict[str, Any]] = []
    for t, (role, text) in enumerate(turns):
        event: dict[str, Any] = {"conversation_id": f"e2e-{i:03d}", "turn_index": t,
                                 "role": role, "text": text}
        if t == 1:  # grounded answer -> ConflictScore metrics
            event["documents"] = [
                {"id": "d1", "text": f"The {place} in {city} is open on Saturday."},
                {"id": "d2", "text": f"The {place} is closed on Saturday."},
            ]
        events.append(event)
    return events


def workload_lines(n: int = N_CONVERSATIONS) -> list[bytes]:
    """Conversations interleaved turn by turn (as on a topic), invalid lines mixed in."""
    convs = [_conversation(i) for i in range(n)]
    lines = [json.dumps(conv[t]).encode() for t in range(len(convs[0])) for conv in convs]
    lines.insert(len(lines) // 3, INVALID_LINES[0])
    lines.insert(2 * len(lines) // 3, INVALID_LINES[1])
    return lines


# ------------------------------------------------------------------------- test rules


def _lower_guard(expr: str) -> str:
    """`... and sum(...) >= 20` -> `... and sum(...) >= TEST_MIN_POPULATION`."""
    return re.sub(r"(\band\s+sum\([^\n]*\)\s*>=\s*)\d+(?:\.\d+)?",
                  rf"\g<1>{TEST_MIN_POPULATION}", expr)


def rules_for_test(shipped: Path = ALERTS) -> dict[str, Any]:
    """A copy of the shipped rules with short `for:` and small minimum populations."""
    doc = yaml.safe_load(shipped.read_text(encoding="utf-8"))
    for group in doc["groups"]:
        for rule in group["rules"]:
            if "for" in rule:
                rule["for"] = TEST_FOR
            rule["expr"] = _lower_guard(rule["expr"])
    return doc


def test_rule_copy_changes_only_for_and_guards() -> None:
    shipped = yaml.safe_load(ALERTS.read_text(encoding="utf-8"))
    copy = rules_for_test()
    rules = {r["alert"]: r for g in copy["groups"] for r in g["rules"]}
    orig = {r["alert"]: r for g in shipped["groups"] for r in g["rules"]}
    assert rules.keys() == orig.keys() and set(WANTED_ALERTS) <= rules.keys()
    for name, rule in rules.items():
        assert rule.get("for", TEST_FOR) == TEST_FOR
        assert {k: v for k, v in rule.items() if k not in ("for", "expr")} == \
            {k: v for k, v in orig[name].items() if k not in ("for", "expr")}
    for name in WANTED_ALERTS:
        assert f">= {TEST_MIN_POPULATION}" in rules[name]["expr"], rules[name]["expr"]


# --------------------------------------------------------------------- offline check


def test_workload_produces_certificates_and_degrading_trends() -> None:
    """The workload does what the end-to-end test relies on (offline scorer)."""
    from monitor.config import EngineConfig
    from monitor.contracts import ContradictionCertificate, InvalidInput, TurnScore
    from monitor.runner.offline import parse_lines, score_events

    lines = [ln.decode() for ln in workload_lines()]
    out = score_events(list(parse_lines(lines)), EngineConfig())
    scores = [r for r in out if isinstance(r, TurnScore)]
    certs = [r for r in out if isinstance(r, ContradictionCertificate)]
    assert sum(isinstance(r, InvalidInput) for r in out) == len(INVALID_LINES)
    page = [c for c in certs if c.severity == "page"]
    # contradiction-rate rule: > 10% of assistant turns raise page certificates
    assert len(page) / len(scores) > 0.1, Counter((c.detector, c.severity) for c in certs)
    last = {s.conversation_id: s for s in scores}  # last score per conversation
    degrading = sum(s.trend == "DEGRADING" for s in last.values())
    assert degrading / N_CONVERSATIONS > 0.5, Counter(s.trend for s in last.values())
    assert any(s.conflict is not None for s in scores)


# -------------------------------------------------------------------------- prometheus


class PrometheusProcess:
    def __init__(self, binary: str, workdir: Path, target: str) -> None:
        from monitor.stream.broker import free_port

        self.port = free_port()
        self.workdir = workdir
        workdir.mkdir(parents=True, exist_ok=True)
        (workdir / "alerts.yml").write_text(yaml.safe_dump(rules_for_test(), sort_keys=False),
                                            encoding="utf-8")
        config = {
            "global": {"scrape_interval": "1s", "evaluation_interval": "1s",
                       "scrape_timeout": "1s"},
            "rule_files": [str(workdir / "alerts.yml")],
            "scrape_configs": [{"job_name": "skg-monitor", "metrics_path": "/metrics",
                                "scrape_interval": "1s",
                                "static_configs": [{"targets": [target]}]}],
        }
        (workdir / "prometheus.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
        self.log = workdir / "prometheus.log"
        self.cmd = [binary, f"--config.file={workdir / 'prometheus.yml'}",
                    f"--storage.tsdb.path={workdir / 'tsdb'}",
                    f"--web.listen-address=127.0.0.1:{self.port}"]
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PrometheusProcess:
        out = self.log.open("wb")
        self.proc = subprocess.Popen(self.cmd, cwd=self.workdir, stdout=out,
                                     stderr=subprocess.STDOUT)
        return self

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.proc is not None
            if self.proc.poll() is not None:
                raise AssertionError(f"prometheus exited: {self.log.read_text()[-3000:]}")
            try:
                with urllib.request.urlopen(self.url + "/-/ready", timeout=2) as resp:
                    if resp.status == 200:
                        return
            except (OSError, urllib.error.URLError):
                pass
            time.sleep(0.3)
        raise AssertionError(f"prometheus not ready: {self.log.read_text()[-3000:]}")

    def api(self, path: str, **params: str) -> Any:
        query = ("?" + urllib.parse.urlencode(params)) if params else ""
        try:
            with urllib.request.urlopen(self.url + path + query, timeout=5) as resp:
                body = json.loads(resp.read())
        except urllib.error.HTTPError as exc:  # 400/422: bad query, report the error
            body = json.loads(exc.read())
        assert body.get("status") == "success", (path, params, body)
        return body["data"]

    def kill(self) -> None:
        if self.proc is not None:
            stop_process(self.proc, grace=10)


@pytest.fixture
def prometheus_binary() -> str:
    binary = shutil.which("prometheus")
    if binary is None:
        pytest.skip("the `prometheus` binary is not on PATH (install it with "
                    ".ci/install-prometheus.sh; CI does)")
    return binary


@pytest.fixture
def started(broker: str, prometheus_binary: str, tmp_path: Path
            ) -> Iterator[tuple[WorkerProcess, PrometheusProcess]]:
    worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log")
    prom = PrometheusProcess(prometheus_binary, tmp_path / "prometheus",
                             f"127.0.0.1:{worker.web_port}")
    try:
        worker.start()
        prom.start()
        yield worker, prom
    finally:
        worker.kill(signal.SIGTERM)
        prom.kill()


def _has_finite_value(data: dict[str, Any]) -> bool:
    result = data["result"]
    if data["resultType"] == "scalar":
        return math.isfinite(float(result[1]))
    return any(math.isfinite(float(r["value"][1])) for r in result)


def _alert_states(prom: PrometheusProcess) -> dict[str, set[str]]:
    states: dict[str, set[str]] = {}
    for alert in prom.api("/api/v1/alerts")["alerts"]:
        states.setdefault(alert["labels"]["alertname"], set()).add(alert["state"])
    return states


def test_dashboards_and_alerts_against_real_prometheus(
        broker: str, started: tuple[WorkerProcess, PrometheusProcess], tmp_path: Path) -> None:
    from monitor.stream.clients import replay

    worker, prom = started
    exprs = dashboard_exprs(DASHBOARDS)
    assert len(exprs) >= 10, exprs
    started_at = time.monotonic()
    prom.wait_ready()
    worker.wait_ready(timeout=120)
    ready_s = time.monotonic() - started_at

    lines = workload_lines()
    errors: list[BaseException] = []

    def produce() -> None:
        try:
            run(replay(stream_settings(broker), lines, REPLAY_RATE))
        except BaseException as exc:  # reported by the main thread
            errors.append(exc)

    producer = threading.Thread(target=produce, daemon=True)
    producer.start()

    pending = list(exprs)
    last_result: dict[str, Any] = {}
    alert_seen: dict[str, set[str]] = {}
    deadline = time.monotonic() + 150
    while (pending or set(WANTED_ALERTS) - alert_seen.keys()) and time.monotonic() < deadline:
        assert worker.proc is not None
        if worker.proc.poll() is not None:
            raise AssertionError(f"worker died: {worker.log.read_text()[-3000:]}")
        assert not errors, errors
        for expr in list(pending):
            data = prom.api("/api/v1/query", query=expr)
            last_result[expr] = data
            if data["result"] and _has_finite_value(data):
                pending.remove(expr)
        for name, states in _alert_states(prom).items():
            if name in WANTED_ALERTS and states & {"pending", "firing"}:
                alert_seen.setdefault(name, set()).update(states)
        time.sleep(1.0)
    # with `for: 5s` a pending alert fires soon after: give it a moment (not required)
    soft = min(deadline, time.monotonic() + 15)
    while time.monotonic() < soft and not all(
            "firing" in alert_seen.get(name, ()) for name in WANTED_ALERTS):
        for name, states in _alert_states(prom).items():
            if name in WANTED_ALERTS:
                alert_seen.setdefault(name, set()).update(states)
        time.sleep(1.0)
    producer.join(timeout=60)
    assert not producer.is_alive() and not errors, errors

    # nothing was lost on the way: every valid line scored/counted, every invalid one
    # dead-lettered
    valid = len(lines) - len(INVALID_LINES)
    settle = time.monotonic() + 30
    while time.monotonic() < settle and (worker.metric("skg_turns_total") < valid or
                                         worker.metric("skg_dead_letters_total") < 2):
        time.sleep(0.5)
    assert worker.metric("skg_turns_total") == valid
    assert worker.metric("skg_dead_letters_total") == len(INVALID_LINES)

    context = f"worker ready after {ready_s:.0f}s, {time.monotonic() - started_at:.0f}s in all"
    assert not pending, "dashboard queries without data ({}):\n{}".format(
        context, "\n".join(f"  {e}\n    -> {last_result.get(e)}" for e in pending))
    assert set(WANTED_ALERTS) <= alert_seen.keys(), (
        f"alerts never pending/firing ({context}): seen {alert_seen}; "
        f"rules: {json.dumps(prom.api('/api/v1/rules'))[:3000]}")
    # leave a trace of what was observed (shown with -rA / in the junit report)
    print(f"e2e: {context}; {len(exprs)} dashboard queries returned data; "
          f"alert states {alert_seen}; all alerts now {_alert_states(prom)}")
