"""Detectors, scope rules, revisions and certificates, through the real engine."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from monitor.contracts import ContradictionCertificate, TurnEvent
from monitor.engine import cues
from monitor.engine.pipeline import Engine
from monitor.engine.state import ConversationState
from monitor.engine.verdict import pronoun_led
from monitor.runner.build import build_engine


def run_engine(
    turns: list[tuple[str, str]], cid: str = "c", engine: Engine | None = None
) -> tuple[list[ContradictionCertificate], ConversationState]:
    """The certificates of a conversation, and the state it leaves."""
    states: dict[str, ConversationState] = {}
    events = [TurnEvent(conversation_id=cid, turn_index=i, role=r, text=t)  # type: ignore[arg-type]
              for i, (r, t) in enumerate(turns)]
    outcomes = (engine or build_engine()).process_batch(events, states)
    return [c for outcome in outcomes for c in outcome.certificates], states[cid]


def run(turns: list[tuple[str, str]], cid: str = "c") -> list[ContradictionCertificate]:
    return run_engine(turns, cid)[0]


def pair(first: str, second: str) -> list[ContradictionCertificate]:
    return run([("user", "Tell me about it."), ("assistant", first), ("user", "Go on."),
                ("assistant", second)])


def test_negation() -> None:
    certs = pair("The museum is open on Mondays.", "The museum does not open on Mondays.")
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("negation", 3, 1)
    ]
    c = certs[0]
    assert "turn 3" in c.explanation and "turn 1" in c.explanation
    assert c.claim.sentence == "The museum does not open on Mondays."
    assert c.prior.speaker == "assistant" and c.severity == "page"


def test_antonym() -> None:
    certs = pair("The museum is open on Mondays.", "The museum is closed on Mondays.")
    assert [c.detector for c in certs] == ["antonym"]
    assert pair("Prices rose in March.", "Prices fell in March.")[0].detector == "antonym"


def test_numeric_conflict_and_units() -> None:
    assert pair("The tour costs 50 euros.", "The tour costs 80 euros.")[0].detector == "numeric"


@pytest.mark.parametrize("first, second", [
    ("The tour costs 1,000 euros.", "The tour costs 1000 euros."),
    ("The parcel weighs 2 kg.", "The parcel weighs 2000 g."),
    ("The film lasts 90 minutes.", "The film lasts an hour and a half."),
    ("The recipe needs a dozen eggs.", "The recipe needs 12 eggs."),
])
def test_consistent_numeric_restatements_do_not_fire(first: str, second: str) -> None:
    assert pair(first, second) == []


@pytest.mark.parametrize("first, second", [
    ("The tour costs 50 euros for adults.", "The tour costs 30 euros for children."),
    ("The entry fee is 20 euros for adults.", "The entry fee is 10 euros for children."),
    ("You will pay 45 euros for each adult ticket.", "You will pay 25 euros for a child ticket."),
    ("Admission is **€18** for students.", "Admission is **€12** for seniors."),
    ("Parking costs 15 euros for the day.", "Parking costs 60 euros for the week."),
    # counted against two spans, said as adjectives
    ("The daily rate for the car is 55 euros.", "The weekly rate for the car is 300 euros."),
    ("Parking at the hotel is 20 euros nightly.", "Parking at the hotel is 140 euros per week."),
    ("The room is €55/night.", "The room is €300/week."),
    # "per" where no "for" follows; a category of its own beside the audience
    ("The tour costs 20 euros per adult.", "The tour costs 10 euros per child."),
    ("Admission is 25 euros for adult members.", "Admission is 40 euros for adult non-members."),
])
def test_amounts_for_different_kinds_are_two_prices(first: str, second: str) -> None:
    """A price list, not one price changed: no rule and no verifier verdict pages."""
    assert pair(first, second) == []


@pytest.mark.parametrize("first, second", [
    ("You will pay 50 euros for the tour.", "You will pay 80 euros for the tour."),
    ("The tour costs 50 euros for adults.", "The tour costs 80 euros for each adult."),
    ("The tour costs 30 euros for kids.", "The tour costs 15 euros for children."),
    ("The tour costs 50 euros for adults.", "The tour costs 30 euros for grown-ups."),
    # no kind: however different the words, compared as before
    ("You should budget 800 euros for the hotel.",
     "You should budget 1,200 euros for accommodation."),
    ("You will pay 30 euros for the lesson.", "You will pay 45 euros for the class."),
    # a word that takes in every kind
    ("The double room is 120 euros per night for two people.",
     "The double room is 150 euros per night for two adults."),
    # only one says what it is for; "for example" says nothing
    ("The tour costs 50 euros for adults.", "The tour costs 80 euros."),
    ("You will pay 50 euros for example.", "You will pay 80 euros for example."),
    # one span, said two ways
    ("Your rent is 1,100 euros monthly.", "Your rent is 1,300 euros a month."),
    # the adults' price, after a sentence that gave two
    ("The tour costs 50 euros for adults and 20 euros for children.",
     "The tour costs 70 euros for adults."),
])
def test_amounts_for_the_same_thing_still_conflict(first: str, second: str) -> None:
    assert [(c.detector, c.severity) for c in pair(first, second)] == [("numeric", "page")]


@pytest.mark.parametrize("first, second", [
    # a noun each sentence modifies otherwise
    ("A linen duvet cover usually costs about £90.",
     "A cotton duvet cover usually costs about £40."),
    ("A hardwood deck usually costs about $45 per square foot to build.",
     "A composite deck usually costs about $30 per square foot to build."),
    # an opening qualifier only one of them says, or each its own
    ("In the dry season, a night at the lodge costs about $400.",
     "A night at the lodge costs about $250."),
    ("With a student card, a monthly bus pass costs about 30 euros.",
     "A monthly bus pass costs about 55 euros."),
    ("On the premium plan, the storage limit is 2 TB.",
     "On the family plan, the storage limit is 1 TB."),
    # what one variant is said to include, against another's modifier
    ("A basic ticket to the castle costs 18 euros.",
     "A ticket that includes the rooftop terrace costs 30 euros."),
    # two things of one place: the words around the values share only "cost" and a name
    ("The flights alone typically cost about $700 from Chicago.",
     "Altogether, the trip typically costs about $2,500 from Chicago."),
    # one thing counted two ways, each count with its own price
    ("A crew of two painters typically charges about $300 per day.",
     "A crew of three painters typically charges about $450 per day."),
])
def test_values_of_a_thing_qualified_apart_warn_and_do_not_page(first: str, second: str) -> None:
    """Maybe two variants' values, maybe one value changed: the finding stays, as a warning
    that says why it did not page (each of these paged before)."""
    certs = pair(first, second)
    assert [(c.detector, c.severity) for c in certs] == [("numeric", "warn")]
    assert "may be about different things" in certs[0].same_subject


@pytest.mark.parametrize("first, second", [
    ("A hardwood deck usually costs about $45 per square foot to build.",
     "A hardwood deck usually costs about $30 per square foot to build."),
    ("On the premium plan, the storage limit is 2 TB.",
     "On the premium plan, the storage limit is 1 TB."),
    ("The venue usually costs about $10,000 in the Midwest.",
     "The venue usually costs about $14,000 in the Midwest."),
    ("A team of two cleaners usually charges about $60 per hour.",
     "A team of two cleaners usually charges about $90 per hour."),
])
def test_values_of_a_thing_qualified_alike_page(first: str, second: str) -> None:
    assert [(c.detector, c.severity) for c in pair(first, second)] == [("numeric", "page")]


def test_a_food_named_in_an_answer_that_steers_around_it_warns() -> None:
    """The answer names the constraint as it steers around it, so the dish it names may be
    one to avoid: the finding stays, as a warning that quotes the steering sentence (it
    paged before)."""
    certs = run([
        ("user", "My son has a severe peanut allergy. Ideas for his Thai-themed party?"),
        ("assistant", "Here's a Thai menu that avoids peanuts.\n\n"
                      "- Many restaurant Thai dishes are garnished with crushed peanuts, so "
                      "cook at home.\n- Chicken skewers with a sweet chilli dip."),
    ])
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "warn")]
    assert 'the answer steers around it elsewhere: "Here\'s a Thai menu that avoids peanuts."' \
        in certs[0].same_subject


def test_a_food_listed_under_a_heading_that_steers_around_it_warns() -> None:
    certs = run([
        ("user", "I'm allergic to shellfish. What should I eat in Valencia?"),
        ("assistant", "### Order this\n\n- Paella valenciana, with chicken and rabbit.\n\n"
                      "### Avoid these\n\n- Seafood paella, full of prawns and mussels."),
    ])
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "warn")]
    assert 'it is named under the heading "avoid these"' in certs[0].same_subject


def test_a_food_listed_under_a_heading_free_of_it_is_offered_as_such() -> None:
    """ "Rice noodles" under "Gluten-free noodles" are gluten-free noodles; "Udon" under a
    plain heading still breaks coeliac disease."""
    certs = run([
        ("user", "I have celiac disease. Which noodles can I use in stir-fries?"),
        ("assistant", "### Gluten-free noodles\n\n- Rice noodles: flat or vermicelli.\n"
                      "- Glass noodles: mung bean starch.\n\n### Thick and chewy\n\n"
                      "- Udon noodles: great in a stir-fry."),
    ])
    assert [(c.detector, c.claim.sentence) for c in certs] == [
        ("constraint", "Udon noodles: great in a stir-fry.")]


def test_what_the_user_asked_for_is_a_doubt() -> None:
    """A non-drinker who asks for wineries gets wineries: a warning, not a page; the wine
    itself still pages."""
    certs = run([
        ("user", "I don't drink alcohol at all, but my in-laws do. We're off to Napa."),
        ("assistant", "Napa has plenty beyond tastings."),
        ("user", "Any wineries that are actually fun for a non-drinker?"),
        ("assistant", "- Sterling Vineyards: ride a gondola up to the winery.\n"
                      "- Castello di Amorosa: order a glass of the house wine."),
    ])
    assert [(c.claim.sentence, c.severity) for c in certs if c.detector == "constraint"] == [
        ("Sterling Vineyards: ride a gondola up to the winery.", "warn"),
        ("Castello di Amorosa: order a glass of the house wine.", "page")]
    assert "the user asked for it" in certs[0].same_subject


def test_a_list_under_a_heading_that_denies_it_presumes_nothing() -> None:
    certs = run([
        ("user", "Just bought a Tesla Model Y, my first EV."),
        ("assistant", "## What you don't need anymore\n\n- Oil changes, spark plugs and "
                      "timing belts.\n\n## What matters\n\n- Rotate the tyres."),
        ("user", "And before a road trip?"),
        ("assistant", "Get an oil change before you leave."),
    ])
    assert [(c.detector, c.turn_index) for c in certs] == [("constraint", 3)]


def test_a_pick_if_i_had_to_choose_is_offered() -> None:
    """ "If I had to pick one, I'd go with ... $1,099" recommends it, over a $500 cap."""
    certs = run([
        ("user", "Need a laptop for my son. Hard cap of $500, I really can't go above that."),
        ("assistant", "$500 gets you a capable laptop."),
        ("user", "If you had to pick just one?"),
        ("assistant", "If I had to pick one, I'd go with the Dell XPS 13, which runs about "
                      "$1,099."),
    ])
    assert [(c.detector, c.turn_index) for c in certs] == [("constraint", 3)]


def test_a_food_named_in_an_answer_that_never_steers_around_it_pages() -> None:
    certs = run([
        ("user", "My son has a severe peanut allergy. Ideas for his Thai-themed party?"),
        ("assistant", "- Chicken skewers with a classic peanut sauce.\n- Mango sticky rice."),
    ])
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "page")]


def test_a_verdict_on_a_sentence_led_by_a_pronoun_warns() -> None:
    """ "It" after a sentence that named two other plans: the verifier reads "It includes
    phone support" against "the basic plan does not" (0.98), but which plan "it" is was
    never read. The finding stays; it paged before."""
    certs = run([
        ("user", "Does the basic plan include phone support?"),
        ("assistant", "No, the basic plan does not include phone support. For that you would "
                      "need the pro plan or the business plan."),
        ("user", "Which of those is cheaper?"),
        ("assistant", "The pro plan is cheaper. It includes phone support."),
    ])
    assert [(c.detector, c.severity) for c in certs] == [("nli", "warn")]
    assert "this sentence names its subject only by a pronoun" in certs[0].same_subject


@pytest.mark.parametrize("sentence, led", [
    ("It offers both a sync and an async client.", True),
    ("They close at 6 pm on Sundays.", True),
    ("This plan includes phone support.", False),
    ("It is possible to bring dogs on the Eurostar.", False),
    ("It's important that you book ahead.", False),
    ("IT support is open at weekends.", False),
])
def test_what_names_its_subject_only_by_a_pronoun(sentence: str, led: bool) -> None:
    assert pronoun_led(sentence) is led


def test_a_conflict_kept_from_paging_by_a_guess_pages_where_it_is_named_alike() -> None:
    """Each conflict is certified once, but a warning that rests on a guess of sameness
    does not use up a later page: the third answer qualifies the night as the first did."""
    certs = run([
        ("user", "Tell me about the lodge."),
        ("assistant", "In the dry season, a night at the lodge costs about $400."),
        ("user", "Go on."),
        ("assistant", "A night at the lodge costs about $250. Breakfast is included."),
        ("user", "Go on."),
        ("assistant", "In the dry season, a night at the lodge costs about $250. "
                      "Dinner is extra."),
        ("user", "Thanks."),
        ("assistant", "In the dry season, a night at the lodge costs about $250, as I said."),
    ])
    assert [(c.turn_index, c.conflicts_with, c.severity) for c in certs] == [
        (3, 1, "warn"), (5, 1, "page")]


def test_a_conflict_said_twice_in_one_answer_is_certified_once() -> None:
    """Once named alike (a page) and once without the qualifier (a guess): one
    certificate, the page."""
    certs = run([
        ("user", "Tell me about the lodge."),
        ("assistant", "In the dry season, a night at the lodge costs about $400."),
        ("user", "Go on."),
        ("assistant", "In the dry season, a night at the lodge costs about $250. So a night "
                      "at the lodge costs about $250."),
    ])
    assert [(c.turn_index, c.conflicts_with, c.severity) for c in certs] == [(3, 1, "page")]


@pytest.mark.parametrize("first, second", [
    # an adjective of the thing, not of its price, on one side only
    ("The daily special costs 12 euros.", "The special costs 15 euros."),
    ("The hotel offers a weekly cooking class that costs 40 euros.",
     "The cooking class costs 60 euros."),
    # two kinds in one phrase
    ("Tickets cost 20 euros for adults and children.", "Tickets cost 25 euros for children."),
    ("The family pass costs 60 euros for two adults and two children.",
     "The family pass costs 75 euros for the children and their parents."),
    # a counted span is no kind of its own
    ("The subscription costs 120 euros for a year.",
     "The subscription costs 150 euros for 12 months."),
    ("The apartment costs 700 euros for the week.",
     "The apartment costs 900 euros for 7 nights."),
    # an audience narrowed in a way the kinds do not read
    ("Entry is 8 euros for seniors.", "Entry is 12 euros for adults over 65."),
    ("Daycare costs 40 euros a day for toddlers.", "Daycare costs 55 euros a day for kids."),
])
def test_one_price_said_two_ways_still_conflicts(first: str, second: str) -> None:
    """Found by the final review of stop 39: each was lost by an earlier version."""
    assert [c.detector for c in pair(first, second)] == ["numeric"]


@pytest.mark.parametrize("first, second", [
    ("Tickets are 25 euros for adults.", "Tickets are 15 euros for kids under 12."),
    ("Entry is 10 euros for children.", "Entry is 20 euros for adults from the EU."),
])
def test_a_qualified_audience_keeps_its_kind(first: str, second: str) -> None:
    """Found by the review of stop 41: a qualifier made the whole phrase name nothing, and
    a price list paged."""
    assert pair(first, second) == []


def test_what_an_amount_buys_is_no_value_of_its_own() -> None:
    """The parse gives "the rental is for a bike" beside "the rental is 40 dollars per
    day": the bike is what the amount buys, so a kayak at that price is not the rental
    given another value by the rules. (The verifier still reads the two sentences as
    one rental for two things; this engine has none.)"""
    first, second = ("The rental is 40 dollars per day for a bike.",
                     "The rental is 40 dollars per day for a kayak.")
    turns = [("user", "Tell me about it."), ("assistant", first), ("user", "Go on."),
             ("assistant", second)]
    assert run_engine(turns, engine=_rules_only())[0] == []
    # where "for adults" is said of the museum itself as well, it is a value again
    first, second = ("The museum is for adults only and costs 20 euros for adults.",
                     "The museum is for children and costs 20 euros for children.")
    certs = run_engine([*turns[:1], ("assistant", first), turns[2], ("assistant", second)],
                       engine=_rules_only())[0]
    assert [c.detector for c in certs] == ["exclusive"]


_BIKE = "A city bike rental in Utrecht is about 12 euros per day."


@pytest.mark.parametrize("second", [
    "At around 16 euros per day for the city bike, it's fair value.",
    "For 16 euros per day for a city bike, that is fair value.",
])
def test_a_price_said_again_in_other_words_is_found_by_meaning(second: str) -> None:
    """The restatement shares one word with the old sentence around its amount and drops
    its name: the word gates miss it, the verifier reads the old clause with the new
    price as entailing the new clause. A weaker witness of sameness: a warning unless the
    verifier also calls the two sentences incompatible."""
    certs = pair(_BIKE, second)
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [("numeric", 3, 1)]
    assert "the earlier clause with 16 euros in it entails this one" in certs[0].explanation
    assert certs[0].confidence < 0.8


@pytest.mark.parametrize("second", [
    "With Swapfiets the city bike rental is about 16 euros per day.",  # a name
    "The ticket costs 16 euros per day.",  # no word of the old clause but the verb
    "In total you spend 16 euros per day on the city bike and the lock.",  # an aggregate
    "On weekends a city bike rental in Utrecht is about 16 euros per day.",  # a time frame
])
def test_another_things_price_is_not_found_by_meaning(second: str) -> None:
    """The whole engine's outcome. Which check turns each down (the name and time-frame
    checks before the verifier, `restated_clause`'s guards, or the verifier itself) is
    tested where the check lives: `tests/engine/test_aligned_restated.py`."""
    assert pair(_BIKE, second) == []


def test_a_new_count_of_days_leaves_a_daily_price_as_it_was() -> None:
    """ "I'm there for 5 days" may rescale a total, not a price per day."""
    certs = run([("user", "How much is a bike rental?"), ("assistant", _BIKE),
                 ("user", "I'm there for 5 days."),
                 ("assistant", "A city bike rental in Utrecht is about 16 euros per day, so "
                               "five days is fine.")])
    assert [(c.detector, c.severity) for c in certs] == [("numeric", "page")]
    freed = run([("user", "How much is a bike rental?"), ("assistant", _BIKE),
                 ("user", "What if it's 16 euros a day?"),
                 ("assistant", "A city bike rental in Utrecht is about 16 euros per day, so "
                               "five days is fine.")])
    assert freed == []


def test_the_meaning_checks_of_an_answer_are_one_bounded_verifier_call() -> None:
    """An answer that restates dozens of remembered prices (dropping the lake's name, so
    the word gates pass them on) costs one verifier call of at most
    `amount_meaning_checks` pairs."""
    full = build_engine()
    calls: list[list[tuple[str, str]]] = []
    real_judge = full.verifier.judge  # type: ignore[union-attr]

    def judge(pairs: Any) -> Any:
        calls.append(list(pairs))
        return real_judge(pairs)

    full.verifier.judge = judge  # type: ignore[union-attr, method-assign]
    engine = Engine(full.config.model_copy(update={"amount_meaning_checks": 3}),
                    full.embedder, full.extractor, full.scorers, full.verifier)
    things = ["bike", "kayak", "canoe", "scooter", "paddleboard", "tent"]
    listed = " ".join(f"A {t} rental at Lake Bled costs about {10 + 3 * i} euros per day."
                      for i, t in enumerate(things))
    answer = " ".join(f"At {50 + i} euros per day for the rental at the lake, it's fair "
                      f"value." for i in range(len(things)))
    run_engine([("user", "What do rentals cost?"), ("assistant", listed), ("user", "And now?"),
                ("assistant", answer)], engine=engine)
    # the meaning checks: an old clause with a new price, said nowhere in the conversation
    rewritten = [pairs for pairs in calls
                 if any(p not in listed and "euros per day." in p for p, _ in pairs)]
    assert [len(pairs) for pairs in rewritten] == [3]


def test_a_listed_amount_is_not_compared_by_meaning() -> None:
    """A shopping list's "Butter — 250 g" is not the butter of one meal."""
    certs = run([("user", "Plan my meals."),
                 ("assistant", "Fry the 180 g salmon fillet in 20 g of butter with garlic."),
                 ("user", "And the shopping list?"),
                 ("assistant", "Shopping list:\n\n- Salmon fillets — 360 g\n- Butter — 250 g")])
    assert certs == []


