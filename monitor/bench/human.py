"""Agreement with people: turn-level correlation of `quality` and each signal with human
ratings on public dialogue-evaluation sets.

Two sets are read, each from a path (their licences are not stated by their authors, so no
copy is committed; see benchmarks/human/README.md for where to get them):

* **FED** (Mehri & Eskenazi 2020, "Unsupervised Evaluation of Interactive Dialog with
  DialoGPT"), `fed_data.json`: 375 turn-level items (context + system response, 5 ratings
  per quality). Human score: mean "Overall" rating (and "Relevant" for the relevance
  signals).
* **USR-PersonaChat** (Mehri & Eskenazi 2020, "USR: An Unsupervised and Reference Free
  Evaluation Metric for Dialog Generation"), `pc_usr_data.json`: 60 contexts x 5 responses,
  3 ratings each. Human score: mean "Overall" (and "Maintains Context").

Every item is replayed through the engine as a conversation (speakers alternate backwards
from the response, the response is the assistant's turn) and its last TurnScore is compared
with the human score: Spearman rho and Kendall tau-b with p-values (scipy). For USR, which
has a ground-truth response per context, word-overlap baselines are *measured here* on the
same items (unigram F1 and ROUGE-L F1 against the ground truth, ground-truth responses left
out) so the comparison is like for like; published numbers are listed with their source.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from monitor.config import EngineConfig
from monitor.contracts import TurnEvent, TurnScore

GROUND_TRUTH = "Original Ground Truth"

PUBLISHED: dict[str, list[dict[str, Any]]] = {
    "usr_personachat": [
        {"metric": "USR (Overall)", "spearman": 0.48,
         "source": "Mehri & Eskenazi 2020, USR, ACL, abstract: turn-level 0.48 on PersonaChat"},
        {"metric": "USR (Overall)", "spearman": 0.42, "set": "USR-TopicalChat",
         "source": "same paper, abstract: turn-level 0.42 on Topical-Chat (not run here)"},
    ],
    "fed": [
        {"metric": "FED (DialoGPT-large), Overall, turn level", "spearman": 0.209,
         "source": "Mehri & Eskenazi 2020b, FED, SIGdial, turn-level table; value recalled, "
                   "not re-checked here: verify against the paper"},
    ],
}
"""Published correlations for the same sets. Word-overlap baselines for USR-PersonaChat
are in the USR paper's turn-level table and in Yeh et al. 2021 ("A Comprehensive
Assessment of Dialog Evaluation Metrics", Table 3); their exact values could not be
re-checked offline, so the bench measures the word-overlap baselines itself instead."""


@dataclass(frozen=True)
class Item:
    id: str
    turns: tuple[tuple[str, str], ...]
    """(role, text) of the context, oldest first; the last entry is the scored response."""
    human: dict[str, float]
    system: str
    reference: str | None = None


def _mean(values: list[float]) -> float:
    return sum(values) / len(values)


def _roles_backwards(lines: list[str], response: str) -> tuple[tuple[str, str], ...]:
    """Speakers alternate; the response is the assistant's, the line before it the user's."""
    texts = [*lines, response]
    n = len(texts)
    return tuple(("assistant" if (n - 1 - i) % 2 == 0 else "user", t)
                 for i, t in enumerate(texts))


def load_fed(path: Path) -> list[Item]:
    items = []
    for i, row in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        if "response" not in row:
            continue  # dialogue-level annotation
        turns: list[tuple[str, str]] = []
        for line in row["context"].splitlines():
            speaker, _, text = line.partition(":")
            if speaker in ("User", "System") and text.strip():
                turns.append(("user" if speaker == "User" else "assistant", text.strip()))
            elif turns and line.strip():
                turns[-1] = (turns[-1][0], turns[-1][1] + " " + line.strip())
        response = row["response"].partition(":")[2].strip()
        turns.append(("assistant", response))
        human = {k: _mean([float(x) for x in v]) for k, v in row["annotations"].items()
                 if v and all(isinstance(x, int | float) for x in v)}
        items.append(Item(f"fed-{i}", tuple(turns), human, row.get("system", "")))
    return items


def load_usr(path: Path) -> list[Item]:
    items = []
    for i, row in enumerate(json.loads(path.read_text(encoding="utf-8"))):
        lines = [ln.strip() for ln in row["context"].splitlines() if ln.strip()]
        truth = next((r["response"] for r in row["responses"] if r["model"] == GROUND_TRUTH),
                     None)
        for j, r in enumerate(row["responses"]):
            human = {k: _mean([float(x) for x in r[k]])
                     for k in ("Overall", "Maintains Context", "Understandable", "Natural",
                               "Engaging", "Uses Knowledge") if r.get(k)}
            items.append(Item(f"usr-{i}-{j}", _roles_backwards(lines, r["response"].strip()),
                              human, r["model"], truth))
    return items


def to_events(item: Item) -> list[TurnEvent]:
    return [TurnEvent(conversation_id=item.id, turn_index=k, role=role, text=text)  # type: ignore[arg-type]
            for k, (role, text) in enumerate(item.turns) if text.strip()]


def correlate(x: list[float], y: list[float]) -> dict[str, Any]:
    from scipy.stats import kendalltau, spearmanr

    if len(set(x)) < 2 or len(set(y)) < 2:
        return {"n": len(x), "spearman": None, "kendall": None}
    rho, p_rho = spearmanr(x, y)
    tau, p_tau = kendalltau(x, y)
    return {"n": len(x), "spearman": round(float(rho), 4), "spearman_p": float(f"{p_rho:.3g}"),
            "kendall": round(float(tau), 4), "kendall_p": float(f"{p_tau:.3g}")}


SIGNALS: dict[str, Callable[[TurnScore], float]] = {
    "quality": lambda s: s.quality,
    "local_relevance": lambda s: s.local_relevance,
    "relevance": lambda s: s.relevance if s.relevance is not None else s.local_relevance,
    "consistency": lambda s: s.consistency,
    "logic": lambda s: s.logic,
    "mfss_total": lambda s: s.mfss.total if s.mfss else 0.0,
    "mfss_conciseness": lambda s: s.mfss.conciseness if s.mfss else 0.0,
    "mfss_readability": lambda s: s.mfss.readability if s.mfss else 0.0,
    "mfss_coherence": lambda s: (s.mfss.coherence if s.mfss and s.mfss.coherence is not None
                                 else 0.0),
}


def _unigram_f1(answer: str, reference: str) -> float:
    from monitor.quality.mfss import words

    a, r = words(answer), words(reference)
    common = sum(min(a.count(w), r.count(w)) for w in set(a))
    if not common:
        return 0.0
    p, rec = common / len(a), common / len(r)
    return 2 * p * rec / (p + rec)


def _rouge_l(answer: str, reference: str) -> float:
    from monitor.quality import rouge

    return rouge.scores(reference, answer, stemmed=False)["rougeL"]  # rouge-score's default


def evaluate(items: list[Item], scores: dict[str, TurnScore],
             dimensions: tuple[str, ...]) -> dict[str, Any]:
    scored = [i for i in items if i.id in scores]
    out: dict[str, Any] = {"items": len(scored)}
    for dim in dimensions:
        sel = [i for i in scored if dim in i.human]
        human = [i.human[dim] for i in sel]
        out[dim] = {name: correlate([f(scores[i.id]) for i in sel], human)
                    for name, f in SIGNALS.items()}
        out[dim]["response_words (trivial baseline)"] = correlate(
            [float(len(i.turns[-1][1].split())) for i in sel], human)
        with_ref = [i for i in sel if i.reference and i.system != GROUND_TRUTH]
        if with_ref:
            h = [i.human[dim] for i in with_ref]
            ref = {i.id: i.reference or "" for i in with_ref}
            out[dim]["word_overlap_vs_ground_truth (ground truth left out)"] = {
                "unigram_f1": correlate([_unigram_f1(i.turns[-1][1], ref[i.id])
                                         for i in with_ref], h),
                "rouge_l": correlate([_rouge_l(i.turns[-1][1], ref[i.id]) for i in with_ref],
                                     h),
                "quality_same_items": correlate([scores[i.id].quality for i in with_ref], h),
            }
    return out


def run_human_bench(fed: Path | None, usr: Path | None,
                    config: EngineConfig | None = None) -> dict[str, Any]:
    from monitor.runner.offline import score_events

    started = time.perf_counter()
    sets: dict[str, tuple[list[Item], tuple[str, ...]]] = {}
    if fed is not None:
        sets["fed"] = (load_fed(fed), ("Overall", "Relevant"))
    if usr is not None:
        sets["usr_personachat"] = (load_usr(usr), ("Overall", "Maintains Context"))
    if not sets:
        raise ValueError("give at least one data set path (--fed or --usr)")
    result: dict[str, Any] = {}
    for name, (items, dims) in sets.items():
        events = [e for item in items for e in to_events(item)]
        records = score_events([(0, e) for e in events], config or EngineConfig())
        last: dict[str, TurnScore] = {}
        for r in records:
            if isinstance(r, TurnScore):
                last[r.conversation_id] = r
        final = {i.id: last[i.id] for i in items
                 if i.id in last and last[i.id].turn_index == len(i.turns) - 1}
        result[name] = {"correlations": evaluate(items, final, dims),
                        "published": PUBLISHED[name]}
    result["seconds"] = round(time.perf_counter() - started, 1)
    return result
