"""What the user ruled out, and answers that break it (engine.constraints)."""

from __future__ import annotations

import pytest

from monitor.engine.constraints import (
    asked_for,
    broken_by,
    constraints_in,
    denying_heading,
    free_heading,
    goes_over,
    heeded,
    steering_heading,
)


def _broken(user: str, answer: str) -> list[str | None]:
    return [broken_by(answer, c) for c in constraints_in(user, 0)]


def _breaks(user: str, answer: str) -> bool:
    """Some rule the user's sentence sets is broken by the answer's."""
    return any(w is not None for w in _broken(user, answer))


@pytest.mark.parametrize(("user", "answer", "word"), [
    ("she's allergic to tree nuts", "3 tbsp cashew butter", "cashew"),
    ("I'm allergic to shellfish", "Add the prawns at the end.", "prawns"),
    ("I'm allergic to peanuts", "Try the chicken satay.", "satay"),
    ("my daughter is gluten-free", "Serve it with warm couscous.", "couscous"),
    ("We're vegan", "Top with grated parmesan.", "parmesan"),
    ("so no jumping or deep lunges please", "**Jump squats** - land softly", "Jump"),
    ("I don't drive - no licence", "Pick up a hire car from Keswick.", "hire car"),
    ("no flights, I get airsick", "The quickest option is a 1-hour flight to Rome.", "flight"),
    ("we're vegetarian", "Serve with a pork chop.", "pork"),
    ("We're vegan", "Add a knob of butter.", "butter"),
    ("We're vegan", "Use oat milk or cow's milk.", "milk"),  # the second one breaks it
    # the food named before "allergy" / "intolerance"
    ("my son has a nut allergy", "Sprinkle over some toasted almonds.", "almonds"),
    ("I have a shellfish allergy.", "Add the prawns at the end.", "prawns"),
    ("my wife has a gluten intolerance", "Serve it with warm couscous.", "couscous"),
    ("we don't have a car", "Drive to the trailhead and park at the visitor centre.",
     "Drive to the"),
    ("my daughter is dairy free", "Top each bowl with a spoon of yoghurt.", "yoghurt"),
    # a diet said with the speaker left out, abstaining said of a couple, stairs, new things
    ("been vegan for about 2 years, started bouldering", "3 eggs scrambled with feta", "eggs"),
    ("neither of us drinks alcohol at all", "Afternoon: a craft brewery crawl.", "brewery"),
    ("she uses a walker and can't do stairs at all", "A 4th-floor walk-up is ideal.",
     "walk-up"),
    ("we're buying everything second-hand only", "I'd buy this one brand new from Target.",
     "brand new"),
    # licences, second-hand, screens and pets as users say them; a guest's allergy
    ("Neither of us has a driving licence, we're 19.", "Book a rental car at the airport.",
     "rental car"),
    ("I want to buy only second-hand, no new furniture.", "Just order a new bookcase online.",
     "order a new"),
    ("We keep the kids screen-free on weekends.", "Saturday 4 pm: a movie with popcorn.",
     "movie"),
    ("Our landlord says no pets allowed.", "A pair of guinea pigs would suit him.",
     "guinea pigs"),
    ("A guest on Friday has a sesame allergy.", "Finish with toasted sesame seeds.", "sesame"),
])
def test_an_answer_that_offers_what_was_ruled_out(user: str, answer: str, word: str) -> None:
    assert word in _broken(user, answer)


@pytest.mark.parametrize(("user", "answer"), [
    ("I'm allergic to peanuts", "A nut-free satay alternative works well."),
    ("I'm allergic to shellfish", "Skip the prawns and use tofu instead."),
    ("we're vegetarian", "Since you're vegetarian, use mushrooms rather than beef."),
    ("I'm allergic to peanuts", "Serve it with rice and steamed greens."),
    # another food, not the one ruled out
    ("We're vegan", "Stir in 400 ml coconut milk."),
    ("We're vegan", "Spread peanut butter on the toast."),
    ("I'm lactose intolerant", "Melt the cocoa butter gently."),
    # a recipe's verbs, not meat
    ("we're vegetarian", "Chop the chocolate and cut into squares."),
    # allergy advice about the thing ruled out
    ("she's allergic to tree nuts", 'Read labels: "may contain tree nuts" warnings change.'),
    ("she's allergic to tree nuts", "40 g chocolate chips (check the label for nut traces)"),
    ("my son doesn't eat pork", "Be careful: some chicken sausages contain pork."),
    ("my son doesn't eat pork", "Pick sausages labelled 100% chicken, as many have pork."),
    ("no pork at all please", "Watch for hidden pork in sausages and baked beans."),
    ("Gluten-free since my celiac diagnosis",
     "Regular soy sauce isn't safe: it's brewed with wheat."),
    # a food group's name is a word, not a prefix: nutmeg is no nut
    ("my son has a nut allergy", "Add a pinch of nutmeg and a nutritious oat topping."),
    # the answer speaks of the allergy itself
    ("I'm allergic to peanuts", "Peanut allergies affect about 2% of children."),
    # what the user allowed in the same breath
    ("she's allergic to tree nuts (peanuts are ok weirdly) and school is nut free anyway",
     "Spread peanut butter on the toast."),
    ("I'm vegan, but honey is fine", "Drizzle with a little honey."),
    # a vegetable cut like a steak; a warning said with "isn't" or "haven't"
    ("we're vegetarian", "Roast thick cauliflower steaks with cumin."),
    ("im pescatarian now", "Bake two salmon fillets."),
    # talk of the ruled-out activity that keeps it out, or waits for its end
    ("physio has told me no running for 6 weeks", "Running stays out entirely for now."),
    ("physio has told me no running for 6 weeks", "Being told to stop running is hard."),
    ("physio says no running for 6 weeks", "Your rehab exercises get you back to running."),
    ("landlord has said no drilling in the walls at all", "Since drilling is out, use the "
     "floor space by the wall."),
    ("We're vegan", "Honey isn't vegan, so sweeten it with maple syrup."),
    ("I'm allergic to milk", "Use pans that haven't touched butter."),
    # a cat café is a place to visit, not a pet kept
    ("Our landlord says no pets allowed.", "Visit the cat café on Main Street."),
])
def test_steering_around_it_is_not_a_violation(user: str, answer: str) -> None:
    assert all(w is None for w in _broken(user, answer))


@pytest.mark.parametrize("user", [
    "No problem, thanks!", "Is this vegan?", "Is there a version without gluten?",
    "no, I meant the other one",
    # "US" in capitals is the country, not the user
    "Gluten-free bread is easy to find in the US.",
    # a diet named by a sentence that does not leave its speaker out
    "Mostly the vegan options at the cafe were good.",
    # a guest's diet binds the dish made for them, not the dishes for the others
    "One guest is vegetarian.",
])
def test_questions_and_pleasantries_set_nothing(user: str) -> None:
    assert constraints_in(user, 0) == []


@pytest.mark.parametrize("user", [
    "none of us has a nut allergy", "we don't have any nut allergies",
    "My son has no nut allergy but loves cake.",
    "my hay fever allergy is bad this year", "there's no car park at the hotel",
    # in passing: outgrown, tested negative, a topic
    "We tested him for a peanut allergy and it came back negative",
    "He used to have a milk allergy as a baby but outgrew it",
    "I'm writing a blog post about peanut allergies",
    # a phrase inside other words is not the phrase
    "I'd like to relax without a care in the world.",
])
def test_a_denied_outgrown_or_unnamed_allergy_sets_nothing(user: str) -> None:
    assert constraints_in(user, 0) == []


@pytest.mark.parametrize(("user", "labels"), [
    # the negation belongs to another clause
    ("No, my daughter has a peanut allergy.", ["peanut"]),
    ("Not sure if it matters but my son has a nut allergy.", ["nut"]),
    ("My son has nut and egg allergies", ["egg", "nut"]),
    # a diet that ends in "intolerant" stays the diet, named as the user said it
    ("I'm lactose intolerant", ["lactose intolerant"]),
])
def test_allergies_named_before_the_word(user: str, labels: list[str]) -> None:
    assert [c.label for c in constraints_in(user, 0)] == labels


def test_a_certificate_names_the_rule_as_the_user_set_it() -> None:
    from monitor.engine.constraints import rule_phrase

    assert rule_phrase("vegan") == "a vegan diet"
    assert rule_phrase("nut-free") == "a nut-free diet"
    assert rule_phrase("coeliac") == "coeliac disease"
    assert rule_phrase("driving") == "not driving"
    assert rule_phrase("peanut") == "'no peanut'"
    [rule] = constraints_in("we're vegan, so keep it plant-based", 0)
    assert rule_phrase(rule.label) == "a vegan diet"


@pytest.mark.parametrize(("user", "answer", "steering"), [
    ("My son has a severe peanut allergy.",
     ["Here's a Thai menu that avoids peanuts.", "Pad Thai is a family favourite."],
     "Here's a Thai menu that avoids peanuts."),
    ("Gluten-free since my celiac diagnosis.",
     ["Malt vinegar contains barley.", "Most soy sauce isn't safe for celiac disease."],
     "Most soy sauce isn't safe for celiac disease."),
    ("she has a tree nut allergy", ["Make a nut-free pesto with sunflower seeds."],
     "Make a nut-free pesto with sunflower seeds."),
    # a condition is named by the group it rules out, and by the group's short form
    ("I was diagnosed with celiac disease last month.",
     ["Banana bread converts well.", "Use a certified gluten-free blend instead."],
     "Use a certified gluten-free blend instead."),
    ("I was diagnosed with celiac disease last month.",
     ["Banana bread converts well.", "Use GF oats instead of regular ones."],
     "Use GF oats instead of regular ones."),
    # a group by the word the user used for it
    ("our vet confirmed our lab mix has a chicken allergy",
     ["Try a lamb-based food.", "Watch for hidden chicken in treats."],
     "Watch for hidden chicken in treats."),
    # a diet that rules out several groups is named only by its own name: steering
    # around eggs says nothing of the cheese
    ("all of us are vegan.", ["Whisk 6 eggs with the feta.", "Skip the eggs in the "
                              "meringue: use aquafaba instead."], None),
    # steering around a food of the group without naming the constraint heeds nothing
    ("my daughter has a milk allergy (so totally dairy free)",
     ["Scoops of vanilla ice cream.", "Put the ice cream on ice so it doesn't melt."], None),
    ("My son has a severe peanut allergy.", ["Serve it with satay sauce."], None),
])
def test_an_answer_that_steers_around_a_constraint_and_names_it_heeds_it(
        user: str, answer: list[str], steering: str | None) -> None:
    rule = constraints_in(user, 0)[0]
    assert heeded(answer, rule) == steering