def test_exclusive_value() -> None:
    certs = pair("The capital of Australia is Canberra.", "Sydney is the capital of Australia.")
    assert [c.detector for c in certs] == ["exclusive"]


@pytest.mark.parametrize("first, second, detector", [
    # "neither ... nor" says it of each one
    ("Neither the bakery nor the cafe is open on Sundays.", "The bakery is open on Sundays.",
     "negation"),
    # an "or" set off by commas names one thing twice
    ("Paris, or the City of Light, is the capital of France.",
     "Lyon is the capital of France.", "exclusive"),
])
def test_a_subject_named_twice_or_denied_for_each_is_still_a_subject(
        first: str, second: str, detector: str) -> None:
    assert [c.detector for c in pair(first, second)] == [detector]


@pytest.mark.parametrize("first, second, detector", [
    # bare numbers and names are what a near paraphrase may not change
    ("The minimum voting age in Brazil is 16.", "The minimum voting age in Brazil is 18.",
     "nli"),
    ("The novel Dracula was written by Mary Shelley.",
     "The novel Dracula was actually written by Bram Stoker.", "nli"),
    # a year the new sentence sets right is the value, not another time
    ("Nelson Mandela became president in 1990.",
     "Nelson Mandela actually became president in 1994.", "nli"),
    ("The first iPhone was released in 2008.",
     "The first iPhone was actually released in 2007.", "nli"),
])
def test_a_corrected_number_name_or_year_is_a_contradiction(
        first: str, second: str, detector: str) -> None:
    assert [c.detector for c in pair(first, second)] == [detector]


