"""The report in real headless Chromium (Debian's package, driven by playwright).

The examples are scored by the same function as `skg-monitor score`, rendered, opened,
screenshotted, and checked for the chart, the certificate cards, the graph and a silent
console; a report fed with script tags, HTML and javascript: links must run none of them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from monitor.contracts import ContradictionCertificate, dump_record
from monitor.report import build_reports, read_records, render_report
from monitor.report.browser import CHROMIUM, chromium

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples" / "conversations.jsonl"

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM),
                                reason=f"no Chromium at {CHROMIUM} (.ci/install-chromium.sh)")


@pytest.fixture(scope="module")
def scored() -> list[str]:
    from monitor.config import EngineConfig
    from monitor.runner.offline import parse_lines, score_events

    items = list(parse_lines(EXAMPLES.read_text(encoding="utf-8").splitlines()))
    return [dump_record(r) for r in score_events(items, EngineConfig())]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def open_page(browser: Any, path: Path, fragment: str = "") -> tuple[Any, list[str]]:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    problems: list[str] = []
    page.on("console", lambda m: problems.append(f"{m.type}: {m.text}")
            if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(f"pageerror: {e}"))
    page.on("request", lambda r: problems.append(f"request: {r.url}")
            if not r.url.startswith(("file:", "data:", "about:")) else None)
    page.goto(path.as_uri() + fragment, wait_until="load")
    return page, problems


def test_examples_report_in_chromium(scored: list[str], browser: Any,
                                     tmp_path: Path) -> None:
    certs = [ContradictionCertificate.model_validate_json(line) for line in scored
             if json.loads(line)["type"] == "certificate"]
    assert certs, "the examples are expected to raise at least one certificate"
    cid = certs[0].conversation_id
    reports = build_reports(read_records(scored, events=EXAMPLES.read_text().splitlines()))
    html = tmp_path / "report.html"
    html.write_text(render_report(reports), encoding="utf-8")

    page, problems = open_page(browser, html)
    rows = page.locator("#index-table tbody tr")
    assert rows.count() == len(reports) == 5
    # sortable: certificates, most first
    page.click("button[data-sort=certs]")
    first = rows.nth(0).get_attribute("data-certs")
    assert int(first or 0) == max(len(r.certificates) for r in reports)
    page.click("button[data-sort=worst]")
    page.click("button[data-sort=worst]")
    worst = [float(rows.nth(i).get_attribute("data-worst") or 0) for i in range(5)]
    assert worst == sorted(worst, reverse=True)

    page.fill("#filter", cid[:6].upper())
    visible = page.locator("#index-table tbody tr:visible")
    assert 1 <= visible.count() < 5 and cid in visible.all_inner_texts()[0]
    page.get_by_role("link", name=cid, exact=True).click()
    page.wait_for_selector("section.conv:visible", timeout=5_000)  # shown on hashchange
    section = page.locator("section.conv:visible")
    assert section.count() == 1
    assert not page.locator("#index").is_visible()
    assert section.locator("svg.chart path.series").count() == 5
    assert section.locator("svg.chart circle.dot").count() == sum(
        1 for r in reports if r.conversation_id == cid for _ in r.scores)
    cards = section.locator("article.cert-card")
    # cards in the order of the conversation: by turn, then by the turn each one conflicts with
    mine = sorted((c for c in certs if c.conversation_id == cid),
                  key=lambda c: (c.turn_index, c.conflicts_with, c.id))
    assert cards.count() == len(mine)
    assert cards.first.locator("blockquote mark").count() >= 2
    for i, cert in enumerate(mine):
        assert cert.explanation in cards.nth(i).inner_text()
    assert section.locator("svg.kg g.node").count() >= 2
    assert section.locator("svg.kg g.edge.conflict").count() >= 1
    # a certificate badge on the turn jumps to its card and keeps the conversation open
    section.locator("a.badge").first.click()
    page.wait_for_selector("article.cert-card.targeted", timeout=5_000)  # set on hashchange
    assert page.locator("article.cert-card.targeted").count() == 1
    assert page.locator("section.conv:visible").count() == 1
    shot = tmp_path / "report.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000
    assert problems == []
    page.close()


EVIL = '<script>window.__pwned = "script"</script><img src=x onerror="window.__pwned=\'img\'">'
LINKS = ("[click me](javascript:window.__pwned='link') [again](JaVaScRiPt:window.__pwned=1) "
         "<a href=\"javascript:window.__pwned='a'\">raw</a> [ok](https://example.org/)")


def _poison(record: dict[str, Any]) -> dict[str, Any]:
    record = dict(record)
    record["conversation_id"] = EVIL + record["conversation_id"]
    if record["type"] == "certificate":
        record["explanation"] = EVIL + LINKS
        for key in ("claim", "prior"):
            record[key] = {**record[key], "sentence": EVIL + record[key]["sentence"],
                           "subject": EVIL}
    return record


def test_untrusted_text_never_runs(scored: list[str], browser: Any, tmp_path: Path) -> None:
    records = [json.dumps(_poison(json.loads(line))) for line in scored]
    events = []
    for line in EXAMPLES.read_text().splitlines():
        event = json.loads(line)
        event["conversation_id"] = EVIL + event["conversation_id"]
        event["text"] = f"{EVIL}\n\n{LINKS}\n\n{event['text']}"
        events.append(json.dumps(event))
    reports = build_reports(read_records(records, events=events))
    html = tmp_path / "evil.html"
    html.write_text(render_report(reports), encoding="utf-8")

    page, problems = open_page(browser, html)
    flagged = next(r for r in reports if r.certificates)
    page.goto(html.as_uri() + "#" + flagged.anchor)
    page.wait_for_timeout(200)
    assert page.evaluate("window.__pwned") is None
    # the page's own script, and one inert container per conversation (never executed)
    assert page.locator("script:not([type='text/x-skg-conversation'])").count() == 1
    assert page.locator("img").count() == 0
    hrefs = page.eval_on_selector_all("a[href]", "els => els.map(e => e.getAttribute('href'))")
    assert hrefs and all(h.startswith(("#", "https://")) for h in hrefs), hrefs
    # the text is shown as text, not dropped
    assert "<script>window.__pwned" in page.locator("section.conv:visible").inner_text()
    assert problems == []
    page.close()


def test_mfss_radar_where_a_reference_was_given(scored: list[str], browser: Any,
                                               tmp_path: Path) -> None:
    factors = {"accuracy": 0.72, "conciseness": 0.93, "factual_consistency": 0.81,
               "readability": 0.66, "coherence": 0.88, "rouge": 0.41}
    records = []
    for line in scored:
        record = json.loads(line)
        if record["type"] == "turn_score" and record["conversation_id"] == "trip-lisbon":
            record["mfss"] = {**factors, "total": 0.75, "weights": {}}
        records.append(json.dumps(record))
    reports = build_reports(read_records(records))
    html = tmp_path / "radar.html"
    html.write_text(render_report(reports), encoding="utf-8")
    with_ref = next(r for r in reports if r.conversation_id == "trip-lisbon")
    without = next(r for r in reports if r.conversation_id != "trip-lisbon")

    page, problems = open_page(browser, html, "#" + with_ref.anchor)
    radar = page.locator("section.conv:visible svg.radar")
    assert radar.locator("polygon.area").is_visible()
    labels = radar.locator("text.radar-label").all_text_contents()
    assert len(labels) == 6 and "accuracy 0.72" in labels
    page.goto(html.as_uri() + "#" + without.anchor)
    assert page.locator("section.conv:visible svg.radar").count() == 0
    assert problems == []
    page.close()
