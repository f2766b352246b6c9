"""The engine benchmark's parts: the long-answer generator, the floor's wiring, the
profile summary. No model is loaded (fake embedder, extractor and verifier)."""

from __future__ import annotations

import re
import statistics
from collections.abc import Sequence
from typing import Any

import pytest

from monitor.bench import growth
from monitor.bench.engine import Models, measure_floor, run_workload, timed_run
from monitor.bench.longform import (
    MAX_WORDS,
    MIN_WORDS,
    generate_long_workload,
    long_answer,
    word_count,
)
from monitor.bench.profile import summarise_stacks
from monitor.contracts import TurnEvent
from monitor.engine.extract import Extraction
from monitor.engine.protocols import Judgement
from tests.conftest import CountingEmbedder


def test_long_answers_are_deterministic_markdown_of_500_to_1500_words() -> None:
    answers = [long_answer(seed) for seed in range(120)]
    assert answers == [long_answer(seed) for seed in range(120)]
    assert len(set(answers)) == len(answers)
    counts = [word_count(a) for a in answers]
    assert all(MIN_WORDS <= n <= MAX_WORDS for n in counts), (min(counts), max(counts))
    assert max(counts) - min(counts) > 500  # the whole range is used, not one length
    text = "\n".join(answers)
    assert re.search(r"^## ", text, re.M) and re.search(r"^- ", text, re.M)
    assert re.search(r"^1\. ", text, re.M) and "`" in text and "|---|" in text


def test_word_count_skips_markdown_marks() -> None:
    assert word_count("## Day 1\n\n- **Tip:** go | early |") == 5


def test_the_long_workload_interleaves_questions_and_long_answers() -> None:
    events = generate_long_workload(3, 2, seed=5)
    assert events == generate_long_workload(3, 2, seed=5)
    assert [e.turn_index for e in events] == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3]
    answers = [e for e in events if e.role == "assistant"]
    assert len(answers) == 6 and all(word_count(e.text) >= MIN_WORDS for e in answers)


class _Nlp:
    """A stand-in spaCy pipeline: counts what it parses."""

    def __init__(self) -> None:
        self.parsed: list[str] = []

    def pipe(self, texts: Sequence[str], batch_size: int = 1) -> list[str]:
        self.parsed.extend(texts)
        return list(texts)


class _Extractor:
    """Sentences, all asserted, parsed by `nlp` as the rule extractor's are."""

    name = "fake-piping"

    def __init__(self) -> None:
        self.nlp: Any = _Nlp()

    def extract(self, items: Any) -> list[Extraction]:
        docs = self.nlp.pipe([u.text for u in items], batch_size=64)
        out = []
        for doc in docs:
            sentences = [s for s in re.split(r"(?<=[.!?])\s+", doc.strip()) if s]
            out.append(Extraction(sentences=sentences,
                                  asserted=[(s, "") for s in sentences]))
        return out


class _Verifier:
    model_id = "fake-verifier"

    def __init__(self) -> None:
        self.pairs: list[tuple[str, str]] = []

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        self.pairs.extend(pairs)
        return [Judgement(0.1, 0.2, 0.7) for _ in pairs]


def _events() -> list[TurnEvent]:
    turns = [("user", "I want a quiet hotel in Lisbon."),
             ("assistant", "The hotel in Lisbon is quiet. It opens on Monday."),
             ("user", "Is the hotel open on Monday?"),
             ("assistant", "The hotel in Lisbon is not quiet. It is closed on Monday.")]
    return [TurnEvent(conversation_id="c1", turn_index=i, role=role, text=text)  # type: ignore[arg-type]
            for i, (role, text) in enumerate(turns)]


def test_the_floor_redoes_exactly_the_models_work_of_the_run() -> None:
    embedder, extractor = CountingEmbedder(), _Extractor()
    verifiers: list[_Verifier] = []

    def new_verifier() -> _Verifier:
        verifiers.append(_Verifier())
        return verifiers[-1]

    models = Models(embedder, extractor, new_verifier)
    run = timed_run(_events(), models, batch=2)
    assert run.assistant_turns == 2 and len(run.batch_seconds) == 2
    assert run.parsed == [e.text for e in _events()]  # what the extractor parsed
    assert extractor.nlp.parsed == run.parsed  # and the pipeline is put back afterwards
    assert isinstance(extractor.nlp, _Nlp)
    assert run.embedded == embedder.texts  # what the cache passed to the model
    assert run.judged and run.judged == verifiers[0].pairs[1:]  # [0]: the warm-up pair

    embedder.texts.clear()
    extractor.nlp.parsed.clear()
    floor = measure_floor(run, models)
    assert extractor.nlp.parsed == run.parsed
    assert embedder.texts == list(dict.fromkeys(run.embedded))  # each text once, one call
    assert verifiers[-1].pairs[1:] == list(dict.fromkeys(run.judged))  # a fresh verifier
    assert floor["texts_embedded"] == len(set(run.embedded))
    assert floor["pairs_judged"] == len(set(run.judged))
    assert floor["total_s"] == floor["parse_s"] + floor["embed_s"] + floor["verify_s"]