def test_two_statements_named_by_symbols_are_two_conflicts() -> None:
    """A conflict's key holds the symbols that name its subject, so the second statement's
    own contradiction is not taken for the first one's."""
    certs = run([("user", "Go."), ("assistant", "The statement p OR q is true."),
                 ("user", "Sure?"), ("assistant", "The statement p OR q is false."),
                 ("user", "And with AND?"), ("assistant", "The statement p AND q is true."),
                 ("user", "Sure?"), ("assistant", "The statement p AND q is false.")])
    assert [(c.turn_index, c.conflicts_with) for c in certs] == [(3, 1), (7, 5)]


def test_a_user_fact_about_someone_named_keeps_its_subject() -> None:
    """ "My son Ed" is "your son" later: a short name is not a symbol naming one of two."""
    certs = run([("user", "My son Ed is allergic to peanuts. What can I pack for lunch?"),
                 ("assistant", "Your son is not allergic to peanuts, so peanut butter works.")])
    assert "user_fact" in [c.detector for c in certs]


def test_user_fact() -> None:
    certs = run([("user", "I live in Lisbon and I need a dentist."),
                 ("assistant", "Since you live in Madrid, try a clinic in Salamanca.")])
    assert [(c.detector, c.conflicts_with) for c in certs] == [("user_fact", 0)]


