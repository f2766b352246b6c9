"""Recency-weighted session trend as running sufficient statistics (O(1) per turn).

Turn i of n gets weight exp(decay * i). The weighted mean of the qualities is the session
*level*; the slope of the weighted least-squares line through (i, q_i) is the *slope*. The
reference fits the line with numpy.polyfit(w=...), which squares the weights (polyfit
weights residuals, not squared residuals): we use the weights once, for the level and the
line alike, so both describe the same recency profile.

The sums are kept relative to the newest turn (x = i - (n - 1), weights exp(decay * x)), so
adding a turn shifts and decays them in O(1) and nothing overflows however long the
conversation gets.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from monitor.contracts import Trend


@dataclass
class TrendStats:
    n: int = 0
    sw: float = 0.0
    swx: float = 0.0
    swxx: float = 0.0
    swy: float = 0.0
    swxy: float = 0.0

    def add(self, quality: float, decay: float) -> None:
        """Shift x by -1 for the existing points, decay them, and add the new one at x=0."""
        if self.n:
            sw, swx, swxx, swy, swxy = self.sw, self.swx, self.swxx, self.swy, self.swxy
            swxx = swxx - 2.0 * swx + sw
            swxy = swxy - swy
            swx = swx - sw
            factor = math.exp(-decay)
            self.sw, self.swx, self.swxx = sw * factor, swx * factor, swxx * factor
            self.swy, self.swxy = swy * factor, swxy * factor
        self.n += 1
        self.sw += 1.0
        self.swy += quality
        # the new point has x = 0: it adds nothing to swx, swxx, swxy

    @property
    def level(self) -> float | None:
        return self.swy / self.sw if self.n else None

    def slope(self, min_turns: int) -> float:
        if self.n < max(2, min_turns):
            return 0.0
        denom = self.sw * self.swxx - self.swx * self.swx
        if denom <= 1e-12:
            return 0.0
        return (self.sw * self.swxy - self.swx * self.swy) / denom

    def label(self, min_turns: int, threshold: float) -> Trend:
        slope = self.slope(min_turns)
        if slope > threshold:
            return "IMPROVING"
        if slope < -threshold:
            return "DEGRADING"
        return "STABLE"

    def to_plain(self) -> list[float]:
        return [float(v) for v in asdict(self).values()]

    @classmethod
    def from_plain(cls, values: list[float]) -> TrendStats:
        n, *rest = values
        return cls(int(n), *rest)
