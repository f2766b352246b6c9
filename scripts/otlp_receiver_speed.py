"""Ad-hoc speed check of `skg-monitor otlp-receiver` (not a CI test; prints one line).

500 GenAI chat spans (50 conversations, growing history) exported by the OpenTelemetry
SDK (BatchSpanProcessor + OTLP/HTTP) to a receiver producing to a local tansu broker.
Run: .venv/bin/python scripts/otlp_receiver_speed.py
"""
import json, subprocess, sys, time, urllib.request
from monitor.stream.broker import free_port, start_broker, wait_for_port, stop_process
bport, rport = free_port(), free_port()
broker = start_broker(bport)
rx = subprocess.Popen([sys.executable, "-m", "monitor.cli", "otlp-receiver", "--broker", f"kafka://127.0.0.1:{bport}", "--port", str(rport), "--local-broker"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    wait_for_port(rport, 60)
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor
    p = TracerProvider(); p.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=f"http://127.0.0.1:{rport}/v1/traces")))
    t = p.get_tracer("x"); n = 500
    start = time.perf_counter()
    for i in range(n):
        with t.start_as_current_span("chat") as s:
            s.set_attribute("gen_ai.conversation.id", f"c{i % 50}")
            hist = [{"role": "user" if k % 2 == 0 else "assistant", "parts": [{"type": "text", "content": f"message {k} of the chat"}]} for k in range(2 * (i // 50) + 1)]
            s.set_attribute("gen_ai.input.messages", json.dumps(hist))
            s.set_attribute("gen_ai.output.messages", json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": "answer"}]}]))
    p.force_flush(); elapsed = time.perf_counter() - start
    body = urllib.request.urlopen(f"http://127.0.0.1:{rport}/metrics").read().decode()
    print({l.split(" ")[0]: l.split(" ")[1] for l in body.splitlines() if l.startswith("skg_otlp_") and "_created" not in l})
    print(f"{n} spans in {elapsed:.2f} s = {n/elapsed:.0f} spans/s end to end (export + receive + produce)")
    p.shutdown()
finally:
    stop_process(rx); broker.kill()
