#!/usr/bin/env bash
# Install promtool / prometheus / alertmanager (Debian packages, Prometheus 2.42 on
# bookworm) for the rule tests and the end-to-end test, if promtool is not on PATH yet.
# Idempotent: a second run does nothing but make sure no packaged service is left running.
# The tests start their own Prometheus on a free port; the system service the package's
# postinst may start (where systemd or sysvinit is active) would hold :9090 / :9093 and
# scrape nothing useful, so it is stopped and disabled.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  SUDO="sudo"
fi

if command -v promtool >/dev/null 2>&1 && command -v prometheus >/dev/null 2>&1 \
    && command -v amtool >/dev/null 2>&1 && command -v prometheus-alertmanager >/dev/null 2>&1; then
  echo "install-prometheus: promtool already installed: $(promtool --version 2>&1 | head -n1)"
else
  echo "install-prometheus: installing Debian packages prometheus prometheus-alertmanager"
  $SUDO apt-get update -qq
  # policy-rc.d exit code 101 = "action forbidden": keeps postinst from starting daemons
  # on hosts where invoke-rc.d is honoured (containers without systemd ignore it anyway).
  created_policy=0
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' | $SUDO tee /usr/sbin/policy-rc.d >/dev/null
    $SUDO chmod +x /usr/sbin/policy-rc.d
    created_policy=1
  fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    prometheus prometheus-alertmanager
  if [ "$created_policy" -eq 1 ]; then
    $SUDO rm -f /usr/sbin/policy-rc.d
  fi
fi

# Make sure the packaged services are not running (and do not start at boot).
for svc in prometheus prometheus-alertmanager; do
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    $SUDO systemctl disable --now "$svc" >/dev/null 2>&1 || true
  elif [ -x "/etc/init.d/$svc" ]; then
    $SUDO "/etc/init.d/$svc" stop >/dev/null 2>&1 || true
  fi
done
promtool --version 2>&1 | head -n1
