"""Static checks of the observability and deployment assets (no services, no promtool).

Grafana dashboards, Grafana provisioning, Prometheus / Alertmanager config, alert-rule
test coverage, docker-compose.yml, Dockerfile, .dockerignore and the CI install script.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.promql import (
    dashboard_exprs,
    dashboard_targets,
    iter_panels,
    substitute_variables,
)

ROOT = Path(__file__).resolve().parent.parent
DASHBOARD_DIR = ROOT / "grafana" / "dashboards"
DASHBOARDS = {
    "dialogue-quality.json": "Dialogue quality",
    "monitor-health.json": "Monitor health",
}
DATASOURCE = {"type": "prometheus", "uid": "prometheus"}
NON_DATA_PANELS = {"row", "text", "news", "dashlist", "alertlist"}

# Metric families the worker exports (base names; histograms add _bucket/_sum/_count).
COUNTERS = {
    "skg_turns_total",
    "skg_certificates_total",
    "skg_duplicates_skipped_total",
    "skg_turn_gaps_total",
    "skg_dead_letters_total",
    "skg_alerts_total",
}
GAUGES = {
    "skg_active_conversations",
    "skg_sustained_decline_conversations",
    "skg_active_conversations_level_sum",
    "skg_active_conversations_slope_sum",
    "skg_worker_info",
}
HISTOGRAMS = {
    "skg_turn_quality",
    "skg_turn_signal",
    "skg_turn_processing_seconds",
    "skg_produce_to_score_lag_seconds",
    "skg_conversation_slope",
    "skg_mfss_total",
    "skg_mfss_factor",
    "skg_conflict_cs_c",
}
KNOWN_SERIES = (
    COUNTERS | GAUGES | {h + suffix for h in HISTOGRAMS for suffix in ("_bucket", "_sum", "_count")}
)
TOPICS = ["skg.turns", "skg.scores", "skg.certificates", "skg.alerts", "skg.dead-letter"]
# Files that other parts of the project produce later; their absence is not an error yet.
MAY_NOT_EXIST_YET = {"examples/conversations.jsonl"}


def _load_yaml(rel: str) -> Any:
    return yaml.safe_load((ROOT / rel).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- dashboards


@pytest.fixture(scope="module", params=sorted(DASHBOARDS))
def dashboard(request: pytest.FixtureRequest) -> tuple[str, dict[str, Any]]:
    path = DASHBOARD_DIR / request.param
    assert path.is_file(), f"missing dashboard {path}"
    return request.param, json.loads(path.read_text(encoding="utf-8"))


def test_dashboard_files_are_exactly_the_expected_ones() -> None:
    assert sorted(p.name for p in DASHBOARD_DIR.glob("*.json")) == sorted(DASHBOARDS)


def test_dashboards_are_valid_json_with_title_and_uid() -> None:
    uids = set()
    for name, title in DASHBOARDS.items():
        model = json.loads((DASHBOARD_DIR / name).read_text(encoding="utf-8"))
        assert model["title"] == title
        assert model.get("uid"), f"{name}: no uid"
        assert model["uid"] not in uids, f"{name}: duplicate dashboard uid"
        uids.add(model["uid"])
        assert "id" not in model or model["id"] is None, (
            f"{name}: provisioned dashboards need no id"
        )
        assert model.get("panels"), f"{name}: no panels"


def test_panel_ids_are_unique(dashboard: tuple[str, dict[str, Any]]) -> None:
    name, model = dashboard
    ids = [p.get("id") for p in iter_panels(model)]
    assert all(isinstance(i, int) for i in ids), f"{name}: panel without an integer id"
    dupes = sorted({i for i in ids if isinstance(i, int) and ids.count(i) > 1})
    assert not dupes, f"{name}: duplicate panel ids {dupes}"


def test_panels_have_datasource_unit_thresholds_and_targets(
    dashboard: tuple[str, dict[str, Any]],
) -> None:
    name, model = dashboard
    for panel in iter_panels(model):
        if panel.get("type") in NON_DATA_PANELS:
            continue
        where = f"{name} panel {panel.get('id')} {panel.get('title')!r}"
        assert panel.get("title"), f"{where}: no title"
        assert panel.get("datasource") == DATASOURCE, f"{where}: panel datasource"
        defaults = panel.get("fieldConfig", {}).get("defaults", {})
        assert isinstance(defaults.get("unit"), str) and defaults["unit"], f"{where}: no unit"
        steps = defaults.get("thresholds", {}).get("steps")
        assert steps and steps[0].get("value") is None, f"{where}: no thresholds base step"
        values = [s["value"] for s in steps[1:]]
        assert values == sorted(values), f"{where}: threshold steps not ascending"
        gp = panel.get("gridPos", {})
        assert {"h", "w", "x", "y"} <= gp.keys() and gp["x"] + gp["w"] <= 24, f"{where}: gridPos"
        targets = panel.get("targets")
        assert targets, f"{where}: no targets"
        ref_ids = [t.get("refId") for t in targets]
        assert len(set(ref_ids)) == len(ref_ids), f"{where}: duplicate refIds"
        for t in targets:
            assert t.get("datasource") == DATASOURCE, f"{where} {t.get('refId')}: datasource"
            assert isinstance(t.get("expr"), str) and t["expr"].strip(), f"{where}: no expr"


def test_dashboard_exprs_use_known_metrics_and_no_conversation_labels() -> None:
    targets = dashboard_targets(DASHBOARD_DIR)
    assert targets
    used: set[str] = set()
    for t in targets:
        names = set(re.findall(r"\b(skg_[a-z0-9_]+)", t.expr))
        unknown = names - KNOWN_SERIES
        assert not unknown, f"{t.dashboard} / {t.panel_title}: unknown series {unknown}"
        used |= names
        assert "conversation_id" not in t.expr, f"{t.panel_title}: conversation_id label"
        # balanced brackets: a cheap syntax guard (promtool checks the real syntax)
        for open_, close in ("()", "[]", "{}"):
            assert t.expr.count(open_) == t.expr.count(close), f"{t.panel_title}: {open_}{close}"
    families = {re.sub(r"_(bucket|sum|count)$", "", n) if n not in GAUGES else n for n in used}
    missing = (COUNTERS | GAUGES | HISTOGRAMS) - families
    assert not missing, f"metric families on no dashboard: {sorted(missing)}"


def test_dashboard_exprs_helper_replaces_grafana_variables() -> None:
    exprs = dashboard_exprs(sorted(DASHBOARD_DIR.glob("*.json")))
    assert len(exprs) == len(set(exprs)) > 10
    for e in exprs:
        assert "$" not in e and "[[" not in e, e
    assert any("[1m]" in e for e in exprs)
    # a directory, a single file and a list of files all work
    assert dashboard_exprs(DASHBOARD_DIR) == exprs
    assert set(dashboard_exprs(DASHBOARD_DIR / "monitor-health.json")) <= set(exprs)
    assert substitute_variables("rate(x[$__rate_interval]) + rate(y[${__interval}])") == (
        "rate(x[1m]) + rate(y[1m])"
    )
    assert substitute_variables("x[$__range] * $__range_s", window="5m") == "x[5m] * 60"
    assert substitute_variables('up{instance=~"$instance",job=~"${job:regex}"}') == (
        'up{instance=~".*",job=~".*"}'
    )


def test_dashboards_cover_the_required_views() -> None:
    exprs_by_dash: dict[str, str] = {}
    for t in dashboard_targets(DASHBOARD_DIR):
        exprs_by_dash[t.dashboard] = exprs_by_dash.get(t.dashboard, "") + "\n" + t.expr
    dq, mh = exprs_by_dash["Dialogue quality"], exprs_by_dash["Monitor health"]
    for needle in (
        "skg_turn_quality_bucket",
        "skg_turn_signal",
        "sum by (detector)",
        "skg_sustained_decline_conversations",
        "skg_active_conversations_level_sum",
        "skg_active_conversations_slope_sum",
        "sum by (regime)",
        "skg_mfss_total",
        "skg_mfss_factor",
        "skg_conflict_cs_c",
    ):
        assert needle in dq, f"Dialogue quality lacks {needle}"
    for needle in (
        "rate(skg_turns_total",
        "histogram_quantile(0.5, sum by (le) (rate(skg_turn_processing",
        "histogram_quantile(0.99, sum by (le) (rate(skg_turn_processing",
        "histogram_quantile(0.99, sum by (le) (rate(skg_produce_to_score_lag",
        "sum by (reason)",
        "skg_duplicates_skipped_total",
        "skg_turn_gaps_total",
        'up{job="skg-monitor"}',
    ):
        assert needle in mh, f"Monitor health lacks {needle}"


# ----------------------------------------------------------------------------- provisioning


def test_grafana_provisioning() -> None:
    ds = _load_yaml("grafana/provisioning/datasources/prometheus.yml")
    (source,) = ds["datasources"]
    assert source["uid"] == "prometheus" and source["type"] == "prometheus"
    assert source["url"] == "http://prometheus:9090"
    prov = _load_yaml("grafana/provisioning/dashboards/dashboards.yml")
    (provider,) = prov["providers"]
    assert provider["type"] == "file"
    assert provider["options"]["path"] == "/var/lib/grafana/dashboards"


def test_prometheus_config_scrapes_the_monitor_job() -> None:
    cfg = _load_yaml("prometheus/prometheus.yml")
    jobs = {j["job_name"]: j for j in cfg["scrape_configs"]}
    job = jobs["skg-monitor"]
    assert job.get("metrics_path", "/metrics") == "/metrics"
    sd = job.get("dns_sd_configs") or []
    static = [t for sc in job.get("static_configs") or [] for t in sc["targets"]]
    assert any("monitor" in c["names"] and c["port"] == 6066 for c in sd) or (
        "monitor:6066" in static
    )
    for rule_file in cfg["rule_files"]:
        assert (ROOT / "prometheus" / rule_file).is_file(), rule_file
    am = [
        t
        for a in cfg["alerting"]["alertmanagers"]
        for sc in a["static_configs"]
        for t in sc["targets"]
    ]
    assert am == ["alertmanager:9093"]


def test_alertmanager_config_has_a_webhook_receiver() -> None:
    cfg = _load_yaml("prometheus/alertmanager.yml")
    names = {r["name"] for r in cfg["receivers"]}
    assert cfg["route"]["receiver"] in names
    for route in cfg["route"].get("routes", []):
        assert route["receiver"] in names
    assert all(r.get("webhook_configs") for r in cfg["receivers"])


REQUIRED_ALERTS = {
    "SkgContradictionRateHigh",
    "SkgDegradingShareHigh",
    "SkgFleetQualitySlopeNegative",
    "SkgMonitorLagHigh",
    "SkgDeadLettersAppearing",
    "SkgWorkerDown",
}


def _alert_rules() -> list[dict[str, Any]]:
    groups = _load_yaml("prometheus/alerts.yml")["groups"]
    return [r for g in groups for r in g["rules"] if "alert" in r]


def test_alert_rules_have_severity_summary_and_runbook() -> None:
    rules = _alert_rules()
    names = [r["alert"] for r in rules]
    assert len(names) == len(set(names))
    assert set(names) >= REQUIRED_ALERTS
    for r in rules:
        assert r["labels"]["severity"] in {"page", "warn"}, r["alert"]
        assert r["annotations"]["summary"].strip(), r["alert"]
        assert r["annotations"]["runbook"].strip(), r["alert"]
        assert "conversation_id" not in r["expr"], r["alert"]


def test_every_alert_rule_has_firing_and_not_firing_unit_tests() -> None:
    tests = _load_yaml("prometheus/alerts.test.yml")
    assert tests["rule_files"] == ["alerts.yml"]
    firing: set[str] = set()
    quiet: set[str] = set()
    for case in tests["tests"]:
        for check in case.get("alert_rule_test", []):
            (firing if check.get("exp_alerts") else quiet).add(check["alertname"])
    names = {r["alert"] for r in _alert_rules()}
    assert names - firing == set(), f"no firing test for {names - firing}"
    assert names - quiet == set(), f"no not-firing test for {names - quiet}"


# ----------------------------------------------------------------------------- compose


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    return _load_yaml("docker-compose.yml")


def _bind_sources(service: dict[str, Any]) -> list[str]:
    sources = []
    for vol in service.get("volumes") or []:
        if isinstance(vol, str):
            parts = vol.split(":")
            if len(parts) >= 2 and (parts[0].startswith((".", "/", "~"))):
                sources.append(parts[0])
        elif vol.get("type") == "bind":
            sources.append(vol["source"])
    return sources


def _check_repo_path(rel: str, what: str) -> None:
    norm = str(Path(rel)).removeprefix("./")
    path = (ROOT / rel).resolve()
    assert ROOT in path.parents or path == ROOT, f"{what}: {rel} is outside the repository"
    if not path.exists() and norm in MAY_NOT_EXIST_YET:
        return
    assert path.exists(), f"{what}: {rel} does not exist"


def test_compose_services(compose: dict[str, Any]) -> None:
    services = compose["services"]
    assert {
        "kafka",
        "kafka-init",
        "monitor",
        "replay",
        "prometheus",
        "alertmanager",
        "grafana",
    } <= services.keys()
    assert services["kafka"]["image"] == "apache/kafka:3.9.1"
    assert services["kafka"]["environment"]["KAFKA_PROCESS_ROLES"] == "broker,controller"
    assert services["monitor"]["deploy"]["replicas"] == 2
    assert services["prometheus"]["image"].startswith("prom/prometheus")
    assert services["grafana"]["image"].startswith("grafana/grafana")
    assert services["grafana"]["environment"]["GF_AUTH_ANONYMOUS_ENABLED"] == "true"
    assert services["grafana"]["environment"]["GF_AUTH_ANONYMOUS_ORG_ROLE"] == "Viewer"


def test_compose_commands(compose: dict[str, Any]) -> None:
    services = compose["services"]

    def argv(svc: str) -> list[str]:
        cmd = services[svc]["command"]
        return cmd if isinstance(cmd, list) else shlex.split(cmd)

    assert argv("monitor") == ["worker", "--broker", "kafka://kafka:9092", "--web-port", "6066"]
    assert argv("replay") == [
        "replay",
        "examples/conversations.jsonl",
        "--broker",
        "kafka://kafka:9092",
        "--rate",
        "5",
    ]
    # the replay file is read inside the container from /app (the image WORKDIR)
    _check_repo_path("examples/conversations.jsonl", "replay input")
    # topics and the worker's changelog must have the same partition count
    init_env = services["kafka-init"]["environment"]
    assert "$$SKG_PARTITIONS" in "\n".join(argv("kafka-init"))
    assert services["monitor"]["environment"]["SKG_PARTITIONS"] == init_env["SKG_PARTITIONS"]
    init_script = "\n".join(argv("kafka-init"))
    for topic in TOPICS:
        assert topic in init_script, f"kafka-init does not create {topic}"


def test_compose_referenced_paths_exist(compose: dict[str, Any]) -> None:
    for name, svc in compose["services"].items():
        build = svc.get("build")
        if build is not None:
            context = build if isinstance(build, str) else build.get("context", ".")
            _check_repo_path(context, f"{name} build context")
            if isinstance(build, dict) and build.get("dockerfile"):
                _check_repo_path(str(Path(context) / build["dockerfile"]), f"{name} dockerfile")
            else:
                _check_repo_path(str(Path(context) / "Dockerfile"), f"{name} dockerfile")
        for source in _bind_sources(svc):
            _check_repo_path(source, f"{name} volume")
        for env_file in (
            [svc["env_file"]] if isinstance(svc.get("env_file"), str) else svc.get("env_file") or []
        ):
            _check_repo_path(
                env_file if isinstance(env_file, str) else env_file["path"], f"{name} env_file"
            )
    for kind in ("configs", "secrets"):
        for name, item in (compose.get(kind) or {}).items():
            if "file" in item:
                _check_repo_path(item["file"], f"{kind} {name}")


def test_compose_depends_on_and_named_volumes(compose: dict[str, Any]) -> None:
    services = compose["services"]
    named = set((compose.get("volumes") or {}).keys())
    for name, svc in services.items():
        deps = svc.get("depends_on") or []
        for dep in deps if isinstance(deps, list) else deps.keys():
            assert dep in services, f"{name} depends on unknown service {dep}"
        for vol in svc.get("volumes") or []:
            if isinstance(vol, str) and not vol.split(":")[0].startswith((".", "/", "~")):
                assert vol.split(":")[0] in named, f"{name}: undeclared volume {vol}"


def test_compose_mounts_match_configs(compose: dict[str, Any]) -> None:
    services = compose["services"]
    prom = services["prometheus"]
    assert any(v.startswith("./prometheus:/etc/prometheus") for v in prom["volumes"])
    assert "--config.file=/etc/prometheus/prometheus.yml" in prom["command"]
    graf = services["grafana"]["volumes"]
    assert any(v.startswith("./grafana/provisioning:/etc/grafana/provisioning") for v in graf)
    assert any(v.startswith("./grafana/dashboards:/var/lib/grafana/dashboards") for v in graf)
    am = services["alertmanager"]
    assert any(
        v.startswith("./prometheus/alertmanager.yml:/etc/alertmanager/alertmanager.yml")
        for v in am["volumes"]
    )


# ----------------------------------------------------------------------------- image, CI


def test_dockerfile() -> None:
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [ln.strip() for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert lines[0] == "FROM python:3.11-slim"
    assert any(ln.startswith("ARG TORCH_INDEX_URL") for ln in lines)
    torch_at = next(i for i, ln in enumerate(lines) if "torch==" in ln and "pip install" in ln)
    assert "${TORCH_INDEX_URL}" in lines[torch_at]
    assert "TORCH_VERSION=2.13.0" in text
    install_at = next(i for i, ln in enumerate(lines) if re.search(r"pip install \.(\s|$)", ln))
    assert torch_at < install_at, "torch must be installed before the package"
    assert 'ENTRYPOINT ["skg-monitor"]' in lines


def test_dockerignore_keeps_the_context_small() -> None:
    entries = {
        ln.strip()
        for ln in (ROOT / ".dockerignore").read_text().splitlines()
        if ln.strip() and not ln.startswith("#")
    }
    assert {".git", ".venv"} <= entries
    for needed in ("monitor", "pyproject.toml", "examples", "schemas", "README.md"):
        assert needed not in entries, f".dockerignore excludes {needed}, which the image needs"


def test_ci_install_script() -> None:
    script = ROOT / ".ci" / "install-prometheus.sh"
    assert script.stat().st_mode & 0o111, "not executable"
    text = script.read_text()
    assert "prometheus-alertmanager" in text and "command -v promtool" in text
    subprocess.run(["bash", "-n", str(script)], check=True)
