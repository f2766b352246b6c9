"""Claim-bearing text units from a Markdown answer, by its structure (CommonMark).

Real assistants answer in Markdown. Read as flat prose, list markers become numbers ("1."
read as a value), a heading is glued onto the first item under it, a code block's
constants become facts and a table becomes one long sentence. The structure tells what a
unit of text is, so it is parsed with a maintained CommonMark parser (markdown-it-py)
rather than guessed with regular expressions:

* a paragraph or a list item is a unit; its inline markup is dropped, so list markers and
  numbering never reach the parser; inline code that is a name ("`requests`", "`git
  rebase`") stays as the word it is, since in a technical answer it is often the subject
  ("`requests` has no timeout"), and any other inline code is removed (code is not prose);
* a heading (or a paragraph that is only bold text, "**Day 2:**", "**Options for
  alcohol**") yields no claim: it is the *context* of the units under it, so "Day 2"
  scopes its items;
* a list item gets its own identity (`item`), so two items of one list are never one thing;
* block quotes are marked `quoted` (somebody else's words); code blocks yield no units;
* a table row is a unit of its own (`row`), each cell read with its column's header
  ("Time: 09:15-10:00; Session: Keynote"): assistants put schedules, prices and meal plans in
  tables, and a shellfish dish in a meal-plan table breaks an allergy as much as one in a
  sentence. Its first cell is its label, and it gets an item identity like a list item; a
  table inside a block quote is quoted like the rest of the quote.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from itertools import zip_longest
from typing import Any, Literal

SegmentKind = Literal["paragraph", "item", "quote", "row"]

_LABEL = re.compile(r"^\s*(?P<label>[^.!?:]{1,60}?)\s*:\s*$")
_SENTENCE_END = (".", "!", "?")
_CODE_NAME = re.compile(r"[A-Za-z_][\w.-]*(?: [A-Za-z_][\w.-]*){0,2}")
"""Inline code that reads as a name: up to three identifiers ("`httpx`", "`os.path`",
"`git rebase`"); an expression ("`timeout=30`", "`get(url)`") is not one."""
_CODE_NAME_CHARS = 40
_LABEL_CHARS = 60
"""The longest first cell that labels its row (a bold lead's limit in `_LABEL`)."""
_WS = re.compile(r"\s+")


@dataclass(frozen=True)
class Segment:
    """One unit of prose: the text a sentence parser should see, and where it stood."""

    text: str
    kind: SegmentKind
    context: str
    """The nearest heading (or bold pseudo-heading) above it, lowercased; "" if none."""
    item: int | None = None
    """Index of the list item within the answer; None outside lists."""
    label: str = ""
    """A bold lead of the unit itself ("**Price:** 14 EUR" -> "price"), lowercased."""
    heading: str = ""
    """The real heading in force above it as written ("3. Bugaboo Dragonfly (~$450)"), for
    what a heading offers; "" if none."""


@lru_cache(maxsize=1)
def _parser() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def _inline_text(token: Any) -> tuple[str, str]:
    """(plain text, bold lead) of an inline token: markup dropped, inline code kept only
    when it is a name."""
    parts: list[str] = []
    lead: list[str] = []
    in_strong = False
    lead_open = True
    for child in token.children or []:
        kind = child.type
        if kind == "strong_open":
            in_strong = True
            continue
        if kind == "strong_close":
            in_strong = False
            lead_open = False
            continue
        if kind in {"softbreak", "hardbreak"}:
            parts.append("\n")
            continue
        if kind == "code_inline" and not _is_name(child.content):
            parts.append(" ")
            lead_open = lead_open and not parts
            continue
        if kind in {"text", "html_inline", "code_inline"}:
            parts.append(child.content)
            if in_strong and lead_open:
                lead.append(child.content)
            elif child.content.strip() and not in_strong:
                lead_open = False
        elif kind == "image":
            continue
    return "".join(parts), "".join(lead).strip().rstrip(":").strip().lower()


def _is_name(code: str) -> bool:
    code = code.strip().removesuffix("()")
    return len(code) <= _CODE_NAME_CHARS and _CODE_NAME.fullmatch(code) is not None


def _clean(text: str) -> str:
    return _WS.sub(" ", text).strip()


def row_text(header: list[str], cells: list[str]) -> str:
    """A table row as one unit of prose, each non-empty cell after its column's header
    ("Day: Monday; Dinner: Prawn stir-fry"), unless the cell already names it ("Price:
    14 EUR" under "Price")."""
    named = [cell if not head or cell.lower().startswith(f"{head.lower()}:") else f"{head}: {cell}"
             for head, cell in zip_longest(header, cells, fillvalue="") if cell]
    return "; ".join(named)


def segments(text: str) -> list[Segment]:
    """The answer's prose units in reading order."""
    tokens = _parser().parse(text)
    out: list[Segment] = []
    context = ""
    item = -1
    item_stack: list[int] = []
    quote_depth = 0
    table_depth = 0
    header: list[str] = []
    cells: list[str] | None = None
    in_head = False
    heading = False
    titled = False  # the context is a real heading's
    heading_text = ""
    for token in tokens:
        kind = token.type
        if kind == "heading_open":
            heading = True
        elif kind == "heading_close":
            heading = False
        elif kind == "list_item_open":
            item += 1
            item_stack.append(item)
        elif kind == "list_item_close":
            item_stack.pop()
        elif kind == "blockquote_open":
            quote_depth += 1
        elif kind == "blockquote_close":
            quote_depth -= 1
        elif kind == "table_open":
            table_depth += 1
        elif kind == "table_close":
            table_depth -= 1
        elif kind == "thead_open":
            in_head = True
        elif kind == "thead_close":
            in_head = False
        elif kind == "tr_open":
            cells = []
        elif kind == "inline" and table_depth and cells is not None:
            cells.append(_clean(_inline_text(token)[0]))
        elif kind == "tr_close" and cells is not None:
            if in_head:
                header = cells
            elif any(cells):
                item += 1
                label = cells[0].rstrip(":").lower()
                out.append(Segment(text=row_text(header, cells),
                                   kind="quote" if quote_depth else "row", context=context,
                                   item=item, label=label if len(label) <= _LABEL_CHARS else "",
                                   heading=heading_text))
            cells = None
        elif kind == "inline" and not table_depth:
            raw, lead = _inline_text(token)
            if heading:
                heading_text = _clean(raw).rstrip(":")
                context = heading_text.lower()
                titled = True
                continue
            lines = [line for line in (_clean(x) for x in raw.split("\n")) if line]
            if not lines:
                continue
            first = _LABEL.match(lines[0])
            if first and not item_stack and lead and _clean(lead) == _clean(
                first.group("label").lower()
            ):
                # "**Day 2:**" alone on its line is a heading in all but syntax
                context = lead
                lines = lines[1:]
                lead = ""
                if not lines:
                    continue
            if not item_stack and len(lines) == 1 and lead and _clean(lead) == _clean(
                    lines[0]).lower() and not lines[0].endswith(_SENTENCE_END):
                # "**A hybrid that works well for accounting**" alone in its paragraph,
                # above a list: a heading in all but syntax, no claim; under a real
                # heading ("## Oat bars", "**Ingredients**") the real one still scopes
                context = context if titled else lead
                continue
            if len(lines) > 1 and lead and _clean(lead) == _clean(lines[0]).lower():
                # "**Bag fees**" alone on the first line titles the prose under it
                lines = lines[1:]
            body = " ".join(lines)
            seg_kind: SegmentKind = "quote" if quote_depth else (
                "item" if item_stack else "paragraph")
            out.append(Segment(text=body, kind=seg_kind, context=context,
                               item=item_stack[-1] if item_stack else None, label=lead,
                               heading=heading_text))
    return out
