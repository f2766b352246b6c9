"""The text side of a restated amount (`aligned.conflicts`, `aligned.restated_clause`) and
the structural checks around it: aggregates, sizes, calculations, other versions, new
user values."""

from __future__ import annotations

from functools import partial

import pytest

from monitor.engine import aligned, amounts, cues


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
    ("It is 3 times the price.", True),
    ("$50 plus $10 is $60.", True),
    ("Tickets to the museum plus the audio guide are about 26 euros.", True),
    # "plus" between amounts of two kinds lists an item; between one kind's, it sums
    ("Use 400 g of tomatoes, plus 2 garlic cloves.", False),
    ("It is 120 euros a night plus 15 euros for breakfast.", True),
    # nor between two prices counted against two spans, whatever the noun
    ("Tuition is $145 per credit plus a $95 tech fee per semester.", False),
    ("It is $145 per credit plus $20 per credit for labs.", True),
    ("2 eggs plus 3 eggs make 5.", True),
    ("3 x 4 = 12.", True),
    ("20 - 5 leaves 15.", True),
    ("10 minus 3 is 7.", True),
    ("Give her 10 ml three times a day.", False),
    ("Wait times are about 20 minutes.", False),
    ("The Plus plan is $10 per month.", False),
    ("A 10x10 unit rents for about $110 per month.", False),
    ("A 10×10 unit rents for about $110 per month.", False),
    ("It is minus 5 degrees tonight.", False),
])
def test_a_calculation_is_told_from_a_frequency_a_noun_a_name_or_a_size(
        sentence: str, worked: bool) -> None:
    assert aligned.derived(sentence) is worked


def test_sizes_name_different_things() -> None:
    assert aligned.numbered_names_differ("A 10x15 large unit runs about $170 a month.",
                                         "A 5x10 small unit usually costs about $80 a month.")
    assert not aligned.numbered_names_differ("The regular 10x10 is about $95 a month.",
                                             "A 10x10 unit rents for about $110 per month.")
    assert not aligned.numbered_names_differ("A 10X5 unit is $80 a month.",
                                             "A 5x10 unit is $95 a month.")


def test_an_amount_with_its_currency_code_first_is_no_numbered_name() -> None:
    assert not aligned.numbered_names_differ("A 60-minute massage there is CAD 150.",
                                             "Around CAD 120 for a 60-minute massage.")
    assert not aligned.numbered_names_differ("The day pass is CHF 79.", "It costs CHF 92.")
    assert aligned.numbered_names_differ("Gate B 12 opens at CAD 10.", "Gate B 14 opens.")


def test_an_age_is_not_another_version() -> None:
    for age in ("a 30-year-old", "a 30 year old", "drivers 30 years old"):
        assert not aligned.other_one(f"Full coverage for {age} averages $1,900 a year.",
                                     "Full coverage costs $2,300 a year.")
    assert aligned.other_one("The older model costs $900.", "The model costs $1,100.")


@pytest.mark.parametrize("sentence, value, expected", [
    ("For high school, tuition is $28,500 a year, plus fees.", "$28,500",
     "For high school, tuition is $28,500 a year"),
    ("On the basic Kindle, the battery lasts up to 10 weeks.", "10 weeks",
     "On the basic Kindle, the battery lasts up to 10 weeks."),
    ("A car under 60,000 miles sells for about $22,000.", "$22,000",
     "A car under 60,000 miles sells for about $22,000."),
    # a relative clause hangs on the clause before it
    ("You'd want a dedicated desk, which is closer to 320 euros per month.", "320 euros",
     "You'd want a dedicated desk, which is closer to 320 euros per month."),
    # a fronted clause with a verb of its own is another statement
    ("If you book early, which most people do, the tour is 40 euros.", "40 euros",
     "the tour is 40 euros."),
])
def test_a_clause_keeps_its_fronted_qualifiers_and_numbers(sentence: str, value: str,
                                                          expected: str) -> None:
    amount = aligned.in_sentence(sentence, value)
    assert amount is not None and aligned.clause(sentence, amount) == expected


