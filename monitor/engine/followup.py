"""Follow-up operations: a request that works on something already said.

"Now turn those points into a paragraph", "shorten it", "translate that into French":
the answer to such a request shares few words with the request and much with its
*operand*, the previous answer (or text the user quotes). Judging it against the request
alone calls a faithful reformatting irrelevant, which is what made ordinary follow-ups look
like quality declines. This module only recognises the operation and the quoted operand;
the pipeline keeps the operand's embedding (one vector) and `signals.request_relevance`
uses it.

The cue phrases are data (`monitor/data/followup_cues.tsv`), compiled once.
"""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

MIN_QUOTED_WORDS = 8
"""Quoted text shorter than this is a phrase inside the request, not an operand."""

_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|```(.+?)```|^[^\n]*:\s*\n(.+)$", re.S)


def _compile(phrase: str) -> str:
    parts = [re.escape(p) for p in phrase.lower().split()]
    words = (p if p != r"\*" else r"(?:\S+\s+){0,2}\S+" for p in parts)
    return r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)"


@lru_cache(maxsize=1)
def cues() -> tuple[tuple[str, re.Pattern[str]], ...]:
    """(operation, compiled pattern) per line of the data file, in file order."""
    text = (resources.files("monitor") / "data" / "followup_cues.tsv").read_text("utf-8")
    out = []
    for line in text.splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        operation, phrase = line.split("\t")
        out.append((operation, re.compile(_compile(phrase), re.I)))
    return tuple(out)


def operation_of(request: str) -> str | None:
    """The follow-up operation a request asks for (first cue in file order), or None."""
    for operation, pattern in cues():
        if pattern.search(request):
            return operation
    return None


def quoted_operand(request: str) -> str | None:
    """Text the request quotes to be worked on (a quotation, a code block, or a block after
    a colon), if it is long enough to be an operand rather than a phrase."""
    best: str | None = None
    for match in _QUOTED.finditer(request):
        text = next(g for g in match.groups() if g is not None).strip()
        if len(text.split()) >= MIN_QUOTED_WORDS and (best is None or len(text) > len(best)):
            best = text
    return best
