"""Unit tests of the engine's parts: extraction, graph, trend, fusion, state."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from monitor.config import EngineConfig
from monitor.engine import cues
from monitor.engine.contradiction import Finding
from monitor.engine.extract import ANAPHOR, Utterance, default_extractor
from monitor.engine.graph import ConversationGraph, Fact, may_merge
from monitor.engine.pipeline import _owned_claim, _said_whole, _sameness_guessed
from monitor.engine.signals import fuse, graph_anchoring, regime_of
from monitor.engine.trend import TrendStats


def triples(text: str, speaker: str = "assistant") -> list[tuple[str, str, str, bool, str]]:
    ex = default_extractor().extract([Utterance(text, speaker, 1)])[0]  # type: ignore[arg-type]
    return [(t.subject, t.relation, t.object, t.negated, t.modality) for t in ex.triples]


def test_speaker_aware_possessives_meet_on_one_node() -> None:
    user = triples("My budget is 600 GBP.", "user")
    assistant = triples("Your budget is 1,000 GBP.", "assistant")
    assert user[0][0] == assistant[0][0] == "user budget"


def test_first_and_second_person_resolve_to_parties() -> None:
    assert triples("I live in Lisbon.", "user")[0][:3] == ("user", "live in", "lisbon")
    assert triples("You live in Madrid.", "assistant")[0][:3] == ("user", "live in", "madrid")


def test_negation_comes_from_the_parse_not_substrings() -> None:
    assert triples("The museum does not open on Mondays.")[0][3] is True
    known = triples("The notable museum is known for its garden.")
    assert all(not t[3] for t in known)


def test_modalities() -> None:
    assert {t[4] for t in triples("If you had 3 kids, the car would be small.")} == {
        "hypothetical"
    }
    assert ("earth", "flat", "", False, "reported") in triples(
        "Some people claim the earth is flat."
    )
    assert all(t[4] == "question" for t in triples("Is the museum open on Mondays?"))


def test_unresolved_pronoun_is_left_to_the_engine() -> None:
    assert triples("It is open on Mondays.")[0][0] == ANAPHOR


def test_time_scope_separates_years() -> None:
    ex = default_extractor().extract([Utterance("Prices rose in 2019.", "assistant", 1)])[0]
    assert ex.triples[0].time_scope == "2019"


def test_merge_guard_is_word_boundary_aware() -> None:
    assert not may_merge("art", "heart rate")
    assert not may_merge("heart rate", "art")
    assert may_merge("hotel", "user hotel")
    assert not may_merge("600 gbp", "1,000 gbp")


def test_a_symbol_that_names_a_noun_keeps_two_subjects_apart() -> None:
    """ "The statement p OR q" and "the statement p AND q" are two statements; a describing
    appositive ("my son Tom") leaves the noun's label as it was."""
    either = triples("The statement p OR q is true.")[0][0]
    both = triples("The statement p AND q is false.")[0][0]
    assert (either, both) == ("statement (p or q)", "statement (p and q)")
    assert not may_merge(either, both)
    assert triples("My son Tom is 8.", "user")[0][0] == "user son"
    assert triples("My son Ed is allergic to peanuts.", "user")[0][0] == "user son"
    assert triples("My rent $1200 is due on Friday.", "user")[0][0] == "user rent"


def test_the_us_in_capitals_is_a_country_not_the_speaker() -> None:
    assert triples("The show is popular in the US.")[0][2] == "us"
    assert triples("The company moved us to a new office.")[0][2] == "assistant"
    assert triples("The US says the tariff is 10 percent.")[1][4] == "reported"
    assert not cues.speaks_of_self("Prices in the US rose.")
    assert cues.speaks_of_self("Tell us more about it.")


def test_graph_resolve_respects_guard_even_when_similar() -> None:
    graph = ConversationGraph()
    graph.touch("art", "concept", 1.0, "user", 0)
    vec = np.ones(4, dtype=np.float32) / 2
    assert graph.resolve("heart rate", vec, ["art"], np.stack([vec]), 0.5) == "heart rate"


def _add_turn(graph: ConversationGraph, turn: int) -> None:
    """One fact of its own for the turn: "subject N be object N"."""
    s, o = f"subject {turn}", f"object {turn}"
    graph.touch(s, "concept", 1.0, "assistant", turn)
    graph.touch(o, "concept", 1.0, "assistant", turn)
    graph.add_fact(Fact(s, "be", o, o, False, "asserted", "assistant", turn, "x", "be", "",
                        None, 1.0))


