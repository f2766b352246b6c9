"""The verdict stage around the verifier, with a scripted verifier (fast unit tests).

The real model's behaviour is measured by the benchmarks and tests/test_verifier.py; here
only the stage's own logic: candidates, vetoes, both orders, the bounded window.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from monitor.config import EngineConfig
from monitor.engine.meaning import Assertion, in_assistant_voice, nearest
from monitor.engine.protocols import Judgement
from monitor.engine.state import ConversationState
from monitor.engine.verdict import VerdictStage


class ScriptedVerifier:
    """P(contradiction) 0.95 for pairs whose sides hold 'open'/'closed', else neutral."""

    model_id = "scripted"

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def judge(self, pairs: Sequence[tuple[str, str]]) -> list[Judgement]:
        self.calls.extend(pairs)
        out = []
        for a, b in pairs:
            words = {a.split()[-1], b.split()[-1]}
            if {"open.", "closed."} <= words:
                out.append(Judgement(0.02, 0.03, 0.95))
            elif a == b.replace("you", "I"):
                out.append(Judgement(0.9, 0.05, 0.05))
            else:
                out.append(Judgement(0.1, 0.8, 0.1))
        return out


def _embed(texts: Sequence[str]) -> np.ndarray:
    """Sentences sharing their first word are near neighbours."""
    vecs = np.zeros((len(texts), 8), dtype=np.float32)
    for i, text in enumerate(texts):
        vecs[i, hash(text.split()[0].lower()) % 8] = 1.0
    return vecs


def _stage(**cfg: float) -> tuple[VerdictStage, ScriptedVerifier]:
    verifier = ScriptedVerifier()
    return VerdictStage(EngineConfig(**cfg), verifier, _embed), verifier  # type: ignore[arg-type]


def test_a_paraphrased_opposite_is_an_nli_finding() -> None:
    stage, _ = _stage()
    state = ConversationState("c")
    stage.remember(state, 1, "assistant", [("Museum doors are open.", "")])
    found = stage.judge(state, 3, [("Museum entrance is closed.", "")], [])
    assert [f.detector for _, f, _ in found] == ["nli"]
    assert found[0][1].verdict is not None and found[0][1].confidence == 0.95


def test_headings_that_scope_different_days_veto_the_pair() -> None:
    stage, verifier = _stage()
    state = ConversationState("c")
    stage.remember(state, 1, "assistant", [("Museum doors are open.", "day 1")])
    assert stage.judge(state, 3, [("Museum entrance is closed.", "day 2")], []) == []
    assert verifier.calls == []


def test_the_window_is_bounded_and_user_sentences_need_the_user() -> None:
    stage, _ = _stage(verifier_window=3)
    state = ConversationState("c")
    for turn in range(10):
        stage.remember(state, turn, "assistant", [(f"Fact number {turn} holds.", "")])
    stage.remember(state, 11, "user", [("The weather is nice.", ""), ("I am vegan.", "")])
    assert len(state.assertions) == 3
    assert [a.sentence for a in state.assertions][-1] == "I am vegan."


def test_pairs_per_turn_are_capped() -> None:
    stage, verifier = _stage(verifier_max_pairs=2, verifier_top_k=5, verifier_similarity=0.0)
    state = ConversationState("c")
    stage.remember(state, 0, "assistant", [(f"Alpha {i} open.", "") for i in range(6)])
    stage.judge(state, 2, [("Alpha x closed.", "")], [])
    assert len({pair for pair in verifier.calls}) <= 4  # two pairs, both orders


def test_user_words_reach_the_verifier_in_the_assistant_voice() -> None:
    assert in_assistant_voice("I'm allergic to peanuts and my son is too") == (
        "You're allergic to peanuts and your son is too")
    assert in_assistant_voice("We haven't run since March") == "You haven't run since March"


def test_nearest_is_deterministic_and_respects_the_floor() -> None:
    window = [Assertion(i, "assistant", f"s{i}", "") for i in range(4)]
    vecs = np.eye(4, dtype=np.float32)
    new = np.array([[0.6, 0.6, 0.1, 0.0]], dtype=np.float32)
    found = nearest(new, window, vecs, top_k=3, floor=0.5, allowed=lambda i, a: True)
    assert [c.prior.turn for c in found] == [0, 1]


def test_the_engine_version_names_the_verifier(fake_embedder: object) -> None:
    from monitor.engine.pipeline import Engine
    from monitor.quality.scorers import QualityScorers
    from tests.conftest import FakeExtractor

    def version(model_id: str) -> str:
        verifier = ScriptedVerifier()
        verifier.model_id = model_id
        return Engine(EngineConfig(), fake_embedder, FakeExtractor(),  # type: ignore[arg-type]
                      QualityScorers(verifier), verifier).version

    assert version("skg-verifier-aaaaaaaaaaaa") != version("skg-verifier-bbbbbbbbbbbb")
    assert version("skg-verifier-aaaaaaaaaaaa") == version("skg-verifier-aaaaaaaaaaaa")


# --- the structure's vetoes added in stop 12 (each found reading real certificates) --------


def test_a_negation_and_an_antonym_cancel_in_a_restatement() -> None:
    from monitor.engine.verdict import restates

    assert restates("They are quiet and take up little space.",
                    "They're quiet and don't take up much space.", 0.95, 0.7)
    assert not restates("The shop is open on Mondays.", "The shop is not open on Mondays.",
                        0.95, 0.7)
    assert not restates("The shop is open on Mondays.", "The shop is closed on Mondays.",
                        0.95, 0.7)
    assert restates("The shop is not closed on Mondays.", "The shop is open on Mondays.",
                    0.95, 0.7)


def _comparable(sentence: str, prior: str, state: ConversationState | None = None,
                turn: int = 3) -> bool:
    from monitor.engine.verdict import comparable

    return comparable(state or ConversationState("c"), turn, sentence, "",
                      Assertion(1, "assistant", prior, ""))


def test_answers_to_different_questions_are_not_compared_unless_one_corrects() -> None:
    assert not _comparable("The answer to the riddle is 'a bank'.",
                           "The answer to the riddle is 'an echo'.")
    assert _comparable("Actually, the correct answer to the riddle is 'a bank'.",
                       "The answer to the riddle is 'an echo'.")


def test_two_pronoun_led_sentences_sharing_no_content_word_are_not_compared() -> None:
    assert not _comparable("That's normal for the beginning.", "That's a strong start!")
    assert _comparable("That museum is closed on Mondays.", "That museum opens every day.")


def test_amounts_of_different_quantities_leave_the_pair_to_the_rules() -> None:
    assert not _comparable("The ride takes about 40 minutes from the station.",
                           "The ride from the station costs 15 EUR.")
    assert _comparable("The ride from the station takes about 40 minutes.",
                       "The ride from the station takes about 90 minutes.")


def test_a_user_who_changed_the_plan_frees_the_numbers_said_before() -> None:
    state = ConversationState("c")
    sentence, prior = ("The ride from the station takes about 40 minutes.",
                       "The ride from the station takes about 90 minutes.")
    assert _comparable(sentence, prior, state)
    state.add_statements([(2, "user-revision", "update: we moved it to Lisbon", "")], 10)
    assert not _comparable(sentence, prior, state)


# --- stop 13: read on the certificates of the fourth training phase -----------------------


def test_a_denial_is_compared_only_with_what_it_denies() -> None:
    from monitor.engine.verdict import denies_something_else

    assert denies_something_else("No, Perseverance will not bring the samples back itself.",
                                 "Perseverance carries a suite of scientific instruments.")
    assert not _comparable("No, Perseverance will not bring the samples back itself.",
                           "Perseverance carries a suite of scientific instruments.")
    # what the denial governs is in the other sentence: the verifier judges
    assert _comparable("Most cards still charge interest on purchases.",
                       "You won't pay any interest on purchases.")
    assert _comparable("Cut the whole plant back hard in spring.",
                       "Don't cut back mopheads in spring.")
    assert not denies_something_else("The museum is open.", "The museum is closed.")
    assert not denies_something_else("It is not open.", "It is not closed.")


def test_things_with_different_ordinals_are_different_things() -> None:
    assert not _comparable("For this final set, the statement p is true.",
                           "For this first set, the statement p is true.")
    assert _comparable("The first step is to boil the water.",
                       "The first step is to chop the onions.")


def test_instructions_to_do_different_things_are_not_compared() -> None:
    from monitor.engine.verdict import different_instructions, instruction

    assert instruction("**Don't** cut back mopheads in spring.", ("user",)) == "cut"
    assert instruction("You should check the soil.", ("user",)) is None  # a statement
    assert instruction("The soil is dry.", ("soil",)) is None
    assert instruction("Let the soil dry out completely.", ("soil", "user")) == "let"
    assert different_instructions("Always check the soil first.", ("user",),
                                  "Let the soil dry out completely.", ("user",))
    assert not different_instructions("Cut the whole plant back hard.", ("user",),
                                      "Don't cut back mopheads in spring.", ("user",))
    assert not different_instructions("Cut the whole plant back hard.", ("user",),
                                      "The plant flowers on old wood.", ("plant",))


def test_advice_is_not_compared_with_a_statement_of_fact() -> None:
    from monitor.engine.verdict import VerdictStage, instruction_against_statement

    assert instruction_against_statement("Keep the gravel mulch topped up.", ("user",),
                                         "Lavender hates sitting in wet soil.", ("lavender",))
    assert not instruction_against_statement("Lavender is thirsty.", ("lavender",),
                                             "Lavender is drought-tolerant.", ("lavender",))
    assert not instruction_against_statement("Cut the whole plant back hard.", ("user",),
                                             "Don't cut back mopheads in spring.", ("user",))
    state = ConversationState("c")
    # no parsed subject on the old side, so only the new veto can keep the pair apart
    state.add_assertions([Assertion(1, "assistant", "Sharp drainage matters most.", "", ())],
                         10)
    stage = VerdictStage(EngineConfig(verifier_similarity=-1.0), ScriptedVerifier(),
                         lambda texts: np.ones((len(texts), 4), dtype=np.float32) / 2)
    assert stage._candidates(state, 3, ["Keep the gravel mulch topped up."], [""],
                             [("user",)]) == []


def test_a_users_own_statement_is_no_instruction() -> None:
    """ "I don't drive" has the user as subject too; against the assistant's "Pick up a hire
    car and drive" it is still compared (the user said it, so it is a fact, not a step)."""
    from monitor.engine.verdict import VerdictStage

    state = ConversationState("c")
    state.add_assertions([Assertion(0, "user", "I don't drive, I have no licence.", "",
                                    ("user",))], 10)
    stage = VerdictStage(EngineConfig(verifier_similarity=-1.0), ScriptedVerifier(),
                         lambda texts: np.ones((len(texts), 4), dtype=np.float32) / 2)
    found = stage._candidates(state, 2, ["Pick up a hire car in Keswick and drive to Penrith."],
                              [""], [("user",)])
    assert [c.prior.speaker for c in found] == ["user"]


