"""The worker serves the conversation report live: real broker, real worker, real Chromium."""

from __future__ import annotations

import os
import time
import urllib.request
from pathlib import Path

import pytest

from monitor.report.browser import CHROMIUM, chromium
from tests.conftest import WorkerProcess
from tests.test_stream import EXAMPLES, replay, wait_for_scores

pytestmark = [pytest.mark.broker,
              pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="no Chromium")]


def test_worker_serves_the_report(broker: str, workers: list[WorkerProcess],
                                  tmp_path: Path) -> None:
    worker = WorkerProcess(broker, tmp_path / "data", tmp_path / "worker.log").start()
    workers.append(worker)
    worker.wait_ready()
    replay(broker, [ln for ln in EXAMPLES.read_bytes().splitlines() if ln.strip()])
    wait_for_scores(broker, 15, timeout=90, worker=worker)

    url = f"{worker.url}/conversations/trip-lisbon/report"
    deadline = time.monotonic() + 30
    while True:  # the state is written right after the outputs: wait for the last turn
        with urllib.request.urlopen(url, timeout=10) as resp:
            html = resp.read().decode("utf-8")
            headers = resp.headers
        if "turn 7" in html or time.monotonic() > deadline:
            break
        time.sleep(0.5)
    assert headers["Content-Type"].startswith("text/html")
    assert "script-src 'sha256-" in headers["Content-Security-Policy"]
    assert worker.get("/conversations/nope/report")[0] == 404

    with chromium() as browser:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        problems: list[str] = []
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: problems.append(str(e)))
        page.goto(url, wait_until="load")
        section = page.locator("section.conv")
        assert section.is_visible()
        assert section.locator("svg.chart path.series").count() == 5
        assert section.locator("svg.chart circle.dot").count() == 4  # 4 assistant turns
        assert section.locator("article.cert-card").count() >= 1
        assert section.locator("svg.kg g.edge.conflict").count() >= 1
        # the engine graph has more facts than the certificate's two claims
        assert section.locator("svg.kg g.node").count() > 2
        assert "Casa do Rio" in section.locator(".transcript").inner_text()
        page.screenshot(path=str(tmp_path / "live.png"), full_page=True)
        assert problems == []
