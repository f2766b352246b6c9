"""`python -m monitor.cli ...`: the same app as the `skg-monitor` script."""

from monitor.cli import app

app()