@pytest.mark.parametrize("said, presumed", [
    ("I don't speak a word of Spanish, just hola and gracias.",
     "Since you speak Spanish, you can chat with the weavers directly."),
    ("I don't drink a single drop of alcohol, not even at weddings.",
     "Because you drink alcohol, pace yourself at the wedding."),
])
def test_a_denial_of_a_word_or_a_drop_denies_the_whole(said: str, presumed: str) -> None:
    """ "Not a word of Spanish" denies speaking Spanish; an answer that presumes the user
    speaks it contradicts what they said of themselves."""
    certs = run([("user", said), ("assistant", "Sure, happy to help."),
                 ("user", "Where should I go next?"), ("assistant", presumed)])
    assert [(c.detector, c.conflicts_with) for c in certs] == [("user_fact", 0)]


def test_what_is_needed_is_the_clause_after_need() -> None:
    """ "Never need to produce vosotros forms" denies nothing of "need to create that
    immersion": the two needs are of two things."""
    certs = pair("Since you don't have Spanish speakers around you, you'll need to create "
                 "that immersion at home.",
                 "You'll basically never need to produce vosotros forms in daily life.")
    assert certs == []


def test_sure_of_one_thing_is_not_sure_of_another() -> None:
    certs = pair("Always buy car seats new (or from someone you trust completely), since you "
                 "can't be sure a used one hasn't been in an accident.",
                 "Buy a used stroller and a new infant car seat, and make sure they're "
                 "compatible or that adapters are available.")
    assert certs == []


def test_two_things_named_with_clauses_of_their_own_are_not_claims() -> None:
    """List items that name toys and diets ("Treat balls that drop kibble as she bats them
    around") say nothing against each other, whatever the verifier reads (0.96)."""
    certs = run([
        ("user", "My cat's teeth are bad. What helps?"),
        ("assistant", "- Dental diets like Hill's t/d, designed to scrub the teeth as she "
                      "chews."),
        ("user", "And to keep her busy?"),
        ("assistant", "- Treat balls that drop kibble as she bats them around."),
    ])
    assert certs == []


def test_a_light_verb_without_an_object_negates_nothing() -> None:
    """ "Here you go" says nothing against "we never go out"."""
    certs = run([("user", "She's been glutened at restaurants, so we never go out."),
                 ("assistant", "Cooking at home is a great option."),
                 ("user", "Any recipes?"),
                 ("assistant", "Here you go: both are easy and safe with GF ingredients.")])
    assert [c.detector for c in certs if c.detector in {"negation", "user_fact"}] == []


def test_a_sentence_that_keeps_the_earlier_value_for_its_case_is_no_clash() -> None:
    certs = pair("Charge to 100% the night before departure (fine for occasional road trips).",
                 "Charge to 80% for daily use; 100% only for road trips.")
    assert certs == []


def test_what_a_condition_says_happens_is_not_asserted() -> None:
    """ "if a new weight makes your form break down": the breakdown is the condition's."""
    certs = pair("It should feel like work, and your form shouldn't break down.",
                 "Still, if a new weight makes your form break down, go back to the previous "
                 "one for another week.")
    assert certs == []


def test_a_denied_skill_is_met_by_one_presumed() -> None:
    certs = run([("user", "I'm 29 and I never learned to swim."),
                 ("assistant", "Adult classes are common."), ("user", "What should I practise?"),
                 ("assistant", "Because you learned to swim as a kid, focus on breathing.")])
    assert [(c.detector, c.conflicts_with) for c in certs] == [("user_fact", 0)]


def test_a_word_of_something_said_without_a_denial_is_not_the_whole() -> None:
    """Only after a negation: "I know a word of Spanish" does not say "I know Spanish"."""
    certs = run([("user", "I know a word of Spanish from school."),
                 ("assistant", "You don't know Spanish, so use a phrasebook.")])
    assert certs == []


@pytest.mark.parametrize("first, second", [
    ("The soup is spicy.", "The soup is warm."),                       # additive properties
    ("Prices rose in 2019.", "Prices fell in 2023."),                  # different times
    ("The museum is open on Mondays.", "If it rains, the museum is closed on Mondays."),
    ("The museum is open on Mondays.", "Some people claim the museum is closed on Mondays."),
    ("The museum is open on Mondays.", "Is the museum closed on Mondays?"),
    ("The museum is open on Mondays.", "The library is closed on Mondays."),  # other subject
    ("The room is large.", "The bathroom is small."),
    ("The museum is well known.", "The museum is notable."),            # "no" in "known"
    ("Prices rose in 2019.", "Prices rose in 2020."),                  # no one-time event
    ("The company had 40 staff in 2019.",                              # a later count
     "The company actually had 55 staff in 2021."),
    ("Unemployment rose in 2009.", "Unemployment actually fell in 2011."),  # another year
    ("In step 3 you mix the flour and the butter.",                    # numbers that name
     "In step 4 you mix the flour and the eggs."),
    ("Use a 2H pencil for sketching.", "Use a 4H pencil for sketching."),  # codes
    ("Revenue was strong in 1H.", "Revenue was strong in 2H."),
])
def test_scope_rules_keep_near_misses_silent(first: str, second: str) -> None:
    assert pair(first, second) == []


def test_revision_authorises_new_value_and_old_value_is_certified() -> None:
    base = [("user", "Book a table for 6 people on Friday."),
            ("assistant", "I booked a table for 6 people on Friday."),
            ("user", "Scratch that: make it 4 people instead of 6.")]
    assert run([*base, ("assistant", "Done, the table is now for 4 people.")]) == []
    certs = run([*base, ("assistant", "Sure."), ("user", "Thanks."),
                 ("assistant", "The table is for 6 people.")])
    assert [(c.turn_index, c.conflicts_with) for c in certs] == [(5, 2)]


def test_revision_lasts_beyond_one_turn() -> None:
    certs = run([("user", "I live in Lisbon."), ("assistant", "Lisbon is lovely."),
                 ("user", "I moved, I now live in Porto."), ("assistant", "Noted."),
                 ("user", "Any tips?"), ("assistant", "Since you live in Porto, try the Ribeira."),
                 ("user", "More?"), ("assistant", "You live in Porto, so visit Foz too.")])
    assert certs == []


def test_two_answers_ingredient_lines_warn_and_do_not_page() -> None:
    """Two recipes' ingredient lists under one heading name only the item: "1 clove
    garlic" may be the stuffing's, not the gravy's "2 cloves" changed."""
    gravy = ("## Mushroom gravy\n\n### Ingredients\n\n- 2 cloves garlic, minced\n"
             "- 250g mushrooms, sliced\n- 2 tbsp flour\n\nCook the mushrooms in butter "
             "until brown, add the garlic and flour, then whisk in the stock.")
    stuffing = ("## Sage and onion stuffing\n\n### Ingredients\n\n- 1 clove garlic, "
                "minced\n- 1 onion, diced\n- 200g breadcrumbs\n\nSoften the onion and "
                "garlic, stir in the breadcrumbs and bake for 30 minutes.")
    certs = run([("user", "Can you give me a gravy recipe for Sunday lunch?"),
                 ("assistant", gravy),
                 ("user", "Great. And a stuffing to go with it?"),
                 ("assistant", stuffing)])
    garlic = [c for c in certs if "garlic" in c.explanation]
    assert garlic and all(c.severity == "warn" for c in garlic)


def test_self_correction_is_certified_with_lower_severity() -> None:
    certs = pair("The train leaves at 8:00.",
                 "Sorry, I misspoke: the train leaves at 9:00, not 8:00.")
    assert certs and certs[0].detector == "self_correction" and certs[0].severity == "warn"


def test_a_turn_that_apologises_for_an_error_corrects_itself_in_any_sentence() -> None:
    """The apology and the corrected value are usually two sentences: the turn says it
    corrects an earlier answer, so the conflict is a self-correction, and never pages."""
    certs = run([("user", "How much is the tour?"),
                 ("assistant", "The tour costs 50 euros."),
                 ("user", "That doesn't sound right."),
                 ("assistant", "My apologies for the error. The tour costs 80 euros.")])
    assert [(c.detector, c.severity, c.conflicts_with) for c in certs] == [
        ("self_correction", "warn", 1)]


