"""The session trend moves for a reason: steady quality stays STABLE, a decline degrades."""

from __future__ import annotations

import math

import numpy as np
import pytest

from monitor.config import EngineConfig
from monitor.contracts import Trend
from monitor.engine.trend import TrendStats

CFG = EngineConfig()


def run(qualities: list[float], config: EngineConfig = CFG) -> list[Trend]:
    stats, label, labels = TrendStats(), "STABLE", []
    for q in qualities:
        stats.add(q, config.trend_decay)
        label = stats.label(label, config)  # type: ignore[assignment]
        labels.append(label)
    return labels  # type: ignore[return-value]


def test_t_statistic_equals_batch_weighted_least_squares() -> None:
    rng = np.random.default_rng(3)
    qs = list(0.8 - 0.01 * np.arange(25) + rng.normal(0, 0.05, 25))
    stats = TrendStats()
    for q in qs:
        stats.add(float(q), 0.1)
    n = len(qs)
    x = np.arange(n) - (n - 1.0)
    w = np.exp(0.1 * x)
    y = np.array(qs)
    xm = (w * x).sum() / w.sum()
    sxx = (w * (x - xm) ** 2).sum()
    b = (w * (x - xm) * y).sum() / sxx
    a = (w * y).sum() / w.sum() - b * xm
    n_eff = w.sum() ** 2 / (w**2).sum()
    s2 = (w * (y - a - b * x) ** 2).sum() / w.sum() * n_eff / (n_eff - 2)
    var_b = s2 * (w**2 * (x - xm) ** 2).sum() / sxx**2
    t, dof = stats.t_statistic()
    assert dof == pytest.approx(n_eff - 2)
    assert t == pytest.approx(b / math.sqrt(var_b), rel=1e-6)


def test_steady_noisy_quality_stays_stable() -> None:
    """200 conversations of 30 turns, constant mean 0.7 and noise sd 0.1: few ever degrade
    (a strict per-turn test, see EngineConfig.trend_significance), while the
    reference rule (any slope below -0.01 after 3 turns) calls most of them DEGRADING."""
    rng = np.random.default_rng(11)
    ever, ends, naive = 0, 0, 0
    for _ in range(200):
        qs = list(np.clip(0.7 + rng.normal(0, 0.1, 30), 0, 1))
        labels = run(qs)
        ever += "DEGRADING" in labels
        ends += labels[-1] == "DEGRADING"
        naive += any(TrendStatsNaive.slopes(qs)[i] < -0.01 for i in range(2, 30))
    assert ends / 200 <= 0.02
    assert ever / 200 <= 0.10
    assert naive / 200 >= 0.8


class TrendStatsNaive:
    @staticmethod
    def slopes(qs: list[float]) -> list[float]:
        stats, out = TrendStats(), []
        for q in qs:
            stats.add(q, 0.1)
            out.append(stats.slope(3))
        return out


def test_real_decline_is_degrading() -> None:
    rng = np.random.default_rng(5)
    qs = list(0.85 - 0.04 * np.arange(12) + rng.normal(0, 0.03, 12))
    labels = run(qs)
    assert labels[-1] == "DEGRADING"
    assert labels[:CFG.trend_min_turns - 1] == ["STABLE"] * (CFG.trend_min_turns - 1)


def test_hysteresis_one_good_turn_does_not_clear_a_decline() -> None:
    qs = [0.9, 0.82, 0.74, 0.66, 0.58, 0.5]
    assert run(qs)[-1] == "DEGRADING"
    assert run([*qs, 0.7])[-1] == "DEGRADING"  # still sloping down overall
    assert run([*qs, 0.9, 0.95, 0.95, 0.95])[-1] != "DEGRADING"  # recovered


def test_one_bad_turn_after_steady_quality_is_not_a_trend() -> None:
    assert run([0.8, 0.8, 0.79, 0.81, 0.8, 0.3])[-1] == "STABLE"


def test_old_stored_trend_restarts() -> None:
    assert TrendStats.from_plain([5, 1.0, 0.0, 0.0, 0.5, 0.0]) == TrendStats()


def test_a_step_down_that_stays_down_is_degrading() -> None:
    labels = run([0.72, 0.8, 0.15, 0.2, 0.13, 0.13])
    assert labels[-1] == "DEGRADING"
    assert labels[3] == "STABLE"  # two low turns are not yet sustained


def test_stored_form_round_trip() -> None:
    stats = TrendStats()
    for q in (0.5, 0.6, 0.4, 0.7):
        stats.add(q, 0.1)
    assert TrendStats.from_plain(stats.to_plain()) == stats


def test_t_quantile_is_scipy_stats_t_ppf() -> None:
    """The trend test's critical value comes from `scipy.special.stdtrit` (cheap to import);
    it must be the very float `scipy.stats.t.ppf` gives, or labels could flip."""
    from scipy.stats import t as student_t

    from monitor.engine.trend import _t_quantile

    rng = np.random.default_rng(5)
    dofs = [*rng.uniform(1e-3, 5, 300), *rng.uniform(5, 5000, 300), *range(1, 200)]
    for q in (1.0 - CFG.trend_significance, 0.95, 0.975):
        assert [_t_quantile(q, d) for d in dofs] == [float(student_t.ppf(q, d)) for d in dofs]
