"""Sentence-level cues read from `monitor/data/cues.toml`: is this the assistant's claim?

The parse decides most of a clause's modality; these cues cover what a dependency parse
cannot see: that the user asked for a story or an email (so the answer is composed text,
not assertion), that a sentence is about what can be inferred rather than about the world,
that a line is a template to fill in, and that a user turn narrates a change to the
situation (so earlier claims about it may be out of date).
"""

from __future__ import annotations

import re
import tomllib
from functools import cache, lru_cache
from importlib import resources
from typing import Any

from monitor import data


@cache
def stop_words() -> frozenset[str]:
    """spaCy's English stop words, imported on first use: importing spaCy costs seconds,
    and commands that never score (`schemas`, `--help`) should not pay for it."""
    from spacy.lang.en.stop_words import STOP_WORDS

    return frozenset(STOP_WORDS)


@lru_cache(maxsize=1)
def _data() -> dict[str, Any]:
    text = (resources.files("monitor") / "data" / "cues.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _words(name: str) -> re.Pattern[str]:
    return data.word_pattern(tuple(_data()[name]))


@cache
def _pattern(name: str) -> re.Pattern[str]:
    if name.endswith("_pattern"):  # a regular expression, not a word list
        return re.compile(_data()[name])
    return _words(name)


@cache
def clause_words() -> frozenset[str]:
    """Function words that, capitalised to open a clause (after a label, a dash or a
    title run into the sentence), name nothing."""
    return frozenset(_data()["clause_words"])


def is_creative_request(prompt: str) -> bool:
    """The user asked for composed text (a story, a role, a letter, a template)."""
    return asks_for_fiction(prompt) or _asks_for(prompt, "creative_requests")


def asks_to_edit(prompt: str) -> bool:
    """The user asks to change the text just written ("make it a little funnier")."""
    return bool(_pattern("edit_pattern").search(prompt))


def asks_for_user_draft(prompt: str) -> bool:
    """The user asked for a text to send as themselves (a CV, a cover letter, an invite)."""
    return _asks_for(prompt, "user_drafts")


def _asks_for(prompt: str, kinds: str) -> bool:
    """A kind of text named as one to write, not only as one the user sent, got or has
    ("If I send the letter on April 10", "I only have the recruiter's email"); a prompt
    that asks for words ("write", "draft", "what should it say") asks for it however it
    names it ("write a reply to the email I got")."""
    named = list(_pattern(kinds).finditer(prompt))
    if named and _pattern("writing_pattern").search(prompt):
        return True
    handled = _pattern("handled_text_pattern")
    return any(handled.search(prompt, max(0, found.start() - _HANDLED_REACH), found.start())
               is None for found in named)


_HANDLED_REACH = 30
"""How far before the kind of text a verb of handling one is looked for ("sent them the")."""


def speaks_of_others(sentence: str) -> bool:
    """The sentence names somebody other than its speaker ("Dad has worked 40 years")."""
    return bool(_pattern("other_people").search(sentence))


def asks_for_fiction(prompt: str) -> bool:
    """The user asked for fiction (a story, a poem, a role): its narrator is not the user.

    Asked for, not named in passing (`_asked`): "I don't fly (long story)", "end of
    story", "our two-story house" and "water, story, hug" at bedtime ask for none, and a
    request for fiction silences every check of the answer."""
    named = list(_pattern("fiction_requests").finditer(prompt))
    return bool(named) and (_pattern("writing_pattern").search(prompt) is not None or any(
        _asked(prompt, found) for found in named))


def _asked(prompt: str, named: re.Match[str]) -> bool:
    """The sentence that names a kind of fiction asks for something ("can you tell me a
    story", "now as a haiku?"), or opens with it ("A poem about autumn"). Not applied to
    drafts: "what should the letter say", "yes a template would be great" ask in words
    this list does not hold."""
    start, end = _sentence_around(prompt, named.start())
    lead = prompt[start:named.start()].strip(_OPENING).split()
    return len(lead) == 0 or (len(lead) == 1 and lead[0].lower() in _DETERMINERS) or (
        _pattern("fiction_asked_pattern").search(prompt, start, end) is not None)


_OPENING = " \t\"'*-#:>\u201c"
"""What may stand before the first word of a sentence."""
_DETERMINERS = frozenset({"a", "an", "the", "my", "our", "some", "one"})
_SENTENCE_END = re.compile(r"[.?!\n]")


def _sentence_around(text: str, at: int) -> tuple[int, int]:
    """The bounds of the sentence of `text` that holds position `at`."""
    start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, at)), default=0)
    after = _SENTENCE_END.search(text, at)
    return start, after.end() if after is not None else len(text)