# --- stop 49: read on a helper-written set of user facts and constraints -----------------


def test_two_instructions_that_do_one_thing_to_different_objects_are_not_compared() -> None:
    from monitor.engine.verdict import different_instructions, instruction

    assert different_instructions("Serve the stew with crusty bread.", ("user",),
                                  "Serve with steamed basmati rice.", ("user",))
    assert not different_instructions("Don't prune the roses in autumn.", ("user",),
                                      "Prune the roses hard.", ("user",))
    # "your" is the object's: still an instruction
    assert instruction("Gently rub her gums with your finger.", ("user",)) == "rub"
    assert instruction("You should rub her gums.", ("user",)) is None


def test_labelled_items_with_different_labels_are_different_things() -> None:
    from monitor.engine.verdict import labels_differ

    assert labels_differ("Lentil dal: red lentils simmered with cumin.",
                         "Chicken tikka: with basmati rice.")
    assert not _comparable("Lentil dal: red lentils simmered with cumin.",
                           "Chicken tikka: with basmati rice and cumin.")
    assert not labels_differ("Lentil dal: quick.", "Dal: takes two hours.")  # shared word
    assert not labels_differ("Note: the museum is open.", "Tip: the museum is closed.")
    assert not labels_differ("The museum is open.", "Hours: the museum is closed.")
    # a dash sets a label off as a colon does
    assert labels_differ("Picnic lunch — sandwiches, fruit, cookies as a reward",
                         "Arts & crafts mornings: painting rocks, bird feeders.")
    assert not labels_differ("Picnic lunch — sandwiches", "Picnic dinner — soup")