_ACKNOWLEDGED: list[tuple[str, str]] = [
    ("user", "When can I visit?"),
    ("assistant", "The museum is open on Mondays."),
    ("user", "Sure?"),
    ("assistant", "My apologies for the error. The museum is closed on Mondays."),
    ("user", "So which day should I go?"),
    ("assistant", "The museum is closed on Mondays, so go on Tuesday."),
]


def test_an_acknowledged_correction_is_not_raised_again_when_repeated() -> None:
    certs = run(_ACKNOWLEDGED)
    assert [(c.detector, c.severity, c.turn_index) for c in certs] == [
        ("self_correction", "warn", 3)]


def _rules_only() -> Engine:
    full = build_engine()
    return Engine(full.config, full.embedder, full.extractor, full.scorers)


def test_an_engine_without_the_verifier_knows_an_acknowledged_correction() -> None:
    certs, _ = run_engine(_ACKNOWLEDGED[:4], engine=_rules_only())
    assert [(c.detector, c.severity) for c in certs] == [("self_correction", "warn")]


@pytest.mark.parametrize("repeat", [
    "The museum is shut on Mondays, so go on Tuesday.",
    "The museum does not open on Mondays, so go on Tuesday.",
])
def test_an_owned_up_mistake_is_withdrawn(repeat: str) -> None:
    """The correction restated in other words has nothing left to conflict with: the
    mistaken sentence left the history when the assistant owned up to it."""
    certs = run([*_ACKNOWLEDGED[:5], ("assistant", repeat)])
    assert [(c.detector, c.turn_index) for c in certs] == [("self_correction", 3)]


@pytest.mark.parametrize("relapse", [
    "Go on Monday: the museum is open on Mondays.",
    "The museum is open on Mondays, so go then.",
])
def test_going_back_to_an_owned_up_mistake_pages(relapse: str) -> None:
    """The correction is the claim that stands: going back on it is a contradiction."""
    certs = run([*_ACKNOWLEDGED[:5], ("assistant", relapse)])
    assert [(c.detector, c.severity, c.turn_index, c.conflicts_with) for c in certs] == [
        ("self_correction", "warn", 3, 1), ("antonym", "page", 5, 3)]


_TOUR_80 = "My apologies for the error. The tour costs 80 euros."


@pytest.mark.parametrize("first, correction, later, detector", [
    ("The tour costs 50 euros and the ticket costs 12 euros.", _TOUR_80,
     "The ticket costs 20 euros.", "numeric"),
    ("The tour costs 50 euros and lasts 2 hours.", _TOUR_80,
     "The tour lasts 4 hours.", "numeric"),
    # the verifier's finding: what else the sentence said stays with the rules
    ("Booking ahead is unnecessary, and the tour is suitable for children.",
     "My apologies for the error. Booking ahead is essential.",
     "The tour is not suitable for children.", "negation"),
])
def test_an_owned_up_mistake_leaves_the_rest_of_its_sentence(
        first: str, correction: str, later: str, detector: str) -> None:
    """The apology owns up to one claim: another said in the same sentence still stands,
    and changing it later without a word still pages."""
    certs = run([("user", "Tell me about the tour."), ("assistant", first),
                 ("user", "Really?"), ("assistant", correction),
                 ("user", "And the rest?"), ("assistant", later)])
    assert [(c.detector, c.severity, c.turn_index, c.conflicts_with) for c in certs] == [
        ("self_correction", "warn", 3, 1), (detector, "page", 5, 1)]


def test_an_apology_owns_up_to_the_same_claim_only() -> None:
    """The walking tour's price was owned up to, not the boat tour's: that stays live."""
    certs, state = run_engine([("user", "How much is the boat tour?"),
                               ("assistant", "The boat tour costs 50 euros."),
                               ("user", "And the walking tour?"),
                               ("assistant", "The tour costs 50 euros too."),
                               ("user", "That seems cheap for walking."),
                               ("assistant", "My apologies for the error. The tour costs 80 "
                                             "euros.")])
    assert ("self_correction", 3) in [(c.detector, c.conflicts_with) for c in certs]
    assert all(c.detector != "self_correction" for c in certs if c.conflicts_with == 1)
    live = {(f.turn, f.subject) for f in state.graph.all_facts()
            if f.superseded_at is None and f.speaker == "assistant"}
    assert (1, "boat tour") in live and (3, "tour") not in live


def test_a_long_mistaken_sentence_is_withdrawn_whole() -> None:
    """An amount's claim: the fact that gave the amount goes with it, however many words
    the two sentences share."""
    certs = run([("user", "How much is the museum?"),
                 ("assistant", "The adult entry ticket for the city museum costs 10 euros."),
                 ("user", "Are you sure?"),
                 ("assistant", "My apologies for the error. The adult entry ticket price for "
                               "the city museum is 15 euros."),
                 ("user", "OK."),
                 ("assistant", "The adult entry ticket for the city museum costs 15 euros.")])
    assert [(c.detector, c.turn_index) for c in certs] == [("self_correction", 3)]


@pytest.mark.parametrize("said", [
    # twice in the previous answer
    [("assistant", "The museum is open on Mondays. Yes, the museum is open on Mondays, "
                   "from 9 to 5.")],
    # in the previous answer and in an older one
    [("assistant", "The museum is open on Mondays."), ("user", "Really?"),
     ("assistant", "Yes, the museum is open on Mondays.")],
])
def test_an_apology_owns_up_to_every_utterance_of_the_mistake(
        said: list[tuple[str, str]]) -> None:
    """One warning for the claim, however often it was said, and all of it withdrawn."""
    certs = run([("user", "When can I visit?"), *said, ("user", "Sure?"),
                 ("assistant", "My apologies for the error. The museum is closed on Mondays."),
                 ("user", "So which day?"),
                 ("assistant", "The museum is shut on Mondays, so go on Tuesday.")])
    apology = len(said) + 2
    assert [(c.detector, c.severity, c.turn_index) for c in certs] == [
        ("self_correction", "warn", apology)]


def test_a_correction_anchors_later_turns() -> None:
    """An owned-up mistake is no failed turn: the correction's new things are not
    quarantined, the mistake's claims are out of date."""
    certs, state = run_engine([("user", "What is the capital of Australia?"),
                               ("assistant", "The capital of Australia is Sydney."),
                               ("user", "Are you sure?"),
                               ("assistant", "My apologies for the error. The capital of "
                                             "Australia is Canberra.")])
    assert [c.detector for c in certs] == ["self_correction"]
    graph = state.graph
    assert "canberra" in graph.labels() and not graph.is_quarantined("canberra")
    assert {f.object for f in graph.all_facts() if f.superseded_at is None
            and f.subject == "capital of australia" and f.speaker == "assistant"} == {
        "canberra"}


def test_going_back_to_an_owned_up_amount_pages() -> None:
    certs = run([("user", "How much is the tour?"),
                 ("assistant", "The tour costs 50 euros."),
                 ("user", "That doesn't sound right."),
                 ("assistant", "My apologies for the error. The tour costs 80 euros."),
                 ("user", "OK, and for two?"),
                 ("assistant", "The tour costs 50 euros each, so 100 euros.")])
    assert [(c.detector, c.severity, c.turn_index, c.conflicts_with) for c in certs] == [
        ("self_correction", "warn", 3, 1), ("numeric", "page", 5, 3)]


def test_an_engine_without_the_verifier_withdraws_an_owned_up_mistake() -> None:
    turns = [*_ACKNOWLEDGED[:5], ("assistant", "Go on Monday: the museum is open on Mondays.")]
    certs, _ = run_engine(turns, engine=_rules_only())
    assert [(c.detector, c.conflicts_with) for c in certs] == [
        ("self_correction", 1), ("antonym", 3)]


