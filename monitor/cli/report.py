"""`skg-monitor report`: scored conversations as one HTML page."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer


def register(app: typer.Typer) -> None:
    @app.command()
    def report(
        scores: Annotated[Path, typer.Argument(help="output of `skg-monitor score` (JSONL)")],
        out: Annotated[Path, typer.Option(help="the HTML file to write")] = Path("report.html"),
        events: Annotated[Path | None, typer.Option(
            help="the TurnEvents that were scored (JSONL), for the transcript")] = None,
        title: str = "skg-monitor report",
        screenshot: Annotated[Path | None, typer.Option(
            help="also write a PNG of one conversation's page (headless Chromium)")] = None,
        focus: Annotated[str | None, typer.Option(
            help="the conversation of the screenshot (default: worst with a certificate)")
        ] = None,
    ) -> None:
        """One self-contained HTML page: index, transcripts, charts, certificates, graphs."""
        from monitor.report import ReportInputError, build_reports, read_records, render_report

        for path in (scores, events):
            if path is not None and not path.exists():
                raise typer.BadParameter(f"file not found: {path}")
        try:
            records = read_records(
                scores.read_text(encoding="utf-8").splitlines(), str(scores),
                events.read_text(encoding="utf-8").splitlines() if events else ())
        except ReportInputError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(code=1) from exc
        reports = build_reports(records)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(render_report(reports, title=title), encoding="utf-8")
        typer.echo(f"wrote {out} ({len(reports)} conversations, "
                   f"{out.stat().st_size / 1e6:.2f} MB)")
        if screenshot is not None:
            from monitor.report.browser import screenshot_report

            chosen = [r for r in reports if r.conversation_id == focus] if focus else (
                [r for r in reports if r.certificates] or reports)
            if not chosen:
                raise typer.BadParameter(f"no conversation {focus!r} in {scores}")
            screenshot_report(out, screenshot, chosen[0].anchor)
            typer.echo(f"wrote {screenshot} (conversation {chosen[0].conversation_id})")
