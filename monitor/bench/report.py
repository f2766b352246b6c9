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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from monitor.bench.jsonl import parse_jsonl
from monitor.report.browser import chromium
from monitor.report.model import build_reports, read_records
from monitor.report.render import render_report

RUNS = 3
TARGET_OPEN_S = 3.0
TARGET_MB = 10.0


def replicate(score_lines: list[str], event_lines: list[str],
              conversations: int) -> tuple[list[str], list[str]]:
    """Records of exactly `conversations` conversations, repeating the input's under new ids."""
    records_in = list(parse_jsonl(score_lines))
    ids = list(dict.fromkeys(str(r["conversation_id"]) for r in records_in))
    if not ids:
        raise ValueError("no conversations in the scores")
    by_cid: dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]] = {
        i: ([], []) for i in ids}
    for record in records_in:
        if record.get("conversation_id") in by_cid:
            by_cid[record["conversation_id"]][0].append(record)
    for event in parse_jsonl(event_lines):
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


@dataclass
class Openings:
    """What opening the page `RUNS` times measured."""

    chromium: str
    loads: list[float] = field(default_factory=list)
    """wall seconds until the load event, one per run"""
    timings: list[dict[str, float]] = field(default_factory=list)
    """the browser's navigation timing and first contentful paint, one per run"""
    open_ms: list[float] = field(default_factory=list)
    """click in the index -> the conversation's chart shown, one per run"""
    errors: list[str] = field(default_factory=list)
    """console and page errors, all runs"""

    def median(self, key: str) -> float:
        return round(statistics.median(t[key] for t in self.timings), 1)


_NAVIGATION_TIMING = """() => {
    const n = performance.getEntriesByType('navigation')[0];
    const p = performance.getEntriesByName('first-contentful-paint')[0];
    return {dom_content_loaded_ms: n.domContentLoadedEventEnd,
            load_event_ms: n.loadEventEnd,
            first_contentful_paint_ms: p ? p.startTime : -1};
}"""


def _open_once(browser: Any, uri: str, seen: Openings) -> None:
    """Open the page in a fresh tab, then a conversation from the index; add to `seen`."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: seen.errors.append(str(e)))
    t0 = time.perf_counter()
    page.goto(uri, wait_until="load")
    seen.loads.append(time.perf_counter() - t0)
    seen.timings.append(page.evaluate(_NAVIGATION_TIMING))
    t1 = time.perf_counter()
    page.locator("#index-table tbody tr a").first.click()
    page.locator("section.conv:visible svg.chart").first.wait_for()
    seen.open_ms.append((time.perf_counter() - t1) * 1000)
    page.close()


def time_openings(path: Path) -> Openings:
    """Open the page at `path` `RUNS` times in headless Chromium."""
    with chromium() as browser:
        seen = Openings(chromium=browser.version)
        for _ in range(RUNS):
            _open_once(browser, path.as_uri(), seen)
    return seen


def run_report_bench(scores: Path, events: Path | None, conversations: int) -> dict[str, Any]:
    score_lines = scores.read_text(encoding="utf-8").splitlines()
    event_lines = events.read_text(encoding="utf-8").splitlines() if events else []
    source_conversations = len({row["conversation_id"] for row in parse_jsonl(score_lines)})
    score_lines, event_lines = replicate(score_lines, event_lines, conversations)

    started = time.perf_counter()
    reports = build_reports(read_records(score_lines, str(scores), event_lines))
    html = render_report(reports)
    render_s = time.perf_counter() - started

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "report.html"
        path.write_text(html, encoding="utf-8")
        size = path.stat().st_size
        seen = time_openings(path)

    open_s = max(seen.loads)
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
        "open_wall_s_runs": [round(v, 3) for v in seen.loads],
        "open_wall_s_max": round(open_s, 3),
        "dom_content_loaded_ms_median": seen.median("dom_content_loaded_ms"),
        "load_event_ms_median": seen.median("load_event_ms"),
        "first_contentful_paint_ms_median": seen.median("first_contentful_paint_ms"),
        "open_conversation_ms_median": round(statistics.median(seen.open_ms), 1),
        "console_errors": len(seen.errors),
        "chromium": seen.chromium,
        "load_average_1m": round(os.getloadavg()[0], 2),  # the machine is shared: context
        "targets": {"open_s": TARGET_OPEN_S, "html_mb": TARGET_MB},
        "meets_targets": (open_s < TARGET_OPEN_S and size / 1e6 < TARGET_MB
                          and not seen.errors),
    }