def test_graph_compaction_bounds_nodes_and_facts() -> None:
    graph = ConversationGraph()
    for turn in range(50):
        _add_turn(graph, turn)
        graph.compact(max_nodes=30, max_fact_edges=10, keep_turn=turn)
    assert graph.fact_count() <= 10
    assert graph.node_count() <= 30


def test_a_dropped_graph_is_freed_by_reference_counting() -> None:
    """The worker freezes what a batch leaves (monitor.stream.collector): a graph in a
    reference cycle would stay until the next whole-heap pass."""
    import gc
    import weakref

    graph = ConversationGraph()
    for turn in range(3):
        _add_turn(graph, turn)
    graph.supersede_claims(0, "x", lambda fact: True, at=2)
    assert graph.facts_about("subject 1") and graph.has_fact_link("subject 1", {"object 1"})
    graph.compact(max_nodes=4, max_fact_edges=1, keep_turn=2)
    inner = weakref.ref(graph._g)
    gc.disable()
    try:
        del graph
        assert inner() is None
    finally:
        gc.enable()


def _weighted_fit(qs: list[float], decay: float) -> tuple[float, float]:
    x = np.arange(len(qs), dtype=float)
    w = np.exp(decay * x)
    level = float(np.sum(w * np.array(qs)) / np.sum(w))
    sw, swx, swxx = w.sum(), (w * x).sum(), (w * x * x).sum()
    swy, swxy = (w * np.array(qs)).sum(), (w * x * np.array(qs)).sum()
    slope = (sw * swxy - swx * swy) / (sw * swxx - swx * swx)
    return level, float(slope)


@pytest.mark.parametrize("qs", [[0.9, 0.8, 0.7, 0.6], [0.2, 0.5, 0.4, 0.9, 0.8],
                                [0.5] * 30, [0.9 - 0.01 * i for i in range(200)]])
def test_running_trend_equals_batch_weighted_regression(qs: list[float]) -> None:
    stats = TrendStats()
    for q in qs:
        stats.add(q, 0.1)
    level, slope = _weighted_fit(qs, 0.1)
    assert stats.level == pytest.approx(level, abs=1e-9)
    assert stats.slope(3) == pytest.approx(slope, abs=1e-7)


def test_trend_labels() -> None:
    cfg = EngineConfig()
    falling, flat = TrendStats(), TrendStats()
    for i in range(6):
        falling.add(0.9 - 0.1 * i, 0.1)
        flat.add(0.7, 0.1)
    assert falling.label("STABLE", cfg) == "DEGRADING"
    assert flat.label("STABLE", cfg) == "STABLE"
    two = TrendStats()
    two.add(0.9, 0.1)
    two.add(0.1, 0.1)
    assert two.label("STABLE", cfg) == "STABLE"  # too few turns to call a trend


def test_regimes() -> None:
    cfg = EngineConfig()
    assert regime_of("hi", "ok thanks", cfg) == ("short", True)
    answer = "It is a quarter past seven in the evening here in Lisbon right now."
    assert regime_of("what time is it", answer, cfg)[0] == "qa"
    long_prompt = "please explain in detail how the museum schedule works on public holidays"
    assert regime_of(long_prompt, " ".join(["word"] * 20), cfg)[0] == "general"


def test_hard_logic_gate_caps_quality() -> None:
    cfg = EngineConfig()
    fused = fuse("general", False, 1.0, 1.0, 0.05, cfg)
    assert fused.logic_gate and fused.quality <= cfg.logic_gate_cap
    clean = fuse("general", False, 1.0, 1.0, 1.0, cfg)
    assert not clean.logic_gate and clean.quality == pytest.approx(1.0)


def test_non_sequitur_and_joint_weakness() -> None:
    cfg = EngineConfig()
    fused = fuse("general", False, 0.1, 0.3, 1.0, cfg)
    assert fused.non_sequitur and fused.joint_weakness
    expected = (0.5 * 0.1 + 0.2 * 0.3 + 0.3 * 1.0) * 0.75 * 0.5
    assert fused.quality == pytest.approx(expected)


def test_graph_anchoring_weights_by_importance() -> None:
    assert graph_anchoring([]) == 1.0
    assert graph_anchoring([(1.0, 1.0), (0.0, 0.2)]) == pytest.approx(1.0)
    assert graph_anchoring([(0.5, 1.0), (0.5, 0.2)]) == pytest.approx(0.6)


def _asserted(text: str) -> bool:
    return bool(default_extractor().extract([Utterance(text, "assistant", 1)])[0].asserted)


