"""A few conversations of a committed labelled set through a bench command."""

from __future__ import annotations

import json
from collections.abc import Collection
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from monitor.bench.jsonl import read_jsonl
from monitor.cli import app
from monitor.contracts import TurnEvent


def bench_slice(command: str, folder: Path, ids: Collection[str], out: Path
                ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """`skg-monitor bench <command> --split dev` on `folder`'s conversations `ids` (written
    to `out` first): their labels, and the result file the command wrote."""
    labels = [lab for lab in read_jsonl(folder / "labels.jsonl") if lab["conversation_id"] in ids]
    (out / "labels.jsonl").write_text(
        "".join(json.dumps(lab) + "\n" for lab in labels), encoding="utf-8")
    (out / "turns.jsonl").write_text("".join(
        json.dumps(row) + "\n" for row in read_jsonl(folder / "turns.jsonl")
        if row["conversation_id"] in ids), encoding="utf-8")
    written = out / f"{command}-dev.json"
    result = CliRunner().invoke(app, [
        "bench", command, "--turns", str(out / "turns.jsonl"),
        "--labels", str(out / "labels.jsonl"), "--split", "dev", "--output", str(written)])
    assert result.exit_code == 0, result.output
    return labels, json.loads(written.read_text(encoding="utf-8"))


def labelled_conversations(folder: Path) -> list[tuple[dict[str, Any], dict[int, TurnEvent]]]:
    """Each label of `folder` with its conversation's turns by index, after checking that
    every conversation has exactly one label and its turns run from 0 without a gap."""
    by_id: dict[str, dict[int, TurnEvent]] = {}
    for row in read_jsonl(folder / "turns.jsonl"):
        event = TurnEvent.model_validate(row)
        by_id.setdefault(event.conversation_id, {})[event.turn_index] = event
    labels = list(read_jsonl(folder / "labels.jsonl"))
    assert len({lab["conversation_id"] for lab in labels}) == len(labels) == len(by_id)
    for turns in by_id.values():
        assert sorted(turns) == list(range(len(turns)))
    return [(lab, by_id[lab["conversation_id"]]) for lab in labels]
