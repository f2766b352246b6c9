"""Helpers to get the PromQL out of the Grafana dashboards.

Used by the static tests (syntax, metric names) and by the end-to-end test, which runs
every dashboard expression against a real Prometheus that scraped a real worker:

    from tests.promql import dashboard_exprs
    for expr in dashboard_exprs(sorted(Path("grafana/dashboards").glob("*.json"))):
        ...  # GET /api/v1/query?query=expr -> expect a non-empty result

Grafana variables are replaced by plain values so that the expressions run as they are:
interval/range variables become `1m` (60 for the `_s` forms, 60000 for `_ms`), any other
template variable becomes `.*` (the dashboards currently use none).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

DEFAULT_WINDOW = "1m"

# Order matters: the _ms / _s forms before the bare names.
_BUILTIN_VARS: tuple[tuple[str, str], ...] = (
    ("__rate_interval_ms", "60000"),
    ("__interval_ms", "60000"),
    ("__range_ms", "60000"),
    ("__range_s", "60"),
    ("__rate_interval", DEFAULT_WINDOW),
    ("__interval", DEFAULT_WINDOW),
    ("__range", DEFAULT_WINDOW),
)

_OTHER_VAR = re.compile(
    r"\$\{[A-Za-z0-9_]+(?::[^}]*)?\}|\$[A-Za-z_][A-Za-z0-9_]*|\[\[[A-Za-z0-9_]+\]\]"
)


class DashboardTarget(NamedTuple):
    dashboard: str
    panel_id: int | None
    panel_title: str
    ref_id: str
    expr: str  # as written in the dashboard (variables not replaced)


def substitute_variables(expr: str, window: str = DEFAULT_WINDOW) -> str:
    """Replace Grafana variables so that `expr` is plain PromQL."""
    out = expr
    for name, value in _BUILTIN_VARS:
        if value == DEFAULT_WINDOW:
            value = window
        out = out.replace("${" + name + "}", value).replace("$" + name, value)
    return _OTHER_VAR.sub(".*", out)


def _iter_panels(panels: Iterable[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    for panel in panels:
        yield panel
        # collapsed rows keep their children in a nested "panels" list
        yield from _iter_panels(panel.get("panels") or [])


def iter_panels(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    """Every panel of a dashboard JSON model, including panels nested in collapsed rows."""
    return _iter_panels(dashboard.get("panels") or [])


def _as_paths(paths: str | Path | Iterable[str | Path]) -> list[Path]:
    if isinstance(paths, (str, Path)):
        paths = [paths]
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        out.extend(sorted(p.glob("*.json")) if p.is_dir() else [p])
    return out


def dashboard_targets(paths: str | Path | Iterable[str | Path]) -> list[DashboardTarget]:
    """Every query target that has a PromQL `expr`, with where it comes from."""
    found: list[DashboardTarget] = []
    for path in _as_paths(paths):
        dashboard = json.loads(path.read_text(encoding="utf-8"))
        title = dashboard.get("title", path.name)
        for panel in iter_panels(dashboard):
            for target in panel.get("targets") or []:
                expr = (target.get("expr") or "").strip()
                if expr:
                    found.append(
                        DashboardTarget(
                            title,
                            panel.get("id"),
                            panel.get("title", ""),
                            target.get("refId", ""),
                            expr,
                        )
                    )
    return found


def dashboard_exprs(
    paths: str | Path | Iterable[str | Path], window: str = DEFAULT_WINDOW
) -> list[str]:
    """Every PromQL expression of the given dashboards (files, or directories of *.json),
    Grafana variables replaced (`$__rate_interval` -> `1m`, ...), in dashboard order,
    without duplicates."""
    seen: dict[str, None] = {}
    for t in dashboard_targets(paths):
        seen.setdefault(substitute_variables(t.expr, window), None)
    return list(seen)