def test_a_sentence_is_as_hypothetical_as_its_main_clause() -> None:
    # a modal in a side clause leaves the main clause asserted ...
    assert _asserted("Your Suica covers JR lines, but it can't be used on the Tokyo Metro.")
    assert _asserted("With your budget of 600 pounds, doing it yourself means you could "
                     "stretch to the Samsung.")
    # ... a conditional or a modal on the main clause does not
    assert not _asserted("If it rains, the museum is closed.")
    assert not _asserted("You could take the train if you prefer.")


def _modality_of(text: str, predicate: str) -> str:
    [triple] = [t for t in default_extractor().extract([Utterance(text, "user", 0)])[0]
                .triples if t.predicate == predicate]
    return triple.modality


def test_what_a_user_wishes_fears_or_seems_is_no_fact_about_them() -> None:
    assert _modality_of("I don't want to sound like I'm running away.", "run") == (
        "hypothetical")
    assert _modality_of("I hope the hotel is quiet.", "quiet") == "hypothetical"
    # said as so, it is a fact
    assert _modality_of("I'm running away from it all.", "run") == "asserted"


def _asserted_texts(text: str) -> list[str]:
    return [s for s, _ in default_extractor().extract([Utterance(text, "assistant", 1)])[0]
            .asserted]


def test_a_conditional_after_a_dash_leaves_the_clause_before_it_asserted() -> None:
    # the parser roots this sentence in the "if" clause; the dash joins two clauses
    assert _asserted_texts(
        "By default, requests has no timeout at all — if the server accepts the connection "
        "but never answers, the call will hang.") == ["By default, requests has no timeout at all"]
    # a part with its own hedge, a part that is no clause, a range: not split off
    assert _asserted_texts("The shop may open late — if the owner is back, it opens at 9.") == []
    assert _asserted_texts("The trip — if you take the train — takes 3 hours.") == []
    assert _asserted_texts("The shop is open 9 – 5 if the owner is back.") == []


def test_list_items_and_labels_are_fragments_not_claims() -> None:
    ex = default_extractor().extract([Utterance(
        "Hummus with carrot and pepper sticks. Catering: EUR 45-75 per person per day. "
        "Antibiotics do not prevent colds. Cut the plant back hard.", "assistant", 1)])[0]
    assert ex.fragments == {"Hummus with carrot and pepper sticks.",
                            "Catering: EUR 45-75 per person per day."}
    assert len(ex.asserted) == 4  # the rules still read the fragments' amounts and foods


def test_a_table_row_is_a_record_for_the_rules_not_a_claim_for_the_verifier() -> None:
    # one unit however many clauses its cells hold; the verifier, trained on captions of
    # one scene, would read two different rows (or a row and a list item) as a conflict
    ex = default_extractor().extract([Utterance(
        "| Day | Lunch | Note |\n|---|---|---|\n"
        "| Mon | Turkey wrap | She eats it cold. It keeps until noon. |\n", "assistant", 1)])[0]
    row = "Day: Mon; Lunch: Turkey wrap; Note: She eats it cold. It keeps until noon."
    assert [s for s, _ in ex.asserted] == [row] and ex.fragments == {row}
    assert ex.triples == []  # cells are no subject-verb-object clause
    # a user's table is read by the constraints, not remembered as claims
    user = default_extractor().extract([Utterance(
        "| Guest | Diet |\n|---|---|\n| Anna | vegan |\n", "user", 0)])[0]
    assert user.sentences == ["Guest: Anna; Diet: vegan"] and user.asserted == []


def test_a_day_before_its_verb_is_a_subject_not_a_label() -> None:
    # the small parser reads "Monday" as a time adverb (npadvmod); the sentence still
    # says something of Monday, and a later "Monday is one of the busiest days" meets it
    ex = default_extractor().extract([Utterance(
        "Monday is typically one of the quietest days for food retail. Roughly 250-400 words.",
        "assistant", 1)])[0]
    assert ex.fragments == {"Roughly 250-400 words."}


def _fact(subject: str, relation: str, obj: str, sentence: str) -> Fact:
    return Fact(subject=subject, relation=relation, object=obj, object_text=obj,
                negated=False, modality="asserted", speaker="assistant", turn=1,
                sentence=sentence, predicate=relation, prep="", time_scope=None,
                importance=1.0)