def test_an_apology_corrects_the_previous_answer_only() -> None:
    """A conflict with an older answer, or an apology that does not open the answer,
    still pages."""
    certs = run([("user", "Tell me about the museum."),
                 ("assistant", "The museum is open on Mondays."),
                 ("user", "And the tour?"),
                 ("assistant", "The tour costs 50 euros."),
                 ("user", "Sure?"),
                 ("assistant", "My apologies for the error. The tour costs 80 euros. The "
                               "museum is closed on Mondays.")])
    assert sorted((c.detector, c.severity, c.conflicts_with) for c in certs) == [
        ("antonym", "page", 1), ("self_correction", "warn", 3)]
    after_a_table = run([("user", "When can I visit?"),
                         ("assistant", "The museum is open on Mondays."),
                         ("user", "And the prices?"),
                         ("assistant", "| Ticket | Price |\n|---|---|\n| Adult | 12 EUR |\n"
                                       "| Child | 6 EUR |"),
                         ("user", "Sure about Mondays?"),
                         ("assistant", "My apologies for the error in the prices. The museum "
                                       "is closed on Mondays.")])
    assert [(c.detector, c.severity) for c in after_a_table] == [("antonym", "page")]
    late = run([("user", "When can I visit?"),
                ("assistant", "The museum is open on Mondays."),
                ("user", "Sure?"),
                ("assistant", "You arrive on Monday. The museum is closed on Mondays. Let "
                              "me know if I got that wrong.")])
    assert [(c.detector, c.severity) for c in late] == [("antonym", "page")]


def test_an_apology_does_not_excuse_a_conflict_with_the_user() -> None:
    """What the user said about themselves is not the assistant's to correct."""
    certs = run([("user", "I live in Lisbon and I need a dentist."),
                 ("assistant", "My mistake, since you live in Madrid, try a clinic in "
                               "Salamanca.")])
    assert [(c.detector, c.conflicts_with) for c in certs] == [("user_fact", 0)]


def test_a_sentence_about_alternatives_says_nothing_of_one() -> None:
    assert pair("The museum is open on Mondays.",
                "The museum or the gallery is closed on Mondays.") == []
    # ... but it is a claim about the set
    assert pair("The museum or the gallery is closed on Mondays.",
                "Both the museum and the gallery are open on Mondays.") != []


_ONE_OF_THREE = pytest.mark.xfail(
    strict=True, reason="the rules read no claim about one of three alternatives, but the "
    "verifier reads 'The pharmacy is closed' against the set as a conflict (0.97); "
    "keeping such sentences from it hid 'Both are open' against 'A or B is closed'")


@pytest.mark.parametrize("first, second", [
    # one of three is open, Oxford comma or not, however the parse hangs the list
    pytest.param("The pharmacy, the clinic, or the hospital is open on Sundays.",
                 "The pharmacy is closed on Sundays.", marks=_ONE_OF_THREE),
    pytest.param("The clinic, or the hospital, or the pharmacy is open on Sundays.",
                 "The clinic is closed on Sundays.", marks=_ONE_OF_THREE),
])
def test_one_of_three_alternatives_is_not_a_claim(first: str, second: str) -> None:
    assert pair(first, second) == []


def test_a_name_given_twice_after_and_is_not_a_list_of_alternatives() -> None:
    """ "Lisbon and Porto, or Oporto,": two places, the second named twice."""
    certs = pair("Lisbon and Porto, or Oporto, are in Portugal.", "Lisbon is in Spain.")
    assert [c.detector for c in certs] == ["exclusive"]


def test_certificate_ids_are_deterministic_and_turn_quality_is_gated() -> None:
    a = pair("The museum is open on Mondays.", "The museum does not open on Mondays.")
    b = pair("The museum is open on Mondays.", "The museum does not open on Mondays.")
    assert [c.id for c in a] == [c.id for c in b]
    engine = build_engine()
    state = engine.new_state("g")
    outs = engine.process_batch([
        TurnEvent(conversation_id="g", turn_index=0, role="user", text="Is it open?"),
        TurnEvent(conversation_id="g", turn_index=1, role="assistant",
                  text="The museum is open on Mondays."),
        TurnEvent(conversation_id="g", turn_index=2, role="user", text="Sure?"),
        TurnEvent(conversation_id="g", turn_index=3, role="assistant",
                  text="The museum does not open on Mondays."),
    ], {"g": state})
    score = outs[-1].score
    assert score is not None and score.gates.logic_gate
    assert score.quality <= engine.config.logic_gate_cap
    assert score.certificates == [outs[-1].certificates[0].id]


PROBE = Path(__file__).resolve().parents[1] / "benchmarks" / "probe"


@pytest.mark.slow
def test_probe_suite_meets_precision_and_recall_targets() -> None:
    from monitor.bench.probe import run_probe_bench

    result = run_probe_bench(PROBE / "turns.jsonl", PROBE / "labels.jsonl")
    overall = result["overall"]
    assert result["conversations"] >= 60
    assert overall["precision"] >= 0.90, result["mistakes"]
    assert overall["recall"] >= 0.75, result["mistakes"]


def test_an_answer_that_restates_the_users_cap_as_more_is_a_user_fact() -> None:
    user = "need a new washing machine. max £450, and the space is 60cm wide."
    answer = ("With your budget of around £600, you could comfortably stretch to the "
              "Samsung.")
    certs = run([("user", user), ("assistant", "Here are three options under £450."),
                 ("user", "ok, any tips for installing it myself?"), ("assistant", answer)])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("user_fact", 3, 0)]
    assert "£600 vs the user's cap of £450" in certs[0].explanation


@pytest.mark.parametrize("answer", [
    "With your £450 budget, the Beko fits comfortably.",  # the cap itself
    "The Samsung costs around £600, so it is over your budget.",  # a price said to be over
])
def test_a_budget_within_the_cap_or_a_price_said_to_be_over_it_is_no_cap_broken(
        answer: str) -> None:
    assert run([("user", "need a new washing machine. max £450."),
                ("assistant", "Here are three options under £450."),
                ("user", "thanks"), ("assistant", answer)]) == []


def test_a_price_over_the_cap_not_named_as_your_budget_breaks_the_cap() -> None:
    """Not *your* budget restated (no `user_fact`), but a price offered above the cap
    with nothing said of it: a constraint broken."""
    certs = run([("user", "need a new washing machine. max £450."),
                 ("assistant", "Here are three options under £450."),
                 ("user", "thanks"),
                 ("assistant", "The budget model costs £600, and your kitchen has room for it.")])
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "page")]


def test_a_user_who_raised_the_cap_licenses_the_new_budget() -> None:
    assert run([("user", "need a new washing machine. max £450."),
                ("assistant", "Here are three options under £450."),
                ("user", "actually I can stretch to £650 now."),
                ("assistant", "With your budget of around £600, the Samsung fits.")]) == []


def test_a_bare_number_from_the_user_frees_the_answers_own_values() -> None:
    before = [
        ("user", "Planning drinks for my party of 20. How many soft drinks should I get?"),
        ("assistant", "Soft drinks and seltzers: about 40 cans."),
    ]
    after = [("assistant", "Soft drinks and seltzers: about 70 cans.")]
    assert run([*before, ("user", "How many cans should I get?"), *after])
    # "its now 35" says 35 of what only by the question before it: the count changed
    assert not run([*before, ("user", "ok update, way more people said yes, its now 35."),
                    *after])


def test_an_answer_to_a_user_who_got_an_email_is_still_judged() -> None:
    # "email" named as one the user got asks for no composed text: the answer is judged
    certs = run([
        ("user", "My son has a severe peanut allergy. Got an email from his school about "
                 "the class picnic. What snacks can he bring?"),
        ("assistant", "- Peanut butter crackers are easy to pack.\n- Apple slices."),
    ])
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "page")]


@pytest.mark.parametrize(("user", "paged"), [
    # the person the rule belongs to is not at this meal, or the meal is the user's alone
    ("My brother is vegetarian but he's away on a work trip, so it's just me and my wife "
     "this weekend. A special dinner idea?", False),
    ("My flatmate is vegetarian and keeps her own shelf. She's out of town this week though, "
     "any dinner idea just for me?", False),
    # the person is at the meal, or the rule is the user's own
    ("My brother is vegetarian and he's coming on Saturday. A special dinner idea?", True),
    ("I'm vegetarian and my wife is away this week. A dinner idea just for me?", True),
])
def test_a_rule_of_someone_who_is_not_there_binds_no_answer(user: str, paged: bool) -> None:
    certs = run([("user", user),
                 ("assistant", "- Pan-seared chicken thighs with lemon and thyme.\n"
                               "- Roast potatoes on the side.")])
    assert [(c.detector, c.severity) for c in certs] == (
        [("constraint", "page")] if paged else [])