@pytest.mark.parametrize("new, old", [
    ("On weekends, an adult ticket is 25 euros.", "An adult ticket is 20 euros."),
    ("In the summer, a kayak rental is 30 euros per day.", "A kayak rental is 20 euros per day."),
    ("A single room is about 120 euros per night.", "A double room is about 180 euros per night."),
    ("A hot desk is around 300 euros per month.",
     "A dedicated desk is about 450 euros per month."),
    ("Out-of-state students pay about $48,000 per year.",
     "For residents, tuition is about $15,000 per year."),
    ("A senior data analyst in Chicago usually earns about $98,000, and at large tech or "
     "finance firms it can top $115,000.",
     "Entry-level data analysts in Chicago typically earn about $68,000 a year, with a range "
     "of roughly $58,000–$78,000 depending on the company."),
    ("Private lessons are usually about $45 per lesson, and semi-private about $30 per child.",
     "Group swim lessons cost about $120 for members."),
    ("The Standard plan without ads is $17.99 a month.",
     "The Standard plan with ads is $7.99 a month."),
    ("Express shipping within the US usually takes 2 business days.",
     "Standard shipping within the US usually takes 5 to 7 business days."),
    ("For middle school, tuition is $23,500 a year.",
     "For kindergarten, tuition is $18,000 a year."),
    ("Catholic high schools in Philadelphia generally cost about $9,000 per year.",
     "Catholic elementary schools in Philadelphia typically charge around $5,000 per year."),
    ("Express shipping for that parcel usually costs about £45.",
     "Economy shipping for a 2 kg parcel typically costs around £18."),
    ("A four-bedroom villa with a private pool is about $420 a night.",
     "A two-bedroom villa with a private pool is about $180 a night."),
    ("A nurse practitioner in Ohio typically earns about $115,000 a year.",
     "Registered nurses in Ohio earn around $78,000 a year."),
    ("Registration for the Chicago Half Marathon is about $95.",
     "Registration for the Chicago Marathon costs about $230."),
])
def test_another_frame_or_variant_is_another_things_value(new: str, old: str) -> None:
    assert aligned.conflicts(new, old) == []


def test_one_variant_said_in_other_words_is_still_compared() -> None:
    # "junior" and "entry-level" name one seniority: a changed salary is still a clash
    assert aligned.conflicts(
        "On a junior developer's salary of around €70,000 a year, you could still save.",
        "Entry-level software engineers in Berlin typically earn €48,000 to €55,000 a year.")


def test_one_race_or_role_named_alike_is_still_compared() -> None:
    assert aligned.conflicts("Registration for the Chicago Marathon is about $230.",
                             "The Chicago Marathon's registration fee is about $150.")
    assert aligned.conflicts("A registered nurse in Ohio earns about $110,000 a year.",
                             "Registered nurses in Ohio earn around $78,000 a year.")


def test_a_frame_the_restatement_drops_or_one_in_another_clause_is_no_other_thing() -> None:
    assert aligned.conflicts("An adult ticket is 25 euros.",
                             "On weekends, an adult ticket is 20 euros.")
    assert aligned.conflicts("It takes about 12 weeks, so start in early summer.",
                             "It takes about 16 weeks.")
    # "holiday" names a kind of rental here, not a time of year
    assert aligned.conflicts("A holiday rental in Lisbon costs about 140 euros per night.",
                             "The rental in Lisbon costs about 100 euros per night.")


def test_a_count_of_what_a_rate_is_counted_against_leaves_it() -> None:
    rate = amounts.amounts("It is about 25 euros per night.")[0]
    kept = partial(aligned.leaves_rate, span="night")
    said = {
        "We're staying 7 nights.": False, "We need it for one night.": False,
        "I'm away for 8 days.": True, "How long would a 2-bedroom take?": True,
        "We have three kids.": True, "What if it's 30 euros a night?": True,
    }
    for sentence, frees in said.items():
        rows = [(2, "user", sentence, "")]
        assert aligned.user_gave_amount(rows, 1, 3)  # a total may be rescaled by any
        assert aligned.user_gave_amount(rows, 1, 3, unless=kept) is frees, sentence
    moved = [(2, "user-revision", "Update: we moved the trip to Porto.", "")]
    assert aligned.user_gave_amount(moved, 1, 3, unless=kept)
    assert not aligned.user_gave_amount(moved, 1, 3, rate)  # the user's own values: numbers


