"""The shipped contradiction verifier: real model, offline, deterministic, hash-checked."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from monitor.bench.verifier import Pair, evaluate
from monitor.cli import app
from monitor.engine.protocols import Judgement
from monitor.engine.verifier import MODEL_DIR, OnnxVerifier, default_verifier, verdicts

PAIRS = [
    ("The museum is open on Mondays.", "The museum is closed on Mondays."),
    ("A man is playing a guitar on stage.", "A man is performing music."),
    ("The train to Sintra takes about 40 minutes.", "The ride takes an hour and a half."),
    ("Two dogs run across a snowy field.", "The cat sleeps on the sofa."),
]


def test_same_pair_same_probabilities_alone_or_in_any_batch() -> None:
    fresh = OnnxVerifier(cache_size=0)
    alone = [fresh.judge([pair])[0] for pair in PAIRS]
    batch = fresh.judge(PAIRS)
    shuffled = fresh.judge(list(reversed(PAIRS)) + PAIRS[:1])
    assert batch == alone
    assert list(reversed(shuffled[:-1])) == alone
    assert shuffled[-1] == alone[0]
    assert default_verifier().judge(PAIRS) == alone  # the cached instance agrees too


def test_one_shared_verifier_however_it_is_asked_for() -> None:
    # a second model in one process cost the memory bench 63 MB (engine_built_mb 369.6
    # against verifier_loaded_mb 306.9, python -m monitor.bench.memory)
    assert default_verifier() is default_verifier(2) is default_verifier(threads=2)
    assert default_verifier(1) is not default_verifier(2)


def test_reads_meaning() -> None:
    (negated, paraphrase, _, unrelated) = verdicts(default_verifier(), PAIRS)
    assert negated.contradiction > 0.8
    assert paraphrase.forward.entailment > paraphrase.forward.contradiction
    assert unrelated.contradiction < negated.contradiction


def test_a_model_file_that_differs_from_its_card_is_refused(tmp_path: Path) -> None:
    copy = tmp_path / "verifier"
    shutil.copytree(MODEL_DIR, copy)
    card = json.loads((copy / "model_card.json").read_text())
    card["sha256"] = "0" * 64
    (copy / "model_card.json").write_text(json.dumps(card))
    with pytest.raises(ValueError, match="does not match its model card"):
        OnnxVerifier(copy)


def test_model_card_names_sources_hash_and_dev_figures() -> None:
    card = json.loads((MODEL_DIR / "model_card.json").read_text())
    assert card["labels"] == ["entailment", "neutral", "contradiction"]
    assert (MODEL_DIR / "verifier.int8.onnx").stat().st_size <= 30 * 1024 * 1024
    assert {"felsal_snli", "felsal_mnli", "cannot_subsets"} <= set(card["dev"]["per_source"])
    assert all("CC" in v or "MIT" in v or "Apache" in v or "C-UDA" in v
               for v in card["sources"].values())
    assert card["model_id"].endswith(card["sha256"][:12])


def test_cli_check_prints_both_orders() -> None:
    result = CliRunner().invoke(app, ["verifier", "check", *PAIRS[0], "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output)
    assert set(out) == {"model", "forward", "backward", "contradiction", "entailment"}
    mean = (out["forward"]["contradiction"] + out["backward"]["contradiction"]) / 2
    assert out["contradiction"] == pytest.approx(mean, abs=1e-6)


class _PremiseFirstOnly:
    """A verifier that finds a contradiction only when the longer sentence comes first:
    the order bias the reversed figures are there to show."""

    model_id = "premise-first"

    def judge(self, pairs: list[tuple[str, str]]) -> list[Judgement]:
        return [Judgement(0.1, 0.1, 0.8) if "not" in a + b and len(a) > len(b)
                else Judgement(0.1, 0.8, 0.1) for a, b in pairs]


def test_dev_figures_report_the_other_order_too() -> None:
    dev = [Pair("The long museum sentence is not open today.", "It is open.", "contradiction",
                "s"),
           Pair("The shop is open late on Fridays.", "It is open.", "entailment", "s")]
    result = evaluate(_PremiseFirstOnly(), dev)
    assert result["per_source"]["s"]["contradiction_recall"] == 1.0
    assert result["reversed"]["per_source"]["s"]["contradiction_recall"] == 0.0
    assert result["reversed"]["overall"]["accuracy_3way"] is None
