"""Language data as files, apart from the code that uses it; one file per list.

A list file (`.txt` or `.tsv`) holds one entry per line; `#` starts a comment line. In a
`.tsv` file the entry is followed, after a tab, by the roles it plays (space-separated
tags) and, after another tab, by any further column the file's header describes.
Consumers that need part of a list ask for the entries with a role, so a word is written
once however many detectors read it. Pair files (`a/b`, `_` for a space inside a lemma,
several pairs to a line) hold antonym pairs.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from functools import cache, lru_cache
from importlib import resources
from typing import Any


@cache
def rows(name: str) -> tuple[tuple[str, ...], ...]:
    """The entries of `monitor/data/<name>` as tuples of their tab-separated columns."""
    text = (resources.files("monitor") / "data" / name).read_text(encoding="utf-8")
    return tuple(tuple(line.split("\t")) for line in text.splitlines()
                 if line.strip() and not line.startswith("#"))


@cache
def tables(name: str) -> dict[str, Any]:
    """A TOML data file (`monitor/data/<name>`) as nested dicts, in the file's order.
    Callers must not change what they get: it is shared."""
    text = (resources.files("monitor") / "data" / name).read_text(encoding="utf-8")
    return tomllib.loads(text)


def words(name: str, role: str | None = None) -> frozenset[str]:
    """The entries (first column) of a list, or only those tagged with `role`."""
    return frozenset(row[0] for row in rows(name)
                     if role is None or (len(row) > 1 and role in row[1].split()))


def pairs(name: str) -> frozenset[frozenset[str]]:
    """The `a/b` pairs of a pair file, as unordered pairs (`_` read as a space)."""
    out: set[frozenset[str]] = set()
    for row in rows(name):
        for item in row[0].replace(";", " ").split():
            a, b = item.split("/")
            out.add(frozenset((a.replace("_", " "), b.replace("_", " "))))
    return frozenset(out)


@cache
def word_pattern(words: tuple[str, ...]) -> re.Pattern[str]:
    """Any of the words or phrases, whole ("peanut" not in "peanuts-free"), any case;
    the longest first, so "in total" wins over "total"."""
    alternatives = "|".join(re.escape(w) for w in sorted(set(words), key=len, reverse=True))
    return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w-])", re.IGNORECASE)


@cache
def kinds_reader(name: str) -> Callable[[str], frozenset[str]]:
    """A two-column table (a word or phrase, the kind it names) as a reader of texts: the
    kinds a text names, whole words only, whatever their case. One reader per table, and
    each remembers its recent texts: the amount routes ask it of the same remembered
    sentence against every new one, and a scan of a long alternation costs about 30 µs."""
    kind_of = {row[0].lower(): row[1] for row in rows(name)}
    pattern = word_pattern(tuple(kind_of))

    @lru_cache(maxsize=8192)
    def kinds(text: str) -> frozenset[str]:
        return frozenset(kind_of[m.group(0).lower()] for m in pattern.finditer(text))

    return kinds