def test_a_text_written_to_be_read_out_and_its_rewrite_are_composed() -> None:
    """A piece of about 150 words to read at a funeral, for a user who keeps halal: the
    bacon in it is the grandmother's story, not food offered to the user; nor after "make
    it a bit shorter", which changes that text."""
    certs = run([
        ("user", "I keep halal, but my nan ran a greasy spoon cafe for 30 years. At her "
                 "funeral I will read a short piece (about 150 words) about her and her cafe."),
        ("assistant", "Nan opened the cafe at six every morning. She fried bacon for the "
                      "builders and knew each of them by name."),
        ("user", "lovely. can you make it a bit shorter?"),
        ("assistant", "Nan opened at six. She fried bacon for the builders and knew every "
                      "name."),
    ])
    assert certs == []
    # the rewrite asked for after an answer that was no composed text is judged
    certs = run([
        ("user", "I keep halal. What could I cook for the builders' breakfast?"),
        ("assistant", "Scrambled eggs on toast with grilled tomatoes."),
        ("user", "lovely. can you make it a bit shorter?"),
        ("assistant", "Fry bacon and eggs."),
    ])
    assert [(c.turn_index, c.detector, c.severity) for c in certs] == [
        (3, "constraint", "page")]


@pytest.mark.parametrize(("user", "answer", "paged"), [
    ("Looking for a road bike, £700 max.", "My pick is the Allez Sport at about £950.", True),
    ("My budget is $1,200 for the laptop, I can't go over.", "Go for the XPS 15 at $1,649.",
     True),
    # within the cap; said to be over it; a former price; a puzzle's limit
    ("Looking for a road bike, £700 max.", "My pick is the Allez at £650.", False),
    ("Looking for a road bike, £700 max.",
     "If you can stretch, the Allez Sport at £950 rides better.", False),
    ("Looking for a road bike, £700 max.", "The Allez Sport was £950 and is now £680.", False),
    ("A shop sells bikes for at most £700. How many can a club buy with £3,000?",
     "The club can buy 4 bikes for £2,800.", False),
])
def test_a_price_over_the_users_cap_breaks_it(user: str, answer: str, paged: bool) -> None:
    certs = run([("user", user), ("assistant", answer)])
    assert [(c.detector, c.severity) for c in certs] == (
        [("constraint", "page")] if paged else [])
    if paged:
        assert "is over the user's cap of" in certs[0].explanation


def test_a_price_over_the_cap_where_the_answer_says_it_goes_over_warns() -> None:
    certs = run([("user", "Looking for a road bike, £700 max."),
                 ("assistant", "- The Allez at £650 fits.\n- The Allez Sport at £950.\n\n"
                               "The Sport goes over your budget, but it is lighter.")])
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "warn")]
    assert "speaks of going over it elsewhere" in certs[0].same_subject


@pytest.mark.parametrize("turns", [
    # a prompt that sets the cap aside
    [("user", "Looking for a road bike, £700 max."), ("assistant", "The Allez at £650."),
     ("user", "And if money were no object?"),
     ("assistant", "My pick is the Tarmac SL8 at about £4,000.")],
    # a price the user named among their own options
    [("user", "Looking for a road bike, £700 max. Shortlist: the Allez at £650 or the "
              "Allez Sport at £950."),
     ("assistant", "The Allez Sport at £950 rides better; the Allez is fine for commuting.")],
    [("user", "Need a sofa bed, £600 max. I'm looking at one for £549, one for £420 and a "
              "nicer one at £850."),
     ("assistant", "The one at £850 has the nicest frame of the three.")],
    # a row of a table of options
    [("user", "Need a sofa bed, £600 max."),
     ("assistant", "| Model | Price |\n|---|---|\n| Oslo | £549 |\n| Bergen | £850 |")],
    # what a kind of thing costs, not an offer
    [("user", "Moving to Denver, my budget is $3,000 for the whole move."),
     ("assistant", "Full-service movers typically cost $3,500 to $6,000 for a one-bedroom.")],
    # what the user spends is no cap
    [("user", "I usually spend about $250 a month on takeaways. How can I cut it?"),
     ("assistant", "A meal kit for two costs about $300 a month.")],
])
def test_a_cap_set_aside_a_price_the_user_named_or_a_spend_breaks_nothing(
        turns: list[tuple[str, str]]) -> None:
    assert run(turns) == []


def test_a_price_over_the_cap_in_an_if_i_were_recommendation_breaks_it() -> None:
    certs = run([("user", "Looking for a road bike, £700 max."),
                 ("assistant", "If I were riding your routes, I'd get the Allez Sport at about "
                               "£950.")])
    assert [(c.detector, c.severity) for c in certs] == [("constraint", "page")]


def test_a_situation_is_presumed_even_in_a_conditional_sentence() -> None:
    """ "If it keeps happening, bring it up with your manager" presumes a manager however
    the condition turns out: a freelancer has none. A food in such a sentence is only a
    possibility, and an answer that keeps to the situation is no violation."""
    user = "i left my agency job in january and have been freelancing full time since."
    prompt = "a client keeps messaging me at midnight. what do i do?"
    certs = run([("user", user), ("assistant", "Freelancing full time takes boundaries."),
                 ("user", prompt),
                 ("assistant", "If it keeps happening, bring it up with your manager at "
                               "your next one-on-one.")])
    assert [(c.detector, c.severity, c.conflicts_with) for c in certs] == [
        ("constraint", "page", 0)]
    assert "(working for no employer)" in certs[0].explanation
    assert run([("user", user), ("assistant", "Freelancing full time takes boundaries."),
                ("user", prompt),
                ("assistant", "If it keeps happening, put your hours in your contract.")]
               ) == []
    assert run([("user", "I'm allergic to peanuts."), ("assistant", "Noted."),
                ("user", "snack ideas?"),
                ("assistant", "If you get hungry later, satay crackers are tasty.")]) == []


def test_an_instruction_tells_nothing_of_what_the_user_has_not_done() -> None:
    """ "Run on flat, even surfaces first" is a step of a plan for later, not a claim that
    the user has run since their injury."""
    certs = run([("user", "I tore a calf muscle in March and I haven't run since."),
                 ("assistant", "Let's plan your way back."),
                 ("user", "What should the first weeks look like once I'm cleared?"),
                 ("assistant", "Here is the plan.\n\n- Walk for a week.\n- Run on flat, "
                  "even surfaces first (a treadmill or track).")])
    assert [c.detector for c in certs] == []


def test_a_price_in_a_heading_over_the_cap_is_a_warning() -> None:
    """A heading offers what it names ("## 3. Dune Pro (~£899)"), but it may head one tier
    of a comparison: a doubt, never a page."""
    answer = ("## 1. Arlo Lite (~£420)\n- Light and compact.\n\n"
              "## 2. Dune Pro (~£899)\n- The roomiest basket.")
    certs = run([("user", "We need a pram. Max budget is £450."),
                 ("assistant", "Happy to help."), ("user", "What are your top two?"),
                 ("assistant", answer)])
    assert [(c.detector, c.severity, c.claim.sentence) for c in certs] == [
        ("constraint", "warn", "2. Dune Pro (~£899)")]


def test_a_value_said_before_the_price_paid_is_no_offer_over_the_cap() -> None:
    assert run([("user", "Budget is $600 for a desk chair."),
                ("assistant", "Happy to help."), ("user", "Any tips?"),
                ("assistant", "Refurbishers sell used Aerons: you get a $1,200+ chair for about "
                              "half the price.")]) == []


