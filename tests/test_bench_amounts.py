"""`bench amounts`: the blind set of amounts said again differently, and its scoring."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from monitor.bench.blind import evaluate
from monitor.bench.jsonl import read_jsonl
from monitor.contracts import ContradictionCertificate
from tests.labelled_sets import bench_slice, labelled_conversations

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "benchmarks" / "amounts_blind"


def test_every_label_names_two_turns_of_its_conversation() -> None:
    labelled = labelled_conversations(FOLDER)
    for lab, conversation in labelled:
        old, new = lab["amount_turns"]
        assert old < new and conversation[new].role == "assistant"
        assert conversation[old].text.strip() and conversation[new].text.strip()
        if lab["contradiction"]:
            assert (lab["conflicts_with"], lab["turn_index"]) == (old, new)
        else:
            assert lab["turn_index"] is None and lab["conflicts_with"] is None
    splits = Counter((lab["split"], lab["contradiction"]) for lab, _ in labelled)
    for split in ("dev", "test"):
        assert splits[(split, True)] >= 50 and splits[(split, False)] >= 50


def _certificate(cid: str, turn: int, prior: int,
                 severity: str = "warn") -> ContradictionCertificate:
    """Only what the scoring reads: which turn cites which, in which conversation, and
    whether it pages."""
    return ContradictionCertificate.model_construct(
        conversation_id=cid, turn_index=turn, conflicts_with=prior, severity=severity)


def test_a_hit_is_the_labelled_pair_and_any_other_pair_a_false_alarm() -> None:
    labels = [
        {"conversation_id": "a", "contradiction": True, "turn_index": 3,
         "conflicts_with": 1, "kind": "amount_changed"},
        {"conversation_id": "b", "contradiction": True, "turn_index": 3,
         "conflicts_with": 1, "kind": "amount_changed"},
        {"conversation_id": "c", "contradiction": False, "turn_index": None,
         "conflicts_with": None, "kind": "amounts_for_different_things"},
        {"conversation_id": "d", "contradiction": False, "turn_index": None,
         "conflicts_with": None, "kind": "amounts_for_different_things"},
    ]
    result = evaluate([_certificate("a", 3, 1, "page"), _certificate("b", 3, 0),
                       _certificate("c", 3, 1, "page")], labels)
    assert {k: result["overall"][k] for k in ("tp", "fp", "fn", "tn")} == {
        "tp": 1, "fp": 2, "fn": 1, "tn": 1}
    assert result["per_kind"]["amounts_for_different_things"]["fp"] == 1
    # of the two false alarms, one paged ("c"); the page at the labelled pair is a hit
    assert result["false_alarm_pages"] == 1


def test_the_command_scores_a_split_and_writes_it(tmp_path: Path) -> None:
    """Two conversations of the dev split through the real engine."""
    ids = [lab["conversation_id"] for lab in read_jsonl(FOLDER / "labels.jsonl")
           if lab["split"] == "dev"][:2]
    labels, written = bench_slice("amounts", FOLDER, ids, tmp_path)
    assert written["conversations"] == 2 and written["split"] == "dev"
    assert written["overall"]["tp"] + written["overall"]["fn"] == sum(
        lab["contradiction"] for lab in labels)


@pytest.mark.parametrize("split", ["dev", "test"])
def test_a_split_is_only_its_own_conversations(split: str) -> None:
    prefix = {"dev": "am1-", "test": "am2-"}[split]
    assert all(lab["conversation_id"].startswith(prefix)
               for lab in read_jsonl(FOLDER / "labels.jsonl") if lab["split"] == split)