def recalls_past_value(sentence: str) -> bool:
    """The sentence speaks of a value as past or replaced ("down from 12", "instead of
    12"), not as what holds now."""
    return bool(_pattern("past_value").search(sentence))


def is_epistemic(sentence: str) -> bool:
    """The sentence is about what can be known or inferred, or is a disjunction."""
    return bool(_pattern("epistemic").search(sentence))


def is_template(sentence: str) -> bool:
    return bool(_pattern("template_pattern").search(sentence))


def opens_plan_item(sentence: str) -> bool:
    """ "Week 6-9: Push your 9 km long run", "Month 2: your $6,000 in savings ...": an item
    of a plan or a timeline, about a later time."""
    return bool(_pattern("plan_label_pattern").match(sentence))


def asks(sentence: str) -> bool:
    """A question, with its question mark or without: users often leave it out. Without
    it, a comma may end a lead-in to a statement ("have you seen the docs, the API ...")."""
    if sentence.rstrip().endswith("?"):
        return True
    opening = sentence.lstrip(" *-\"'(“")
    return (not _LEAD_IN_BREAK.search(sentence)
            and bool(_pattern("question_openers").match(opening))
            and not _pattern("rhetorical_openers").match(opening))


_LEAD_IN_BREAK = re.compile(r"[,;:\u2014\u2013]|\s-\s")


def narrates_change(sentence: str) -> bool:
    return bool(_pattern("state_change").search(sentence))


_FIRST_PERSON = re.compile(r"\b(?:i|i'm|i've|i'd|my|me|mine|we|we're|our|(?-i:us|Us))\b",
                           re.IGNORECASE)
"""First-person words; "US" in capitals is the country ("prices in the US")."""


def speaks_of_self(sentence: str) -> bool:
    """The speaker talks about themselves or their situation ("my budget", "we are 4")."""
    return bool(_FIRST_PERSON.search(sentence))


_SECOND_PERSON = re.compile(r"\byou\b", re.I)


def addresses_user(text: str, end: int | None = None) -> bool:
    """A "you" in the text (before `end`): the sentence puts the user in it."""
    return _SECOND_PERSON.search(text, 0, len(text) if end is None else end) is not None


def answers_question(sentence: str) -> bool:
    """ "The answer is ...": what it says is about the question it answers."""
    return bool(_pattern("answer_frame").search(sentence))


@cache
def instruction_lead() -> frozenset[str]:
    """Words an instruction may open with before its verb ("always", "don't")."""
    return frozenset(_data()["instruction_lead"])


@cache
def generic_labels() -> frozenset[str]:
    """Sentence labels that name no subject ("Note:", "Tip:")."""
    return frozenset(_data()["generic_labels"])


@cache
def elided_lead() -> frozenset[str]:
    """Words that open a sentence whose subject was left out ("Doesn't touch ...")."""
    return frozenset(_data()["elided_lead"])


def states_goal(sentence: str) -> bool:
    return bool(_pattern("goal").search(sentence))


_YEAR = re.compile(r"\b(?:19|20)\d\d\b")


def years(sentence: str) -> set[str]:
    return set(_YEAR.findall(sentence))


def time_frames(sentence: str) -> frozenset[str]:
    """The parts of the week or year a sentence's values hold for ("on weekends" ->
    weekend, "in the high season" -> peak)."""
    return data.kinds_reader("time_frames.tsv")(sentence)


def adds_to(phrase: str) -> bool:
    """An amount added to something ("add $15 for breakfast", "one more bottle", "add the
    last 50 g", "add the $15 breakfast"); "add the 800 g of tomatoes" puts in the amount
    the recipe named, adding nothing to it."""
    return any(not _ADD_THE.match(phrase, m.end())
               or m.group(0).lower() not in {"add", "added"}
               for m in _pattern("addition").finditer(phrase))


_ADD_THE = re.compile(r"\s+the\s+\d")


