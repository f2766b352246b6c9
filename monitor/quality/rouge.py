"""ROUGE-1, ROUGE-2 and ROUGE-L F-measures of an answer against a reference.

The same arithmetic as Google's `rouge-score` 0.1.2 (lower-case, runs of anything but
a-z and 0-9 split tokens, tokens longer than three characters Porter-stemmed; n-gram
overlap with clipped counts; the longest common subsequence for ROUGE-L), written here
because importing `rouge_score` imports all of NLTK, which imports scikit-learn and
`scipy.stats`: 92 MB of a worker's memory for three overlap counts
(docs/notes/issue-20.md, stop 14). The stemmer is Snowball's original Porter algorithm
(`snowballstemmer`): the stems MFSS's content words always had (NLTK's
`ORIGINAL_ALGORITHM`, equal on MT-Bench-101's words), where rouge-score's default (NLTK's
extensions) differs on about 1.7% of long words ("journeys", "possibly"), so scores can
differ a little from rouge-score run with its defaults. tests/test_mfss.py checks every
score float-equal to `rouge_score` run with this stemmer.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

_SPLIT = re.compile(r"[^a-z0-9]+")
_STEM_FROM = 4
"""rouge-score stems only tokens longer than three characters."""


@lru_cache(maxsize=1)
def _porter() -> Any:
    import snowballstemmer

    return snowballstemmer.stemmer("porter")


def stem(word: str) -> str:
    """The original Porter stem of a lower-case word, if it is longer than three
    characters (rouge-score's rule, which MFSS's content words follow too)."""
    if len(word) < _STEM_FROM:
        return word
    result: str = _porter().stemWord(word)
    return result


def tokens(text: str, stemmed: bool = True) -> list[str]:
    """rouge-score's tokens: lower-cased alphanumeric runs, long ones stemmed."""
    words = [w for w in _SPLIT.split(text.lower()) if w]
    return [stem(w) for w in words] if stemmed else words


def _f_measure(matches: int, reference_total: int, answer_total: int) -> float:
    precision = matches / max(answer_total, 1)
    recall = matches / max(reference_total, 1)
    return 2 * precision * recall / (precision + recall) if precision + recall > 0 else 0.0


def _ngrams(words: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(words[i : i + n]) for i in range(len(words) - n + 1))


def rouge_n(reference: Sequence[str], answer: Sequence[str], n: int) -> float:
    ref, ans = _ngrams(reference, n), _ngrams(answer, n)
    matches = sum(min(count, ans[gram]) for gram, count in ref.items())
    return _f_measure(matches, sum(ref.values()), sum(ans.values()))


def _lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b, start=1):
            current.append(previous[j - 1] + 1 if x == y else max(previous[j], current[-1]))
        previous = current
    return previous[-1]


def rouge_l(reference: Sequence[str], answer: Sequence[str]) -> float:
    if not reference or not answer:
        return 0.0
    return _f_measure(_lcs_length(reference, answer), len(reference), len(answer))


def scores(reference: str, answer: str, stemmed: bool = True) -> dict[str, float]:
    """F-measures keyed as rouge-score names them: rouge1, rouge2, rougeL."""
    ref, ans = tokens(reference, stemmed), tokens(answer, stemmed)
    return {"rouge1": rouge_n(ref, ans, 1), "rouge2": rouge_n(ref, ans, 2),
            "rougeL": rouge_l(ref, ans)}