def test_paella_is_not_shellfish_by_its_name() -> None:
    [rule] = constraints_in("I'm allergic to shellfish", 0)
    assert broken_by("Paella valenciana is made with chicken, rabbit and beans.", rule) is None
    assert broken_by("Seafood paella is full of prawns and mussels.", rule) is not None


@pytest.mark.parametrize(("heading", "steers"), [
    ("watch out for these ingredients", True), ("avoid these", True),
    ("hidden sources of pork", True), ("red flags on the menu", True),
    ("what to limit", True), ("where peanuts show up", True),
    # what these list is offered
    ("alternative", False), ("good alternative proteins", False),
    ("nut-free options", False), ("order this", False), ("", False),
])
def test_a_heading_that_steers_around_what_stands_under_it(heading: str, steers: bool
                                                           ) -> None:
    assert steering_heading(heading) is steers


@pytest.mark.parametrize(("user", "answer", "word"), [
    # what the user has not got, as users say it
    ("no yard but i have a small south facing balcony", "Start a compost pile in a corner "
     "of your backyard.", "backyard"),
    ("i sold my car last month", "Leave dry socks in your car at the lot.", "your car"),
    ("i dont have a gym membership, cant afford one", "Use the leg press machine at your "
     "gym.", "your gym"),
    ("no oven at all lol.", "Preheat your oven to 220°C (425°F).", "Preheat your oven"),
    ("We have no kids.", "Your kids will love the splash park.", "Your kids"),
    # what else the user told of their situation
    ("i live alone and dont really know my neighbors yet.", "Plan it for when your "
     "housemate is around.", "your housemate"),
    ("its my first solo trip", "Order small plates to share between the two of you.",
     "the two of you"),
    ("i've been freelancing full time since January", "Bring it up with your manager at "
     "your next one-on-one.", "your manager"),
    ("never climbed anything in my life, total beginner", "Given your years of experience, "
     "buy a downturned shoe.", "your years of experience"),
    ("i never learned how to swim", "Since you're both confident swimmers, swim out along "
     "the reef.", "swim out"),
    ("I only use a mac, no windows stuff at all.", "Right-click the Start button and open "
     "Device Manager.", "Device Manager"),
    ("taking my EV (a Model 3) on a road trip", "Check the engine oil before you leave.",
     "engine oil"),
    ("i only have my phone, no actual camera", "Put it in aperture priority at f/11.",
     "aperture priority"),
    ("FIRST time ever going to japan!!!", "Since you've already done the big sights on "
     "your previous trip, skip them.", "you've already done"),
    ("i work nights in a hospital, 8pm to 8am", "Since you're at the office 9 to 5, eat "
     "around that.", "9 to 5"),
    ("we rent a small 2-bed terrace", "Since it's your own house, go ahead.",
     "Since it's your own house"),
    ("i'm a wheelchair user since a spinal cord injury", "Finish with 10 minutes of brisk "
     "walking on the treadmill.", "brisk walking"),
    ("i've never managed anyone, no direct reports ever.", "Pick an example from when one "
     "of your direct reports missed deadlines.", "your direct reports"),
    ("i live on the 4th floor, just a small balcony, no garden at all.", "Dig manure into "
     "the veg patch in autumn.", "veg patch"),
    # a negation in another clause of the sentence steers around nothing
    ("I'm 66 and retired last year after 40 years teaching.", "Book a few days of annual "
     "leave after you get back - a full timetable on day two is no fun.", "annual leave"),
    # stop 49: a partner, a commute, a passport, a phone call, a smell
    ("Single dad here, their mum lives overseas.", "Ask your wife to take the evening "
     "routine twice a week.", "your wife"),
    ("I've been working remotely since 2021.", "Use your commute to listen to the "
     "course.", "your commute"),
    ("Neither of us has ever had a passport; we'll sail on birth certificates.",
     "Lock your passports in the safe on shore days.", "your passports"),
    ("We decided not to have children.", "Your kids will love the splash park.",
     "Your kids"),
    ("I'm hard of hearing, so phone support is useless for me.", "The quickest route is "
     "to call the bank's helpline.", "call the"),
    ("I lost my sense of smell two years ago.", "Do a sniff test on the chicken before "
     "cooking.", "sniff"),
])
def test_an_answer_that_presumes_what_the_user_said_is_not_so(user: str, answer: str,
                                                               word: str) -> None:
    assert word in _broken(user, answer)


@pytest.mark.parametrize(("user", "answer"), [
    # "since you" opens a presumption, but a negation steers around the situation
    ("i sold my car last month", "Since you don't have a car, take the shuttle."),
    ("no yard but i have a small balcony", "Unlike a backyard pile, a worm bin fits "
     "a balcony."),
    ("We have no kids.", "If you ever have kids, your kids can use the pool too."),
    ("i sold my car last month", "Since you don't have a car now, skip the drive to the "
     "lake."),
    # another thing than the one the user has not got
    ("no oven at all lol.", "Preheat the countertop oven to 200°C."),
    ("i never learned how to swim", "Your boyfriend can explore further out on the reef."),
    ("i only have my phone, no actual camera", "Turn on the grid in your camera settings."),
])
def test_an_answer_that_keeps_to_the_users_situation_breaks_nothing(user: str, answer: str
                                                                    ) -> None:
    assert all(w is None for w in _broken(user, answer))


@pytest.mark.parametrize("user", [
    "I don't have a preference really.", "No problem at all, thanks.",
    "I don't drink coffee after noon.",  # no alcohol ruled out
    "Is it worth it without a car?",  # a question sets nothing
    "I can't have anything like that.",  # no rule on "that"
])
def test_no_situation_from_a_preference_a_pleasantry_or_a_question(user: str) -> None:
    assert constraints_in(user, 0) == []


def test_no_pets_kept_is_no_rule_against_getting_one() -> None:
    """Having no pets is a situation ("your dog" presumes one), not a landlord's rule:
    an answer may still suggest adopting a cat."""
    [rule] = constraints_in("We have no pets at the moment.", 0)
    assert rule.label == "no pets"
    assert broken_by("A kitten would suit your flat.", rule) is None
    assert broken_by("Walk your dog before you leave.", rule) == "your dog"


def test_a_situation_is_named_as_the_user_told_it() -> None:
    from monitor.engine.constraints import explanation, rule_phrase, topic_words

    assert rule_phrase("no car") == "having no car"
    assert rule_phrase("living_alone") == "living alone"
    assert explanation("your car", "no car") == (
        "your car presumes otherwise than the user said (having no car)")
    assert explanation("satay", "peanut") == "satay is ruled out by 'no peanut'"
    # a later turn that speaks of a housemate may have changed "I live alone"
    assert "housemate" in topic_words("living_alone")


def test_a_diet_binds_nothing_the_user_asks_for_others_who_eat_it() -> None:
    """A vegetarian cooking burgers for meat-eating guests asked for the beef; an allergy
    said in the same turn still binds every dish."""
    from monitor.engine.constraints import binding

    turn = ("ive been vegetarian for 10 years but my boyfriend's family are BIG meat eaters. "
            "a burger recipe for them + something for me?")
    assert binding(turn, 0, turn) == []
    team = ("i'm vegetarian but i'm hosting a bbq for my team. most of them eat meat. a beef "
            "burger recipe? plus some veggie stuff for me")
    assert binding("i'm vegetarian", 0, team) == []
    allergy = "and I'm allergic to peanuts, so nothing with peanuts."
    assert [r.label for r in binding(allergy, 0, turn + " " + allergy)] == ["peanut"]
    assert [r.label for r in binding("I'm vegetarian.", 0, "I'm vegetarian.")] == [
        "vegetarian"]


def test_a_rule_someone_set_for_the_user_binds_without_a_please() -> None:
    """ "physio says no running or jumping for at least another 6 weeks": a loose "no"
    in a sentence that names who set the rule rules out what follows, up to "for"."""
    user = "sprained my MCL, physio says no running or jumping for at least another 6 weeks."
    assert {c.label for c in constraints_in(user, 0)} == {"run", "jump"}
    assert "jumps" in _broken(user, "- 10 box jumps (20-inch box)")
    assert constraints_in("no worries, the doctor says it's fine", 0) == []


def test_just_me_and_my_husband_is_no_one_away() -> None:
    from monitor.engine.constraints import binding

    turn = "it's just me and my husband at home, no kids, and we both work long days."
    assert [c.label for c in binding(turn, 0, turn)] == ["no kids"]
    assert binding("it's just me this week, my vegan sister is away", 0, "it's just me") == []


@pytest.mark.parametrize(("user", "answer", "word"), [
    # a negation in a later clause about something else steers around nothing
    ("my sister's wedding is alcohol free, she's 4 years sober", "Ask the staff to pour "
     "everyone a glass of prosecco, so the toast isn't held up.", "prosecco"),
    ("we're all vegetarian.", "Beef jerky - lightweight, high in protein and doesn't need "
     "refrigeration", "Beef"),
    # what stands before "rather than" is offered
    ("I've been sober for two years.", "Have your glass of wine with dinner rather than "
     "later.", "wine"),
    # an event ruled out as a whole, whoever the sentence names
    ("its a muslim wedding so the whole thing is totally alcohol free.", "Pour a glass of "
     "chilled Prosecco for every guest.", "Prosecco"),
    # what the user is allergic to ends at a dash
    ("our vet confirmed our lab rosie is allergic to chicken - even tiny amounts set off "
     "her ear infections.", "Freeze-dried chicken hearts", "chicken"),
])
def test_an_offer_beside_words_about_something_else_breaks_the_rule(
        user: str, answer: str, word: str) -> None:
    assert word in _broken(user, answer)


