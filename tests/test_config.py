"""The engine config as a file: TOML in (`--config`), TOML out (`config show`), validated."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from pydantic import ValidationError
from typer.testing import CliRunner

from monitor.cli import app
from monitor.config import EngineConfig, config_toml, load_config

ROOT = Path(__file__).resolve().parents[1]
runner = CliRunner()


def test_toml_round_trip_and_defaults(tmp_path: Path) -> None:
    assert load_config(None) == EngineConfig()
    changed = EngineConfig(page_confidence=0.9, max_nodes=10,
                           mfss_weights={"accuracy": 0.5})  # type: ignore[arg-type]
    path = tmp_path / "engine.toml"
    path.write_text(config_toml(changed))
    assert load_config(path) == changed
    assert tomllib.loads(config_toml(EngineConfig())) == EngineConfig().model_dump(mode="json")


def test_a_partial_file_changes_only_its_fields(tmp_path: Path) -> None:
    path = tmp_path / "engine.toml"
    path.write_text("page_confidence = 0.9\n\n[profile_qa]\nlocal = 0.7\nconsistency = 0.0\n"
                    "logic = 0.3\n")
    config = load_config(path)
    assert config.page_confidence == 0.9 and config.profile_qa.local == 0.7
    assert config.model_copy(update={"page_confidence": 0.8,
                                     "profile_qa": EngineConfig().profile_qa}) == EngineConfig()


def test_json_files_still_read(tmp_path: Path) -> None:
    path = tmp_path / "engine.json"
    path.write_text(json.dumps({"max_nodes": 12}))
    assert load_config(path).max_nodes == 12


@pytest.mark.parametrize("text", ["no_such_field = 1\n", "max_nodes = 'many'\n",
                                  "max_scored_chars = 5\n", "page_confidence = \n"])
def test_bad_files_are_refused(tmp_path: Path, text: str) -> None:
    path = tmp_path / "engine.toml"
    path.write_text(text)
    with pytest.raises(ValueError):
        load_config(path)
    result = runner.invoke(app, ["config", "show", "--config", str(path)])
    assert result.exit_code == 2
    assert "--config" in result.output


def test_validation_error_is_a_value_error() -> None:
    assert issubclass(ValidationError, ValueError)


def test_config_show_prints_a_file_that_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "engine.toml"
    path.write_text("trend_decay = 0.2\n")
    result = runner.invoke(app, ["config", "show", "--config", str(path)])
    assert result.exit_code == 0, result.output
    shown = tmp_path / "shown.toml"
    shown.write_text(result.output)
    config = load_config(shown)
    assert config == EngineConfig(trend_decay=0.2)
    assert config.fingerprint() in result.output
    assert "embedder onnx" in result.output


def test_score_uses_the_config_file(tmp_path: Path) -> None:
    path = tmp_path / "engine.toml"
    path.write_text("trend_decay = 0.2\n")
    turns = tmp_path / "turns.jsonl"
    turns.write_text(
        json.dumps({"conversation_id": "c", "turn_index": 0, "role": "user",
                    "text": "Is the museum open on Mondays?"}) + "\n"
        + json.dumps({"conversation_id": "c", "turn_index": 1, "role": "assistant",
                      "text": "Yes, the museum is open on Mondays."}) + "\n")
    result = runner.invoke(app, ["score", str(turns), "--config", str(path)])
    assert result.exit_code == 0, result.output
    [score] = [json.loads(line) for line in result.stdout.splitlines()
               if json.loads(line)["type"] == "turn_score"]
    assert "+" + EngineConfig(trend_decay=0.2).fingerprint() + "." in score["engine_version"]


def test_rule_confidences_and_paging_detectors_are_validated(tmp_path: Path) -> None:
    path = tmp_path / "engine.toml"
    path.write_text("[rule_confidence]\nnegation = 0.9\n")
    assert load_config(path).rule_confidence == {"negation": 0.9}  # the others: defaults
    for bad in ("[rule_confidence]\nbogus = 0.5\n", "[rule_confidence]\nnegation = 1.5\n",
                'paging_detectors = ["negation", "bogus"]\n'):
        path.write_text(bad)
        with pytest.raises(ValueError):
            load_config(path)