def test_a_workload_reports_throughput_latency_and_engine_over_floor() -> None:
    models = Models(CountingEmbedder(), _Extractor(), _Verifier)
    result = run_workload(_events(), models, repeats=2, profiled=False)
    assert result["workload"]["assistant_turns"] == 2
    assert len(result["repeats_assistant_turns_per_s"]) == 2
    assert result["engine_over_floor"] > 0 and result["floor"]["texts_parsed"] == 4
    assert set(result["latency_ms"]) == {"batch_of_64_median", "batch_of_64_p90",
                                         "assistant_turn_own_median", "assistant_turn_own_p90"}
    assert "profile" not in result


def test_profile_summary_counts_self_time_and_stages() -> None:
    stacks = [
        (["main (monitor/bench/engine.py:3)", "process_batch (monitor/engine/pipeline.py:9)",
          "RecordingEmbedder.embed (monitor/bench/engine.py:5)", "run (onnxruntime/x.py:1)"], 6),
        (["main (monitor/bench/engine.py:3)", "process_batch (monitor/engine/pipeline.py:9)",
          "_normal (monitor/engine/pipeline.py:12)"], 3),
        (["_bootstrap (threading.py:1)", "_worker (thread.py:2)"], 1),
    ]
    summary = summarise_stacks(stacks, top=2, stages={
        "embedder model": ("RecordingEmbedder.embed (monitor/bench/engine.py)",)})
    assert summary["samples"] == 10
    assert summary["stages"] == {"embedder model": 0.6, "rest": 0.4}
    assert summary["top_self"][0] == {"function": "run (onnxruntime/x.py)", "share": 0.6,
                                      "samples": 6}
    assert summary["top_self_rest"][0]["function"] == "_normal (monitor/engine/pipeline.py)"
    assert [e["function"] for e in summary["top_inclusive_monitor"]] == [
        "process_batch (monitor/engine/pipeline.py)", "_normal (monitor/engine/pipeline.py)"]


def _dialogues(count: int, exchanges: int) -> list[dict[str, Any]]:
    return [{"task": "T", "id": d, "history": [
        {"user": f"Question {d}.{k}?", "bot": f"Answer {d}.{k} is fine. It holds."}
        for k in range(exchanges)]} for d in range(count)]


def test_growth_probes_are_disjoint_runs_and_the_prefix_comes_after_them() -> None:
    turns = growth.dialogue_turns(_dialogues(12, 4))  # 8 turns a dialogue
    runs, prefix = growth.probes_and_prefix(turns, probes=2, late_at=30)
    assert [len(r) for r in runs] == [growth.PROBE_TURNS] * 2
    assert runs[0][0] == ("user", "Question 0.0?") and runs[1][0] == ("user", "Question 3.0?")
    assert len(prefix) == 30 and prefix[0] == ("user", "Question 6.0?")  # after both probes
    assert not {text for _, text in prefix} & {text for r in runs for _, text in r}
    with pytest.raises(ValueError, match="need 2 probes"):
        growth.probes_and_prefix(turns, probes=2, late_at=60)


def test_growth_times_the_same_turns_early_and_late() -> None:
    models = Models(CountingEmbedder(), _Extractor(), _Verifier)
    result = growth.real_latency_growth(models, _dialogues(12, 4), probes=2, late_at=30,
                                        repeats=2)
    assert [p["assistant_turns"] for p in result["probes"]] == [10, 10]
    for probe in result["probes"]:
        assert probe["early_ms"] > 0 and probe["late_ms"] > 0
        assert probe["ratio"] == pytest.approx(probe["late_ms"] / probe["early_ms"], abs=0.01)
    assert result["ratio_median"] == round(
        statistics.median(p["ratio"] for p in result["probes"]), 3)
