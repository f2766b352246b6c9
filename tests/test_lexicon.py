"""Tests for monitor.engine.lexicon: antonyms, functional relations, revision and
self-correction cues, modality and negation words."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from monitor import data
from monitor.engine import lexicon as lx

# --------------------------------------------------------------------------- antonyms

TRUE_PAIRS = [
    ("wet", "dry"),
    ("open", "closed"),
    ("cheap", "expensive"),
    ("inexpensive", "expensive"),  # head-synonym extension
    ("damp", "dry"),  # satellite of 'wet'
    ("enormous", "small"),  # satellite of 'large'
    ("early", "late"),
    ("hot", "cold"),
    ("wide", "narrow"),
    ("increase", "decrease"),
    ("rise", "fall"),
    ("win", "lose"),
    ("accept", "reject"),
    ("allow", "forbid"),
    ("male", "female"),
    ("alive", "dead"),
    ("true", "false"),
    ("good", "bad"),
    ("big", "small"),
    ("always", "never"),
    ("like", "dislike"),
    ("agree", "disagree"),
    ("include", "exclude"),
    ("legal", "illegal"),
    ("on", "off"),
    ("up", "down"),
    ("possible", "impossible"),
    ("available", "unavailable"),
    # curated: relation verbs and comparatives WordNet misses
    ("rise", "drop"),
    ("grow", "shrink"),
    ("higher", "lower"),
    ("more", "less"),
    ("faster", "slower"),
    ("included", "excluded"),
    ("before", "after"),
    ("above", "below"),
    ("allow", "prohibit"),
    ("increase", "reduce"),
    ("improve", "worsen"),
    ("gain", "lose"),
    ("confirmed", "cancelled"),
    ("happy", "sad"),
]

FALSE_PAIRS = [
    ("come", "go"),
    ("give", "take"),
    ("buy", "sell"),
    ("send", "receive"),
    ("teach", "learn"),
    ("ask", "answer"),
    ("push", "pull"),
    ("start", "finish"),
    ("start", "stop"),
    ("arrive", "depart"),
    ("arrive", "leave"),
    ("open", "close"),  # verb actions in sequence; the state pair open/closed fires
    ("lock", "unlock"),
    ("pack", "unpack"),
    ("borrow", "lend"),
    ("import", "export"),
    ("here", "there"),
    ("all", "some"),
    ("first", "last"),
    ("past", "present"),
    ("at least", "at most"),
    ("full", "bad"),  # 'full' is a rare-sense satellite of 'good'
    ("please", "displease"),
    ("increase", "increases"),  # same lemma family; callers pass lemmas
    ("dry", "dry"),
    ("", "dry"),
    ("dry", ""),
    ("known", "unknown no"),
    ("no", "known"),  # no substring matching
    ("wet", "drying"),
    ("red", "blue"),
    ("conservative", "liberal"),
]


@pytest.mark.parametrize(("a", "b"), TRUE_PAIRS)
def test_true_pairs_both_orders(a: str, b: str) -> None:
    assert lx.are_antonyms(a, b)
    assert lx.are_antonyms(b, a)


@pytest.mark.parametrize(("a", "b"), FALSE_PAIRS)
def test_false_pairs_both_orders(a: str, b: str) -> None:
    assert not lx.are_antonyms(a, b)
    assert not lx.are_antonyms(b, a)


def test_normalisation_case_underscore_space() -> None:
    assert lx.are_antonyms("WET", " Dry ")
    assert lx.are_antonyms("speed_up", "slow down")
    assert lx.are_antonyms("no longer", "still")


def test_antonym_table_entries() -> None:
    table = lx._antonym_table()
    assert "dry" in table["wet"]
    assert "table" not in table
    assert "go" not in table.get("come", frozenset())


def test_table_is_symmetric_and_respects_exclusions() -> None:
    table = lx._antonym_table()
    for a, ants in table.items():
        assert a not in ants
        for b in ants:
            assert a in table[b]
            assert frozenset((a, b)) not in data.pairs("antonyms_excluded.txt")
            assert a not in data.words("antonyms_excluded_lemmas.txt")


def _wordnet_rows() -> set[tuple[str, str, str]]:
    path = Path(lx.__file__).resolve().parents[1] / "data" / "antonyms.tsv"
    rows = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            a, b, pos = line.split("\t")[:3]
            rows.add((a, b, pos))
    return rows


def test_kept_verb_pairs_are_wordnet_verb_pairs() -> None:
    rows = _wordnet_rows()
    verbs = {frozenset((a, b)) for a, b, pos in rows if pos == "v"}
    missing = [sorted(p) for p in data.pairs("antonyms_verbs_kept.txt") if p not in verbs]
    assert not missing


def test_data_file_small_and_sorted() -> None:
    path = Path(lx.__file__).resolve().parents[1] / "data" / "antonyms.tsv"
    assert path.stat().st_size < 300_000
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln[:1] != "#"]
    assert lines == sorted(lines)
    assert all(ln.split("\t")[0] < ln.split("\t")[1] for ln in lines)


def test_wordnet_verb_pairs_not_kept_do_not_fire() -> None:
    # a reversible action pair present in WordNet but not allow-listed
    assert ("tie", "untie", "v") in _wordnet_rows()
    assert not lx.are_antonyms("tie", "untie")


def test_speed() -> None:
    lx.are_antonyms("wet", "dry")  # ensure loaded
    n = 20_000
    t0 = time.perf_counter()
    for i in range(n):
        lx.are_antonyms("hot" if i % 2 else "cold", "dry")
    per_call = (time.perf_counter() - t0) / n
    assert per_call < 50e-6


# --------------------------------------------------------------------------- functional


@pytest.mark.parametrize(
    "rel",
    [
        "live in",
        "be born in",
        "be capital of",
        "be called",
        "be named",
        "be ceo of",
        "cost",
        "be scheduled for",
        "leave at",
        "depart at",
        "arrive at",
        "be located in",
        "be based in",
        "start at",
        "end at",
        "weigh",
        "be married to",
        "be held in",
        "take place on",
        "be due on",
        "have flight number",
        "Live  In",
        "be the price of",
        "have population",
    ],
)
def test_functional_relations(rel: str) -> None:
    assert lx.is_functional(rel)


@pytest.mark.parametrize(
    "rel", ["like", "have", "be", "visit", "eat", "be friend of", "have child", "work with", ""]
)
def test_non_functional_relations(rel: str) -> None:
    assert not lx.is_functional(rel)


def test_functional_attributes() -> None:
    for noun in ["capital", "price", "deadline", "phone number", "ticket price", "age"]:
        assert lx.is_functional_attribute(noun), noun
    for noun in ["colour", "color", "owner", "author", "friend", "hobby", "feature", ""]:
        assert not lx.is_functional_attribute(noun), noun


# --------------------------------------------------------------------------- revisions

REVISION_POSITIVES = [
    ("Change the deadline to Friday.", "change"),
    ("Can you update my address to 12 Rua Augusta, Porto?", "change"),
    ("Please switch the booking to the 9am flight.", "change"),
    ("Let's move the meeting to Tuesday.", "change"),
    ("Make it 4 people instead of 6.", "correction"),
    ("Let's do Tuesday instead.", "instead"),
    ("Can we do Tuesday instead?", "instead"),
    ("Scratch that: 5.", "retract"),
    ("Correction: 3,000, not 2,000.", "correction"),
    ("It's 3,000, not 2,000.", "correction"),
    ("Actually, it's 5.", "correction"),
    ("I moved, I now live in Porto.", "moved"),
    ("We're no longer vegetarian.", "moved"),
    ("No wait, 7 guests.", "retract"),
    ("Sorry, I meant 12.", "meant"),
    ("not 8 but 9", "correction"),
    ("On second thought, book the later train.", "retract"),
    ("Forget what I said about the hotel.", "retract"),
    ("I changed my mind about the colour.", "retract"),
    ("Make that seven.", "correction"),
    ("The budget is fine. Actually, the budget is 800 now.", "correction"),
    ("I\u2019ve moved to Lisbon.", "moved"),
    # a count said as the new state
    ("More people signed up, so we're now at 48.", "correction"),
    ("Registrations jumped: we're at 85 now.", "correction"),
    ("Two girls are joining, so it's 17 players now.", "correction"),
    ("ok plot twist, my partner invited his coworkers and now it's 12 people.", "correction"),
    ("update, my brother's chipping in so we're at $450 now! what would you upgrade?",
     "correction"),
    ("We want to save more, so I'm dropping my max to $1,500.", "correction"),
    ("My raise got confirmed: take-home is going to be 3,400 next month.", "correction"),
    ("My schedule freed up and I can do 4 days a week now.", "correction"),
    ("I'll have 7 nights now, should I add more Lisbon?", "correction"),
    ("The testing center only had a slot in 4 weeks, not 6, so I booked that.",
     "correction"),
    ("Our closing got pushed a week, so the move is now June 21.", "correction"),
]

REVISION_NEGATIVES = [
    "Make a cake for six people.",
    "Put it in the oven for 20 minutes.",
    "I want a window seat.",
    "Add salt to taste.",
    "Fix my code please.",
    "It should be fast and cheap.",
    "How do I cook rice?",
    "Why would I use a list instead of a tuple?",
    "thanks. if he ends up with a 6 instead is that bad for sixth form",  # a what-if
    "Say we take the train instead, how long is that?",
    "What is the capital of France?",
    "Change is hard to accept.",
    "I'd like to go to Paris in June.",
    "Please remove the last paragraph.",
    "Cut the onions into small pieces.",
    "Without sugar, please.",
    "I prefer tea.",
    "Can you rewrite this paragraph?",
    "I mean it, thank you so much.",
    "Make it shorter.",
    "",
    "The change to the schedule was announced.",
    # the time of day, not a new value of anything
    "It's 5 pm now, is the museum still open?",
    "It is now 5 pm.",
    "I have 3 kids.",
    "I cut the carrots to 1 cm pieces, how long do they roast?",
    "I reduced the sauce to 1 cup.",
    "It is going to be 30 degrees tomorrow.",
]


@pytest.mark.parametrize(("text", "kind"), REVISION_POSITIVES)
def test_revision_positives(text: str, kind: str) -> None:
    assert lx.revision_kind(text) == kind


@pytest.mark.parametrize("text", REVISION_NEGATIVES)
def test_revision_negatives(text: str) -> None:
    assert lx.revision_kind(text) is None


def test_revision_kinds_vocabulary() -> None:
    assert {k for k, _ in lx._REVISION_CUES} == {
        "retract",
        "correction",
        "meant",
        "moved",
        "instead",
        "change",
    }


# --------------------------------------------------------------------------- self-correction

SELF_CORRECTION_POSITIVES = [
    "Sorry, I misspoke: it leaves at 9, not 8.",
    "Correction: the train leaves at 9.",
    "I was wrong earlier about the price.",
    "My mistake, the museum is closed on Mondays.",
    "Let me correct that: the total is 450 EUR.",
    "I made an error in my previous answer.",
    "I stand corrected, it is Canberra.",
    "Apologies for the error, the flight is at 10:15.",
    "My previous answer was incorrect.",
    "I got that wrong: it is 12 km.",
    "My apologies for the inaccurate response.",
    "I apologize for the oversight.",
    "You're right, I got that conversion wrong, sorry.",
    "My apologies, I had those the wrong way round.",
    "Sorry, I had it the wrong way round.",
    "Sorry for the errors.",
    "My apologies for the mix-up.",
]

SELF_CORRECTION_NEGATIVES = [
    "Sorry to hear that.",
    "Sorry for the delay.",
    "Sorry for the confusion.",
    "I apologize for the inconvenience.",
    # a question, a condition or a denial owns up to nothing
    "Have I got that wrong?",
    "If I got that wrong, let me know.",
    "I don't think I got it wrong.",
    "Don't worry, I had those the wrong way round too.",
    # somebody else's error, or a story
    "I'm sorry for the error you ran into.",
    "I apologize for the oversight by the airline.",
    "The first time I baked bread I got it all wrong.",
    "I apologize for any errors in the original text.",
    "That is correct!",
    "Let me correct your code.",
    "If I was wrong, please tell me.",
    "You were wrong about the date.",
    "The correct answer is 42.",
    "I wasn't wrong.",
    "Mistakes happen when cooking.",
    "",
]


@pytest.mark.parametrize("text", SELF_CORRECTION_POSITIVES)
def test_self_correction_positives(text: str) -> None:
    assert lx.is_self_correction(text)


@pytest.mark.parametrize("text", SELF_CORRECTION_NEGATIVES)
def test_self_correction_negatives(text: str) -> None:
    assert not lx.is_self_correction(text)


def test_only_the_opening_of_an_answer_owns_up_to_a_mistake() -> None:
    assert lx.opens_with_self_correction("You're right, I misspoke.\n\nThe museum is shut.")
    assert not lx.opens_with_self_correction(
        "You arrive on Monday. The museum is closed on Mondays. Let me know if I got that "
        "wrong.")


# --------------------------------------------------------------------------- modality


@pytest.mark.parametrize(
    ("sentence", "cue"),
    [
        ("some people claim the earth is flat.", "reported"),
        ("according to the guide, the museum opens at 9.", "reported"),
        ("it is said that the castle is haunted.", "reported"),
        ("rumour has it the shop is closing.", "reported"),
        ("john says that the shop is closed.", "reported"),
        ("the drug reportedly causes headaches.", "reported"),
        ("apple cider vinegar is popularly believed to assist with weight loss.", "reported"),
        ("the train is supposed to arrive at 5.", None),  # an expectation, not a report
        ("if it rains, the match is cancelled.", "hypothetical"),
        ("suppose the budget is 500.", "hypothetical"),
        ("imagine you live in paris.", "hypothetical"),
        ("in case the flight is late, call me.", "hypothetical"),
        ("the flight might be late.", "hedged"),
        ("perhaps the shop is closed.", "hedged"),
        ("the shop is closed.", None),
        ("the gift is nice.", None),  # 'if' inside 'gift' is not a marker
        ("the sayings are old.", None),
        ("", None),
    ],
)
def test_modality_cue(sentence: str, cue: str | None) -> None:
    assert lx.modality_cue(sentence) == cue


def test_modality_lists() -> None:
    assert {"claim", "say", "report", "allege"} <= data.words("reporting_verbs.tsv", "cue")
    assert {"if", "unless", "suppose", "imagine", "assuming", "in case", "whether"} <= (
        data.words("conditionals.tsv", "cue")
    )
    assert {"might", "may", "could", "would", "possibly", "perhaps"} <= data.words(
        "hedges.tsv", "cue")
    assert data.words("hedges.tsv", "aux") <= data.words("hedges.tsv", "cue")


# --------------------------------------------------------------------------- negation


def test_one_negation_list_with_its_roles() -> None:
    negation = data.words("negation.tsv")
    assert data.words("negation.tsv", "determiner") == {"no", "neither", "nor"}
    assert data.words("negation.tsv", "determiner") <= data.words("negation.tsv", "negator")
    assert {"not", "never", "cannot", "n't", "without"} <= negation
    for role in ("negator", "determiner", "shown"):
        assert data.words("negation.tsv", role) <= negation
    assert not {"known", "notable", "now"} & negation


def test_content_words_drop_contractions_and_keep_the_possessor() -> None:
    from monitor.engine.cues import content_words

    assert content_words("That's normal for the beginning.") == {"normal", "begin"}
    assert content_words("Bali's wet season: don't go") == {"bali", "wet", "season"}
