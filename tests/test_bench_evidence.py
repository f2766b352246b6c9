"""`bench evidence`: which sentence pairs it builds and how it scores them.

A scripted verifier and the hashed-words fake embedder: these are tests of the code around
the model; the model's own figures are what the benchmark itself prints.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from monitor.bench.evidence import holding, run_evidence_bench, sentences, separation
from monitor.engine.protocols import Judgement
from tests.conftest import FakeEmbedder


class WordVerifier:
    """P(contradiction) 0.9 when one side says 'closed' and the other 'open', else 0.1;
    every pair it was asked about is recorded."""

    model_id = "scripted-open-closed"

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        self.asked.extend(pairs)
        out = []
        for a, b in pairs:
            clash = {"open", "closed"} <= set((a + " " + b).lower().replace(".", "").split())
            out.append(Judgement(0.05, 0.05, 0.9) if clash else Judgement(0.1, 0.8, 0.1))
        return out


def test_sentences_follow_markdown_and_drop_fragments() -> None:
    text = ("## Hours\n- The museum is **open** on Mondays. It closes at 6.\n\n"
            "| a | b |\n|---|---|\n| x | y |\n\nOk.")
    assert sentences(text) == ["The museum is open on Mondays.", "It closes at 6."]


def test_holding_finds_the_span_through_markup_or_by_shared_words() -> None:
    said = ["The museum is open on Mondays.", "Tickets cost 12 euros at the door."]
    assert holding(said, "is **open** on Mondays") == said[0]
    assert holding(said, "tickets, 12 euros") == said[1]


def test_separation_counts_each_side_over_the_thresholds() -> None:
    figures = separation([0.95, 0.6], [0.1, 0.2, 0.92])
    assert figures["roc_auc"] == round(5 / 6, 4)  # 0.95 above all three, 0.6 above two
    assert figures["at_or_above"]["0.9"] == {"positives": 1, "negatives": 1}
    assert figures["at_or_above"]["0.5"] == {"positives": 2, "negatives": 1}


def test_the_bench_pairs_labelled_evidence_and_near_clean_pairs(tmp_path: Path) -> None:
    said = [("a", 0, "user", "Is the museum open on Mondays?"),
            ("a", 1, "assistant", "Yes, the museum is open on Mondays."),
            ("a", 3, "assistant", "Sadly the museum is closed on Mondays."),
            ("b", 0, "user", "I love the museum on Sundays."),
            ("b", 1, "assistant", "The museum on Sundays is lovely indeed.")]
    turns = [dict(zip(("conversation_id", "turn_index", "role", "text"), row, strict=True))
             for row in said]
    labels = [
        {"conversation_id": "a", "contradiction": True, "turn_index": 3, "conflicts_with": 1,
         "evidence_new": "is closed on Mondays", "evidence_old": "is open", "split": "dev"},
        {"conversation_id": "b", "contradiction": False, "split": "dev"},
        {"conversation_id": "c", "contradiction": False, "split": "test"},
    ]
    (tmp_path / "turns.jsonl").write_text("\n".join(json.dumps(t) for t in turns))
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(x) for x in labels))
    verifier = WordVerifier()
    result = run_evidence_bench(tmp_path / "turns.jsonl", tmp_path / "labels.jsonl", "dev",
                                verifier, FakeEmbedder())  # type: ignore[arg-type]
    assert result["positives"] == 1 and result["negatives"] == 1
    assert result["positive_pairs"][0]["contradiction"] == 0.9
    assert result["roc_auc"] == 1.0
    # both orders, and the user's "I" reaches the verifier as "you"
    pair = ("The museum on Sundays is lovely indeed.", "You love the museum on Sundays.")
    assert pair in verifier.asked and pair[::-1] in verifier.asked
