"""`skg-monitor otlp-receiver`: OTLP/HTTP traces in, TurnEvents out to `skg.turns`.

Any OpenTelemetry SDK or Collector can export to it (`POST /v1/traces`, protobuf or JSON,
optionally gzip). Requests are decoded with the official `opentelemetry-proto` messages;
each GenAI span becomes turns (`monitor.formats.otel`), produced with `AsyncTurnClient`
(validated, keyed by conversation id, only turns newer than those already sent). The
response waits for the broker's acknowledgement: if Kafka is unavailable the exporter gets
503 and retries, so no span is acknowledged and lost.

With `SKG_OTLP_TOKEN` set, an export needs `Authorization: Bearer <token>` (401 without).
Bad input is never a 5xx: an unreadable body is 400 (nothing to retry), and a span that
cannot be read, whatever is wrong in it, is one rejected span of a 200 answer.

A span is never a reason to fail a request. Spans that are not GenAI spans are counted and
ignored; GenAI spans without a conversation id or without message text are counted by
reason, dropped, and reported back in the OTLP `partial_success` (rejected_spans and the
first reasons), as the protocol asks.
"""

from __future__ import annotations

import base64
import json
import logging
from typing import Any

from aiohttp import web
from google.protobuf import json_format
from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span
from prometheus_client import CONTENT_TYPE_LATEST, Counter, generate_latest

from monitor.client import AsyncTurnClient
from monitor.formats.otel import is_genai, span_turns
from monitor.inputs import InputError
from monitor.kafka.settings import StreamSettings
from monitor.stream.http import token_matches

log = logging.getLogger(__name__)

PROTOBUF = "application/x-protobuf"
JSON = "application/json"
ID_FIELDS = {"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"}
MAX_REASONS = 5

SPANS = Counter("skg_otlp_spans", "Spans received, by what became of them (turns, or the "
                "reason they were dropped or ignored)", ["result"])
TURNS = Counter("skg_otlp_turns_produced", "Turns the receiver produced to the input topic")
REQUESTS = Counter("skg_otlp_requests", "OTLP export requests, by HTTP status", ["status"])


def _hex_ids_to_base64(node: Any) -> Any:
    """OTLP/JSON writes trace and span ids as hex; protobuf's JSON mapping wants base64."""
    if isinstance(node, dict):
        return {k: (base64.b64encode(bytes.fromhex(v)).decode("ascii")
                    if k in ID_FIELDS and isinstance(v, str) else _hex_ids_to_base64(v))
                for k, v in node.items()}
    if isinstance(node, list):
        return [_hex_ids_to_base64(v) for v in node]
    return node


def decode_request(body: bytes, content_type: str) -> ExportTraceServiceRequest:
    """An ExportTraceServiceRequest from an OTLP/HTTP body; ValueError if unreadable (and
    nothing else: nesting deep enough to exhaust the stack is unreadable too)."""
    request = ExportTraceServiceRequest()
    if content_type == PROTOBUF:
        try:
            request.ParseFromString(body)
        except (DecodeError, RecursionError, ValueError) as exc:
            raise ValueError(f"not an OTLP protobuf ExportTraceServiceRequest: {exc}") from exc
        return request
    try:
        data = _hex_ids_to_base64(json.loads(body))
        json_format.ParseDict(data, request, ignore_unknown_fields=True)
    except RecursionError as exc:
        raise ValueError("not an OTLP/JSON ExportTraceServiceRequest: nested too deeply"
                         ) from exc
    except (ValueError, TypeError, AttributeError, json_format.ParseError) as exc:
        raise ValueError(f"not an OTLP/JSON ExportTraceServiceRequest: {exc}") from exc
    return request


def encode_response(response: ExportTraceServiceResponse, content_type: str) -> bytes:
    if content_type == PROTOBUF:
        return response.SerializeToString()
    return json_format.MessageToJson(response, indent=None).encode("utf-8")