def test_an_owned_up_claim_picks_its_own_facts_of_the_mistaken_sentence() -> None:
    """A fact picks itself; an amount the facts that give it; a verifier claim the facts
    about every word the two sentences share, not only the four its certificate shows."""
    said = ("The adult entry ticket for the old city museum costs 10 euros and the guided "
            "tour lasts 2 hours.")
    ticket = _fact("adult entry ticket", "cost", "10 euros", said)
    tour = _fact("guided tour", "last", "2 hours", said)
    correction = ("The adult entry ticket price for the old city museum is 15 euros, and "
                  "it has no guide.")

    def picked(prior: Fact) -> list[str]:
        claim = replace(prior, sentence=correction, turn=3)
        finding = Finding("numeric", 0.9, claim, prior, "")
        return [f.subject for f in (ticket, tour) if _owned_claim(finding)(f)]

    assert picked(ticket) == ["adult entry ticket"]
    assert picked(replace(ticket, relation="amount", subject="adult city entry euro",
                          object_text="10 euros")) == ["adult entry ticket"]
    assert picked(replace(ticket, relation="states", subject="adult city entry euro")) == [
        "adult entry ticket"]


def test_a_value_compared_by_a_phrase_alone_never_pages() -> None:
    """The rest of the sentence may speak of something else ("At £19 per night for one
    cat, Whiskers Retreat is the nicest"): a guess of sameness, so a warning at most."""
    prior = _fact("cattery night", "amount", "£14",
                  "A cattery charges about £14 per night for one cat.")
    claim = replace(prior, sentence="At £19 per night for one cat, 9 nights comes to £171.",
                    turn=3, object="£19", object_text="£19")
    finding = Finding("numeric", 0.99, claim, prior, "£19 vs £14")
    assert _sameness_guessed(finding) is None
    on_phrase = replace(finding, claim=replace(claim, sentence="At £19 per night for one cat"))
    lead = _said_whole(on_phrase, claim.sentence)
    assert lead.claim.sentence == claim.sentence
    assert _sameness_guessed(lead) == 'only its phrase "At £19 per night for one cat" was compared'


def test_two_counts_each_with_its_own_value_are_a_guess_only_between_answers() -> None:
    """ "a crew of three movers ... $160" after the assistant's own "two movers ... $120"
    may be two crews' prices; after the user's own count, the other count is the mistake."""
    prior = _fact("crew", "amount", "$120",
                  "A crew of two movers typically charges about $120 per hour.")
    claim = replace(prior, sentence="A crew of three movers usually charges about $160 per "
                    "hour.", turn=3, object="$160", object_text="$160")
    finding = Finding("numeric", 0.99, claim, prior, "$160 vs $120")
    assert _sameness_guessed(finding) == (
        '"three movers" against "two movers", each with its own value')
    users = replace(finding, prior=replace(prior, speaker="user"))
    assert _sameness_guessed(users) is None



@pytest.mark.parametrize(("prompt", "composed"), [
    ("write a toast for my sister's wedding", True),
    ("help me with my wedding toast", True),
    ("I need to give a toast to the couple", True),
    ("write me a short announcement email to our mailing list", True),
    ("should i send a thank you email and what should it say", True),
    ("can you write a reply to the email I got?", True),
    ("I have to send a cover letter to the bank. Can you help me make it stronger?", True),
    # toast the food, and a letter or an email the user sent, got or has
    ("honestly breakfast is my weak spot, i usually just have toast. any ideas?", False),
    ("is peanut butter on toast a good snack?", False),
    ("If I send the letter on April 10, what will my last charge be?", False),
    ("I only have the recruiter's email. Who do I thank?", False),
    ("got an email from my landlord saying rent goes up to $1,600", False),
])
def test_a_text_to_write_is_composed_and_one_eaten_sent_or_got_is_not(prompt: str,
                                                                      composed: bool) -> None:
    assert cues.is_creative_request(prompt) is composed
    assert cues.asks_for_user_draft(prompt) is composed


@pytest.mark.parametrize(("prompt", "edit"), [
    ("this made me laugh. can you make it a little funnier?", True),
    ("make it a bit shorter and mention the dog", True),
    ("Love it! Could you rewrite it for a younger crowd?", True),
    ("another version please, more formal", True),
    # a change to a plan or a budget, not to a text's words
    ("can you make it cheaper?", False),
    ("what if we make it a 4 day trip", False),
])
def test_a_request_to_change_the_text_just_written(prompt: str, edit: bool) -> None:
    assert cues.asks_to_edit(prompt) is edit


@pytest.mark.parametrize("prompt", [
    "His memorial is Sunday and I want to read a short piece (~200 words) about him.",
    "Could you help with a eulogy for my grandmother?",
    "I'd like a short tribute to our coach for the team dinner.",
])
def test_a_piece_to_read_out_is_composed(prompt: str) -> None:
    assert cues.is_creative_request(prompt)
