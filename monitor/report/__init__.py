"""The conversation report: one self-contained HTML page from the monitor's output records.

Input is only what the monitor already emits (turn_score, certificate and session records,
see `monitor.contracts`), optionally the TurnEvents for the transcript, and optionally an
engine state for a fuller knowledge graph. Output is a single HTML string with its CSS,
its small sorting script and every chart (inline SVG) inside, so it works offline, as a
file attachment and behind the worker's `/conversations/{id}/report` route alike.

Conversation text is untrusted: it is escaped by Jinja2's autoescape everywhere, Markdown
is rendered with raw HTML disabled and only http(s)/mailto links, and the page carries a
Content-Security-Policy that lets only its own script (by hash) run.
"""

from monitor.report.model import ConversationReport, ReportInputError, build_reports, read_records
from monitor.report.render import render_report

__all__ = ["ConversationReport", "ReportInputError", "build_reports", "read_records",
           "render_report"]
