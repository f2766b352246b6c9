#!/usr/bin/env bash
# Install Debian's chromium for the report tests and benchmark (tests/test_report_browser.py,
# `skg-monitor bench report`), if it is not on PATH yet. playwright drives this browser via
# executable_path; no browser is downloaded (`playwright install` is never run).
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

if command -v chromium >/dev/null 2>&1; then
  echo "install-chromium: already installed: $(chromium --version 2>/dev/null | head -n1)"
else
  echo "install-chromium: installing Debian package chromium"
  $SUDO apt-get update -qq
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    chromium fonts-dejavu-core
fi
chromium --version 2>/dev/null | head -n1