def test_a_subjectless_item_is_compared_only_under_its_own_heading() -> None:
    from monitor.engine.verdict import elided_subject

    assert elided_subject("Doesn't support async requests.", ())
    assert elided_subject("Can export to PDF.", ())
    assert not elided_subject("Doesn't support async requests.", ("httpx",))
    assert not elided_subject("Don't export to PDF.", ())  # an instruction
    state = ConversationState("c")
    state.add_assertions([Assertion(1, "assistant", "Can keep the museum open.",
                                    "option 1: the city pass", ())], 10)
    stage, _ = _stage(verifier_similarity=-1.0)
    new = ["Doesn't keep the museum closed."]
    assert stage._candidates(state, 3, new, ["option 2: the museum card"], [()]) == []
    assert stage._candidates(state, 3, new, ["option 1: the city pass"], [()]) != []


def test_two_sentences_that_share_no_word_are_a_doubt_never_a_page() -> None:
    """ "Deep yoga poses like hero pose or lotus." / "Swimming — freestyle or backstroke":
    the verifier read two list items as one scene (0.97, paged); sharing no word, they
    may speak of different things."""
    stage, _ = _stage()
    state = ConversationState("c")
    stage.remember(state, 1, "assistant", [("The museum doors are open.", "")])
    found = stage.judge(state, 3, [("The museum entrance is closed.", "")], [])
    assert [f.doubt for _, f, _ in found] == [None]
    found = stage.judge(state, 3, [("The galleries stay closed.", "")], [])
    assert [f.detector for _, f, _ in found] == ["nli"]
    assert str(found[0][1].doubt).startswith("the two sentences share no word")
