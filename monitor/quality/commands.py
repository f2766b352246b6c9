"""CLI commands of the quality package (monitor.cli registers them)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer, bench_app: typer.Typer) -> None:
    @bench_app.command("truthfulqa")
    def bench_truthfulqa(
        file: Annotated[Path, typer.Argument(help="TruthfulQA.csv")],
        limit: int = 0,
        output: Path | None = None,
    ) -> None:
        """MFSS ROC AUC (correct vs incorrect answers) and ConflictScore label shares."""
        from monitor.quality.truthfulqa import run_truthfulqa_bench
        from monitor.runner.offline import write_result

        write_result("truthfulqa", run_truthfulqa_bench(file, limit), output)
