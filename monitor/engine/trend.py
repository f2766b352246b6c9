"""Recency-weighted session trend as running sufficient statistics (O(1) per turn).

Turn i of n gets weight exp(decay * i). The weighted mean of the qualities is the session
*level*; the slope of the weighted least-squares line through (i, q_i) is the *slope*. The
reference fits the line with numpy.polyfit(w=...), which squares the weights (polyfit
weights residuals, not squared residuals): we use the weights once, for the level and the
line alike, so both describe the same recency profile.

The sums are kept relative to the newest turn (x = i - (n - 1), weights exp(decay * x)), so
adding a turn shifts and decays them in O(1) and nothing overflows however long the
conversation gets.

A trend label must move for a reason, not for the noise of a few turns (the reference calls
any slope below -0.01 DEGRADING, which labelled 41% of MT-Bench-101's good conversations).
`label` therefore asks three things before it says DEGRADING (IMPROVING is symmetric):

1. **minimum turns**: at least `trend_min_turns` scored turns (three points are collinear
   by chance too often);
2. **size and significance of the slope**: slope < -`trend_slope_threshold` *and* the
   one-sided t-test of the weighted slope rejects "no decline" at level
   `trend_significance`. The slope's variance is the sandwich estimate for weighted least
   squares, var(b) = s^2 * sum(w^2 (x - mean)^2) / Sxx^2, with s^2 the weighted residual
   variance and n_eff = (sum w)^2 / sum w^2 - 2 degrees of freedom (Kish's effective sample
   size), so recency weighting does not pretend to have more evidence than it has;
3. **hysteresis**: once DEGRADING, the label stays until the slope rises above
   -`trend_exit_slope` (the decline has stopped), so one good turn does not flap it back and
   one bad turn does not flap it in.

A slope test misses a *step*: answers that fall from 0.8 to 0.15 and stay there fit a line
badly (large residuals), and recency weighting flattens the slope as the low tail grows. So
a **sustained drop** is DEGRADING too: the last `trend_drop_turns` turns *all* lie more than
`trend_drop` below the mean of the turns before them (with steady quality of sd 0.1 one
turn is 0.2 below the mean with probability 0.023, three in a row about 1e-5). It needs the
last few qualities (bounded, `trend_drop_turns` floats) and the plain sum of all of them.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

from monitor.config import EngineConfig
from monitor.contracts import Trend


def _t_quantile(q: float, dof: float) -> float:
    """Student's t quantile: `scipy.special.stdtrit`, which is what `scipy.stats.t.ppf`
    computes (with loc 0 and scale 1, the same float), imported only when a trend test
    first runs (`scipy.stats` costs about half a second at start)."""
    from scipy.special import stdtrit

    return float(stdtrit(dof, q))


def warm_up() -> None:
    """Load what the first trend test needs (scipy.special, ~21 MB), as the worker's
    warm-up does with every other lazily loaded part: its RSS at start then includes it."""
    _t_quantile(0.99, 10.0)


@dataclass
class TrendStats:
    n: int = 0
    sw: float = 0.0
    swx: float = 0.0
    swxx: float = 0.0
    swy: float = 0.0
    swxy: float = 0.0
    swyy: float = 0.0
    sv: float = 0.0
    """sv, svx, svxx: the same sums with the squared weights v = w^2 (for the variance)."""
    svx: float = 0.0
    svxx: float = 0.0
    total: float = 0.0
    """Plain (unweighted) sum of all qualities."""
    recent: list[float] = field(default_factory=list)
    """The newest qualities, oldest first (at most the `window` given to `add`)."""

    def add(self, quality: float, decay: float, window: int = 3) -> None:
        """Shift x by -1 for the existing points, decay them, and add the new one at x=0."""
        if self.n:
            factor = math.exp(-decay)
            swxx = self.swxx - 2.0 * self.swx + self.sw
            swxy = self.swxy - self.swy
            swx = self.swx - self.sw
            svxx = self.svxx - 2.0 * self.svx + self.sv
            svx = self.svx - self.sv
            self.sw, self.swx, self.swxx = self.sw * factor, swx * factor, swxx * factor
            self.swy, self.swxy = self.swy * factor, swxy * factor
            self.swyy *= factor
            f2 = factor * factor
            self.sv, self.svx, self.svxx = self.sv * f2, svx * f2, svxx * f2
        self.n += 1
        self.sw += 1.0
        self.sv += 1.0
        self.swy += quality
        self.swyy += quality * quality
        self.total += quality
        self.recent = [*self.recent, quality][-window:]
        # the new point has x = 0: it adds nothing to the x sums

    @property
    def level(self) -> float | None:
        return self.swy / self.sw if self.n else None

    def _sxx(self) -> float:
        return self.swxx - self.swx * self.swx / self.sw

    def slope(self, min_turns: int) -> float:
        if self.n < max(2, min_turns):
            return 0.0
        denom = self.sw * self.swxx - self.swx * self.swx
        if denom <= 1e-12:
            return 0.0
        return (self.sw * self.swxy - self.swx * self.swy) / denom

    def t_statistic(self) -> tuple[float, float]:
        """(t, degrees of freedom) of the weighted slope; dof <= 0 means no test possible."""
        if self.n < 3 or self.sv <= 0:
            return 0.0, 0.0
        sxx = self._sxx()
        if sxx <= 1e-12:
            return 0.0, 0.0
        sxy = self.swxy - self.swx * self.swy / self.sw
        syy = self.swyy - self.swy * self.swy / self.sw
        b = sxy / sxx
        n_eff = self.sw * self.sw / self.sv
        dof = n_eff - 2.0
        if dof <= 0:
            return 0.0, 0.0
        rss = max(0.0, syy - b * sxy)
        s2 = rss / self.sw * n_eff / dof
        mean_x = self.swx / self.sw
        spread = self.svxx - 2.0 * mean_x * self.svx + mean_x * mean_x * self.sv
        var_b = s2 * spread / (sxx * sxx)
        if var_b <= 1e-18:
            return (math.copysign(math.inf, b) if abs(b) > 1e-12 else 0.0), dof
        return b / math.sqrt(var_b), dof

    def dropped(self, turns: int, drop: float) -> bool:
        """The last `turns` qualities all lie more than `drop` below the earlier mean."""
        if self.n <= turns or len(self.recent) < turns:
            return False
        last = self.recent[-turns:]
        earlier = (self.total - sum(last)) / (self.n - turns)
        return all(q < earlier - drop for q in last)

    def label(self, previous: Trend, config: EngineConfig) -> Trend:
        """The trend after the newest turn, given the label before it (see module doc)."""
        slope = self.slope(config.trend_min_turns)
        if self.n < config.trend_min_turns:
            return "STABLE"
        if self.dropped(config.trend_drop_turns, config.trend_drop):
            return "DEGRADING"
        if previous == "DEGRADING" and slope < -config.trend_exit_slope:
            return "DEGRADING"
        if previous == "IMPROVING" and slope > config.trend_exit_slope:
            return "IMPROVING"
        t, dof = self.t_statistic()
        if dof <= 0 or abs(slope) <= config.trend_slope_threshold:
            return "STABLE"
        critical = _t_quantile(1.0 - config.trend_significance, dof)
        if slope < 0 and t < -critical:
            return "DEGRADING"
        if slope > 0 and t > critical:
            return "IMPROVING"
        return "STABLE"

    def to_plain(self) -> list[float]:
        """[n, the ten sums, the recent qualities...]."""
        fixed = [float(v) for k, v in asdict(self).items() if k != "recent"]
        return fixed + [float(q) for q in self.recent]

    @classmethod
    def from_plain(cls, values: list[float]) -> TrendStats:
        """Older stored states (6 values) lack the variance sums: their trend restarts,
        which can delay a label but never invents significance."""
        if len(values) < _FIXED:
            return cls()
        stats = cls(int(values[0]), recent=list(values[_FIXED:]))
        for name, value in zip(_SUMS, values[1:_FIXED], strict=True):
            setattr(stats, name, float(value))
        return stats


_SUMS = ("sw", "swx", "swxx", "swy", "swxy", "swyy", "sv", "svx", "svxx", "total")
_FIXED = 1 + len(_SUMS)
"""n and the ten sums come first in the stored form."""
