"""The HTML report without a browser: reading records, highlighting, escaping, Markdown."""

from __future__ import annotations

import json
import re

import pytest

from monitor.contracts import Claim
from monitor.report import ReportInputError, build_reports, read_records, render_report
from monitor.report.charts import radar
from monitor.report.markdown import render_markdown
from monitor.report.model import conflict_spans, segments
from monitor.report.render import inert

SCORE = {
    "type": "turn_score", "id": "s1", "conversation_id": "c1", "turn_index": 1,
    "regime": "general", "local_relevance": 0.6, "consistency": 0.9, "logic": 1.0,
    "quality": 0.8, "gates": {"logic_gate": False, "joint_weakness": False,
                              "non_sequitur": False},
    "drift": False, "certificates": ["k1"], "mfss": None, "conflict": None, "level": 0.8,
    "slope": 0.0, "trend": "STABLE", "previous_turn_index": 0, "gap": False,
    "engine_version": "test",
}
CLAIM = {"subject": "hotel", "relation": "cost", "object": "1,000 gbp", "negated": False,
         "quantity": 1000.0, "unit": "GBP", "speaker": "assistant", "turn_index": 1,
         "sentence": "The hotel costs 1,000 GBP in total."}
PRIOR = {**CLAIM, "object": "600 gbp", "quantity": 600.0, "speaker": "user", "turn_index": 0,
         "sentence": "My budget is 600 GBP max."}
CERT = {"type": "certificate", "id": "k1", "conversation_id": "c1", "turn_index": 1,
        "conflicts_with": 0, "claim": CLAIM, "prior": PRIOR, "detector": "numeric",
        "confidence": 0.9, "severity": "page", "explanation": "1,000 GBP vs 600 GBP",
        "engine_version": "test"}


def lines(*records: dict) -> list[str]:
    return [json.dumps(r) for r in records]


def test_markdown_keeps_html_as_text_and_drops_unsafe_links() -> None:
    html = str(render_markdown(
        "<script>alert(1)</script> <img src=x onerror=alert(1)> [a](javascript:alert(1)) "
        "[b](JAVASCRIPT:alert(1)) [c](data:text/html,x) ![i](https://t.example/p.png) "
        "[ok](https://example.org/?q=\"x\")"))
    assert "<script" not in html and "<img" not in html
    assert "&lt;script&gt;" in html
    hrefs = re.findall(r'href="([^"]*)"', html)
    assert hrefs == ["https://t.example/p.png", "https://example.org/?q=%22x%22"]
    assert 'rel="nofollow noopener noreferrer"' in html


def test_conflict_words_found_without_offsets() -> None:
    claim = Claim.model_validate(CLAIM)
    spans = conflict_spans(claim, [])
    assert [claim.sentence[s:e] for s, e in spans] == ["1,000", "GBP"]
    negated = Claim.model_validate({**CLAIM, "object": "parking", "quantity": None,
                                    "negated": True,
                                    "sentence": "Casa do Rio does not have parking."})
    words = [negated.sentence[s:e] for s, e in conflict_spans(negated, [])]
    assert words == ["not", "parking"]
    attribute = Claim.model_validate({**CLAIM, "object": "", "relation": "empty",
                                      "quantity": None, "sentence": "Box 2 is empty."})
    assert [attribute.sentence[s:e] for s, e in conflict_spans(attribute, [])] == ["empty"]


def test_offsets_from_the_record_win_and_bad_ones_are_ignored() -> None:
    claim = Claim.model_validate(CLAIM)
    assert conflict_spans(claim, [(4, 9)]) == [(4, 9)]
    assert conflict_spans(claim, [(30, 999)]) == conflict_spans(claim, [])
    assert segments("abcdef", [(1, 3)]) == [("a", False), ("bc", True), ("def", False)]


