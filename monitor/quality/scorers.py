"""The quality scores as the engine's `TurnScorers`: what a builder of the engine passes in."""

from __future__ import annotations

from monitor.quality import conflict, mfss


class QualityScorers:
    """MFSS (`quality.mfss`) and ConflictScore (`quality.conflict`), unchanged."""

    score_mfss = staticmethod(mfss.score_mfss)
    score_conflict = staticmethod(conflict.score_conflict)
    conflict_alert = staticmethod(conflict.conflict_alert)
