"""The text side of a restated amount (`aligned.conflicts`, `aligned.restated_clause`) and
the structural checks around it: aggregates, sizes, calculations, other versions, new
user values."""

from __future__ import annotations

import pytest

from monitor.engine import aligned, amounts


def clause(new: str, old: str) -> tuple[str, str] | None:
    found = aligned.conflicts(new, old)
    assert found, "the two amounts should clash as values"
    return aligned.restated_clause(new, found[0][0], old, found[0][1])


def test_the_old_clause_takes_the_new_amount() -> None:
    assert clause("For 260 euros per month for a hot desk, that's fairly standard.",
                  "A hot desk in a central coworking space is usually around 200 euros per "
                  "month.") == (
        "A hot desk in a central coworking space is usually around 260 euros per month.",
        "For 260 euros per month for a hot desk")


@pytest.mark.parametrize("new, old", [
    # no word around the two amounts in common: any clause with the value entails it
    ("It's about 7 euros.", "A taxi from the airport costs about 35 euros."),
    ("Measure 240 ml of milk.", "For the cake, use 100 ml of cream."),
    # a total or an average against one thing's value
    ("The gloves cost 5.8 yuan.", "The store spent 49.4 yuan in total on gloves."),
    ("The average number of cars sold per quarter was 645 cars.",
     "December had the most sales, with 580 cars sold."),
    # the new sentence names what the old one does not: another thing's value
    ("It has Harman Kardon speakers and a battery life of up to 8 hours.",
     "It includes six speakers and a battery life of up to 21 hours."),
])
def test_no_clause_where_the_words_say_another_thing(new: str, old: str) -> None:
    assert clause(new, old) is None


def test_a_restatement_may_drop_the_old_names() -> None:
    assert clause("So on top of the 4,500 DKK per person for the tasting menu, wine is extra.",
                  "The tasting menu at Noma is about 3,800 DKK per person.") is not None


@pytest.mark.parametrize("text, kinds", [
    ("spent 49.4 yuan in total", {"total"}),
    ("a total of 580 cars", {"total"}),
    ("averages about $1,900 per year", {"average"}),
    ("an average annual premium of $2,300", {"average"}),
    ("That brings you to 4.5 L", {"total"}),
    ("the highest sales, 580 cars", {"highest"}),
    ("most people pay around $12 per month", set()),
    ("the subtotal is 40 euros", set()),
])
def test_aggregates(text: str, kinds: set[str]) -> None:
    assert aligned.aggregates(text) == kinds


@pytest.mark.parametrize("sentence, worked", [
    ("5 times 3 is 15.", True),
    ("$50 plus $10 is $60.", True),
    ("3 x 4 = 12.", True),
    ("20 - 5 leaves 15.", True),
    ("Give her 10 ml three times a day.", False),
    ("The Plus plan is $10 per month.", False),
    ("Use 400 g of tomatoes, plus 2 garlic cloves.", False),
    ("A 10x10 unit rents for about $110 per month.", False),
    ("It is minus 5 degrees tonight.", False),
])
def test_a_calculation_is_told_from_a_frequency_a_name_a_list_or_a_size(
        sentence: str, worked: bool) -> None:
    assert aligned.derived(sentence) is worked


def test_sizes_name_different_things() -> None:
    assert aligned.numbered_names_differ("A 10x15 large unit runs about $170 a month.",
                                         "A 5x10 small unit usually costs about $80 a month.")
    assert not aligned.numbered_names_differ("The regular 10x10 is about $95 a month.",
                                             "A 10x10 unit rents for about $110 per month.")


def test_an_age_is_not_another_version() -> None:
    assert not aligned.other_one("Full coverage for a 30-year-old averages $1,900 a year.",
                                 "Full coverage costs $2,300 a year.")
    assert aligned.other_one("The older model costs $900.", "The model costs $1,100.")


def test_a_new_count_frees_a_total_but_only_a_changed_plan_frees_a_rate() -> None:
    rate = amounts.amounts("It is about 25 euros per night.")[0]
    nights = [(2, "user", "We're staying 7 nights.", "")]
    moved = [(2, "user-revision", "Update: we moved the trip to Porto.", "")]
    assert aligned.user_gave_amount(nights, 1, 3)  # a total of the stay may be rescaled
    assert not aligned.user_gave_amount(nights, 1, 3, rate, revisions=True)
    assert aligned.user_gave_amount(moved, 1, 3, rate, revisions=True)
    assert not aligned.user_gave_amount(moved, 1, 3, rate)  # the user's own values: numbers
    price = [(2, "user", "What if it's 30 euros a night?", "")]
    assert aligned.user_gave_amount(price, 1, 3, rate, revisions=True)
