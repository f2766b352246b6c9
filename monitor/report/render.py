"""Render conversation reports to one self-contained HTML page (Jinja2, autoescape on).

The page's CSS and its one small script (sorting the index) are inlined from files beside
the template; the Content-Security-Policy allows that script by its hash and nothing
else, so even a bug that let conversation text through unescaped could not run a script.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from importlib import resources

from jinja2 import BaseLoader, Environment, PackageLoader, StrictUndefined
from markupsafe import Markup

from monitor.report.charts import line_chart, radar
from monitor.report.markdown import render_markdown
from monitor.report.model import ConversationReport

TREND_RANK = {"DEGRADING": 0, "STABLE": 1, "IMPROVING": 2}


def _asset(name: str) -> str:
    return (resources.files("monitor.report") / "templates" / name).read_text("utf-8")


class _Dedented(PackageLoader):
    """The package's templates without their indentation: a thousand conversations'
    worth of indented markup is a megabyte of spaces. Only template lines are touched,
    never the data inserted into them."""

    def get_source(self, environment: Environment,
                   template: str) -> tuple[str, str, Callable[[], bool] | None]:
        source, path, uptodate = super().get_source(environment, template)
        return "\n".join(line.lstrip() for line in source.splitlines()), path, uptodate


def inert(html: str) -> Markup:
    """Markup that may sit inside a non-JavaScript <script> element as plain text.

    Only `</script` or `<!--` could end or confuse such a text; escaped conversation text
    never holds a `<`, so finding one means a bug, and the page is not written.
    """
    lowered = html.lower()
    if "</script" in lowered or "<!--" in lowered:
        raise ValueError("conversation markup would escape its container")
    return Markup(html)


def _env(loader: BaseLoader | None = None) -> Environment:
    env = Environment(loader=loader or _Dedented("monitor.report", "templates"),
                      autoescape=True, undefined=StrictUndefined, trim_blocks=True,
                      lstrip_blocks=True)
    env.filters["markdown"] = render_markdown
    env.filters["inert"] = inert
    env.filters["num"] = lambda v, fmt=".2f": "–" if v is None else format(v, fmt)
    env.globals.update(line_chart=line_chart, radar=radar, TREND_RANK=TREND_RANK)
    return env


_ENV = _env()
SCRIPT = _asset("report.js")
STYLE = _asset("report.css")
SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode()
CSP = (f"default-src 'none'; script-src 'sha256-{SCRIPT_HASH}'; style-src 'unsafe-inline'; "
       "img-src data:; base-uri 'none'; form-action 'none'")


def render_report(reports: Sequence[ConversationReport], title: str = "skg-monitor report",
                  generated: datetime | None = None, live: bool = False) -> str:
    """The HTML page: an index when there are several conversations, else the one."""
    when = (generated or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    versions = sorted({s.engine_version for r in reports for s in r.scores})
    return _ENV.get_template("report.html.j2").render(
        reports=reports, title=title, generated=when, single=len(reports) == 1,
        live=live, style=STYLE, script=SCRIPT, csp=CSP, engine_versions=versions,
        turns=sum(len(r.scores) for r in reports),
        certificates=sum(len(r.certificates) for r in reports),
    )
