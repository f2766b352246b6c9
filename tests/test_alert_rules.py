"""promtool / amtool checks of the Prometheus assets.

Needs `promtool` on PATH (Debian package `prometheus`; CI installs it with
.ci/install-prometheus.sh). Skipped with a message when it is missing.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.promql import dashboard_targets, substitute_variables

ROOT = Path(__file__).resolve().parent.parent
PROM_DIR = ROOT / "prometheus"
PROMTOOL = shutil.which("promtool")
AMTOOL = shutil.which("amtool")

needs_promtool = pytest.mark.skipif(
    PROMTOOL is None,
    reason="promtool not on PATH: install it with .ci/install-prometheus.sh "
    "(Debian packages prometheus, prometheus-alertmanager)",
)


def _run(*args: str, cwd: Path = PROM_DIR) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (
        f"{' '.join(args)} failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}"
    )
    return proc


@needs_promtool
def test_promtool_check_rules() -> None:
    out = _run(str(PROMTOOL), "check", "rules", "alerts.yml")
    assert "SUCCESS" in out.stdout


@needs_promtool
def test_promtool_test_rules() -> None:
    out = _run(str(PROMTOOL), "test", "rules", "alerts.test.yml")
    assert "SUCCESS" in out.stdout + out.stderr


@needs_promtool
def test_promtool_check_config() -> None:
    # also loads and checks the rule files referenced by prometheus.yml
    _run(str(PROMTOOL), "check", "config", "prometheus.yml")


@needs_promtool
def test_dashboard_exprs_are_valid_promql(tmp_path: Path) -> None:
    """Every dashboard expression (variables replaced) parses: promtool checks them as
    recording rules."""
    targets = dashboard_targets(ROOT / "grafana" / "dashboards")
    assert targets
    rules = [
        {"record": f"dashboard:expr_{i}", "expr": substitute_variables(t.expr)}
        for i, t in enumerate(targets)
    ]
    path = tmp_path / "dashboard-exprs.yml"
    path.write_text(yaml.safe_dump({"groups": [{"name": "dashboards", "rules": rules}]}))
    proc = subprocess.run(
        [str(PROMTOOL), "check", "rules", str(path)], capture_output=True, text=True, timeout=60
    )
    if proc.returncode != 0:
        details = "\n".join(
            f"  expr_{i}: {t.dashboard} / {t.panel_title} / {t.ref_id}: {t.expr}"
            for i, t in enumerate(targets)
        )
        pytest.fail(f"invalid PromQL in dashboards:\n{proc.stdout}{proc.stderr}\n{details}")


needs_amtool = pytest.mark.skipif(
    AMTOOL is None, reason="amtool not on PATH (Debian package prometheus-alertmanager)"
)
#: the shipped config and the documented pager + chat variant, with their receiver names
AM_CONFIGS = {"prometheus/alertmanager.yml": ("skg-page", "skg-warn"),
              "docs/alertmanager.pager-chat.yml": ("pager", "chat")}


@needs_amtool
@pytest.mark.parametrize("config", sorted(AM_CONFIGS))
def test_amtool_check_alertmanager_config(config: str) -> None:
    _run(str(AMTOOL), "check-config", config, cwd=ROOT)


@needs_amtool
@pytest.mark.parametrize("config", sorted(AM_CONFIGS))
@pytest.mark.parametrize(("labels", "to_pager"), [
    (("alertname=SkgContradiction", "severity=page", "detector=negation"), True),
    (("alertname=SkgContradiction", "severity=warn", "detector=numeric"), False),
    (("alertname=SkgConversationDegrading", "severity=warn"), False),
    (("alertname=SkgWorkerDown", "severity=page"), True),
    (("alertname=SkgFleetQualitySlopeNegative", "severity=warn"), False),
])
def test_alertmanager_routes_page_to_pager_and_warn_to_chat(
        config: str, labels: tuple[str, ...], to_pager: bool) -> None:
    """`amtool config routes test` resolves the receiver exactly as Alertmanager would."""
    pager, chat = AM_CONFIGS[config]
    _run(str(AMTOOL), "config", "routes", "test", f"--config.file={config}",
         f"--verify.receivers={pager if to_pager else chat}", *labels,
         "conversation=0123456789abcdef01234567", cwd=ROOT)
