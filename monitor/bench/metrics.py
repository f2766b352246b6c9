"""Binary classification metrics shared by the benchmarks."""

from __future__ import annotations

import math
from collections.abc import Sequence


def binary_metrics(tp: int, fp: int, fn: int, tn: int | None = None) -> dict[str, float | int]:
    """Precision, recall, F1 (and MCC when true negatives are known); 0 where undefined."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    out: dict[str, float | int] = {
        "tp": tp, "fp": fp, "fn": fn,
        "precision": round(precision, 4), "recall": round(recall, 4), "f1": round(f1, 4),
    }
    if tn is not None:
        denom = math.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
        out["tn"] = tn
        out["mcc"] = round((tp * tn - fp * fn) / denom, 4) if denom else 0.0
    return out


def roc_auc(labels: Sequence[int], scores: Sequence[float]) -> float | None:
    """Area under the ROC curve of `scores` separating labels 1 from 0; None with one class."""
    from sklearn.metrics import roc_auc_score

    if len(set(labels)) < 2:
        return None
    return round(float(roc_auc_score(labels, scores)), 4)