def plans_or_requests(sentence: str) -> bool:
    return bool(_pattern("plan_or_request").search(sentence))


def describes_new_state(sentence: str) -> bool:
    return bool(_pattern("new_state").search(sentence))


def frames_only(opening: str) -> bool:
    """ "In total", "For the record", "As a rule": an opening, whole, that frames the
    sentence, not one that says which of several things it is about ("In contrast to the
    hostel", "At most hotels")."""
    return " ".join(opening.lower().split()) in _discourse_openers()


@cache
def _discourse_openers() -> frozenset[str]:
    return frozenset(_data()["discourse_openers"])


def post_modifier(text: str, start: int) -> tuple[str, str] | None:
    """What a noun ending at `start` is said to include or come with, right after it, as
    (the phrase, its words): ("that includes the towers", "the towers"), ("with a sea
    view", "a sea view"), if anything."""
    found = _pattern("post_modifier_pattern").match(text, start)
    return (found.group(1).strip(), found.group(2)) if found else None


def places_in_time(text: str, end: int) -> bool:
    """The time ending at `end` places something relative to another moment ("30 minutes
    after you mix", "spaced 30 minutes apart") instead of saying how long it lasts."""
    return _pattern("offset_pattern").match(text, end) is not None


def opens_premise(phrase: str) -> bool:
    """ "At ...", "With ...", "Since ...": a lead phrase that may work from a value said
    again; a framing opening ("At most", "So on average", "With that in mind") does not."""
    words = " ".join(phrase.lower().split())
    bare = _SO.sub("", words)
    if any(bare == frame or bare.startswith(frame + " ") for frame in _discourse_openers()):
        return False
    return _pattern("premise_openers").match(words) is not None


_SO = re.compile(r"^so,?\s+")


def compares(phrase: str) -> bool:
    """The phrase sets a value against another ("is below your deductible")."""
    return bool(_pattern("comparison_words").search(phrase))


def offers_alternative(sentence: str) -> bool:
    """The sentence sets its value against the one in use ("saving you $600", "instead of
    10,000", "your new salary")."""
    return bool(_pattern("alternative_words").search(sentence))


def asks_for_alternative(prompt: str) -> bool:
    """The user supposes another value or asks for another option ("what if I get the
    promotion?", "any cheaper ones?", "my rent is going up")."""
    return bool(_pattern("alternative_requests").search(prompt))


def opens_conditional(sentence: str) -> bool:
    """ "If ...", "When ...": the sentence as a whole is conditional or generic."""
    match = _pattern("conditional_openers").match(sentence.lstrip(" *-\"'(“"))
    return match is not None


_WORD = re.compile(r"[a-z][a-z'-]+")


_DOUBLED = re.compile(r"([b-df-hj-np-tv-z])\1$")


def _stem(word: str) -> str:
    """A crude fold of plurals and verb endings ("flips", "flipped" -> "flip"), enough to
    see that two sentences talk about the same thing; not a lemmatiser."""
    for ending in ("ing", "ed"):
        if word.endswith(ending) and len(word) > len(ending) + 3:
            word = _DOUBLED.sub(r"\1", word[: -len(ending)])
            return word
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def ordered_content_words(text: str) -> list[str]:
    """Lowercased content words in order, with a crude plural fold ("flips" -> "flip")."""
    words = []
    stops = stop_words()
    for word in _WORD.findall(text.lower()):
        if word.endswith("n't"):
            continue  # "don't", "can't": a negation, not what the sentence is about
        word = word.split("'")[0]  # "that's" -> "that", "bali's" -> "bali"
        if word in stops or len(word) < 3:
            continue
        words.append(_stem(word))
    return words


@lru_cache(maxsize=8192)
def content_words(text: str) -> frozenset[str]:
    return frozenset(ordered_content_words(text))


_SCOPE_TOKEN = re.compile(
    r"\b(?:\d+|monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|"
    r"march|april|may|june|july|august|september|october|november|december|morning|"
    r"afternoon|evening|night|week|weekend|option|plan|phase|stage|step|part)\b")


def different_scopes(a: str, b: str) -> bool:
    """Two headings that scope different things ("day 1: arrival" / "day 2")."""
    ta, tb = set(_SCOPE_TOKEN.findall(a)), set(_SCOPE_TOKEN.findall(b))
    return bool(ta) and bool(tb) and ta != tb
