"""The contradiction verifier on its own held-back dev split, per source.

The split is the one the training used (`training/train_verifier.py` imports it from
here): a hash of the premise, fixed before any result. Reported per source because the
sources differ a lot (image captions, fiction, dialogue, fact-checking, templated
negation): 3-way accuracy where the labels are three-way, and contradiction precision,
recall and F1 everywhere. The page threshold is calibrated here too: the lowest
P(contradiction) (mean of both orders, as the engine uses it) at which contradiction
precision on the dev split reaches the target.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from statistics import median
from typing import Any

from monitor.bench.jsonl import iter_jsonl
from monitor.engine.protocols import Judgement, PairVerdict, Verifier, verdicts

LABELS = ("entailment", "neutral", "contradiction")
DEV_PERCENT = 6
DEFAULT_DATA = Path("../shared/data/nli/pairs.jsonl")
ASSISTANT_DATA = Path("training/data/assistant_pairs.jsonl")
ASSISTANT_SOURCE = "assistant_style"
ASSISTANT_DEV_PERCENT = 20
"""A fifth of the assistant-style pairs held back (by the same hash of the premise): about
600 pairs, enough to read the contradiction precision near the top of the scale."""
CHAT_DATA = Path("training/data/chat_pairs.jsonl")
CHAT_SOURCE = "assistant_chats"
TEMPLATED_SOURCES = frozenset({"breaking_nli", "cannot_subsets", "med", "help_small"})
"""Pairs made from templates (one word swapped, a negation inserted): easy, and unlike
what an assistant writes, so the page threshold is calibrated without them."""


@dataclass(frozen=True)
class Pair:
    premise: str
    hypothesis: str
    label: str
    source: str


def dev_bucket(premise: str) -> int:
    """0..99 from the premise alone, so every hypothesis of one premise falls on one side."""
    norm = " ".join(premise.lower().split())
    return int.from_bytes(hashlib.sha256(norm.encode()).digest()[:4], "big") % 100


def load_pairs(path: Path) -> list[Pair]:
    return [Pair(row["premise"], row["hypothesis"], row["label"], row["source"])
            for row in iter_jsonl(path)]


def load_assistant_pairs(path: Path = ASSISTANT_DATA) -> list[Pair]:
    """Sentence pairs written for this project in the style of a chat (training/data/README.md).

    The premise is an earlier sentence of the user's or the assistant's, the hypothesis a
    later assistant sentence. A user's premise is put in the assistant's voice ("I" ->
    "you"), as the engine gives it to the verifier.
    """
    from monitor.engine.meaning import in_assistant_voice

    pairs: dict[tuple[str, str], Pair] = {}
    for row in iter_jsonl(path):
        premise = row["premise"]
        if row["premise_speaker"] == "user":
            premise = in_assistant_voice(premise)
        pair = Pair(premise, row["hypothesis"], row["label"], ASSISTANT_SOURCE)
        pairs.setdefault((pair.premise, pair.hypothesis), pair)
    return list(pairs.values())


def chat_split(path: Path = CHAT_DATA) -> tuple[list[Pair], list[Pair]]:
    """The pairs the engine sent to the verifier on chats written for this project
    (training/data/README.md): `contradiction` for a chat's planted one, `not_contradiction`
    for every other; a fifth of the chats held back whole, by a hash of their id, so no
    pair of a held-back chat is trained on."""
    train: list[Pair] = []
    dev: list[Pair] = []
    for row in iter_jsonl(path):
        pair = Pair(row["premise"], row["hypothesis"], row["label"], CHAT_SOURCE)
        held = dev_bucket(row["conversation_id"]) < ASSISTANT_DEV_PERCENT
        (dev if held else train).append(pair)
    return train, dev


def split(pairs: Sequence[Pair], percent: int = DEV_PERCENT) -> tuple[list[Pair], list[Pair]]:
    train: list[Pair] = []
    dev: list[Pair] = []
    for pair in pairs:
        (dev if dev_bucket(pair.premise) < percent else train).append(pair)
    return train, dev


def figures(dev: Sequence[Pair], judged: Sequence[Judgement], idx: Sequence[int],
            binary: frozenset[str] = frozenset()) -> dict[str, Any]:
    """3-way accuracy (sources with three-way labels only) and contradiction P/R/F1 (all)."""
    tp = fp = fn = correct = three = 0
    labels: Counter[str] = Counter()
    for i in idx:
        gold, j = dev[i].label, judged[i]
        labels[gold] += 1
        probs = (j.entailment, j.neutral, j.contradiction)
        predicted = LABELS[max(range(3), key=lambda k: probs[k])]
        gold_c, pred_c = gold == "contradiction", predicted == "contradiction"
        tp += gold_c and pred_c
        fp += (not gold_c) and pred_c
        fn += gold_c and not pred_c
        if gold in LABELS and dev[i].source not in binary:
            three += 1
            correct += predicted == gold
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {
        "n": len(idx),
        "labels": dict(sorted(labels.items())),
        "accuracy_3way": round(correct / three, 4) if three else None,
        "contradiction_precision": round(precision, 4),
        "contradiction_recall": round(recall, 4),
        "contradiction_f1": round(f1, 4),
    }


def page_threshold(
    dev: Sequence[Pair], both: Sequence[PairVerdict], target: float = 0.9
) -> dict[str, Any]:
    """The lowest mean-of-orders P(contradiction) with dev precision >= target above it."""
    scored = sorted(((v.contradiction, dev[i].label == "contradiction")
                     for i, v in enumerate(both)), reverse=True)
    positives = sum(1 for _, gold in scored if gold)
    best: dict[str, Any] = {"target_precision": target, "threshold": None}
    tp = 0
    for rank, (score, gold) in enumerate(scored, start=1):
        tp += gold
        if tp / rank >= target and (rank == len(scored) or scored[rank][0] < score):
            best = {"target_precision": target, "threshold": round(score, 4),
                    "precision": round(tp / rank, 4),
                    "recall": round(tp / positives, 4) if positives else 0.0}
    return best


def reversed_figures(dev: Sequence[Pair], backward: Sequence[Judgement],
                     by_source: dict[str, list[int]]) -> dict[str, Any]:
    """Contradiction P/R/F1 with hypothesis and premise swapped, per source.

    A contradiction holds both ways, and the engine takes the mean of both orders, so a
    verifier that finds a contradiction only premise-first loses it; this is the figure
    that shows it. Three-way accuracy is left out (the reverse of an entailment is not one).
    """
    everything = frozenset(p.source for p in dev)
    return {
        "overall": figures(dev, backward, range(len(dev)), everything),
        "per_source": {s: figures(dev, backward, idx, everything)
                       for s, idx in sorted(by_source.items())},
    }


def evaluate(verifier: Verifier, dev: Sequence[Pair]) -> dict[str, Any]:
    """Per-source figures of premise -> hypothesis, the same in the other order, and the
    page threshold over both orders."""
    started = time.perf_counter()
    both = verdicts(verifier, [(p.premise, p.hypothesis) for p in dev])
    seconds = time.perf_counter() - started
    forward = [v.forward for v in both]
    backward = [v.backward for v in both]
    by_source: dict[str, list[int]] = defaultdict(list)
    for i, pair in enumerate(dev):
        by_source[pair.source].append(i)
    binary = frozenset(p.source for p in dev if p.label == "not_contradiction")
    three_way = [i for i, p in enumerate(dev) if p.source not in binary]
    result: dict[str, Any] = {
        "overall": figures(dev, forward, range(len(dev)), binary),
        "three_way_overall": figures(dev, forward, three_way, binary),
        "per_source": {s: figures(dev, forward, idx, binary)
                       for s, idx in sorted(by_source.items())},
        "reversed": reversed_figures(dev, backward, by_source),
        "page_threshold": page_threshold(
            [p for p in dev if p.source not in TEMPLATED_SOURCES],
            [v for p, v in zip(dev, both, strict=True) if p.source not in TEMPLATED_SOURCES]),
        "ms_per_pair_both_orders": round(1000 * seconds / max(1, len(dev)), 3),
    }
    return result


def run_verifier_bench(data: Path = DEFAULT_DATA, limit: int = 0,
                       assistant: Path = ASSISTANT_DATA,
                       chats: Path = CHAT_DATA) -> dict[str, Any]:
    """The shipped verifier on the dev split of `data` (the NLI pairs of ../shared) and on
    the held-back parts of the pairs written for this project (`assistant`, `chats`, where
    the files are there: a checkout, not an installed package)."""
    from monitor.engine.verifier import OnnxVerifier, model_card

    _, dev = split(load_pairs(data))
    if assistant.exists():
        dev += split(load_assistant_pairs(assistant), ASSISTANT_DEV_PERCENT)[1]
    if chats.exists():
        dev += chat_split(chats)[1]
    if limit:
        dev = dev[:limit]
    verifier = OnnxVerifier(cache_size=0)
    out = evaluate(verifier, dev)
    out["model"] = verifier.model_id
    out["card_sha256"] = model_card()["sha256"]
    single = []
    for pair in dev[:200]:
        t = time.perf_counter()
        verifier.judge([(pair.premise, pair.hypothesis)])
        single.append(1000 * (time.perf_counter() - t))
    out["ms_one_pair_median"] = round(median(single), 3) if single else None
    return out
