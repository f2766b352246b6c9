"""One line and exit 2 for a file a command cannot read or write, never a traceback."""

from __future__ import annotations

from typing import Any

import typer
from rich.console import Console

err = Console(stderr=True)

FILE_ERRORS = (FileNotFoundError, IsADirectoryError, NotADirectoryError, PermissionError)


def guard_file_errors(app: typer.Typer) -> None:
    """Every command of `app` (and of its sub-apps) answers a file it cannot read or write
    with one line on stderr and exit 2, not a traceback: an OSError that names a file and
    escapes the command becomes `error: input file not found: x.jsonl`."""
    for command in app.registered_commands:
        if command.callback is not None and not getattr(command.callback, "_guarded", False):
            command.callback = _guarded(command.callback)
    for group in app.registered_groups:
        if group.typer_instance is not None:
            guard_file_errors(group.typer_instance)


def _guarded(callback: Any) -> Any:
    import functools

    from monitor.inputs import InputFileError

    @functools.wraps(callback)
    def run(*args: Any, **kwargs: Any) -> Any:
        try:
            return callback(*args, **kwargs)
        except InputFileError as exc:
            err.print(f"error: {exc}", markup=False, highlight=False)
            raise typer.Exit(2) from None
        except FILE_ERRORS as exc:
            if exc.filename is None:
                raise
            what = {FileNotFoundError: "file not found", IsADirectoryError: "is a directory",
                    NotADirectoryError: "not a directory",
                    PermissionError: "permission denied"}[type(exc)]
            err.print(f"error: {what}: {exc.filename}", markup=False, highlight=False)
            raise typer.Exit(2) from None

    run._guarded = True  # type: ignore[attr-defined]
    return run