@pytest.mark.parametrize(("user", "answer"), [
    # before the food, in its clause, or in a later clause that speaks of it again
    ("Gluten-free since my celiac diagnosis.", "Unfortunately, no - both contain gluten."),
    ("we're vegan", "Many wines are fined with egg whites, so they aren't vegan."),
    ("we're vegan", "Better not - even a dusting of butter counts."),
    ("we're vegetarian", "Use mushrooms rather than beef."),
    ("I'm allergic to eggs.", "The vinegar gives lift in place of eggs."),
    # what a label says of its item; a rule's end the answer waits for
    ("taking my nissan leaf (an EV) on a road trip", "Engine oil: nothing to check - "
     "electric cars have none."),
    ("physio says no running and no jumping till month 7", "Box jumps can come back once "
     "your physio clears you."),
])
def test_a_negation_that_bears_on_the_food_steers(user: str, answer: str) -> None:
    assert all(w is None for w in _broken(user, answer))


def test_the_users_own_diet_does_not_bind_food_asked_for_someone_else() -> None:
    from monitor.engine.constraints import binds_answer

    [diet] = constraints_in("im vegetarian, but i do eat eggs and dairy.", 0)
    [allergy] = constraints_in("I'm allergic to peanuts.", 0)
    [theirs] = constraints_in("my son is vegetarian.", 0)
    [situation] = constraints_in("i sold my car last month", 0)
    for_him = "a guy on my team can't do spicy food. any mild suggestions for him?"
    assert not binds_answer(diet, for_him)
    assert binds_answer(diet, "any mild suggestions?")
    assert binds_answer(allergy, for_him)
    assert binds_answer(theirs, for_him)
    assert binds_answer(situation, for_him)


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # what a phrase rules out is the phrase, not its last word
    ("physio says no overhead pressing and no pull ups for now", "Overhead press 3x8", True),
    ("physio says no overhead pressing and no pull ups for now", "Do 3 sets of pull-ups.",
     True),
    ("physio says no overhead pressing and no pull ups for now", "Cable chest press, 3x10",
     False),
    ("physio says no running, jumping or anything high impact for 6 weeks",
     "A high-impact HIIT class", True),
    ("physio says no running, jumping or anything high impact for 6 weeks",
     "It keeps weight and impact off the ankle.", False),
    # an idiom is no activity
    ("physio says no running, jumping or anything high impact for 6 weeks",
     "Just run these by your physio first.", False),
    # a rule said of a place holds there
    ("my tenancy says absolutely no drilling, screws or nails in the walls.",
     "Screw the battens into the back wall.", True),
    ("my tenancy says absolutely no drilling, screws or nails in the walls.",
     "Use small screws into the bookcase only.", False),
    # someone else does what the user does not
    ("i'm partially sighted so i don't drive, but my husband does.",
     "Your husband can drive you both to the supermarket.", False),
    ("i'm partially sighted so i don't drive, but my husband does.",
     "You can drive to the supermarket on Sundays.", True),
    ("I don't drive.", "Split a membership trip with a friend or neighbor who drives.", False),
    ("I don't drive.", "Folks who drive in end up hunting for a spot.", False),
    ("I don't drive.", "As someone who drives daily, you know the roads.", True),
    # not owning a car rules out the user's car, not a car rented by the hour
    ("We don't own a car, it's just the bus.", "Zipcar lets you rent a car by the hour.", False),
    ("We don't own a car, it's just the bus.", "Put the boxes in your car.", True),
    # an occasion narrows the activity: the scenic back roads are no interstate
    ("I don't drive on interstates or freeways at all.", "Scenic drive through Tennessee.",
     False),
    ("I don't fly long-haul.", "Take the short flight to Rome.", False),
    ("I don't drive at all.", "Scenic drive through Tennessee.", True),
    ("I can't drive at the moment.", "Scenic drive through Tennessee.", True),
])
def test_what_a_phrase_rules_out_where_and_for_whom(user: str, answer: str, broken: bool
                                                    ) -> None:
    assert _breaks(user, answer) is broken


def test_a_later_turn_that_changes_the_situation_lifts_it() -> None:
    from monitor.engine.constraints import lifted_by

    rules = constraints_in("we don't have a car so it'd need to be train or bus", 0)
    assert [r.label for r in rules] == ["no car"]  # not owning one is no rule against driving
    for rule in rules:
        assert lifted_by(rule, ["omg update lol, my dad's just given us his old ford fiesta "
                                "since he's got a new car!!", "so we can drive now."], 2)
        assert not lifted_by(rule, ["we still don't have a car now, sadly."], 2)
        assert not lifted_by(rule, ["can we drive there now?"], 2)  # a question


def test_someone_else_who_cancels_takes_their_rule_along() -> None:
    from monitor.engine.constraints import cancels_someone, someone_elses

    [hers] = constraints_in("one of them (priya) is vegan so i want everything to work "
                            "for her.", 0)
    [mine] = constraints_in("I'm vegan and so is my friend.", 0)
    assert cancels_someone("small update - priya's had to cancel, we all eat everything")
    assert someone_elses(hers) and not someone_elses(mine)


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # a word before the food names a substitute free of what the rule is about
    ("I'm teetotal.", "Raise a glass of NA sparkling wine for the toast.", False),
    ("I'm teetotal.", "Chill a bottle of non-alcoholic fizz and a bottle of sparkling wine.",
     True),  # the second bottle is wine
    ("I'm teetotal.", "Top the punch up with ginger beer and lime.", False),
    ("I'm coeliac.", "Dunk a couple of ginger biscuits in your tea.", True),
    ("I'm coeliac.", "Toast two slices of GF sourdough.", False),
    ("we eat halal only", "Crisp some turkey bacon for the sandwiches.", False),
    ("we eat halal only", "Crisp some bacon for the sandwiches.", True),
    ("I'm vegetarian", "Crisp some turkey bacon for the sandwiches.", True),  # still meat
    # a scare-quoted name, a comparison's standard, a sentence that speaks to the diet
    ("we eat halal only", 'Any "bacon" in the fry-up should be beef or chicken.', False),
    ("we eat halal only", "Lamb merguez is leaner than pork sausage.", False),
    ("we eat halal only", "Check the pepperoni is halal-certified before you order.", False),
])
def test_a_substitute_a_comparison_or_the_diet_named_breaks_nothing(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("my GP says no raw shellfish for now",
     "Order the grilled prawns.", False),
    ("my GP says no raw shellfish for now",
     "Start with a plate of raw shellfish.", True),
    ("My dietitian's rule for me: no fried chicken.", "Roast a chicken thigh.", False),
    ("I'm allergic to tree nuts", "Scatter over toasted pecans.", True),  # a group's name
    ("I can't eat red meat", "A rib-eye steak is the classic.", True),
])
def test_a_qualifier_narrows_what_the_user_ruled_out(user: str, answer: str,
                                                    broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_host_who_does_not_drink_rules_out_no_drink_for_drinking_guests() -> None:
    from monitor.engine.constraints import binding

    turn = ("I'm sober, two years now. We're having 12 people over for a barbecue and "
            "most of them drink, what do I need?")
    # what the host is told of themselves still holds ("your evening glass of wine")
    assert [r.label for r in binding("I'm sober, two years now.", 0, turn)] == [
        "not_drinking"]
    alone = "I'm sober, two years now. Planning a quiet dinner for my sister and me."
    assert [r.label for r in binding("I'm sober, two years now.", 0, alone)] == [
        "not_drinking", "sober"]


def test_most_people_are_not_the_user() -> None:
    """A sentence that sets the user against most people presumes nothing of them."""
    assert _broken("I work nights at the hospital.", "Most people on a 9-to-5 eat lunch "
                   "at noon, but for you the main meal comes before your shift.") == [None]


def test_a_hard_cap_is_a_spending_cap() -> None:
    from monitor.engine.constraints import sets_cap

    assert sets_cap("We have a hard cap of £250 for the pram.")
    assert not sets_cap("We are having a hard time choosing a pram for £250.")


def test_the_heart_of_a_cuisine_is_no_offal() -> None:
    assert _broken("I'm vegetarian (no meat, no fish, but I eat eggs and dairy).",
                   "Kyoto is the heart of shojin ryori, and a temple meal there is great."
                   ) == [None, None, None]
    assert "chicken" in _broken("I'm vegetarian, no meat.", "Grilled chicken hearts on skewers.")


def test_what_just_names_after_no_is_what_there_is() -> None:
    assert [c.label for c in constraints_in(
        "Physio said no structural issues, just weak and tight.", 0)] == ["structural issue"]


def test_off_the_list_steers_around_it() -> None:
    assert not _breaks("please no AirPods, they're pointless without an iPhone",
                       "AirPods lose most of their tricks on Android, so they're off the list.")


def test_a_new_price_is_no_offer() -> None:
    """ "it runs around $900+ new" prices it new, where the answer points to a used one."""
    from monitor.engine.constraints import goes_over

    assert goes_over("With a kit lens it runs around $900+ new.")
    assert not goes_over("A new lens for $900 is a fine pick.")


def test_money_to_spend_is_a_spending_cap() -> None:
    from monitor.engine.constraints import sets_cap

    assert sets_cap("I have $300 total to spend on improvements this year.")
    assert sets_cap("We have about $500 for the whole trip.")
    assert not sets_cap("I have $300 in savings.")
    assert not sets_cap("The loan has $300 for fees.")


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("My GP told me to cut out caffeine completely.", "A flat white at 3pm keeps you "
     "going.", True),
    ("My GP told me to cut out caffeine completely.", "A decaf flat white at 3pm is a "
     "nice ritual.", False),
    ("I don't drink coffee after noon.", "Have an espresso after lunch.", False),
    ("we keep kosher", "Render the lardons until crisp.", True),
])
def test_caffeine_and_cured_pork_are_named_as_users_meet_them(user: str, answer: str,
                                                             broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_an_answer_about_giving_it_up_offers_none() -> None:
    assert _broken("My GP told me to cut out caffeine completely.", "Headaches fade a week "
                   "after quitting, once your body stops relying on caffeine.") == [None]


def test_a_deaf_user_told_not_to_call_is_steered_around() -> None:
    assert _broken("I'm deaf.", "Don't call them; use the chat on their app.") == [None]


def test_the_advice_others_are_given_presumes_nothing_of_the_user() -> None:
    assert _broken("I'm deaf.", "Most guides will tell you to call the number on the back "
                   "of your card; you can use the bank's text relay instead.") == [None]


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # what is replaced, compared with, blocked, or done by most people, offers nothing
    ("we're vegan", "Butter → a neutral oil or vegan block.", False),
    ("I don't fly.", "For comparison, a flight takes an hour, but the ferry is calmer.",
     False),
    ("I don't drive.", "Most visitors hire a car, but the bus network covers the coast.",
     False),
    ("The vet says no stairs for six weeks.", "Block the stairs with a baby gate.", False),
    ("we're vegan", "Grate a block of parmesan over the top.", True),  # a block of it
    # a qualifier carries over "or": "raw or undercooked fish or meat"
    ("My midwife's list: no raw or undercooked fish or meat.", "Roast chicken thighs with "
     "lemon.", False),
    ("My midwife's list: no raw or undercooked fish or meat.", "Start with tuna sashimi.",
     True),
    # the examples of what is ruled out are ruled out; a "-free" party
    ("My GP told me to stay off all NSAIDs, including ibuprofen and naproxen.",
     "Take 400 mg of ibuprofen after the session.", True),
    ("One of the kids is allergic, so the whole party has to be peanut-free.",
     "A satay dip always disappears first.", True),
    ("my daughter is allergic to cheeses", "Add a knob of butter.", True),  # dairy
    # a warning of what something contains, or of a risk; a road's name
    ("I'm on a statin, my GP says no grapefruit.", "Grapefruit raises the risk of side "
     "effects with statins.", False),
    ("we're vegan", "A lot of curry pastes contain shrimp paste.", False),
    ("I don't drive, never got my licence.", "Day tours run along Ocean Drive and the "
     "cliffs.", False),
    ("I don't drive, never got my licence.", "Drive the coast road at your own pace.",
     True),
])
def test_what_an_answer_replaces_or_others_do_and_what_the_user_listed(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_past_or_doubled_price_is_not_offered() -> None:
    from monitor.engine.constraints import goes_over

    assert goes_over("A used one that cost $1,000 new a few years ago now goes for $450.")
    assert goes_over("The Pro starts at $1,599, more than double your $700 maximum.")
    assert not goes_over("The Pro costs $1,599 and handles 4K editing with ease.")


def test_friends_who_drink_leave_the_host_no_rule() -> None:
    """No rule on what is served; only what the host is told of themselves holds."""
    from monitor.engine.constraints import binding

    turn = "I don't drink myself, but most of my friends do. What should I stock?"
    assert [r.label for r in binding("I don't drink myself, but most of my friends do.", 0,
                                     turn)] == ["not_drinking"]
    turn = "I've been sober for three years, but I'm fine with guests having alcohol."
    assert [r.label for r in binding(turn, 0, turn)] == ["not_drinking"]


def test_examples_of_a_class_are_ruled_out_without_the_class_word() -> None:
    assert [r.label for r in constraints_in("I can't eat things like nuts or shellfish.",
                                            0)] == ["nut", "shellfish"]


@pytest.mark.parametrize(("user", "labels"), [
    # what the user does eat, after a "but", is no part of the rule
    ("I've been vegetarian for 12 years: no meat, no fish, but I do eat eggs and dairy.",
     ["fish", "meat", "vegetarian"]),
    ("No meat or fish, but I eat eggs and dairy.", ["fish", "meat"]),
    ("Allergic to nuts, but not peanuts.", ["nut"]),
    # a second rule after the "but" is still read, and "I eat no meat" is still a rule
    ("No nuts but also no dairy please.", ["dairy", "nut"]),
    ("I eat no meat and no fish.", ["fish", "meat"]),
])
def test_what_the_user_does_eat_is_not_ruled_out(user: str, labels: list[str]) -> None:
    assert [c.label for c in constraints_in(user, 0)] == labels


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I'm vegetarian but I do eat fish.", "Grill the salmon fillets.", False),
    ("I'm vegetarian but I do eat fish.", "Grill the pork chops.", True),
    ("No meat, no fish, but I do eat eggs and dairy.", "Top with whipped cream.", False),
])
def test_a_food_the_user_eats_breaks_no_rule_of_theirs(user: str, answer: str,
                                                       broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("answer", "broken"), [
    # a substitute's mark qualifies every member of the list it opens
    ("Some venues stock non-alcoholic beer and wine now.", False),
    ("Stock NA beer, cider and wine.", False),
    # a food that marks a substitute ("ginger beer") does not; nor does a list apart
    ("Serve ginger beer and wine.", True),
    ("Grab non-alcoholic beer, then wine for the toast.", True),
])
def test_a_substitute_mark_reaches_across_its_list(answer: str, broken: bool) -> None:
    assert _breaks("I'm sober, three years now.", answer) is broken


