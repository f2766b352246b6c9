"""Markdown of untrusted conversation text to safe HTML.

markdown-it-py with raw HTML off (tags come out as text), images off (a remote image would
be a tracking pixel and breaks "works offline"), and links only to http(s) and mailto: a
`javascript:` or `data:` target stays plain text instead of becoming a link.
"""

from __future__ import annotations

from typing import Any

from markdown_it import MarkdownIt
from markupsafe import Markup

SAFE_SCHEMES = ("http://", "https://", "mailto:")


def safe_link(url: str) -> bool:
    """Only absolute http(s) and mailto targets; markdown-it has already normalised `url`."""
    return url.strip().lower().startswith(SAFE_SCHEMES)


def _link_open(self: Any, tokens: Any, idx: int, options: Any, env: Any) -> str:
    tokens[idx].attrSet("rel", "nofollow noopener noreferrer")
    tokens[idx].attrSet("target", "_blank")
    return str(self.renderToken(tokens, idx, options, env))


def _parser() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "linkify": False, "typographer": False})
    md.disable("image")
    md.validateLink = safe_link  # type: ignore[method-assign]
    md.add_render_rule("link_open", _link_open)
    return md


_MD = _parser()


def render_markdown(text: str) -> Markup:
    """HTML for a turn's text; safe to insert unescaped because markdown-it escaped it."""
    return Markup(_MD.render(text))