def test_a_price_per_guest_or_per_head_is_per_person() -> None:
    (per_guest,) = amounts.amounts("Expect about $45 per guest.")
    (per_head,) = amounts.amounts("It is £25 per head.")
    assert aligned.span("Expect about $45 per guest.", per_guest) == "person"
    assert aligned.span("It is £25 per head.", per_head) == "person"
    (per_night,) = amounts.amounts("The room is $45 per night.")
    assert aligned.two_prices("Expect about $45 per guest.", per_guest,
                              "The room is $45 per night.", per_night)


def test_durations_far_apart_measure_different_things() -> None:
    """A puppy's 4 months and 4 hours at work; a 2-3 minute talk and a trip in 6 months.
    Hours against days stay a conflict: a mix-up of the two is one to catch."""
    assert aligned.conflicts("Chewing at 4 months is normal - she's teething.",
                             "She's chewing everything when we're at work for 4 hours.") == []
    assert aligned.conflicts("Hold a 2-3 minute conversation about the wedding.",
                             "I'm going to Brazil in 6 months for a wedding.") == []
    assert aligned.conflicts("The drive takes 4 days.", "The drive takes 4 hours.") != []


def test_an_age_is_no_duration() -> None:
    assert aligned.measured("My doctor prescribed amoxicillin for my 6-year-old.") == ()
    # written apart, an age still names who is meant: no new time limit of the user's
    assert aligned.measured("The fried rice one - my 7 year old hates peas though.") == ()
    assert aligned.measured("She turned 7 years old in May.") == ()
    assert [a.surface for a in aligned.measured("The course lasts 10 days.")] == ["10 days"]


@pytest.mark.parametrize("new, old, apart", [
    ("For a couple, the grocery budget is about $650.",
     "For a single adult, the grocery budget is about $350.",
     'only this sentence says "For a couple"'),
    ("The room is 90 euros a night.", "During the festival, the room is 200 euros a night.",
     'only the earlier sentence says "During the festival"'),
    ("1. **For a couple,** the grocery budget is about $650.",
     "The grocery budget is about $350.", 'only this sentence says "For a couple"'),
    # qualified alike, or not at all
    ("For a couple, the grocery budget is about $650.",
     "For a couple, the grocery budget is about $500.", None),
    ("Including taxes, the room is 120 euros.", "Including tax, the room is 100 euros.", None),
    ("With children, the ticket is 40 euros.", "With a child, the ticket is 30 euros.", None),
    # a long opening clause is the sentence's own, not a qualifier
    ("For the whole of the first week of your stay in the old town, the room is 90 euros.",
     "The room is 120 euros.", None),
    # openings that frame the sentence, speak of the user's case or give the value
    ("In total, the Hotel Lumiere costs 140 euros a night.",
     "The Hotel Lumiere costs 90 euros a night.", None),
    ("At about $35 an hour, a cleaner is affordable.", "A cleaner costs $25 an hour.", None),
    # a whole opening decides, and the user's own case may be another's
    ("In contrast to the hostel, a double room costs about 150 euros.",
     "A double room costs about 90 euros.", 'only this sentence says "In contrast to the hostel"'),
    ("At most hotels near the station, a double room costs about 150 euros.",
     "A double room costs about 90 euros.",
     'only this sentence says "At most hotels near the station"'),
    ("For your kids, a ticket to the zoo costs 12 euros.", "A ticket to the zoo costs 25 euros.",
     'only this sentence says "For your kids"'),
    ("At 5,000 meters, the temperature is about -10 C.", "The temperature is about 15 C.",
     'only this sentence says "At 5,000 meters"'),
    ("At the 2 pm matinee, tickets are 20 euros.", "Tickets are 25 euros.",
     'only this sentence says "At the 2 pm matinee"'),
])
def test_what_qualifies_two_things_apart(new: str, old: str, apart: str | None) -> None:
    assert aligned.qualified_apart(new, old) == apart


