"""The verifier alone on real assistant text: labelled contradictions against near pairs.

`bench verifier` measures the model on NLI pairs, which are not what the engine asks it
about. Here the pairs are sentences of the blind probe's conversations (`bench blind`):

* **positives**: for each labelled contradiction, the sentence of the contradicting turn
  that holds the labelled new evidence and the sentence of the earlier turn that holds the
  old one;
* **negatives**: in the conversations labelled free of contradictions, each sentence of an
  assistant turn against its two most similar earlier sentences (cosine >= the engine's
  `verifier_similarity`), the kind of candidate the engine sends to the verifier.

Each pair is scored as the engine scores it: the mean P(contradiction) of both orders, a
user's sentence put in the assistant's voice. The figures (ROC AUC, and how many of each
side reach a threshold) say how well the verifier separates the two on real text,
whatever the engine's candidate search and vetoes then do. Choose models on `dev`;
report `test`.
"""

from __future__ import annotations

import re
import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from monitor.bench.jsonl import read_jsonl
from monitor.bench.metrics import roc_auc
from monitor.config import EngineConfig
from monitor.engine.markdown import segments
from monitor.engine.meaning import in_assistant_voice
from monitor.engine.protocols import Embedder, Verifier

THRESHOLDS = (0.5, 0.7, 0.8, 0.9, 0.95)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])")
_MARKUP = re.compile(r"[*_`]")
_WORD = re.compile(r"\w+")
_MIN_WORDS = 3
_NEIGHBOURS = 2


@dataclass(frozen=True)
class ScoredPair:
    conversation_id: str
    new: str
    old: str
    contradiction: float


def sentences(text: str) -> list[str]:
    """The prose sentences of a turn: Markdown units (table rows and code left out, as the
    engine keeps them from the verifier), split at sentence ends; fragments under three
    words dropped."""
    out = []
    for segment in segments(text):
        if segment.kind == "row":
            continue
        out += [s.strip() for s in _SENTENCE_END.split(segment.text)
                if len(s.split()) >= _MIN_WORDS]
    return out


def _plain(text: str) -> str:
    return " ".join(_MARKUP.sub("", text).lower().split())


def holding(candidates: Sequence[str], span: str) -> str:
    """The sentence that contains the labelled span (Markdown aside), else the one sharing
    most of its words: a span can cross a sentence end or sit in a list item."""
    wanted = _plain(span)
    for sentence in candidates:
        if wanted in _plain(sentence):
            return sentence
    words = set(_WORD.findall(wanted))
    return max(candidates, key=lambda s: len(words & set(_WORD.findall(_plain(s)))))


def _mean_contradiction(verifier: Verifier, pairs: Sequence[tuple[str, str, str]]) -> list[float]:
    texts = [(new, in_assistant_voice(old) if speaker == "user" else old)
             for new, old, speaker in pairs]
    forward = verifier.judge(texts)
    backward = verifier.judge([(b, a) for a, b in texts])
    return [(f.contradiction + b.contradiction) / 2
            for f, b in zip(forward, backward, strict=True)]


def positives(turns: dict[str, dict[int, dict[str, Any]]], labels: Sequence[dict[str, Any]]
              ) -> list[tuple[str, str, str, str]]:
    """(conversation, new sentence, old sentence, old speaker) of each labelled contradiction."""
    out = []
    for label in labels:
        if not label["contradiction"]:
            continue
        conversation = turns[label["conversation_id"]]
        new, old = conversation[label["turn_index"]], conversation[label["conflicts_with"]]
        out.append((label["conversation_id"],
                    holding(sentences(new["text"]) or [new["text"]], label["evidence_new"]),
                    holding(sentences(old["text"]) or [old["text"]], label["evidence_old"]),
                    old["role"]))
    return out


def negatives(turns: dict[str, dict[int, dict[str, Any]]], labels: Sequence[dict[str, Any]],
              embedder: Embedder, floor: float) -> list[tuple[str, str, str, str]]:
    """Each assistant sentence of a clean conversation with its nearest earlier sentences."""
    out = []
    for label in labels:
        if label["contradiction"]:
            continue
        earlier: list[tuple[str, str]] = []
        conversation = turns[label["conversation_id"]]
        for index in sorted(conversation):
            turn = conversation[index]
            said = sentences(turn["text"])
            if turn["role"] == "assistant" and said and earlier:
                sims = embedder.embed(said) @ embedder.embed([s for s, _ in earlier]).T
                for i, sentence in enumerate(said):
                    for j in np.argsort(-sims[i], kind="stable")[:_NEIGHBOURS]:
                        if sims[i, j] >= floor:
                            old, speaker = earlier[int(j)]
                            out.append((label["conversation_id"], sentence, old, speaker))
            earlier += [(s, turn["role"]) for s in said]
    return out


def separation(pos: Sequence[float], neg: Sequence[float]) -> dict[str, Any]:
    return {
        "positives": len(pos),
        "negatives": len(neg),
        "roc_auc": roc_auc([1] * len(pos) + [0] * len(neg), [*pos, *neg]),
        "median_positive": round(statistics.median(pos), 4) if pos else None,
        "median_negative": round(statistics.median(neg), 4) if neg else None,
        "at_or_above": {str(t): {"positives": sum(p >= t for p in pos),
                                 "negatives": sum(n >= t for n in neg)} for t in THRESHOLDS},
    }


def run_evidence_bench(turns_file: Path, labels_file: Path, split: str = "dev",
                       verifier: Verifier | None = None, embedder: Embedder | None = None,
                       config: EngineConfig | None = None) -> dict[str, Any]:
    from monitor.engine.embedder import default_embedder
    from monitor.engine.verifier import default_verifier

    verifier = verifier or default_verifier()
    embedder = embedder or default_embedder()
    config = config or EngineConfig()
    labels = [lab for lab in read_jsonl(labels_file) if split == "all" or lab["split"] == split]
    turns: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for row in read_jsonl(turns_file):
        turns[row["conversation_id"]][row["turn_index"]] = row
    found = positives(turns, labels)
    near = negatives(turns, labels, embedder, config.verifier_similarity)
    pos = _mean_contradiction(verifier, [(n, o, s) for _, n, o, s in found])
    neg = _mean_contradiction(verifier, [(n, o, s) for _, n, o, s in near])
    scored = sorted((ScoredPair(c, n, o, round(p, 4)) for (c, n, o, _), p in zip(found, pos,
                                                                                  strict=True)),
                    key=lambda x: -x.contradiction)
    loudest = sorted((ScoredPair(c, n, o, round(p, 4)) for (c, n, o, _), p in zip(near, neg,
                                                                                   strict=True)),
                     key=lambda x: -x.contradiction)[:10]
    return {
        "split": split,
        "verifier": verifier.model_id,
        **separation(pos, neg),
        "positive_pairs": [vars(x) for x in scored],
        "loudest_negative_pairs": [vars(x) for x in loudest],
    }