def test_those_who_keep_the_diet_named_speak_to_it() -> None:
    """ "Vegans often ...": the answer speaks of the diet, it offers nothing."""
    assert not _breaks("I went vegan a month ago.",
                       "Creatine: vegans often see a benefit since it's found mainly in meat.")


@pytest.mark.parametrize(("heading", "free"), [
    ("Gluten-free noodles", True), ("Naturally gluten-free", True),
    ('GF "lo mein" hack', True), ("Avoid", False), ("Noodles", False),
    ("Dairy-free swaps", False),  # free of something else
])
def test_a_heading_that_says_its_items_are_free_of_the_food(heading: str, free: bool
                                                             ) -> None:
    rule = constraints_in("I have celiac disease.", 0)[0]
    assert free_heading(heading, rule.label) is free


def test_a_price_said_to_blow_past_the_cap_is_no_offer() -> None:
    assert goes_over("The body alone runs about $1,400, which blows past your $1,000 "
                     "ceiling before you've even added a lens.")
    assert not goes_over("The body alone runs about $1,400 with a kit lens.")


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I've never been on a plane before.",
     "You already know the drill from your past long-haul flights.", True),
    ("I work fully remote from my apartment.", "Use your commute to the office.", True),
    ("I rent, so I can't do anything major.", "Paint it, since you own the place.", True),
    ("I'm a freelance designer, self-employed for two years.",
     "Get the request in to your manager early.", True),
    ("I retired last June at 61.", "Since you're still drawing a salary, max out the 401(k).",
     True),
    ("I don't own a car, I get around by bike.",
     "Since you'll be driving your own car up from Denver, leave early.", True),
    # a car someone else provides presumes no car of the user's
    ("I sold my car two weeks ago.",
     "A car-share is ideal: book one by the hour, drive out to Costco, and return it.", False),
    # a freelancer pays themselves what a salary would be
    ("I'm a freelance designer, self-employed for two years.",
     "Aim to keep 2-3 months of your salary in the holding account.", False),
])
def test_more_ways_users_tell_their_situation(user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer"), [
    # the traditional dish, described before it is adapted
    ("I've been vegetarian for 12 years.",
     "Traditional French onion soup is built on beef stock."),
    # where a food comes from, or what an occasion centres on
    ("I've been vegetarian for 12 years.",
     "Some desserts use gelatin, which comes from animals."),
    ("I'm sober, three years now.", "That's tougher, since the day itself centers on wine."),
    ("I'm sober, three years now.",
     "If a weekend of wine tasting feels risky, it's okay to skip part of it."),
    # substitutes that copy it
    ("I avoid dairy entirely.", "Parmesan is one of the easiest to replicate!"),
    ("I avoid dairy entirely.", "Use about 3/4 the amount of butter called for."),
])
def test_describing_a_food_offers_none(user: str, answer: str) -> None:
    assert not _breaks(user, answer)