@pytest.mark.parametrize("new, old, values, apart", [
    ("An electric bike rental is about 30 euros a day.", "A city bike rental is 12 euros a day.",
     ("about 30 euros a day", "12 euros a day"), '"electric bike" against "city bike"'),
    ("A city bike rental is 15 euros a day.", "A city bike rental is 12 euros a day.",
     ("15 euros a day", "12 euros a day"), None),
    # "with free breakfast" qualifies the breakfast, not the room that costs 90 euros
    ("A double room costs 90 euros a night, with free breakfast.",
     "A double room costs 140 euros a night, with continental breakfast.",
     ("90 euros a night", "140 euros a night"), None),
    # words that reckon a value name no kind; "business" is no form of "bus"
    ("The average rent for a one-bedroom is $1,500.",
     "The typical rent for a one-bedroom is $2,100.", ("$1,500", "$2,100"), None),
    ("A business class ticket costs about $900.", "A bus ticket costs about $40.",
     ("about $900", "about $40"), '"business class ticket" against "bus ticket"'),
    # no amount stated, no clause to read modifiers in
    ("An electric bike rental is cheap.", "A city bike rental is dear.", ("cheap", "dear"),
     None),
])
def test_modifiers_are_read_in_the_clauses_of_the_two_values(
        new: str, old: str, values: tuple[str, str], apart: str | None) -> None:
    assert aligned.qualified_apart(new, old, *values) == apart


@pytest.mark.parametrize("new, old, values, apart", [
    ("A ticket that includes the towers is €36.", "A basic ticket to the basilica is €26.",
     ("€36", "€26"), '"ticket that includes the towers" against "basic ticket"'),
    ("A room with a sea view costs €140 a night.", "A standard room is €95 a night.",
     ("€140 a night", "€95 a night"), '"room with a sea view" against "standard room"'),
    # what both include, said two ways: one variant
    ("A ticket with tower access is €36.", "The ticket including the towers costs €26.",
     ("€36", "€26"), None),
    # modifiers before the nouns decide first
    ("An electric bike rental with a helmet is about 30 euros a day.",
     "A city bike rental is 12 euros a day.", ("about 30 euros a day", "12 euros a day"),
     '"electric bike" against "city bike"'),
])
def test_what_a_thing_is_said_to_include_tells_variants_apart(
        new: str, old: str, values: tuple[str, str], apart: str | None) -> None:
    assert aligned.qualified_apart(new, old, *values) == apart


@pytest.mark.parametrize("new, old, values, apart", [
    ("All told, a typical wedding costs about $30,000 in Ohio.",
     "The venue itself typically costs about $10,000 in Ohio.", ("$30,000", "$10,000"),
     'the words around the two values share only "cost, ohio"'),
    ("The venue itself typically costs about $14,000 in Ohio.",
     "The venue itself typically costs about $10,000 in Ohio.", ("$14,000", "$10,000"), None),
    # no amount stated, nothing to read
    ("The venue is dear in Ohio.", "The venue is cheap in Ohio.", ("dear", "cheap"), None),
])
def test_values_measured_by_words_that_name_no_shared_thing(
        new: str, old: str, values: tuple[str, str], apart: str | None) -> None:
    assert aligned.measured_apart(new, old, *values) == apart


@pytest.mark.parametrize("new, old, apart", [
    ("Then you may want a crew of three movers, which usually charges about $160 per hour.",
     "A crew of two movers typically charges about $120 per hour.",
     '"three movers" against "two movers", each with its own value'),
    # the count alone differs: that is the conflict, not a sign of two variants
    ("The crew is three movers.", "The crew is two movers.", None),
    # one count, two prices: one thing's value changed
    ("A crew of two movers charges about $160 per hour.",
     "A crew of two movers charges about $120 per hour.", None),
])
def test_two_counts_of_a_thing_each_with_its_own_value(new: str, old: str,
                                                      apart: str | None) -> None:
    assert aligned.counted_apart(new, old) == apart


@pytest.mark.parametrize("new, old, apart", [
    ("1 clove garlic, minced", "2 cloves garlic, minced", True),
    ("250g caster sugar", "200g caster sugar", True),
    # prose that gives the amount is a claim, whichever word comes first
    ("Use 1 clove of garlic for the gravy.", "2 cloves garlic, minced", False),
    ("Add 250g caster sugar to the butter.", "200g caster sugar", False),
    # a long line that opens with its amount says more than an item's amount
    ("20 minutes is all it takes to roast the squash in a hot oven until it is soft.",
     "40 minutes", False),
])
def test_two_list_lines_that_open_with_their_amounts_may_be_two_lists(
        new: str, old: str, apart: bool) -> None:
    assert (aligned.listed_apart(new, old) is not None) is apart


