"""OpenTelemetry in and out with the real packages on both ends.

The OpenTelemetry SDK's own OTLP/HTTP span exporter sends GenAI chat spans to
`skg-monitor otlp-receiver`; a worker on the local tansu broker scores them (scores equal
the offline scores of the same turns); the worker's `gen_ai.evaluation.result` events,
sent by the SDK's OTLP/HTTP log exporter, arrive at an OTLP/HTTP endpoint this test runs,
parented to the input spans.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
    ExportLogsServiceRequest,
    ExportLogsServiceResponse,
)

from monitor.contracts import TurnEvent, TurnScore, dump_record
from monitor.stream.broker import free_port, stop_process, wait_for_port
from tests.conftest import WorkerProcess, serve_local
from tests.test_stream import canonical, consume, wait_for_scores

pytestmark = pytest.mark.broker

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples" / "conversations.jsonl"
README_WORKER = "skg-monitor worker --broker kafka://127.0.0.1:9092 --local-broker --otlp-endpoint"


class OtlpLogSink:
    """An OTLP/HTTP logs endpoint (POST /v1/logs, protobuf) that keeps what it receives."""

    def __init__(self) -> None:
        self.records: list[Any] = []  # (resource attributes, LogRecord)
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers["Content-Length"]))
                if self.headers.get("Content-Encoding") == "gzip":
                    body = gzip.decompress(body)
                request = ExportLogsServiceRequest.FromString(body)
                for rl in request.resource_logs:
                    for sl in rl.scope_logs:
                        sink.records.extend(sl.log_records)
                reply = ExportLogsServiceResponse().SerializeToString()
                self.send_response(200 if self.path == "/v1/logs" else 404)
                self.send_header("Content-Type", "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def log_message(self, *args: Any) -> None:
                pass

        self.server, self.url = serve_local(Handler)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def receiver(broker: str, tmp_path: Path) -> Iterator[str]:
    """`skg-monitor otlp-receiver` as a subprocess; yields its base URL."""
    port = free_port()
    log = (tmp_path / "receiver.log").open("wb")
    proc = subprocess.Popen([sys.executable, "-m", "monitor.cli", "otlp-receiver", "--broker",
                             broker, "--port", str(port), "--local-broker"], cwd=ROOT,
                            stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port, timeout=60)
        yield f"http://127.0.0.1:{port}"
    finally:
        stop_process(proc)


def _parts(role: str, text: str) -> dict[str, Any]:
    return {"role": role, "parts": [{"type": "text", "content": text}]}


def _metric(url: str, name: str, label: str) -> float:
    with urllib.request.urlopen(url + "/metrics", timeout=5) as resp:
        text = resp.read().decode()
    for line in text.splitlines():
        labelled = line.startswith(f"{name}{{") and label in line
        if labelled or (not label and line.startswith(f"{name} ")):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def send_chat_spans(endpoint: str, cid: str, rows: list[dict[str, Any]]) -> dict[int, Any]:
    """One `chat` span per assistant turn, as an instrumented app would export them; the
    last one in the older per-message event form. Returns turn index -> span context."""
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.trace import SpanKind

    provider = TracerProvider(resource=Resource.create({"service.name": "chat-app"}))
    provider.add_span_processor(SimpleSpanProcessor(OTLPSpanExporter(endpoint=endpoint)))
    tracer = provider.get_tracer("chat-app")
    contexts: dict[int, Any] = {}
    answers = [i for i, r in enumerate(rows) if r["role"] == "assistant"]
    with tracer.start_as_current_span("handle request"):  # a parent, not a GenAI span
        for i in answers:
            with tracer.start_as_current_span("chat gpt-4o", kind=SpanKind.CLIENT) as span:
                span.set_attribute("gen_ai.operation.name", "chat")
                span.set_attribute("gen_ai.provider.name", "openai")
                span.set_attribute("gen_ai.conversation.id", cid)
                history = rows[:i]
                if i != answers[-1]:
                    span.set_attribute("gen_ai.input.messages", json.dumps(
                        [_parts(r["role"], r["text"]) for r in history]))
                    span.set_attribute("gen_ai.output.messages", json.dumps(
                        [{**_parts("assistant", rows[i]["text"]), "finish_reason": "stop"}]))
                else:
                    for r in history:
                        span.add_event(f"gen_ai.{r['role']}.message", {"content": r["text"]})
                    span.add_event("gen_ai.choice", {"gen_ai.event.content": json.dumps(
                        {"index": 0, "finish_reason": "stop",
                         "message": {"role": "assistant", "content": rows[i]["text"]}})})
                contexts[i] = span.get_span_context()
                contexts[i - 1] = contexts[i]  # the user turn arrived with this span
        # spans the receiver must count and drop, without failing the export
        with tracer.start_as_current_span("chat no-id") as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.input.messages", json.dumps([_parts("user", "Hi")]))
        with tracer.start_as_current_span("chat no-content") as span:
            span.set_attribute("gen_ai.operation.name", "chat")
            span.set_attribute("gen_ai.conversation.id", cid)
    provider.shutdown()
    return contexts


def test_genai_spans_in_scores_out_and_evaluation_events_parented_to_the_spans(
        broker: str, receiver: str, workers: list[WorkerProcess], tmp_path: Path) -> None:
    from monitor.config import EngineConfig
    from monitor.runner.offline import score_events

    cid = "trip-lisbon"
    rows = [json.loads(ln) for ln in EXAMPLES.read_text().splitlines()
            if json.loads(ln)["conversation_id"] == cid]
    sink = OtlpLogSink()
    try:
        assert README_WORKER in (ROOT / "README.md").read_text()
        worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log",
                               extra_args=["--otlp-endpoint", sink.url]).start()
        workers.append(worker)
        worker.wait_ready()
        spans = send_chat_spans(receiver + "/v1/traces", cid, rows)

        # the receiver counted and dropped the spans it could not use, with their reasons
        assert _metric(receiver, "skg_otlp_spans_total", 'result="turns"') == 4
        assert _metric(receiver, "skg_otlp_spans_total", 'result="no_conversation_id"') == 1
        assert _metric(receiver, "skg_otlp_spans_total", 'result="no_content"') == 1
        assert _metric(receiver, "skg_otlp_spans_total", 'result="not_genai"') == 1
        assert _metric(receiver, "skg_otlp_turns_produced_total", "") == 8  # none twice

        scores = wait_for_scores(broker, 4, timeout=90, worker=worker)
        # the same scores as offline scoring of the same turns (with the span ids)
        events = [TurnEvent(conversation_id=cid, turn_index=r["turn_index"], role=r["role"],
                            text=r["text"], metadata={"otel": {
                                "trace_id": format(spans[i].trace_id, "032x"),
                                "span_id": format(spans[i].span_id, "016x")}})
                  for i, r in enumerate(rows)]
        offline = [r for r in score_events([(1, e) for e in events], EngineConfig())
                   if isinstance(r, TurnScore)]
        assert sorted(canonical(s) for s in scores) == sorted(
            canonical(json.loads(dump_record(r))) for r in offline)
        certs = consume(broker, "skg.certificates", until_idle=1.0)
        # turn 7 says the hotel has parking (turn 5: it has none) and that the user's budget
        # is 1,000 GBP (turn 0: 600 GBP max)
        assert sorted((c["turn_index"], c["detector"]) for c in certs) == [
            (7, "negation"), (7, "user_fact")]

        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(sink.records) < 6:
            time.sleep(0.5)
    finally:
        sink.close()
    records = list(sink.records)
    assert len(records) == 6  # 4 turn scores + 2 certificates
    by_id = {}
    for rec in records:
        attrs = {kv.key: kv.value for kv in rec.attributes}
        assert rec.event_name == "gen_ai.evaluation.result"
        by_id[attrs["skg.record.id"].string_value] = (rec, attrs)
    for s in scores:
        rec, attrs = by_id[s["id"]]
        span = spans[s["turn_index"]]
        assert rec.trace_id == span.trace_id.to_bytes(16, "big")
        assert rec.span_id == span.span_id.to_bytes(8, "big")
        assert attrs["gen_ai.evaluation.name"].string_value == "skg.turn_quality"
        assert attrs["gen_ai.evaluation.score.value"].double_value == s["quality"]
        assert attrs["gen_ai.conversation.id"].string_value == cid
    for cert in certs:
        rec, attrs = by_id[cert["id"]]
        assert attrs["gen_ai.evaluation.score.label"].string_value == cert["detector"]
        assert attrs["gen_ai.evaluation.explanation"].string_value == cert["explanation"]
        assert rec.span_id == spans[7].span_id.to_bytes(8, "big")


README_RECEIVER = ("curl -s http://127.0.0.1:4318/v1/traces -H 'Content-Type: application/json' "
                   "--data-binary @examples/otlp_genai_spans.json")


def _post(url: str, body: bytes, content_type: str) -> tuple[int, bytes]:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": content_type})
    try:
        with urllib.request.urlopen(request, timeout=30) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def test_readme_otlp_json_example_partial_success_and_bad_requests(
        broker: str, receiver: str) -> None:
    readme = (ROOT / "README.md").read_text()
    assert README_RECEIVER in readme
    body = (ROOT / "examples" / "otlp_genai_spans.json").read_bytes()
    status, reply = _post(receiver + "/v1/traces", body, "application/json")
    assert status == 200
    partial = json.loads(reply)["partialSuccess"]
    assert partial["rejectedSpans"] == "1"  # int64 is a string in protobuf's JSON mapping
    assert "has no gen_ai.conversation.id attribute" in partial["errorMessage"]
    turns = consume(broker, "skg.turns", until_idle=1.0)
    assert [(t["turn_index"], t["role"]) for t in turns] == [(0, "user"), (1, "assistant")]
    assert {t["metadata"]["otel"]["span_id"] for t in turns} == {"eee19b7ec3c1b174"}
    assert turns[0]["metadata"]["otel"]["trace_id"] == "5b8efff798038103d269b633813fc60c"
    # the same request again adds nothing; broken requests are refused, nothing crashes
    assert _post(receiver + "/v1/traces", body, "application/json")[0] == 200
    assert _post(receiver + "/v1/traces", b"{not json", "application/json")[0] == 400
    assert _post(receiver + "/v1/traces", b"\xff\x01garbage", "application/x-protobuf")[0] == 400
    assert _post(receiver + "/v1/traces", body, "text/plain")[0] == 415
    # protobuf, gzip-compressed (what the SDK exporters send with compression on)
    from monitor.stream.otlp_receiver import decode_request

    packed = gzip.compress(decode_request(body, "application/json").SerializeToString())
    request = urllib.request.Request(receiver + "/v1/traces", data=packed, method="POST", headers={
        "Content-Type": "application/x-protobuf", "Content-Encoding": "gzip"})
    with urllib.request.urlopen(request, timeout=30) as resp:
        assert resp.status == 200
    assert len(consume(broker, "skg.turns", until_idle=1.0)) == 2
    assert _metric(receiver, "skg_otlp_requests_total", 'status="400"') == 2


def test_receiver_answers_503_when_turns_cannot_be_produced() -> None:
    """The exporter must retry, not lose the spans: no acknowledgement without Kafka's."""
    from aiohttp import web
    from aiohttp.test_utils import TestClient, TestServer

    from monitor.kafka.settings import StreamSettings
    from monitor.stream.otlp_receiver import OtlpReceiver

    body = (ROOT / "examples" / "otlp_genai_spans.json").read_bytes()

    async def go() -> int:
        receiver = OtlpReceiver(StreamSettings(broker="kafka://127.0.0.1:1"))
        app = web.Application()
        app.router.add_post("/v1/traces", receiver.traces)  # its producer never started
        async with TestClient(TestServer(app)) as client:
            reply = await client.post("/v1/traces", data=body,
                                      headers={"Content-Type": "application/json"})
            return reply.status

    assert asyncio.run(go()) == 503