def test_certificate_with_span_fields_is_read() -> None:
    cert = {**CERT, "claim": {**CLAIM, "spans": [[16, 21]]}}
    records = read_records(lines(SCORE, cert))
    [report] = build_reports(records)
    assert [text for text, hl in report.certificates[0].claim if hl] == ["1,000"]


def test_bad_line_is_an_error_naming_it() -> None:
    with pytest.raises(ReportInputError) as err:
        read_records([*lines(SCORE), "", '{"type": "turn_score", "id": 3}'], "scores.jsonl")
    assert err.value.line == 3 and "scores.jsonl:3" in str(err.value)
    with pytest.raises(ReportInputError, match="not a monitor output record"):
        read_records(lines({"type": "something"}))


def test_untrusted_text_is_escaped_everywhere() -> None:
    evil = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    cid = f'"><svg onload=alert(1)>{evil}'
    event = {"conversation_id": cid, "turn_index": 0, "role": "user",
             "text": f"{evil} [go](javascript:alert(1))"}
    score = {**SCORE, "conversation_id": cid, "metadata": {"x": evil}}
    cert = {**CERT, "conversation_id": cid, "explanation": evil,
            "claim": {**CLAIM, "subject": evil, "sentence": evil},
            "prior": {**PRIOR, "object": evil}}
    page = render_report(build_reports(read_records(lines(score, cert),
                                                    events=lines(event))))
    # the page's own script (allowed by hash in the CSP) and inert conversation containers
    assert page.count("<script>") == 1
    assert page.count("<script") == 1 + page.count('<script type="text/x-skg-conversation"')
    assert "<img" not in page and "<svg onload" not in page
    assert "href=\"javascript" not in page.lower() and "[go](javascript:alert(1))" in page
    assert "&lt;script&gt;" in page


def test_index_sorted_worst_first_and_radar_only_with_reference() -> None:
    good = {**SCORE, "conversation_id": "good", "quality": 0.9, "certificates": []}
    mfss = {"accuracy": 0.7, "conciseness": 1.0, "factual_consistency": 0.8,
            "readability": 0.6, "coherence": 0.9, "rouge": 0.4, "total": 0.7, "weights": {}}
    bad = {**SCORE, "conversation_id": "bad", "quality": 0.2, "certificates": [],
           "mfss": mfss}
    reports = build_reports(read_records(lines(good, bad)))
    assert [r.conversation_id for r in reports] == ["bad", "good"]
    assert reports[0].mfss_means() == pytest.approx(
        {k: v for k, v in mfss.items() if k not in ("total", "weights")})
    assert reports[1].mfss_means() is None
    chart = radar(reports[0].mfss_means() or {})
    assert chart is not None and len(chart.axes) == 6
    page = render_report(reports)
    assert page.count('class="radar"') == 1


def test_inert_refuses_markup_that_could_end_its_container() -> None:
    assert inert("<p>&lt;/script&gt;</p>") == "<p>&lt;/script&gt;</p>"
    for bad in ("<p></SCRIPT>", "<!-- x"):
        with pytest.raises(ValueError):
            inert(bad)


def test_grafana_dashboards_link_to_the_workers_report_route() -> None:
    from pathlib import Path

    from monitor.stream import report_view

    root = Path(__file__).resolve().parent.parent
    route = "/conversations/{conversation_id}/report"
    assert route in Path(report_view.__file__).read_text()
    for path in sorted((root / "grafana" / "dashboards").glob("*.json")):
        board = json.loads(path.read_text())
        names = {v["name"] for v in board["templating"]["list"]}
        assert {"conversation_id", "worker_url"} <= names, path.name
        urls = [link["url"] for link in board["links"]]
        urls += [link["url"] for panel in board["panels"]
                 for link in panel.get("fieldConfig", {}).get("defaults", {}).get("links", [])]
        want = "${worker_url}" + route.replace("{conversation_id}",
                                               "${conversation_id:percentencode}")
        assert want in urls, path.name