def test_a_relative_clause_that_denies_something_else_steers_around_nothing() -> None:
    """ "bits that don't crumble" denies nothing of the chicken; ", so they aren't safe"
    does."""
    user = "Our lab Juno is allergic to chicken."
    assert _breaks(user, "Freeze-dried chicken breast is the gold standard, and you can "
                         "break it into bits that don't crumble in a pouch.")
    assert not _breaks(user, "Most jerky treats are chicken, so they aren't safe for her.")


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("My lease says absolutely no holes in the walls.",
     "A floating shelf anchored into the studs with 3-inch screws holds 40 lbs.", True),
    ("My lease says absolutely no holes in the walls.",
     "Use adhesive strips instead of wall anchors.", False),
    ("My lease says absolutely no holes in the walls.",
     "Tension rods need no drilling at all.", False),
    ("I use a manual wheelchair, so steps are a real issue.",
     "The climb up North Berwick Law is steep but short.", True),
])
def test_holes_in_a_rented_wall_and_a_climb_for_a_wheelchair(user: str, answer: str,
                                                              broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "labels"), [
    # a school described is no rule of the school's
    ("St Mary's: rated outstanding, 1.8 miles, no breakfast club but after school club "
     "till 6.", []),
    ("no jumping for now, doctor's orders", ["jump"]),
    ("My physio says no running for six weeks.", ["run"]),
])
def test_a_rule_giver_named_as_the_rules_source(user: str, labels: list[str]) -> None:
    assert [c.label for c in constraints_in(user, 0)] == labels


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I went vegan six months ago.",
     "Guanciale → crispy smoked tofu or king oyster mushroom lardons", False),
    ("I went vegan six months ago.", "Egg yolks → a silky sauce of silken tofu", False),
    ("I went vegan six months ago.", "Add the oysters and simmer.", True),
    # a team, like a school or a wedding, can be peanut-free
    ("Heads up, the team is peanut-free because two girls have peanut allergies.",
     "Serve with a quick peanut dipping sauce.", True),
    # a comma and a new clause end the exclusion
    ("I grow organically, no synthetic sprays, we have a toddler and free-range chickens.",
     "Feed the aphid-covered leaves to the chickens.", False),
    ("I live in a studio with no outdoor space at all, not even a balcony.",
     "Move the pots out onto your balcony.", True),
    ("I'm doing it on my own, no club, no coach, just an app.",
     "Mention it to your coach at your next session.", True),
    ("Nonstop only, I am not doing a layover with a 2-year-old.",
     "The American itinerary connects through Dallas and saves $200.", True),
    ("I only fly direct.", "Avoid itineraries that connect through Dallas.", False),
])
def test_names_lists_and_clauses_of_what_is_ruled_out(user: str, answer: str,
                                                      broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_what_the_users_question_names_is_what_they_asked_for() -> None:
    prompt = "I don't drink. Any wineries that are actually fun for a non-drinker?"
    assert asked_for("winery", prompt) == "Any wineries that are actually fun for a non-drinker?"
    assert asked_for("wine", prompt) is None
    assert asked_for("peanut", "My son has a peanut allergy. Ideas for his party?") is None


@pytest.mark.parametrize(("heading", "denies"), [
    ("What you don't need anymore", True), ("No more trips to the pump", True),
    ("What Tesla recommends", False), ("", False),
])
def test_a_heading_that_denies_what_stands_under_it(heading: str, denies: bool) -> None:
    assert denying_heading(heading) is denies


@pytest.mark.parametrize(("answer", "broken"), [
    ("Northern lights tours leave Reykjavík in the evening and drive to clear skies.", False),
    ("Most tour companies will drive you to the glacier.", False),
    ("Tours leave at 9, but you drive yourself to the meeting point.", True),
    ("Drive the Golden Circle in a day.", True),
])
def test_others_who_drive_are_not_the_user(answer: str, broken: bool) -> None:
    assert _breaks("I'm visiting Iceland in September but I don't drive.", answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # what the other guests drink is theirs
    ("I don't drink, 6 years sober.",
     "Most guests will be holding champagne for the toast.", False),
    # glassware and the hour of cocktails are no drink; a veggie garden is no diet
    ("We're having a dry wedding reception, no alcohol at all.",
     "Fancy glassware: coupes and wine glasses make mocktails feel special.", False),
    ("We're having a dry wedding reception, no alcohol at all.",
     "Serve champagne at the toast.", True),
    ("I've just cleared a sunny patch in my backyard for a veggie garden.",
     "Possums and bush turkeys: use netting.", False),
    ("I'm veggie.", "Add the bacon.", True),
    # the traditional dish described before it is adapted
    ("I eat halal, so no pork at all.",
     "Carbonara, amatriciana, and ragù typically include pork but can be adapted.", False),
    ("I garden strictly organic, no synthetic pesticides.",
     "Spray a broad-spectrum synthetic insecticide like carbaryl (Sevin).", True),
    ("I garden strictly organic, no synthetic pesticides.",
     "Avoid synthetic insecticides like carbaryl: they kill the bees too.", False),
    ("I'm left-handed, I write and throw left-handed.",
     "That's the standard setup for a right-handed player like you.", True),
    ("I rent a 2-bedroom apartment.", "As the owner, you're free to take it down.", True),
    ("I've been freelancing for two years, no employer.",
     "Bump your 401(k) up to the level that gets you the full employer match.", True),
    ("I retired last spring at 66.",
     "Keep contributing, especially if there's an employer match.", False),
    ("We have no oven at all, just a two-burner cooktop.",
     "Spread the peppers on a sheet pan and roast them at 425°F.", True),
    ("I bought a used Tesla Model 3, my first EV.",
     "Stretch your oil-change interval to 10,000 miles.", True),
    ("I don't have a driver's license, so I'll rely on buses.",
     "You'll be behind the wheel for about five hours.", True),
    ("I don't drive (never got my license).", "Measure your car's cargo space first.", True),
    # a presumption may itself hold a negation
    ("I'm type 1 diabetic, diagnosed 15 years ago.",
     "With no chronic conditions to plan around, you can start right away.", True),
    ("I have twin boys, they just turned four.",
     "Because he's an only child, expect some jealousy.", True),
    ("I want the whole menu to be pork-free.", "Bacon-wrapped dates with goat cheese.", True),
    ("I want the whole menu to be pork-free.", "Try the bacon-free version.", False),
    ("He uses a manual wheelchair and can't do steps at all.",
     "Ride the lift up and walk down the narrow spiral staircase.", True),
    ("I drive a Hyundai Ioniq 5, fully electric.", "Top off the tank in Medford.", True),
    ("I rent a one-bedroom in an old building.",
     "Since it's your own place, replace the single-pane sashes.", True),
])
def test_what_users_tell_and_what_answers_presume(user: str, answer: str,
                                                  broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # a pet the user gave an age, called young
    ("Our beagle Max is 12 and the vet says he's a bit heavy.",
     "Since Max is still a young dog with plenty of energy to burn, walk him twice a day.",
     True),
    ("My cat Pepper is 14 and has got quite stiff.",
     "A kitten like Pepper will love a tall tower.", True),
    ("My dog is 10 kg and very fussy.", "Since she's still a young dog, keep walks short.",
     False),  # a weight, not an age
    ("Our beagle Max is 12.", "Senior dogs aren't young dogs anymore, so go gently.", False),
    # a user who does not drink, and an answer that presumes they do
    ("I don't drink myself, haven't for about six years.",
     "Swap your evening glass of wine for a cup of chamomile.", True),
    ("I don't drink coffee at all.", "Swap your evening glass of wine for chamomile.", False),
    ("I'm sober, three years now.", "If you drink, swap your evening glass for tea.", False),
    # an age well past school, and an answer that has them fresh out of it
    ("For context, I'm 45, and this is my second attempt at a degree.",
     "Coming straight from high school, you'd benefit from a dorm.", True),
    ("I'm 30 weeks pregnant.", "Coming straight from high school, you'd benefit from a dorm.",
     False),
    # a night worker told to be in bed by ten; not on a day off
    ("I work nights, 7pm to 7am, three shifts a week.",
     "Aim to be in bed by 10:30 pm on work nights.", True),
    ("I work nights, 7pm to 7am, three shifts a week.",
     "On your days off, aim to be in bed by 10:30 pm.", False),
    # a thing the user has, and an answer that presumes they have not
    ("I got a KitchenAid stand mixer for my birthday.",
     "Since you'll be doing this without a stand mixer, knead by hand.", True),
    ("I got a KitchenAid stand mixer for my birthday.",
     "If you don't have a stand mixer, knead by hand.", False),
    ("I don't have a stand mixer.", "Since you'll be doing this without a stand mixer, knead "
     "by hand.", False),
    # a thing the user has not got, after a dash
    ("The kitchen is a two-burner cooktop and a microwave — no oven at all.",
     "Spread the peppers on a sheet pan and roast them at 425°F.", True),
])
def test_ages_drinking_night_work_and_what_the_user_has(user: str, answer: str,
                                                         broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_situation_with_a_topic_is_lifted_by_its_topic_only() -> None:
    """ "Our dog now limps" speaks of the dog, not of her age; "young dog" would have
    made every later word "dog" lift the rule."""
    from monitor.engine.constraints import lifted_by, rule_phrase, topic_words

    [rule] = constraints_in("Our beagle Max is 12.", 0)
    assert rule_phrase(rule.label) == "an older pet"
    assert "dog" not in topic_words(rule.label)
    assert not lifted_by(rule, ["Our dog now limps a bit."], 2)
    [held] = constraints_in("I got a KitchenAid stand mixer for my birthday.", 0)
    assert rule_phrase(held.label) == "having a stand mixer"


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("My building bans power tools, so hand tools only.",
     "Pre-drill each pilot hole with a cordless drill and a 1/8\" bit.", True),
    ("My building bans power tools, so hand tools only.",
     "Pre-drill each pilot hole with a hand drill.", False),
    ("Fragrance is my big trigger, so everything I use has to be fragrance-free.",
     "For the oil, mix two drops of lavender oil into a teaspoon of jojoba.", True),
    ("Fragrance is my big trigger, so everything I use has to be fragrance-free.",
     "Pick an unscented, fragrance-free moisturiser.", False),
    ("I've never been fishing in my life.",
     "Since you've tied plenty of these over the years, practise twice.", True),
    ("I live in a studio apartment, no spare room.",
     "At the end of the day, close the door to your office.", True),
    ("I work full-time as an ICU nurse.",
     "Because the candle business is your only income, set money aside.", True),
    ("I'm 29 with really oily skin, shiny by noon.",
     "Since your skin runs dry and tight, a richer cream will feel good.", True),
    ("I'm 29 with really oily skin, shiny by noon.",
     "People with dry skin often prefer a richer cream.", False),
    ("He's an only child and we just moved.",
     "His big sister could take a turn as his reading buddy.", True),
    ("I've lived in this apartment for six years, always paid on time.",
     "Because you've only just moved in, lead with your references.", True),
    ("My mom is 82 and moved in with us last spring.",
     "Get her landlord's okay before drilling for grab bars.", True),
    ("I've never traveled outside the US.",
     "You've been through enough international trips to know the basics.", True),
    ("We're first-time buyers looking at homes around $350k.",
     "It'll feel a lot like the closing on your last place.", True),
    ("I don't own a stand mixer, just bowls and a wooden spoon.",
     "Let your KitchenAid knead the dough with the dough hook.", True),
    ("I'm left-handed and want to learn to knit.",
     "Since your right hand is your dominant one, it over-tightens each stitch.", True),
    ("She uses a walker and cannot do stairs.",
     "Stay in Alfama, where the cobbled lanes and stepped alleys give it charm.", True),
    # a party of three, counted as five; two of them are a part of it
    ("There's always exactly three of us at game night.",
     "With five of you at the table, add the Riverfolk.", True),
    ("There's always exactly three of us at game night.",
     "If two of you want a longer game, try Root.", False),
])
def test_tools_scents_experience_homes_skin_siblings_and_group_size(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_diet_the_partner_does_not_keep_leaves_his_dishes_alone() -> None:
    """ "I'm vegetarian, my husband isn't": "For his boxes, add chicken" is his."""
    from monitor.engine.constraints import binding, goes_over, rule_phrase

    turn = "I'm vegetarian, my husband isn't. Can you plan our meal prep?"
    assert binding("I'm vegetarian, my husband isn't.", 0, turn) == []
    turn = "I'm vegan and my husband isn't keen on tofu."
    assert [r.label for r in binding(turn, 0, turn)] == ["vegan"]
    [party] = constraints_in("It's just the two of us.", 0)
    assert rule_phrase(party.label) == "a group of 2"
    # "worth it" says nothing of the cap; "worth roughly £6,000" prices no offer
    assert not goes_over("Go for the iPhone 15 at £699, the camera is worth it for him.")
    assert goes_over("A 2015 Corolla is worth roughly £6,000 today.")


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # what a swap puts in is offered; what it takes out is avoided
    ("I can't have any caffeine at all.", "Swap your afternoon drink for a matcha latte.",
     True),
    ("I can't have any caffeine at all.", "Swap your afternoon coffee for rooibos.", False),
    # "since you" presumes an activity unless a negation follows
    ("I don't have a driving licence.",
     "Since you'll be behind the wheel on single-track roads, keep snacks handy.", True),
    ("I don't have a driving licence.", "Since you don't drive, take the bus.", False),
    ("I'm buying nothing new this year, second-hand only.",
     "Many second-hand advocates make an exception and buy new, since you can't always "
     "see crash damage.", False),
    # "rather than" in a later clause sets nothing aside; "but for you" does
    ("I'm a self-employed designer (no employer, all 1099 clients).",
     "Because your employer is already withholding tax, the saving shows up as a refund "
     "rather than as lower payments.", True),
    ("I work nights as a security guard.",
     "Most beginner plans assume a 9-to-5 and tell you to run in the morning, but for you "
     "the best time is after you wake.", False),
    ("I've never actually had anyone report to me.",
     "If you have time, mention how you've coached the engineers you currently manage.",
     True),
    # "your free hand" frees nothing; "gluten free" in two words does
    ("I don't have any equipment at all, so bodyweight only please.",
     "Do one-arm dumbbell rows, resting your free hand on a chair.", True),
    ("my daughter is gluten-free", "This bread is gluten free and soft.", False),
    # an injured side, and an answer that puts it on the other side
    ("I had ACL reconstruction on my left knee 8 months ago.",
     "Since your right knee is the one that was reconstructed, watch for swelling.", True),
    ("My left knee is fine, I just want to run faster.",
     "Drive your right knee up on each stride.", False),
    # more that users tell of themselves
    ("our current place is a fourth-floor walk-up, no lift",
     "Reserve the elevator at your current building for the morning.", True),
    ("The course is fully online.", "Grab a few classmates after lectures on campus.", True),
    ("The walls are all the original lath and plaster.",
     "Because your walls are standard half-inch drywall, a 3-inch screw holds.", True),
    ("I'm NHS only btw, no private health insurance.",
     "Call your insurance company to confirm the procedure is covered.", True),
    ("My dad passed away a couple of years ago.",
     "If your dad would like a moment too, he could give a toast.", True),
    ("I'm using a MacBook Air M2.", "Open Command Prompt as administrator.", True),
    ("I cooked professionally for about twenty years before I retired.",
     "As someone who hasn't spent much time in a kitchen before, go slowly.", True),
    ("I work every weekend.", "Since you're free at weekends, leave on Saturday.", True),
    ("The garden barely gets any direct sun, maybe an hour in midsummer.",
     "Since your bed gets full sun for most of the afternoon, try tomatoes.", True),
    ("We got rid of the gas boiler and there's no gas to the house at all now.",
     "Since your gas boiler still heats the water, a dual-fuel deal could save money.", True),
    ("I don't own a power drill, only a screwdriver.",
     "Start each hole with your drill and a 5 mm bit.", True),
    ("My car is a 2015 Honda Civic with a manual gearbox.",
     "Since it's an automatic, ask them to check the ATF.", True),
    ("I don't know any programming at all.",
     "Since you're comfortable with Python, write a short pandas script.", True),
    ("It's a left-handed acoustic since I'm a lefty.",
     "Keep your strumming hand (your right) moving in a steady pattern.", True),
    # stop 53: phrasings of situations told and presumed
    ("I rent a 1990s townhouse and the bills are brutal.",
     "Since it's your property, you get to decide the payback period.", True),
    ("I rent a car when I travel.", "Since it's your property, you get to decide.", False),
    ("There's no oven in this place, just a two-burner cooktop.",
     "Slide the covered pot into the oven at its lowest setting.", True),
    ("I rent a unit on the 4th floor - no basement, no utility room.",
     "Head down to the basement and close the main valve.", True),
    ("My mom moved in with us last spring.",
     "Make a stop at her place on your way home a couple of evenings a week.", True),
    ("I'm an only child, no cousins nearby.",
     "Trade off weekends with your brothers or sisters.", True),
    ("29F, oily skin - my T-zone is a grease slick by noon.",
     "Because your skin already leans toward the dry side, use a rich cream.", True),
    ("My cat is strictly indoors and has never set foot outside.",
     "Keep her in for three weeks before letting her roam outside again.", True),
    ("I only shoot on my phone, I don't own a proper camera.",
     "Turn the lens's focus ring to infinity and tape it.", True),
    ("I drive a 2012 Mazda3 with a 6-speed manual.",
     "Shift the lever into Park and turn off the engine.", True),
    ("I retired from teaching in June.",
     "That can be tricky to fit around a full-time job.", True),
    ("We don't own a car, so it's buses.",
     "Showing up before 9 saves you from circling the block.", True),
    ("My husband died two years ago so it's just me now.",
     "Look at the marriage allowance, moving part of one allowance between you.", True),
    ("We finally paid off our mortgage in September!",
     "An offset mortgage would cut the interest on your outstanding balance.", True),
    ("I'm 45 and never smoked in my life.", "Cutting back on cigarettes will help.", True),
    ("I was made redundant back in March.",
     "Since you're still in your current role, you have leverage.", True),
    ("We'll be in my Model Y, two adults.", "Fuel up in Kayenta; pumps get sparse.", True),
    ("We bought our first house last spring.",
     "Get a written OK from the property owner first.", True),
    ("Me and my husband are off to Madrid with our twin 2 year olds.",
     "Since it's just the two of you, hop between tapas bars until midnight.", True),
    ("I graduated with a BSc in computer science in 2019.",
     "You'd be looking at finishing a bachelor's first.", True),
    ("I have a 2021 MacBook Pro and it's almost full.",
     "Run Disk Cleanup from the Start menu.", True),
    ("I'm an ICU nurse on nights, three 12s a week.",
     "Grab a jar when you head out the door in the morning for your shift.", True),
])
def test_swaps_presuming_openers_asides_sides_and_more_situations(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_resources_after_no_are_no_rule_and_someone_else_holds_the_job() -> None:
    """ "no space or money for weights" rules out no space; a partner's job leaves his
    employer match to him."""
    from monitor.engine.constraints import binding, rule_phrase

    assert [r.label for r in constraints_in("I have no space or money for weights.", 0)
            ] == []
    turn = "I'm self-employed and my husband works for a big company."
    assert binding(turn, 0, turn) == []
    [knee] = constraints_in("I had ACL reconstruction on my left knee.", 0)
    assert rule_phrase(knee.label) == "the injured left knee"
    assert [r.label for r in constraints_in("It's not real paella without seafood, "
                                            "my father-in-law says.", 0)] == []


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # what the user already tried, presumed untried; a hedge is no presumption
    ("I already tried melatonin for a few weeks and it did nothing.",
     "A good place to start, since you haven't tried it yet, is low-dose melatonin.", True),
    ("I already tried melatonin for a few weeks and it did nothing.",
     "If you haven't tried it yet, low-dose melatonin can help.", False),
    ("I already tried melatonin for a few weeks.",
     "Since you haven't tried it yet, start with a wind-down routine.", False),  # not it
    ("I tried to sleep earlier, it didn't work.",
     "Since you haven't tried it yet, go to bed earlier.", False),
    # a later clause that says the user does not need what it named
    ("I don't have any power tools and don't want to buy any.",
     "A power drill would make this faster, but you don't need one.", False),
    ("I don't have any power tools.", "Use a power drill to make the pilot holes.", True),
])
def test_what_the_user_tried_and_what_they_need_not_buy(user: str, answer: str,
                                                        broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # a father who died is not a mother who did
    ("I'm an only child and my dad passed a few years ago.",
     "While your mom can still take part in decisions, plan together.", False),
    ("I'm an only child and my dad passed a few years ago.",
     "Your dad could give a short toast at the end.", True),
    # "young cats" in general is no presumption about the user's old cat
    ("My cat Pepper is 16 and has never moved before.",
     "Kittens and young cats often settle in within days, but seniors take weeks.", False),
    ("We already have Mochi, she's a 15 year old tabby.",
     "Since Mochi is still a youngster herself, she'll play with the kitten.", True),
    # an activity that opens a sentence and is described there is not offered
    ("I don't fly (bad panic attacks on planes).",
     "Flying from London to Rome takes about two and a half hours, while the train is a "
     "long day.", False),
    ("I don't fly.", "Flying is fastest, so book the 9am flight.", True),
    # words in quotation marks are words to say
    ("Our pediatrician told us no screens at all in the hour before bed.",
     'Announce "screens are sleeping now" so it becomes a ritual.', False),
    ("Our pediatrician told us no screens at all in the hour before bed.",
     "Put a meditation app on the tablet once he's in bed.", True),
    # what a food is made with is a warning; a flute is a glass
    ("No alcohol in anything, please.", "Most vanilla extract is made with alcohol.", False),
    ("I'm two years sober.", "Serve sparkling tea in real champagne flutes.", False),
    # others who eat everything take their dishes
    ("I'm vegetarian but my husband eats everything.", "He can add pulled chicken.", False),
    # a new clause after a comma ends the exclusion
    ("We keep kosher, so no mixing meat and dairy, and the main will be meat.",
     "Braised brisket with onions and carrots.", False),
])
def test_parents_generic_animals_descriptions_quotes_and_clauses(
        user: str, answer: str, broken: bool) -> None:
    from monitor.engine.constraints import binding

    assert any(broken_by(answer, r) is not None
               for r in binding(user, 0, user)) is broken