def test_a_function_word_after_a_label_names_nothing() -> None:
    # "Since" after "Meals:" is not at the sentence's start, yet it names nothing
    new = "Meals: Since she's 10 weeks old, two meals a day is all she needs."
    old = "Kittens under six months usually do best on three to four small meals a day."
    assert not aligned.names_differ(new, old)
    assert not aligned.names_differ("Tip: You can book a table online.",
                                    "You can book a table by phone.")
    # nor after a title the sentence runs on from ("Monthly cost for walks At roughly ...")
    assert not aligned.names_differ("Monthly cost for walks At roughly $30 per walk.",
                                    "A 30-minute walk costs about $22.")
    # names are still names, those spelt like function words too
    assert aligned.names_differ("Meals: Luna gets two meals a day.", old)
    assert aligned.different_names("A subscription to ChatGPT Plus costs $20 a month.",
                                   "A subscription to ChatGPT Pro costs $200 a month.")
    assert aligned.different_names("The state sales tax in OR is 0%.",
                                   "The state sales tax in WA is 6.5%.")


@pytest.mark.parametrize("phrase, adds", [
    ("Add the 800 g of crushed tomatoes", False),
    ("then added the 200 g of sugar", False),
    ("Add $15 for breakfast", True),
    ("add the extra 100 g", True),
    ("Add 2 more eggs", True),
    ("then add the last 50 g", True),
    ("You can add the $15 breakfast to your room", True),
])
def test_add_the_amount_puts_it_in_and_adds_nothing(phrase: str, adds: bool) -> None:
    assert cues.adds_to(phrase) is adds


@pytest.mark.parametrize("sentence, lead", [
    ("At £19 per night for one cat, 9 nights comes to £171.", "At £19 per night for one cat"),
    ("On your $58,000 salary, 10% would be $5,800 a year.", "On your $58,000 salary"),
    ("With rent at 1,300 euros a month, I'd trim other costs first.",
     "With rent at 1,300 euros a month"),
    ("Since you're paying around 120 euros a month for electricity, switch to LED bulbs.",
     "Since you're paying around 120 euros a month for electricity"),
    ("- **At $45 per night for a medium-sized dog**, 10 nights comes to $450.",
     "At $45 per night for a medium-sized dog"),
    ("So compared with $750 for the cake, a fondant one is around $950.",
     "So compared with $750 for the cake"),
    # after a label the sentence proper begins
    ("Tuition: at $165 per credit, 9 credits = $1,485.", "at $165 per credit"),
    ("**Length:** with plants spaced 18 inches apart, 5 plants fit per row.",
     "with plants spaced 18 inches apart"),
    # a lead that compares, sets a case, frames, or holds no amount
    ("Since $1,800 is below your deductible, you pay the full rate.", None),
    ("At 6% a year, $10,000 grows to about $17,900.", None),
    ("At 5 pm, the ferry leaves from pier 3.", None),
    ("Since 2019, prices have risen to $40.", None),
    ("At most 3 people, it costs $90.", None),
    ("With that in mind, 3 people can share a $90 room.", None),
    ("For a group of four, the taxi is 50 euros.", None),
    ("At the station, tickets are $12.", None),
    ("At $45 per night for a medium-sized dog.", None),
    # a stage at an age or a duration, a date, a framing opener after "so"
    ("At 6 months old, babies nap 3 times a day.", None),
    ("At 12 weeks pregnant, you'll have the dating scan.", None),
    ("On 14 June, the fee is $40.", None),
    ("So on average £18 per night for one cat, 9 nights comes to £162.", None),
    ("At $95 per hour for 48 hours, you'd quote about $4,560.", "At $95 per hour for 48 hours"),
    # the sentence offers its value as an alternative to the one in use
    ("At $40 a month for your plan, 12 months comes to $480, saving you $600 a year.", None),
    ("At 10 miles a day, 250 workdays comes to 2,500 miles instead of 10,000.", None),
    ("On your new salary of $66,000, 15% would be $9,900 a year.", None),
])
def test_the_lead_phrase_that_works_from_a_value(sentence: str, lead: str | None) -> None:
    assert aligned.premise(sentence) == lead


