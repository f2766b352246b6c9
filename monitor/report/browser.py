"""Headless Chromium for the report's tests and benchmark, driven through playwright.

Debian's `chromium` (apt-get, see .ci/install-chromium.sh) is used, never a browser that
playwright would download: `executable_path` points at it. The flags keep the browser from
calling home (no background networking, component updates, sync or first-run pages), and
playwright gives every launch a fresh temporary profile (its own --user-data-dir).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = os.environ.get("SKG_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run",
         "--disable-dev-shm-usage"]


@contextmanager
def chromium() -> Iterator[Any]:
    """A playwright Browser on the system Chromium; closed (with its profile) on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=FLAGS, headless=True)
        try:
            yield browser
        finally:
            browser.close()


def screenshot_report(html: Path, png: Path, anchor: str, width: int = 1400) -> None:
    """A full-page PNG of one conversation of a report file (for the README)."""
    with chromium() as browser:
        page = browser.new_page(viewport={"width": width, "height": 1250})
        page.goto(html.resolve().as_uri() + "#" + anchor, wait_until="load")
        png.parent.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(png), full_page=True)
