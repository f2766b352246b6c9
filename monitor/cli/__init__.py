"""`skg-monitor`: one Typer app made of the command modules beside this one.

Each module imports only downward (runner, stream, bench), and heavy parts inside its
commands, so `schemas` and `--help` start without loading the models.
"""

from __future__ import annotations

import typer

from monitor.cli import bench, config, report, score, stream, verifier
from monitor.cli.errors import guard_file_errors

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Real-time dialogue quality monitor (SKG-Eval, MFSS, ConflictScore).")
score.register(app)
stream.register(app)
report.register(app)
app.add_typer(config.app, name="config")
app.add_typer(bench.app, name="bench")
app.add_typer(verifier.app, name="verifier")
guard_file_errors(app)  # a file a command cannot read: one line, exit 2

__all__ = ["app"]