def test_an_open_ended_amount_of_the_user_names_no_price() -> None:
    """ "$400+ a month" on heating is no price the user named for what the answer offers."""
    certs = run([("user", "Heating bills are $400+ a month. My budget for fixes is $300."),
                 ("assistant", "Happy to help."), ("user", "What should I do first?"),
                 ("assistant", "Book attic insulation first, around $1,500.")])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("constraint", 3, 0)]


def test_what_the_assistant_would_book_is_offered() -> None:
    """ "I'd book the 1h35 hop ... if booked a few weeks out" recommends the flight a user who
    flies not at all ruled out, though its "if" keeps it from being stated as fact."""
    certs = run([("user", "I'm not flying at all on this trip - flight anxiety."),
                 ("assistant", "Trains it is."), ("user", "How do I get from Rome to Vienna?"),
                 ("assistant", "Honestly, for this leg I'd book the 1h35 hop: Austrian "
                               "Airlines and Ryanair fly Rome Fiumicino to Vienna several "
                               "times a day, often for €50–90 if booked a few weeks out.")])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("constraint", 3, 0)]


def test_what_the_assistant_would_not_book_is_not_offered() -> None:
    certs = run([("user", "Hotel budget is $500 max for the weekend."),
                 ("assistant", "Plenty of choice."), ("user", "Which one?"),
                 ("assistant", "I would not book the $900 suite unless it drops in price.")])
    assert certs == []


def test_a_freelancer_paying_themselves_a_salary_keeps_no_employer() -> None:
    """ "the pay yourself a salary thing makes sense" tells of no new employer."""
    certs = run([("user", "I need help setting up a budget. I'm a freelance illustrator, so "
                          "some months I bring in 9k and some months it's like 2k. rent is "
                          "1,600 and I have about 4k on a credit card I want gone. Everything "
                          "I find online assumes a normal paycheck."),
                 ("assistant", "Pay yourself a fixed salary from a holding account."),
                 ("user", "ok the pay yourself a salary thing makes sense. how much should "
                          "be in the holding account before I actually start doing that?"),
                 ("assistant", "A buffer of one month."),
                 ("user", "and how do I fit the credit card payoff in without starving the "
                          "buffer?"),
                 ("assistant", "Set the card payment for the day after your employer's deposit "
                               "lands.")])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("constraint", 5, 0)]


def test_an_answer_back_on_the_users_replaced_budget_is_certified() -> None:
    """ "update, ... we're at $450 now" replaces the user's $300, not the answer's $35."""
    certs = run([("user", "Hosting a BBQ for 12, total budget is $300."),
                 ("assistant", "Burgers and sausages come to about $35 a dozen."),
                 ("user", "update, my brother's chipping in so we're at $450 now! what would "
                          "you upgrade?"),
                 ("assistant", "Keep a ~$20 cushion under your $300 for ice runs.")])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("numeric", 3, 2)]


def test_the_original_value_named_as_such_keeps_to_the_update() -> None:
    certs = run([("user", "We're doing 4 nights in Rome."),
                 ("assistant", "Four nights covers the main sights."),
                 ("user", "update: we found cheaper flights, so it's 6 nights now."),
                 ("assistant", "The original 4-night plan was a bit packed anyway.")])
    assert certs == []
    certs = run([("user", "We're doing 4 nights in Rome."),
                 ("assistant", "Four nights covers the main sights."),
                 ("user", "update: we found cheaper flights, so it's 6 nights now."),
                 ("assistant", "That's two more than the 4 nights you had planned.")])
    assert certs == []


def test_a_bare_character_asks_for_no_fiction() -> None:
    """ "I love character" chooses a neighbourhood: the answer's presumptions still count."""
    certs = run([("user", "I'm going to Porto on my own, my first solo trip."),
                 ("assistant", "Porto is a great pick."),
                 ("user", "Ribeira sounds like me, I love character. Plan my dinners?"),
                 ("assistant", "Ask for a window table: the two of you will see the bridge.")])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("constraint", 3, 0)]


def test_a_story_named_in_passing_asks_for_no_fiction() -> None:
    """ "I don't fly (long story)" and a bedtime's "water, story, hug" ask for no story: the
    answer is the assistant's own, and its presumptions still count."""
    certs = run([("user", "I'm a single dad, it's just the two of us at home."),
                 ("assistant", "That's a lot to carry alone."),
                 ("user", 'it\'s "one more" everything - water, story, hug. how do I hold '
                          "the line?"),
                 ("assistant", "Trade off the return trips with your partner each night.")])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("constraint", 3, 0)]


@pytest.mark.parametrize(("prompt", "fiction"), [
    ("Can you tell me a story about a lost treasure?", True),
    ("What about as a haiku?", True),
    ("A poem about autumn, please.", True),
    ("Write it up for my dog as a sonnet.", True),
    ("You are a pirate. Stay in character.", True),
    ("I don't fly (long story). I need to get from Chicago to San Francisco.", False),
    ("I won't go past the second rung of a ladder, end of story.", False),
    ("Our gutters overflow on our two-story house.", False),
    ("I've heard horror stories about peeling.", False),
])
def test_fiction_is_asked_for_not_named(prompt: str, fiction: bool) -> None:
    assert cues.asks_for_fiction(prompt) is fiction


def test_a_table_row_that_times_a_step_over_the_users_daily_limit_is_a_warning() -> None:
    """A row of a plan times one of its steps; "one hour a day at most" is an upper bound
    after its rate."""
    table = ("| Day | Task |\n|---|---|\n| Saturday | Practice test (2 hours) |\n"
             "| Sunday | Review (30 minutes) |")
    certs = run([("user", "I can study one hour a day at most, weekends included."),
                 ("assistant", "Here is a plan."), ("user", "What about weekends?"),
                 ("assistant", table)])
    assert [(c.detector, c.severity, c.claim.sentence) for c in certs] == [
        ("constraint", "warn", "Day: Saturday; Task: Practice test (2 hours)")]


def test_a_total_row_over_the_cap_breaks_it() -> None:
    """A row prices one option of several, but a "Total" row sums the plan."""
    table = ("| Item | Monthly cost |\n|---|---|\n| Ads | $200 |\n| Flyers | $60 |\n"
             "| **Total** | **$520** |")
    certs = run([("user", "I have a hard $300/month marketing budget."),
                 ("assistant", "Happy to help."), ("user", "Make me a plan."),
                 ("assistant", table)])
    assert [(c.detector, c.claim.sentence) for c in certs] == [
        ("constraint", "Item: Total; Monthly cost: $520")]


def test_a_user_turn_about_a_friends_camera_lifts_the_phone_only_situation() -> None:
    certs = run([("user", "I shoot everything on my phone, I don't own a camera."),
                 ("assistant", "Phones do portraits well."),
                 ("user", "My friend just bought a Nikon D7500. How do I help her get a "
                          "blurry background?"),
                 ("assistant", "Set the mode dial to A (Aperture Priority) and open up.")])
    assert certs == []


def test_a_car_bought_since_lifts_the_car_the_user_sold() -> None:
    certs = run([("user", "I sold my car last year, so I bike everywhere."),
                 ("assistant", "Biking is great."),
                 ("user", "Update: we bought a used Subaru last week! Day trips?"),
                 ("assistant", "Fill up your tank and drive out to the coast.")])
    assert certs == []


def test_a_minimum_spend_of_other_firms_is_no_offer_over_the_cap() -> None:
    assert run([("user", "Catering for 40 people. Budget is about $1,500."),
                ("assistant", "Happy to help."), ("user", "Should I hire a caterer?"),
                ("assistant", "Many full-service caterers have a minimum spend of $2,500+.")]) == []


def test_training_after_work_does_not_lift_a_beginners_inexperience() -> None:
    """A situation lifts on the words of its topic, not on every word of its presumptions
    ("your years of training")."""
    certs = run([("user", "I'm 41 and I've never been a runner. Help me train for a 10K?"),
                 ("assistant", "Start with run-walk intervals."),
                 ("user", "What should I eat? I'll be training after work, around 6pm."),
                 ("assistant", "Given the half marathons you've already got under your belt, "
                               "you know how your stomach handles food.")])
    assert [(c.detector, c.turn_index, c.conflicts_with) for c in certs] == [
        ("constraint", 3, 0)]
