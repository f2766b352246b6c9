"""`engine.amounts` (what an amount allows) and `engine.markdown` (the units of an answer)."""

from __future__ import annotations

from monitor.engine.aligned import derived, measured
from monitor.engine.amounts import amounts, comparable, incompatible
from monitor.engine.markdown import row_text, segments


def test_an_approximate_amount_allows_a_band_and_a_bound_is_open() -> None:
    (about,) = amounts("The flight takes about 2 hours.")
    assert about.shape == "approx" and about.low < 7200 < about.high
    (at_least,) = amounts("at least 3 km")
    assert at_least.shape == "lower" and at_least.high == float("inf")
    (plus,) = amounts("a team lead with 6+ years in support")
    assert (plus.shape, plus.quantity.unit) == ("lower", "second")
    (span,) = amounts("It costs between 40 and 60 EUR.")
    assert (span.shape, span.low, span.high) == ("range", 40.0, 60.0)


def test_a_range_in_words_is_read_as_its_interval() -> None:
    # "two to three hours" said nothing before: the range's words were claimed and no
    # amount was read
    (meals,) = amounts("Kittens do best on three to four small meals a day.")
    assert (meals.shape, meals.low, meals.high, meals.quantity.unit) == (
        "range", 3.0, 4.0, "meal")
    (hours,) = amounts("The hike takes two or three hours.")
    assert (hours.low, hours.high) == (7200.0, 10800.0)
    (years,) = amounts("Most people need between two and three years.")
    assert (years.shape, years.low / years.high) == ("range", 2 / 3)
    (minutes,) = amounts("Simmer for twenty-five to thirty minutes.")
    assert (minutes.low, minutes.high) == (1500.0, 1800.0)
    assert incompatible(meals, amounts("Two meals a day is all she needs.")[0])
    # a scale said once for both ends is not guessed: 100-200, not 1-200
    assert amounts("It costs one to two hundred dollars.") == []
    # a half on either end
    (roast,) = amounts("Roast for two to two and a half hours.")
    assert (roast.low, roast.high) == (7200.0, 9000.0)
    (drive,) = amounts("It takes one and a half to two hours.")
    assert (drive.low, drive.high) == (5400.0, 7200.0)
    # written high to low it is a clock time or an idiom, no range
    assert [a.quantity.dimension for a in amounts("Meet me at ten to five outside.")] == [
        "clock"]
    assert not [a for a in amounts("She works a nine to five job, at two to one odds.")
                if a.shape == "range"]
    assert measured("one to one tutoring") == ()


def test_amounts_conflict_only_when_their_bands_do_not_meet() -> None:
    (about_two,) = amounts("The flight takes about 2 hours.")
    (two,) = amounts("The flight takes 2 hours.")
    (five,) = amounts("The flight takes 5 hours.")
    assert comparable(about_two, five) and incompatible(about_two, five)
    assert not incompatible(about_two, two)


def test_a_hyphen_between_numbers_is_a_range_and_a_spaced_minus_a_calculation() -> None:
    # "2-4pm", "8-9 hours": how people type ranges, so the sentence's amounts are read
    assert not derived("12 kids coming, 2-4pm on a Saturday.")
    (kids, *_) = measured("12 kids coming, 2-4pm on a Saturday.")
    assert kids.quantity.unit == "child"
    # a worked step is still a calculation, its numbers steps rather than claims
    assert derived("That leaves 12 - 4 cookies.") and derived("12-4=8 cookies")
    assert derived("3 x 4 rows of chairs") and derived("12 minus 4 is 8")


def test_list_items_quotes_code_and_tables_become_what_they_are() -> None:
    text = ("## Day 1\n\n- Visit the museum.\n- Eat lunch.\n\n> They said it was open.\n\n"
            "```\nx = 5\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n")
    got = [(s.text, s.kind, s.context, s.item) for s in segments(text)]
    assert got == [("Visit the museum.", "item", "day 1", 0),
                   ("Eat lunch.", "item", "day 1", 1),
                   ("They said it was open.", "quote", "day 1", None),
                   ("a: 1; b: 2", "row", "day 1", 2)]


def test_a_table_row_is_one_unit_read_with_its_headers() -> None:
    text = ("| Day | Dinner | Price |\n|---|---|---|\n| **Monday** | Prawn *linguine* | |\n"
            "| Tuesday | Dal | Price: £4 |\n|  |  |  |\n")
    rows = segments(text)
    assert [(s.text, s.label, s.item) for s in rows] == [
        ("Day: Monday; Dinner: Prawn linguine", "monday", 0),  # markup and empty cells go
        ("Day: Tuesday; Dinner: Dal; Price: £4", "tuesday", 1)]  # no "Price: Price:"
    # a cell that only begins with its header's letters still gets the header
    assert row_text(["Day"], ["Dayton trip"]) == "Day: Dayton trip"
    # a table quoted in a block quote is quoted, like the rest of the quote
    (quoted,) = segments("> | A | B |\n> |---|---|\n> | 1 | 2 |\n")
    assert (quoted.text, quoted.kind) == ("A: 1; B: 2", "quote")


def test_inline_code_stays_when_it_is_a_name() -> None:
    # in a technical answer the code span is often the subject
    got = [s.text for s in segments("By default, `requests` has **no timeout at all**.\n\n"
                                     "`git rebase` never creates a merge commit.\n\n"
                                     "Pass `timeout=30` to `requests.get()`.")]
    assert got == ["By default, requests has no timeout at all.",
                   "git rebase never creates a merge commit.",
                   "Pass to requests.get()."]  # an expression is not prose


def test_a_bold_line_on_its_own_titles_the_prose_under_it() -> None:
    # with no stop after it, the title would open the first sentence ("Bag fees At $40 ...")
    (unit,) = segments("**Bag fees**\nAt $40 for the first checked bag, 6 × $40 = $240.")
    assert (unit.text, unit.label) == (
        "At $40 for the first checked bag, 6 × $40 = $240.", "bag fees")
    # a bold lead that goes on in the same line is the sentence's own words
    (lead,) = segments("**Bag fees** run $40 for the first bag.\nBook online.")
    assert lead.text == "Bag fees run $40 for the first bag. Book online."


def test_an_em_dash_between_spaces_opens_a_clause_not_a_range() -> None:
    """ "at $1,099 — 15+ hours of real use" prices one laptop; "$10—15" is a range."""
    price, hours = amounts("The MacBook Air M3 at $1,099 — 15+ hours of real use is common.")
    assert (price.shape, price.quantity.surface) == ("point", "$1,099")
    assert hours.shape == "lower"
    (span,) = amounts("It costs $10—15.")
    assert (span.shape, span.low, span.high) == ("range", 10.0, 15.0)
