"""Ad-hoc speed check of `skg-monitor otlp-receiver` (not a CI test; prints one line).

500 GenAI chat spans (50 conversations, growing history) exported by the OpenTelemetry
SDK (BatchSpanProcessor + OTLP/HTTP) to a receiver producing to a local tansu broker.
Run: .venv/bin/python scripts/otlp_receiver_speed.py
"""
import json
import subprocess
import sys
import time
import urllib.request

from monitor.stream.broker import free_port, start_broker, stop_process, wait_for_port


def _text(role: str, content: str) -> dict[str, object]:
    return {"role": role, "parts": [{"type": "text", "content": content}]}


def main(n: int = 500) -> None:
    bport, rport = free_port(), free_port()
    broker = start_broker(bport)
    rx = subprocess.Popen(
        [sys.executable, "-m", "monitor.cli", "otlp-receiver", "--broker",
         f"kafka://127.0.0.1:{bport}", "--port", str(rport), "--local-broker"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for_port(rport, 60)
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(
            OTLPSpanExporter(endpoint=f"http://127.0.0.1:{rport}/v1/traces")))
        tracer = provider.get_tracer("x")
        start = time.perf_counter()
        for i in range(n):
            with tracer.start_as_current_span("chat") as span:
                span.set_attribute("gen_ai.conversation.id", f"c{i % 50}")
                history = [_text("user" if k % 2 == 0 else "assistant",
                                 f"message {k} of the chat") for k in range(2 * (i // 50) + 1)]
                span.set_attribute("gen_ai.input.messages", json.dumps(history))
                span.set_attribute("gen_ai.output.messages",
                                   json.dumps([_text("assistant", "answer")]))
        provider.force_flush()
        elapsed = time.perf_counter() - start
        body = urllib.request.urlopen(f"http://127.0.0.1:{rport}/metrics").read().decode()
        print({line.split(" ")[0]: line.split(" ")[1] for line in body.splitlines()
               if line.startswith("skg_otlp_") and "_created" not in line})
        print(f"{n} spans in {elapsed:.2f} s = {n / elapsed:.0f} spans/s end to end "
              "(export + receive + produce)")
        provider.shutdown()
    finally:
        stop_process(rx)
        broker.kill()


if __name__ == "__main__":
    main()
