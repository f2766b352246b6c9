"""OpenTelemetry out: every turn score and certificate as a `gen_ai.evaluation.result` event.

With `--otlp-endpoint` (SKG_OTLP_ENDPOINT) the worker hands each batch's outcomes here
after their records reached Kafka. Events follow the GenAI semantic conventions'
evaluation event: `gen_ai.evaluation.name`, `gen_ai.evaluation.score.value`,
`gen_ai.evaluation.score.label`, `gen_ai.evaluation.explanation`, plus
`gen_ai.conversation.id` and `skg.*` attributes (turn index, the record id a consumer can
deduplicate on). When the turn came from a span (the OTLP receiver puts its ids in
`metadata.otel`), the event carries that span's trace and span id, so a tracing backend
shows the evaluation under the very call it judges.

Sending goes through the OpenTelemetry SDK (LoggerProvider + BatchLogRecordProcessor +
the OTLP/HTTP log exporter): emitting only queues, a background thread exports, and a slow
or absent collector never holds up scoring (the SDK drops what its queue cannot hold).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from monitor import __version__
from monitor.contracts import ContradictionCertificate, TurnScore
from monitor.engine.pipeline import TurnOutcome

EVENT_NAME = "gen_ai.evaluation.result"


@dataclass(frozen=True)
class Evaluation:
    """One evaluation event, before it is handed to the SDK."""

    name: str
    score: float
    label: str
    explanation: str
    attributes: dict[str, Any] = field(default_factory=dict)
    trace_id: str | None = None  # hex, from the input span
    span_id: str | None = None

    def event_attributes(self) -> dict[str, Any]:
        return {"gen_ai.evaluation.name": self.name,
                "gen_ai.evaluation.score.value": self.score,
                "gen_ai.evaluation.score.label": self.label,
                "gen_ai.evaluation.explanation": self.explanation, **self.attributes}


def span_of(metadata: Mapping[str, Any] | None) -> tuple[str | None, str | None]:
    otel = (metadata or {}).get("otel")
    if not isinstance(otel, Mapping):
        return None, None
    trace_id, span_id = otel.get("trace_id"), otel.get("span_id")
    return (trace_id if isinstance(trace_id, str) else None,
            span_id if isinstance(span_id, str) else None)


def score_evaluation(score: TurnScore, metadata: Mapping[str, Any] | None) -> Evaluation:
    label = "contradiction" if score.certificates else "drift" if score.drift else "ok"
    explanation = (f"quality {score.quality:.3f} (relevance {score.local_relevance:.3f}, "
                   f"consistency {score.consistency:.3f}, logic {score.logic:.3f}); "
                   f"conversation trend {score.trend}")
    trace_id, span_id = span_of(metadata)
    return Evaluation("skg.turn_quality", score.quality, label, explanation, {
        "gen_ai.conversation.id": score.conversation_id, "skg.turn_index": score.turn_index,
        "skg.record.id": score.id, "skg.trend": score.trend, "skg.regime": score.regime,
    }, trace_id, span_id)


def certificate_evaluation(cert: ContradictionCertificate,
                           metadata: Mapping[str, Any] | None) -> Evaluation:
    trace_id, span_id = span_of(metadata)
    return Evaluation("skg.contradiction", cert.confidence, cert.detector, cert.explanation, {
        "gen_ai.conversation.id": cert.conversation_id, "skg.turn_index": cert.turn_index,
        "skg.conflicts_with": cert.conflicts_with, "skg.record.id": cert.id,
        "skg.severity": cert.severity,
    }, trace_id, span_id)


def evaluations(outcomes: Iterable[TurnOutcome]) -> list[Evaluation]:
    """The events of a batch: per outcome its score, then its certificates."""
    out: list[Evaluation] = []
    for outcome in outcomes:
        metadata = outcome.event.metadata
        if outcome.score is not None:
            out.append(score_evaluation(outcome.score, metadata))
        out.extend(certificate_evaluation(c, metadata) for c in outcome.certificates)
    return out


class EvaluationEmitter:
    """The SDK pipeline to one OTLP/HTTP endpoint (base URL; /v1/logs is appended)."""

    def __init__(self, endpoint: str, service_name: str = "skg-monitor") -> None:
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter
        from opentelemetry.sdk._logs import LoggerProvider
        from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
        from opentelemetry.sdk.resources import Resource

        self.provider = LoggerProvider(resource=Resource.create(
            {"service.name": service_name, "service.version": __version__}))
        self.provider.add_log_record_processor(BatchLogRecordProcessor(
            OTLPLogExporter(endpoint=endpoint.rstrip("/") + "/v1/logs")))
        self.logger = self.provider.get_logger("monitor.stream.otel_events", __version__)

    def emit(self, outcomes: Iterable[TurnOutcome]) -> int:
        from opentelemetry import trace
        from opentelemetry.context import Context

        count = 0
        for ev in evaluations(outcomes):
            context = Context()
            if ev.trace_id and ev.span_id:
                parent = trace.SpanContext(int(ev.trace_id, 16), int(ev.span_id, 16),
                                           is_remote=True,
                                           trace_flags=trace.TraceFlags(
                                               trace.TraceFlags.SAMPLED))
                context = trace.set_span_in_context(trace.NonRecordingSpan(parent), context)
            self.logger.emit(event_name=EVENT_NAME, context=context,
                             attributes=ev.event_attributes(), body=ev.explanation)
            count += 1
        return count

    def shutdown(self) -> None:
        self.provider.shutdown()
