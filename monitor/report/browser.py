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