@pytest.mark.parametrize("prompt, asks", [
    ("What if I get the promotion?", True),
    ("Could I switch to a cheaper phone plan?", True),
    ("My landlord says rent is going up next year.", True),
    ("Any nicer ones nearby?", True),
    ("We're away for 9 nights. What will it come to?", False),
    ("So what number do I quote?", False),
])
def test_a_user_asks_for_another_value_or_option(prompt: str, asks: bool) -> None:
    assert cues.asks_for_alternative(prompt) is asks


@pytest.mark.parametrize("sentence, said", [
    ("For your **144 sq ft deck**, that means about 1 gallon per coat, so 2 gallons.",
     ("your 144 sq ft deck",)),
    ("Toppings for your 10 guests:", ("your 10 guests",)),
    ("Keep taking your usual 10 ml three times a day.", ("your usual 10 ml",)),
    ("Would you raise your $800 budget to $1,000?", ("your $800 budget to",)),
    ("Your 10,000 steps a day target", ()),
    # an alternative, a year, a percent: no value of the user's said again
    ("On your new salary of $66,000, 15% would be $9,900.", ()),
    ("Since your 2019 model has 60,000 miles, change the oil.", ()),
    ("Raise your 4% contribution.", ()),
    ("Two coats over 366 sq ft is about 2.9 gallons.", ()),
])
def test_an_amount_given_as_the_users_own(sentence: str, said: tuple[str, ...]) -> None:
    assert aligned.possessed(sentence) == said


@pytest.mark.parametrize("sentence, plan", [
    ("Week 6-9: Push your 9 km long run a little faster.", True),
    ("- **Month 3:** your $5,200 in savings covers a month of rent.", True),
    ("Phase 2+: add a second session.", True),
    ("Day 2: the museum costs 15 euros.", False),  # an itinerary says which day
    ("Week one is the easiest.", False),
])
def test_an_item_of_a_plan_is_a_later_time(sentence: str, plan: bool) -> None:
    assert cues.opens_plan_item(sentence) is plan


def test_a_name_said_in_lower_case_by_the_other_sentence_is_shared() -> None:
    assert not aligned.names_differ("Your 100 Mbps plan is the middle tier.",
                                    "i pay for 300 mbps internet")
    assert not aligned.names_differ("With 8 GB of RAM, it will be slow.",
                                    "my laptop has 16gb ram")
    assert aligned.names_differ("Hotel Alma costs £120 a night.", "The hotel costs £90.")
    assert aligned.names_differ("Hotel Alma costs £120 a night.",
                                "Hotel Sol costs £90 a night.")


def test_a_label_says_what_the_value_after_its_colon_is_of() -> None:
    old = "First checked bag: $35 when you prepay online"
    (fee,) = aligned.measured(old)
    assert {"check", "bag"} <= aligned.attribute(old, fee)
    assert aligned.amount_conflict("At $40 for the first checked bag", old, 2)
    # a label with words of its own between the colon and the amount says less
    tip = "Tip: spend $40 on a good bag"
    assert "tip" not in aligned.attribute(tip, aligned.measured(tip)[0])


def test_a_value_the_earlier_sentence_also_gives_bare_is_no_clash() -> None:
    old = "i sleep like 6 hrs on weeknights and then 9 on weekends to catch up."
    assert not aligned.conflicts("Those 9-hour weekend sleeps push your clock later.", old)
    assert aligned.conflicts("Those 7-hour weekend sleeps push your clock later.", old)


def test_a_time_that_places_something_is_no_length() -> None:
    old = "At that temperature, bulk typically takes about 4 to 5 hours."
    assert not aligned.conflicts(
        "Do the first set starting about 30 minutes after you mix in the starter.", old)
    assert not aligned.conflicts("Space the sets 30 minutes apart.", old)
    assert aligned.conflicts("At that temperature, bulk typically takes about 8 hours.", old)
    # "before" says how long the rest lasts as often as when something happens
    assert aligned.conflicts("The brisket needs a rest of at least 3 hours before slicing.",
                             "Let the brisket rest for at least 1 hour.")


def test_a_bare_number_from_the_user_is_a_new_value() -> None:
    rows = [(2, "user-number", "ok update, its now 35.", "")]
    assert aligned.user_gave_amount(rows, 1, 3)
    # against the user's own values only a value of their kind counts
    (cans,) = aligned.measured("Soft drinks: about 40 cans.")
    assert not aligned.user_gave_amount(rows, 1, 3, cans)