class OtlpReceiver:
    """The HTTP handlers around one AsyncTurnClient."""

    def __init__(self, settings: StreamSettings) -> None:
        self.settings = settings
        self.client = AsyncTurnClient(settings)

    def web_app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/traces", self.traces)
        app.router.add_get("/metrics", self.metrics)
        app.router.add_get("/healthz", self.healthz)

        async def start_client(_: web.Application) -> None:
            await self.client.start()

        async def stop_client(_: web.Application) -> None:
            await self.client.stop()

        app.on_startup.append(start_client)
        app.on_cleanup.append(stop_client)
        return app

    async def traces(self, request: web.Request) -> web.Response:
        token = self.settings.otlp_token
        if token is not None and token.get_secret_value() and not token_matches(
                request.headers.get("Authorization"), token.get_secret_value()):
            REQUESTS.labels(status="401").inc()
            return web.Response(status=401, text="unauthorized",
                                headers={"WWW-Authenticate": 'Bearer realm="skg-monitor"'})
        content_type = request.content_type
        if content_type not in {PROTOBUF, JSON}:
            REQUESTS.labels(status="415").inc()
            return web.Response(status=415, text=f"use {PROTOBUF} or {JSON}")
        try:
            body = await request.read()  # aiohttp undoes Content-Encoding gzip / deflate
            export = decode_request(body, content_type)
        except ValueError as exc:
            REQUESTS.labels(status="400").inc()
            return web.Response(status=400, text=str(exc)[:1000])
        try:
            rejected, reasons = await self.export(export)
        except Exception as exc:  # the broker: let the exporter retry the whole request
            log.exception("could not produce turns")
            REQUESTS.labels(status="503").inc()
            return web.Response(status=503, text=f"could not produce turns: {exc}"[:1000])
        response = ExportTraceServiceResponse()
        if rejected:
            response.partial_success.rejected_spans = rejected
            response.partial_success.error_message = "; ".join(reasons[:MAX_REASONS])
        REQUESTS.labels(status="200").inc()
        return web.Response(body=encode_response(response, content_type),
                            content_type=content_type)

    async def export(self, export: ExportTraceServiceRequest) -> tuple[int, list[str]]:
        """Produce the turns of every GenAI span (one round trip to the broker for the
        whole request); (spans rejected, their reasons)."""
        spans: list[Span] = [span for resource in export.resource_spans
                             for scope in resource.scope_spans for span in scope.spans]
        spans.sort(key=lambda s: (s.start_time_unix_nano, s.end_time_unix_nano))
        rejected, reasons, turns = 0, [], []
        for span in spans:
            if not is_genai(span):
                SPANS.labels(result="not_genai").inc()
                continue
            try:
                got = span_turns(span)
                reason, detail = got.reason, got.detail
                if reason is None:
                    self.client.check_size(got.turns)
            except InputError as exc:
                reason, detail = exc.kind, f"span {span.name!r}: {exc}"
            except Exception as exc:  # a reader bug: this span is dropped, not the request
                log.exception("could not read span %r", span.name)
                reason, detail = "unreadable", f"span {span.name!r}: {type(exc).__name__}"
            if reason is None:
                SPANS.labels(result="turns").inc()
                turns.extend(got.turns)
                continue
            SPANS.labels(result=reason).inc()
            rejected += 1
            reasons.append(detail)
            log.info("dropped span (%s): %s", reason, detail)
        if turns:
            TURNS.inc(len(await self.client.send_new_turns(turns)))
        return rejected, reasons

    async def metrics(self, request: web.Request) -> web.Response:
        return web.Response(body=generate_latest(),
                            content_type=CONTENT_TYPE_LATEST.split(";")[0],
                            charset="utf-8")

    async def healthz(self, request: web.Request) -> web.Response:
        return web.json_response({"status": "ok"})


def run_receiver(settings: StreamSettings, host: str, port: int) -> None:
    """Serve until interrupted."""
    web.run_app(OtlpReceiver(settings).web_app(), host=host, port=port, print=None)