def test_a_time_limit_the_user_set_reads_durations_not_periods() -> None:
    """ "dinners that take 20 minutes max" bounds how long; "can easily cost" prices no
    offer."""
    from monitor.engine.constraints import sets_time_limit

    assert sets_time_limit("I need weeknight dinners that take 20 minutes max.")
    assert sets_time_limit("I only get the baby's nap, so any workout has to be 20 "
                           "minutes max.")
    assert not sets_time_limit("The drive takes about 20 minutes.")
    assert goes_over("A good general zoom can easily cost another $1,000+.")


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("My nephrologist told me never to take NSAIDs.",
     "An over-the-counter naproxen tablet like Aleve before bed can help.", True),
    ("My GP told me to stay off all NSAIDs.", "Ice is a natural anti-inflammatory.", False),
    ("She uses a wheelchair so everything needs to be step-free.",
     "Book a table at a tasca at the top of a steep flight of stairs.", True),
    ("I've got a Pixel 8 myself.", "Add a location widget to your iPhone's home screen.",
     True),
    ("My Samsung TV is old.", "Add a location widget to your iPhone's home screen.", False),
    ("I'm an only child.", "Hold a family meeting so your brothers and sisters can help.",
     True),
    ("Our new flat has an induction hob.", "Get the wok ripping hot over your gas flame.",
     True),
    ("I have type 1 diabetes, on a pump with a CGM.",
     "Since you don't have any medical conditions to plan around, eat as usual.", True),
    ("I went freelance as a graphic designer in January.",
     "When you were an employee, your employer withheld tax from each paycheck.", False),
    ("I went freelance as a graphic designer in January.",
     "Because your employer already withholds income tax, you're covered.", True),
    ("School rules: nothing with open flames and no live animals.",
     "Set the beaker over a tea light candle.", True),
    ("Our two kids, ages 3 and 5, are coming too.",
     "Hand your teenagers a paper map and let them navigate.", True),
    ("I'm 16 and a junior in high school.",
     "Point to finishing your bachelor's degree as proof of follow-through.", True),
    ("My doctor says I have low blood pressure, usually around 90/58.",
     "With your blood pressure running high, go easy on the salt.", True),
    ("I work three 12-hour night shifts a week, 7pm to 7am.",
     "Because your workdays start early in the morning, pre-portion breakfasts.", True),
])
def test_medicines_flights_of_stairs_phones_families_and_more(user: str, answer: str,
                                                              broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_shift_worker_who_mentions_a_shift_keeps_the_night_work() -> None:
    """ "4 or 5 cups a shift" speaks of a shift, not of a change to night work."""
    from monitor.engine.constraints import topic_words

    [rule] = constraints_in("I work three 12-hour night shifts a week, 7pm to 7am.", 0)
    assert "shift" not in topic_words(rule.label)
    [cap] = constraints_in("Science fair rules: no open flames.", 0)
    assert cap.label == "no_open_flames"


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("Spanish is my first language.",
     "Because English is your mother tongue, der/die/das will be the biggest shock.", True),
    ("I'm a native Spanish speaker (from Seville).",
     "As an English speaker you'll find the vocabulary familiar.", False),
    # a clause of purpose keeps what came before
    ("We only have one cat, Miso, she's 4.",
     "Keep your cats in separate rooms so they don't take their stress out on each other.",
     True),
    ("We only have one cat, Miso, she's 4.",
     "Some owners keep their cats apart, so they aren't your cats to worry about.", False),
])
def test_a_first_language_and_a_clause_of_purpose(user: str, answer: str,
                                                   broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I'm Brazilian, Portuguese is my native language.",
     "Coming from English as your mother tongue, the tap will feel odd.", True),
    ("We rent, so I can't rip out the ceiling.",
     "Because you own the place, you could hang a drop ceiling.", True),
    ("We'll be taking our Kia EV6.", "Top off the gas tank the evening before.", True),
    ("I've been fully remote since 2020.", "Use the drive home as a decompression zone.",
     True),
    ("She's strictly an indoor cat, never been outside except to the vet.",
     "Since she spends part of her day roaming the neighborhood, ticks are a concern.", True),
    ("I crochet, never learned to knit.",
     "Since you already know your way around a pair of needles, try circulars.", True),
    ("I've never had a passport, this is my first time leaving the country.",
     "Since you're renewing, you can mail form DS-82.", True),
    ("I already have a bachelor's in biology.",
     "Because you'll be a first-time undergraduate, you qualify for Pell Grants.", True),
    ("My doctor said no grapefruit because of my statin.",
     "Pair it with fresh pink grapefruit segments.", True),
    ("I don't drink at all, never have.", "Put it in a wine bag from the wine shop.", False),
])
def test_languages_homes_cars_pets_papers_and_things_named_by_a_drink(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_diet_kept_in_the_users_kitchen_binds_a_dish_for_guests() -> None:
    from monitor.engine.constraints import binds_answer

    [halal] = constraints_in("I keep halal.", 0)
    assert binds_answer(halal, "Can you give me a risotto I can make for guests?")
    [veggie] = constraints_in("I'm vegetarian.", 0)
    assert not binds_answer(veggie, "Any mild suggestions for my guests?")


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I already tried valerian for a month and it did nothing.",
     "Valerian is worth a go: since it would be new for you, start with a low dose.", True),
    ("I live by myself in a one-bed flat.",
     "Warn the people you share the flat with before the first session.", True),
    ("We rent a two-bedroom in Leeds.",
     "Because you've built equity in your home, a secured loan is cheapest.", True),
    ("I retired in March; I'm 64 now.",
     "With a long career still ahead of you, a dip now matters little.", True),
    ("I retired in March; I'm 64 now.",
     "Most savers put more in before they retire, but you can draw it down now.", False),
    ("I just got my driver's license in June.",
     "Quote with your long, clean driving history in mind.", True),
    ("I'm a software developer, mostly Go.",
     "Since config files aren't really your world, use the web installer.", True),
    ("My wife stays at home with our twins.",
     "Her salary still counts when you size her cover.", True),
    ("Finally paid off my last student loan!",
     "Keep autopay on your education debt so the discount stays.", True),
    ("I've had type 1 diabetes for ten years.",
     "With no health issues to plan around, you can train fasted.", True),
    ("I've never been a runner.",
     "You've already logged plenty of miles over the years, so go by feel.", True),
    # the setting sentence speaks of a petrol car too
    ("We have two cars: my Nissan Leaf and her old Golf.",
     "Book an oil change for the Golf before winter.", False),
    ("I drive a Nissan Leaf.", "Book an oil change before winter.", True),
    # a lettuce wrap is no wheat; farro is
    ("I'm coeliac.", "Serve the filling in lettuce wraps.", False),
    ("I'm coeliac.", "Stir in a cup of cooked farro.", True),
])
def test_retirement_new_drivers_coders_partners_at_home_and_paid_off_loans(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "labels"), [
    # "cut costs" rules out no costs; "and I've decided" starts a clause of its own
    ("We need to cut costs and I've decided: no takeaways.", set()),
    ("My doctor told me to cut caffeine and alcohol.", {"alcohol", "caffeine"}),
])
def test_cutting_costs_and_a_new_clause_after_and_rule_nothing_out(
        user: str, labels: set[str]) -> None:
    assert {c.label for c in constraints_in(user, 0)} == labels


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I'm an iPhone person, always have been.", "Open the Play Store and search for it.", True),
    # a sentence about someone else, with no "you" in it
    ("I'm on an iPhone; my husband has a Pixel.",
     "He downloads the app from the Google Play Store on his Pixel.", False),
    ("I've got a hob and a microwave, no oven at all.",
     "Slide the tin onto the middle rack for 20 minutes.", True),
    ("We're off to Porto with our 5-month-old son.",
     "With nobody's bedtime to plan around, eat at ten.", True),
    # the first visit is the niece's
    ("My niece is coming, and it'll be her first time in Rome.",
     "Since you've already done the Vatican, she could go while you rest.", False),
    ("I garden organically, no synthetic pesticides.",
     "A synthetic pesticide, so it's out under your rule.", False),
    ("I don't drive, never learned.",
     "Most guidebooks assume a rental car for the island.", False),
    # an airline named in capitals still flies
    ("I don't fly, so everything by land or sea.",
     "KLM Royal Dutch Airlines nonstop from Vienna: about two hours.", True),
])
def test_phones_ovens_babies_rules_guidebooks_and_airlines(user: str, answer: str,
                                                            broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_rule_that_denies_more_than_a_duration_is_a_time_limit() -> None:
    from monitor.engine.aligned import measured
    from monitor.engine.constraints import sets_time_limit

    rule = "My dad had knee surgery, so no hikes longer than about 2 hours."
    assert sets_time_limit(rule)
    assert [a.shape for a in measured(rule)] == ["upper"]
    assert [a.shape for a in measured("The hike takes over 2 hours.")] == ["lower"]


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # a food after a hyphen is still served, unless the hyphen makes it another thing
    ("The party is completely nut-free.", "Set out a chocolate-hazelnut spread.", True),
    ("I'm lactose intolerant.", "A coconut-milk curry with rice.", False),
    ("I'm lactose intolerant.", "Top it with non-dairy cream.", False),
    # what a parenthesis says it is made of
    ("We're vegan.", "Fritters with a lemon aioli (made with aquafaba).", False),
    ("We're vegan.", "Fritters with a lemon aioli (made with eggs and oil).", True),
    # a teacher's rule, in the room where everything happens
    ("The teacher said no glitter and no hot glue in the room.",
     "Fix the eyes with a dab from a low-temp hot glue gun.", True),
    ("I'm a single dad raising my son on my own.",
     "If you and your partner take turns, nobody is the bad guy.", True),
    ("I'm left-handed.", "Since your right hand is the dominant one, lead with it.", True),
    ("I work fully remote, never been to the office.",
     "Grab lunch in the office cafeteria twice a week.", True),
    ("We're expecting twins in May!", "Since you'll only have the one little one, go light.",
     True),
    ("Our cat is 100% indoor.", "Watch how she reacts after her daily rambles.", True),
    ("I live alone in a studio with no yard.", "Scatter kibble on the grass out back.", True),
    ("I'm a second-grade teacher.", "Since your students are teenagers, email them too.",
     True),
])
def test_hyphens_what_food_is_made_of_teachers_rules_and_more_situations(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "labels"), [
    # "non-halal" narrows the meat to some of it; "and no" opens a rule of its own
    ("We keep halal, so no pork and no non-halal meat.", {"halal", "pork"}),
    ("The teacher said no scissors for the kids and no hot glue in the room.",
     {"scissor", "hot glue"}),
])
def test_a_narrowed_group_and_a_second_no_after_and(user: str, labels: set[str]) -> None:
    assert {c.label for c in constraints_in(user, 0)} == labels


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I'm pregnant and was told to avoid retinoids.", "Use a retinaldehyde eye cream.", True),
    ("I'm 20 and in my second year of college.",
     "Now that you're in your forties, collagen slows down.", True),
    ("I'm teaching myself cello, no teacher.", "Ask your teacher at your next lesson.", True),
    ("It's just me and my cat, Pickle.", "Keep Pickle and your dog apart at first.", True),
    ("I practise on a digital piano.", "Have a technician tune it twice a year.", True),
    ("I want to sleep better with no medication or supplements.",
     "Take magnesium glycinate an hour before bed.", True),
    ("No flash of any kind near the baby, please.", "Bounce a speedlight off the ceiling.",
     True),
    ("I'm recently widowed and cook only for myself.", "Batch-cook with your spouse.", True),
    ("I run a one-person design studio, no employees.", "Brief your team on Monday.", True),
    ("She's exclusively formula-fed.", "Unlatch her when nursing her back to sleep.", True),
    ("I have bad vertigo.", "Clear the gutters from an extension ladder.", True),
    ("I've already run three marathons.", "Since it's your debut at the distance, relax.",
     True),
    ("My balcony faces north.", "Your balcony bakes in sun all afternoon.", True),
    ("I never learned to drive.", "Collect the hire car at 8.", True),
    ("My dad passed away last year.", "Have a quiet word with your dad first.", True),
    ("I never learned to swim.", "Since you're at home in the water, try the jump.", True),
    ("I've already tried melatonin.",
     "Melatonin is worth a go, since it's not something you've tested yet.", True),
    # a time to come, and a warning of what triggers it
    ("I'm a complete beginner at skiing.",
     "Next season, with more experience under your belt, try off-piste.", False),
    ("I have asthma, so no bleach please.",
     "Good thinking: bleach fumes are a common asthma trigger.", False),
])
def test_retinoids_ages_teachers_pets_supplements_flashes_and_more_situations(
        user: str, answer: str, broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_colleagues_allergy_binds_and_the_others_eating_everything_frees_a_diet() -> None:
    from monitor.engine.constraints import binding

    assert [c.label for c in constraints_in("A colleague has a severe peanut allergy.", 0)] == [
        "peanut"]
    turn = "I'm vegetarian; the others eat everything."
    assert binding("I'm vegetarian; the others eat everything.", 0, turn) == []


def test_a_time_to_be_back_within_is_a_limit_but_a_place_within_reach_is_not() -> None:
    from monitor.engine.constraints import sets_time_limit

    assert sets_time_limit("We must be back at the car within 3 hours.")
    assert not sets_time_limit("I live within 10 minutes of the gym.")


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # people who do it are no offer of it; "zero", "riskiest", "carryover to" steer
    ("My doctor said no running for now.", "Many runners come back fitter than before.",
     False),
    ("My doctor said no running for now.", "Start with an easy 20-minute run.", True),
    ("My doctor said no running for now.", "You can build fitness with zero running.", False),
    ("My doctor said no running for now.", "Cycling: great carryover to running later.",
     False),
    ("The vet said no rawhide, ever.", "Rawhide is one of the riskiest chews.", False),
    ("I've never been on skis.", "With several seasons under your belt, bring your boots.",
     True),
    ("Portuguese is my first language.", "Since your mother tongue is English, relax.", True),
    ("I sold my car last year.", "Fill up your tank the night before.", True),
    ("I've lived here solo for six years.", "Ask your roommates which pots are theirs.", True),
    ("I've never had a credit card.", "Put the hotel on your credit card.", True),
    ("I only have an iPad, no computer.", "Install Anki on your computer.", True),
    ("Our cat is strictly indoors.", "Fleas come from her outdoor wanderings.", True),
    ("My kitchen has no dishwasher.", "Load the boards into the dishwasher.", True),
])
def test_people_who_do_it_steering_words_and_more_phrasings(user: str, answer: str,
                                                             broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_cap_someone_else_states_and_a_plate_beside_a_meat_eater_bind_nothing() -> None:
    from monitor.engine.constraints import binding, sets_cap, sets_time_limit

    reported = "A colleague says flying takes under two hours, so I'm crazy to take the train."
    assert not sets_time_limit(reported)
    assert sets_time_limit("My physio said workouts must be 20 minutes max.")  # a rule giver
    assert not sets_cap("My brother says I shouldn't spend more than $300.")
    turn = ("My dad's a real steak-and-potatoes guy. I'd love one dinner we both enjoy, "
            "without me eating any meat.")
    assert binding("I'd love one dinner we both enjoy, without me eating any meat.", 0,
                   turn) == []


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("I went vegan last year.", "Top with bird's eye chillies.", False),
    ("I don't have a router, hand tools only.",
     "Most online tutorials use a router, but a chisel works.", False),
    ("I have no oven, just a hob.", "Pop it in at 180°C for 35 minutes.", True),
    ("I drive a Hyundai Ioniq 5.", "Get the oil and filter changed before winter.", True),
    ("I'm all-in on Apple: iPhone, MacBook, Apple TV.",
     "Add the widget to your Android home screen.", True),
    ("The pharmacist said no grapefruit because of her statin.",
     "Broiled grapefruit half with cinnamon.", True),
])
def test_chillies_tutorials_ovens_evs_apple_users_and_pharmacists(user: str, answer: str,
                                                                  broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_a_diet_glossed_beside_someone_who_eats_everything_binds_only_the_users_plate(
) -> None:
    from monitor.engine.constraints import binding

    turn = "I've been vegetarian for 20 years, no meat, no fish. He eats everything."
    assert binding("I've been vegetarian for 20 years, no meat, no fish.", 0, turn) == []
    sober = ("I'm two years sober, so I won't be drinking, but most of my family does and "
             "I'm fine with wine on the table.")
    assert binding(sober, 0, sober) == []
    # an aside in parentheses between the others and their meat
    alone = ("it's just me in my apartment, no roommates, no partner, and I toss half the "
             "groceries.")
    assert [r.label for r in binding(alone, 0, alone + " Just for me, please.")] == [
        "living_alone", "no roommate"]
    family = ("My 14 year old daughter just announced she's going vegetarian. The rest of us "
              "(me, my husband, our 10 year old) still eat meat.")
    assert binding("My 14 year old daughter just announced she's going vegetarian.", 0,
                   family) == []


@pytest.mark.parametrize(("user", "answer", "broken"), [
    ("My pharmacist said no grapefruit at all.",
     "I've deliberately left out grapefruit and pomelo.", False),
    ("We're having a dry wedding, no alcohol at all.",
     "Serve in proper glassware: coupes and highballs feel special.", False),
    ("I'm vegetarian; my brother isn't.",
     "The turkey gravy can still go on the table for everyone else.", False),
])
def test_what_is_left_out_glasses_and_dishes_for_everyone_else(user: str, answer: str,
                                                               broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # possessions listed with "or"; not a comma list of what the user has
    ("My flat has no balcony or outdoor space.", "Put the bin in your garden.", True),
    ("I have no oven, a microwave and a hob.", "Heat it in your microwave.", False),
    ("I've been a freelance designer for six years.", "Collect your employer's match.",
     True),
    ("I have never had a driver's license.", "Take your car the whole way.", True),
    ("Our beagle Rufus is 13.", "He's still bursting with young-dog energy.", True),
])
def test_possessions_joined_by_or_freelancers_licences_and_old_dogs(user: str, answer: str,
                                                                     broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # what stands after "compared with" is the other thing; what stands before is offered
    ("I don't fly, land or sea only.",
     "Hop on a short flight to Palermo, which saves a day compared with the train.", True),
    ("I don't fly, land or sea only.", "The train takes 9 hours, compared with a 70-minute "
                                       "flight.", False),
    ("Neither of us ever learned to drive.", "Collect your hire car at the airport.", True),
    ("I sold my car last month.", "Load the heavy items into the boot first.", True),
    ("My iPhone 13 keeps running out of storage.",
     "Back up to Google Drive, where Android phones like yours keep backups.", True),
    ("I'm 68 and retired last year.", "Drive to the office: a Spanish podcast.", True),
    ("She's a 14-year-old tabby.", "At her age, barely past kittenhood, she will explore.",
     True),
])
def test_comparisons_licences_boots_phones_retirees_and_old_cats(user: str, answer: str,
                                                                  broken: bool) -> None:
    assert _breaks(user, answer) is broken


@pytest.mark.parametrize(("user", "answer", "broken"), [
    # advice to learn a skill presumes nothing; a counterfactual "would normally" neither
    ("I've never played an instrument and I can't read music.",
     "Sight-reading: practise a few new lines every day.", False),
    ("I can't read music.", "Since you sight-read, the étude will be quick.", True),
    ("I have no oven, just a hob.",
     "Where a baked version would go into the oven, chill it in the freezer.", False),
])
def test_learning_to_sight_read_and_what_a_baked_version_would_need(user: str, answer: str,
                                                                    broken: bool) -> None:
    assert _breaks(user, answer) is broken


def test_the_only_vegetarian_in_the_house_cooks_meat_for_the_others() -> None:
    from monitor.engine.constraints import binding

    turn = "I'm the only vegetarian in my house. Weeknight dinners for all of us?"
    assert binding("I'm the only vegetarian in my house.", 0, turn) == []
