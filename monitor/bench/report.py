"""Benchmark: a report of many conversations, its size and how fast Chromium opens it.

The conversations are real scored records (e.g. `skg-monitor score` of MT-Bench-101 turns,
see scripts/mtbench_events.py); when the input has fewer than asked for, its conversations
are repeated under new ids, so the page has the size and shape of a real fleet's report.
Opening is timed three times in a fresh page each: wall time until the load event,
the browser's own navigation timing, and first contentful paint; then the time from a
click in the index until the worst conversation's section is shown.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from monitor.report.browser import chromium
from monitor.report.model import build_reports, read_records
from monitor.report.render import render_report

RUNS = 3
TARGET_OPEN_S = 3.0
TARGET_MB = 10.0


def replicate(score_lines: list[str], event_lines: list[str],
              conversations: int) -> tuple[list[str], list[str]]:
    """Records of exactly `conversations` conversations, repeating the input's under new ids."""
    def cid(line: str) -> str:
        return str(json.loads(line)["conversation_id"])

    ids = list(dict.fromkeys(cid(line) for line in score_lines if line.strip()))
    if not ids:
        raise ValueError("no conversations in the scores")
    by_cid: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
        i: ([], []) for i in ids}
    for line in score_lines:
        if line.strip():
            record = json.loads(line)
            if record.get("conversation_id") in by_cid:
                by_cid[record["conversation_id"]][0].append(record)
    for line in event_lines:
        if line.strip():
            event = json.loads(line)
            if event["conversation_id"] in by_cid:
                by_cid[event["conversation_id"]][1].append(event)
    scores: list[str] = []
    events: list[str] = []
    for n in range(conversations):
        source = ids[n % len(ids)]
        copy = n // len(ids)
        new_id = source if copy == 0 else f"{source}#{copy}"
        records, turns = by_cid[source]
        scores += [json.dumps({**r, "conversation_id": new_id}) for r in records]
        events += [json.dumps({**e, "conversation_id": new_id}) for e in turns]
    return scores, events


def run_report_bench(scores: Path, events: Path | None, conversations: int) -> dict[str, Any]:
    score_lines = scores.read_text(encoding="utf-8").splitlines()
    event_lines = events.read_text(encoding="utf-8").splitlines() if events else []
    source_conversations = len({json.loads(line)["conversation_id"]
                                for line in score_lines if line.strip()})
    score_lines, event_lines = replicate(score_lines, event_lines, conversations)

    started = time.perf_counter()
    reports = build_reports(read_records(score_lines, str(scores), event_lines))
    html = render_report(reports)
    render_s = time.perf_counter() - started

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_text(html, encoding="utf-8")
        size = path.stat().st_size
        loads: list[float] = []
        timings: list[dict[str, float]] = []
        open_ms: list[float] = []
        errors: list[str] = []
        with chromium() as browser:
            version = browser.version
            for _ in range(RUNS):
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                page.on("console", lambda m: errors.append(m.text) if m.type == "error"
                        else None)
                page.on("pageerror", lambda e: errors.append(str(e)))
                t0 = time.perf_counter()
                page.goto(path.as_uri(), wait_until="load")
                loads.append(time.perf_counter() - t0)
                timings.append(page.evaluate("""() => {
                    const n = performance.getEntriesByType('navigation')[0];
                    const p = performance.getEntriesByName('first-contentful-paint')[0];
                    return {dom_content_loaded_ms: n.domContentLoadedEventEnd,
                            load_event_ms: n.loadEventEnd,
                            first_contentful_paint_ms: p ? p.startTime : -1};
                }"""))
                t1 = time.perf_counter()
                page.locator("#index-table tbody tr a").first.click()
                page.locator("section.conv:visible svg.chart").first.wait_for()
                open_ms.append((time.perf_counter() - t1) * 1000)
                page.close()

    def median(key: str) -> float:
        return round(statistics.median(t[key] for t in timings), 1)

    open_s = max(loads)
    return {
        "conversations": len(reports),
        "source_conversations": source_conversations,
        "source": str(scores),
        "scored_turns": sum(len(r.scores) for r in reports),
        "transcript_turns": sum(len(r.turns) for r in reports),
        "certificates": sum(len(r.certificates) for r in reports),
        "html_bytes": size,
        "html_mb": round(size / 1e6, 2),
        "render_s": round(render_s, 2),
        "open_wall_s_runs": [round(v, 3) for v in loads],
        "open_wall_s_max": round(open_s, 3),
        "dom_content_loaded_ms_median": median("dom_content_loaded_ms"),
        "load_event_ms_median": median("load_event_ms"),
        "first_contentful_paint_ms_median": median("first_contentful_paint_ms"),
        "open_conversation_ms_median": round(statistics.median(open_ms), 1),
        "console_errors": len(errors),
        "chromium": version,
        "load_average_1m": round(os.getloadavg()[0], 2),  # the machine is shared: context
        "targets": {"open_s": TARGET_OPEN_S, "html_mb": TARGET_MB},
        "meets_targets": open_s < TARGET_OPEN_S and size / 1e6 < TARGET_MB and not errors,
    }
