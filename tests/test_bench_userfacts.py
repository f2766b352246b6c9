"""`bench userfacts`: the blind set of user facts, rules and updates broken in passing."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from monitor.bench.jsonl import read_jsonl
from tests.labelled_sets import bench_slice, labelled_conversations

ROOT = Path(__file__).resolve().parents[1]
FOLDER = ROOT / "benchmarks" / "user_facts_blind"
BROKEN = {"user_fact", "constraint", "update_ignored"}
KEPT = {"consistent", "update_followed"}


def test_every_label_names_a_user_turn_and_a_later_answer_of_its_conversation() -> None:
    for lab, conversation in labelled_conversations(FOLDER):
        assert lab["conversation_id"].startswith(lab["set"] + "-")
        assert lab["kind"] in BROKEN | KEPT and lab["contradiction"] == (lab["kind"] in BROKEN)
        if lab["contradiction"]:
            user, answer = lab["conflicts_with"], lab["turn_index"]
            assert user < answer
            assert conversation[user].role == "user"
            assert conversation[answer].role == "assistant"
        else:
            assert lab["turn_index"] is None and lab["conflicts_with"] is None


def test_the_test_split_is_the_sets_nobody_read_while_changing_the_engine() -> None:
    labels = list(read_jsonl(FOLDER / "labels.jsonl"))
    sets = {split: {lab["set"] for lab in labels if lab["split"] == split}
            for split in ("dev", "test")}
    assert sets["test"] == {"b88", "b92"} and not sets["dev"] & sets["test"]
    kinds = Counter((lab["split"], lab["kind"]) for lab in labels)
    assert kinds[("test", "user_fact")] == 40 and kinds[("test", "constraint")] == 20
    assert kinds[("test", "consistent")] == 60


def test_the_command_scores_a_split_and_counts_its_false_pages(tmp_path: Path) -> None:
    """A broken rule (chicken broth at an all-vegetarian Thanksgiving) and a look-alike,
    through the real engine."""
    _, written = bench_slice("userfacts", FOLDER, {"b91-c33", "b91-c02"}, tmp_path)
    assert written["conversations"] == 2 and written["split"] == "dev"
    assert written["overall"]["tp"] == 1 and written["overall"]["fn"] == 0
    pages = {(c["conversation_id"], c["turn_index"], c["conflicts_with"])
             for c in written["certificates"] if c["severity"] == "page"}
    assert written["false_alarm_pages"] == len(pages - {("b91-c33", 3, 0)})
