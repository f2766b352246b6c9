"""The verdict stage: the verifier judges the rules' findings and its own candidates.

Called by the pipeline once per assistant turn, after the structured detectors and before
the turn's assertions join the window (`remember`). See `engine.meaning` for the method.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from monitor.config import EngineConfig
from monitor.engine import aligned, amounts, cues, lexicon, meaning, quantities
from monitor.engine.bounds import SENTENCE_CHARS
from monitor.engine.contradiction import Finding
from monitor.engine.graph import Fact
from monitor.engine.meaning import Assertion
from monitor.engine.state import ConversationState
from monitor.engine.verifier import PairVerdict, Verifier

Scored = tuple[int, Finding, float]
"""(index of the new claim or -1, finding, alignment of the two sentences)."""
Vectors = Callable[[Sequence[str]], npt.NDArray[np.float32]]

_ENUMERATED = re.compile(r"^\s*(?:\d+[.)]|[a-z][.)])\s")
_WORDS = re.compile(r"[a-z]+")
_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")
_ANSWER = re.compile(r"^\W*(?:no|yes|yeah|nope)\b[\s,.!:;-]*", re.I)
"""A leading "No," answers the user; it does not negate the sentence after it."""
_SETS_RIGHT = re.compile(r"\b(?:actually|in fact)\b", re.I)
"""A sentence that says it sets something right."""
_CORRECTS = re.compile(rf"{_SETS_RIGHT.pattern}|\b(?:correct(?:ly|ion)?|mistake|rather|"
                       r"instead|not|no longer)\b|n't\b", re.I)
"""A sentence that corrects: naming a different thing is then the point of it."""
_NEGATED = re.compile(r"\b(?:not|no|never|none|nothing|cannot|without)\b|n't\b", re.I)
_MIN_CONTENT_WORDS = 2
_PRONOUN_LED = re.compile(r"^\W*(?:it|that|this|they|these|those|he|she)\b", re.I)
"""A sentence about something named elsewhere: two of them in different turns sharing no
content word may well be about different things, and nothing in them says otherwise."""
_PERSONAL_LED = re.compile(r"^\W*(?:[Ii]t|[Tt]hey|[Hh]e|[Ss]he)\b")
_DUMMY_IT = re.compile(
    r"^\W*[Ii]t(?:(?:['’]s|\s+(?:is|was|will be|would be|can be|may be|might be|takes|took))"
    r"\s+(?:\S+\s+){0,4}?(?:to|that)\b|\s+(?:turns|turned) out\b|"
    r"\s+(?:seems|seemed|appears|appeared|looks|looked|sounds|sounded)\b|"
    r"(?:['’]s|\s+(?:is|was|has been|should be)) (?:said|reported|noted|known|worth)\b)")
"""An "it" that stands for what follows ("It is possible to bring dogs", "It turns out
the hotel costs...", "It seems the museum...")."""


def pronoun_led(sentence: str) -> bool:
    """The sentence names its subject only by a personal pronoun ("It offers an async
    client"); "This plan" and "That museum" name theirs, "It is possible to bring dogs"
    names it later, and "IT" is a department."""
    return bool(_PERSONAL_LED.match(sentence)) and not _DUMMY_IT.match(sentence)


@dataclass(frozen=True)
class VerdictStage:
    config: EngineConfig
    verifier: Verifier
    embed: Vectors

    def judge(
        self,
        state: ConversationState,
        turn: int,
        asserted: Sequence[tuple[str, str]],
        rule_findings: Sequence[Scored],
        subjects: Mapping[str, tuple[str, ...]] | None = None,
    ) -> list[Scored]:
        """Rule findings the verifier does not overrule, plus its own `nli` findings.

        `subjects` maps a sentence to the head words of its parsed subjects: two sentences
        whose subjects are all different ("the museum" / "the library") are not compared.
        """
        cfg = self.config
        sentences = [s[:SENTENCE_CHARS] for s, _ in asserted]
        heads = [(subjects or {}).get(s, ()) for s in sentences]
        candidates = self._candidates(state, turn, sentences, [c for _, c in asserted], heads)
        rule_pairs = [(f.claim.sentence, f.prior.sentence, f.prior.speaker)
                      for _, f, _ in rule_findings]
        pairs = list(dict.fromkeys(
            [*rule_pairs,
             *((sentences[c.index], c.prior.sentence, c.prior.speaker) for c in candidates)]))
        judged = self._verdicts(pairs, set(rule_pairs))
        out: list[Scored] = []
        for i, finding, alignment in rule_findings:
            verdict = judged[(finding.claim.sentence, finding.prior.sentence,
                              finding.prior.speaker)]
            if meaning.restated(verdict, cfg.verifier_entailment):
                continue  # both ways entailed: the rule misread a restatement
            confidence = meaning.combined_confidence(verdict, finding.confidence)
            out.append((i, replace(finding, confidence=confidence, verdict=verdict), alignment))
        covered = {(f.claim.sentence, f.prior.sentence) for _, f, _ in out} | {
            (a, b) for a, b, _ in rule_pairs}
        alone: list[Scored] = []
        for c in candidates:
            sentence = sentences[c.index]
            found = judged.get((sentence, c.prior.sentence, c.prior.speaker))
            if found is None or (sentence, c.prior.sentence) in covered or meaning.agrees(
                    found, cfg.verifier_entailment):
                continue
            floor = (cfg.verifier_user_certificate if c.prior.speaker == "user"
                     else cfg.verifier_certificate)
            if found.contradiction < floor or restates(
                    sentence, c.prior.sentence, c.similarity, cfg.verifier_paraphrase):
                continue
            covered.add((sentence, c.prior.sentence))
            alone.append((-1, _nli_finding(sentence, asserted[c.index][1], turn, c, found),
                          c.similarity))
        alone.sort(key=lambda f: -f[1].confidence)  # stable: ties keep candidate order
        return out + alone[: cfg.verifier_max_nli_per_turn]

    def _verdicts(
        self, pairs: list[tuple[str, str, str]], rule_pairs: set[tuple[str, str, str]]
    ) -> dict[tuple[str, str, str], PairVerdict]:
        """Both orders of the rules' pairs; of the others, the backward order only where the
        forward one leaves the mean within reach of `verifier_certificate` (the rest cannot
        become certificates, so half the verifier calls are saved on a typical turn)."""
        texts = [(a, meaning.in_assistant_voice(b) if speaker == "user" else b)
                 for a, b, speaker in pairs]
        forward = self.verifier.judge(texts)
        reach = 2 * self.config.verifier_certificate - 1
        need = [k for k, pair in enumerate(pairs)
                if pair in rule_pairs or forward[k].contradiction >= reach]
        backward = self.verifier.judge([(texts[k][1], texts[k][0]) for k in need])
        return {pairs[k]: PairVerdict(forward[k], judgement)
                for k, judgement in zip(need, backward, strict=True)}

    def _candidates(
        self, state: ConversationState, turn: int, sentences: list[str], contexts: list[str],
        heads: list[tuple[str, ...]],
    ) -> list[meaning.Candidate]:
        window = [a for a in state.assertions if a.turn < turn]
        if not window or not sentences:
            return []
        new_vecs = self.embed(sentences)
        window_vecs = self.embed([a.sentence for a in window])

        def allowed(i: int, prior: Assertion) -> bool:
            if heads[i] and prior.subjects and not set(heads[i]) & set(prior.subjects):
                return False  # "the museum is open" / "the library is closed"
            if prior.speaker == "assistant" and (
                    different_instructions(sentences[i], heads[i], prior.sentence,
                                           prior.subjects)
                    or instruction_against_statement(sentences[i], heads[i], prior.sentence,
                                                     prior.subjects)):
                return False  # "Chop the chocolate." / "Shape the filling into a log."
            if contexts[i] != prior.context and (
                    elided_subject(sentences[i], heads[i])
                    or elided_subject(prior.sentence, prior.subjects)):
                return False  # "Doesn't touch the system Python" under "pyenv"
            return comparable(state, turn, sentences[i], contexts[i], prior)

        found = meaning.nearest(new_vecs, window, window_vecs, self.config.verifier_top_k,
                                self.config.verifier_similarity, allowed)
        found.sort(key=lambda c: (-c.similarity, c.index, c.prior.turn))
        return found[: self.config.verifier_max_pairs]

    def remember(
        self, state: ConversationState, turn: int, speaker: str,
        asserted: Sequence[tuple[str, str]],
        subjects: Mapping[str, tuple[str, ...]] | None = None,
    ) -> None:
        """The turn's assertions join the window (a user's only about themselves)."""
        rows = [Assertion(turn, speaker, s[:SENTENCE_CHARS], c,
                          (subjects or {}).get(s[:SENTENCE_CHARS], ()))
                for s, c in asserted if speaker != "user" or cues.speaks_of_self(s)]
        state.add_assertions(rows, self.config.verifier_window)


_LEAD = re.compile(r"^[\W\d_]+")


def instruction(sentence: str, subjects: Sequence[str]) -> str | None:
    """The verb of an imperative ("Chop the chocolate" -> "chop"), or None.

    An imperative's subject is the person addressed, who is not named ("you should check"
    is a statement about them; "Let the soil dry out" has the soil as a second subject);
    its verb is its first word past adverbs and "don't".
    """
    found = _instruction(sentence, subjects)
    return found[0] if found is not None else None


_DENYING_LEAD = frozenset({"don't", "dont", "never", "not"})


def _instruction(sentence: str, subjects: Sequence[str]) -> tuple[str, bool] | None:
    """An imperative's verb, and whether a lead word denies it ("Don't cut back")."""
    if "user" not in subjects or cues.addresses_user(sentence):
        # "you" as a subject makes a statement ("You should check the soil"); "your" in
        # an instruction is its object's ("Gently rub her teeth with your finger")
        return None
    words = [w.strip(",.;:!*_`") for w in
             _LEAD.sub("", sentence).lower().replace("’", "'").split()]
    lead = cues.instruction_lead()
    at = next((k for k, w in enumerate(words) if w and w not in lead), None)
    if at is None:
        return None
    return words[at], bool(_DENYING_LEAD.intersection(words[:at]))


def different_instructions(sentence: str, subjects: Sequence[str], prior: str,
                           prior_subjects: Sequence[str]) -> bool:
    """Two steps of a procedure: instructions to do different things do not conflict
    ("Always check the soil first." / "Let the soil dry out completely."), nor do two
    that do one thing to different objects ("Serve with microwave rice." / "Serve it with
    vanilla ice cream."); the verifier, which learnt on statements, reads them as
    incompatible. "Don't cut back" and "Cut back" share their verb and are still
    compared. Both must be the assistant's: a user's "I don't drive" also has the user as
    its subject, and is no instruction."""
    ours, theirs = _instruction(sentence, subjects), _instruction(prior, prior_subjects)
    return ours is not None and theirs is not None and (ours[0] != theirs[0]
                                                        or ours[1] == theirs[1])


_OPENING = re.compile(r"^\W*([A-Za-z'’]+)")


def elided_subject(sentence: str, subjects: Sequence[str]) -> bool:
    """A sentence with no subject that opens with a finite verb ("Doesn't touch the system
    Python at all.", "Can offer a Roth option."): an item that leaves its subject to its
    heading. Under another heading, the other sentence may speak of anything else."""
    opening = _OPENING.match(sentence)
    return not subjects and opening is not None and (
        opening.group(1).lower().replace("’", "'") in cues.elided_lead())


_NAME_WORDS = 4
"""The most words of a label that names a thing ("Thai green curry")."""
_LABELLED = re.compile(r"^\W*([^:.!?—–]{1,40}?)(?:\W*:|\s+[—–])\s+\S")
"""A short label before a colon or a dash: "Thai green curry: ...", "Picnic lunch — ..."."""


def labels_differ(sentence: str, prior: str) -> bool:
    """Two labelled items whose labels share no word ("Cucumber sunomono: thinly sliced
    cucumber ..." / "Thai green curry: with jasmine rice"): two dishes, two options,
    whatever their descriptions say. "Note:" or "Tip:" names nothing (`generic_labels`),
    and a longer label is advice ("Use averted vision for faint objects: ...")."""
    labels = [_LABELLED.match(s) for s in (sentence, prior)]
    if labels[0] is None or labels[1] is None:
        return False
    names = [m.group(1).strip().lower() for m in labels if m is not None]
    if any(name in cues.generic_labels() or len(name.split()) > _NAME_WORDS
           for name in names):
        return False  # "Look slightly to the side: ..." is advice, not a name
    words = [cues.content_words(name) for name in names]
    return bool(words[0]) and bool(words[1]) and not words[0] & words[1]


def instruction_against_statement(sentence: str, subjects: Sequence[str], prior: str,
                                  prior_subjects: Sequence[str]) -> bool:
    """Advice and a statement of fact are different acts: "Keep the gravel mulch topped
    up." does not contradict "It hates sitting in wet soil", however the verifier, which
    learnt on statements, scores the pair. Both must be the assistant's (see above)."""
    return (instruction(sentence, subjects) is None) != (instruction(prior, prior_subjects)
                                                          is None)


def comparable(
    state: ConversationState, turn: int, sentence: str, context: str, prior: Assertion
) -> bool:
    """The structure's vetoes: pairs that are not about the same thing, whatever they say."""
    a, b = _normal(sentence), _normal(prior.sentence)
    if not a or not b or a == b or a in b or b in a:
        return False  # one statement and its own copy, or a piece of it
    if cues.different_scopes(context, prior.context):
        return False  # "Day 1" and "Day 2" items
    if aligned.numbered_names_differ(sentence, prior.sentence):
        return False  # "Class 4-2" / "Class 4-1"
    words, prior_words = cues.content_words(sentence), cues.content_words(prior.sentence)
    if min(len(words), len(prior_words)) < _MIN_CONTENT_WORDS:
        return False  # "Sure." / "Absolutely.": no claim to contradict
    if cues.answers_question(sentence) and cues.answers_question(prior.sentence) and (
            not _CORRECTS.search(sentence)):
        return False  # "The answer to the riddle is 'a bank'" after 'an echo': a new riddle
    if _PRONOUN_LED.match(sentence) and _PRONOUN_LED.match(prior.sentence) and not (
            words & prior_words):
        return False  # "That's normal for the beginning." / "That's a strong start!"
    if cues.describes_new_state(sentence) and state.changed_between(
            prior.turn, turn, words | prior_words, min_shared=1):
        return False  # "now the coin is tails up" after the user flipped it again
    if _numbers_may_differ(state, turn, sentence, prior):
        return False
    if denies_something_else(sentence, prior.sentence):
        return False  # "It will not bring the samples back" / "It carries instruments"
    if _ENUMERATED.match(sentence) and _ENUMERATED.match(prior.sentence):
        return False  # "2. Choose a location" / "3. Raise capital": items of a list
    if labels_differ(sentence, prior.sentence):
        return False  # "Cucumber sunomono: ..." / "Thai green curry: ...": two dishes
    if aligned.no_shared_name(sentence, prior.sentence) or (
            aligned.different_names(sentence, prior.sentence)
            and not _CORRECTS.search(sentence)):
        return False  # "Earth is 93 million miles from the Sun" / "Mars is 142 million..."
    return not state.changed_between(prior.turn, turn, words & prior_words)


def restates(sentence: str, prior: str, similarity: float, floor: float) -> bool:
    """A near paraphrase that changes no number and no polarity says the same thing:
    the verifier, trained on one-word swaps, reads "won the title" / "secured the title"
    as a contradiction; the embedding and the structure know better."""
    if similarity < floor:
        return False
    if sorted(a.surface for a in aligned.measured(sentence)) != sorted(
            a.surface for a in aligned.measured(prior)) or (
            _bare_numbers(sentence) != _bare_numbers(prior)):
        return False  # amounts, and bare numbers too: "the drinking age is 18" / "is 21"
    if aligned.different_names(sentence, prior):
        return False  # "composed by Mozart" / "composed by Beethoven"
    flipped = bool(_NEGATED.search(_ANSWER.sub("", sentence))) != bool(
        _NEGATED.search(_ANSWER.sub("", prior)))
    words = set(_WORDS.findall(sentence.lower())) - set(_WORDS.findall(prior.lower()))
    others = set(_WORDS.findall(prior.lower())) - set(_WORDS.findall(sentence.lower()))
    swapped = any(lexicon.are_antonyms(a, b) for a in words for b in others)  # open/closed
    # one change of polarity is a contradiction; two cancel ("don't take up much space" /
    # "take up little space": a negation and an antonym)
    return flipped == swapped


def _bare_numbers(sentence: str) -> list[float]:
    """The values of the sentence's bare numbers ("the drinking age is 18"), however
    written; numbers that name something ("step 3", "room 12", "version 2") or are part
    of a code ("a 2H pencil") are no values."""
    return sorted(q.value for q in quantities.parse_quantities(sentence)
                  if q.dimension == "number" and not sentence[q.end : q.end + 1].isalpha())


_SCOPE_END = re.compile(r"[,;:.!?()\[\]—–]|\s-\s|\b(?:but|because|since|so|although|while|"
                        r"whereas|which|as)\b", re.I)
_BARE_PREDICATE = 2
"""A negated scope with fewer content words than this ("is not happening") is a bare
predicate: the negation denies its whole clause."""


def denies_something_else(sentence: str, prior: str) -> bool:
    """One sentence denies something the other does not mention.

    A denial contradicts a statement of what it denies ("you won't pay interest on
    purchases" / "cards still charge interest on purchases"), not any positive sentence
    about the same subject: "Perseverance will not bring the samples back itself" says
    nothing against "Perseverance carries a suite of instruments". The verifier, trained
    on templated negations, reads the second kind as a contradiction too; here the words
    the negation governs (up to the end of its clause; the whole clause when that is a
    bare predicate, "is not happening") must occur in the other sentence.
    """
    a, b = _ANSWER.sub("", sentence), _ANSWER.sub("", prior)
    found_a, found_b = _NEGATED.search(a), _NEGATED.search(b)
    if bool(found_a) == bool(found_b):
        return False  # neither, or both deny: the verifier weighs it
    match, denial, other = (found_a, a, b) if found_a is not None else (found_b, b, a)
    assert match is not None  # exactly one of the two denies
    end = match.end()
    scope = _stems(_SCOPE_END.split(denial[end:])[0])
    if len(scope) < _BARE_PREDICATE:
        # "the investment into renewables is not happening": a bare predicate denies its
        # whole clause, subject included
        scope = _stems(_SCOPE_END.split(denial[:end])[-1]) | scope
    return not scope & _stems(other)


_STEM = 5


def _stems(text: str) -> set[str]:
    """Content words (plurals and verb endings already folded by `cues`), irregular plurals
    made singular, cut to their first five letters: "renewables" and "renewable",
    "investment" and "invest", "people" and "person" meet. A prefix, not a Porter stem
    (`monitor.quality.rouge` has one, but the engine does not import the quality layer):
    enough to say whether the other sentence mentions the denied thing at all."""
    return {quantities.singular(w)[:_STEM] for w in cues.content_words(text)}


def _numbers_may_differ(state: ConversationState, turn: int, sentence: str,
                        prior: Assertion) -> bool:
    """Two sentences with numbers whose numbers are free to differ: the verifier reads any
    two different numbers as a contradiction; the rules know when they are not one."""
    pair = (sentence, prior.sentence)
    if not any(aligned.amounts_in(s) for s in pair):
        return False
    if any(aligned.derived(s) or aligned.crowded(s) for s in pair):
        return True  # a worked calculation, or a list of values in one sentence
    ours, theirs = aligned.measured(sentence), aligned.measured(prior.sentence)
    if ours and theirs and not any(amounts.comparable(a, b) for a in ours for b in theirs):
        return True  # "a 40-minute ride" / "tickets from 15 EUR": different quantities
    if ours and theirs and all(aligned.two_prices(sentence, a, prior.sentence, b)
                               for a in ours for b in theirs if amounts.comparable(a, b)):
        return True  # "20 euros for adults" / "10 euros for children"; "daily" / "weekly";
        # "on weekends, ..." against a price said for every day
    if aligned.other_one(*pair) or _other_years(sentence, prior.sentence):
        return True  # "the previous generation"; "today ... back in 2022"
    return aligned.user_gave_amount(state.statements, prior.turn, turn)  # or a new plan


def _other_years(sentence: str, prior: str) -> bool:
    """The two sentences speak of different years: different time frames ("today ... back
    in 2022"), unless the new one says the old one again with "actually" and another
    year, its only number ("was actually released in 1994" after "was released in 1995"):
    then the year is what it corrects. "The harvest was actually quite good in 2020" after
    "poor in 2019" says something else of another year, and "actually had 55 staff in
    2021" after "had 40 staff in 2019" is a later count."""
    ours, theirs = cues.years(sentence), cues.years(prior)
    if ours == theirs:
        return False
    only_years = len(_NUMBER.findall(sentence)) == len(_NUMBER.findall(prior)) == 1
    said_again = cues.content_words(_SETS_RIGHT.sub("", sentence)) == cues.content_words(prior)
    return not (only_years and said_again and _SETS_RIGHT.search(sentence))


@lru_cache(maxsize=8192)
def _normal(sentence: str) -> str:
    """The sentence's words and numbers in lower case, punctuation and spacing aside.
    Cached: every remembered sentence is normalised again for each new one."""
    return " ".join("".join(ch if ch.isalnum() else " " for ch in sentence.lower()).split())


def _nli_finding(
    sentence: str, context: str, turn: int, candidate: meaning.Candidate, verdict: PairVerdict
) -> Finding:
    prior = candidate.prior
    shared = sorted(cues.content_words(sentence) & cues.content_words(prior.sentence))
    subject = " ".join(shared[:4])
    claim = sentence_fact(sentence, context, "assistant", turn, subject)
    old = sentence_fact(prior.sentence, prior.context, prior.speaker, prior.turn, subject)
    detail = f"verifier P(contradiction) {verdict.contradiction:.2f}"
    # "Deep yoga poses like hero pose or lotus." / "Swimming — freestyle or backstroke":
    # two items of lists that name different things, read by the verifier as one scene
    doubt = None if _stems(sentence) & _stems(prior.sentence) else (
        "the two sentences share no word: they may speak of different things")
    return Finding("nli", verdict.contradiction, claim, old, detail, verdict, doubt=doubt)


def sentence_fact(sentence: str, context: str, speaker: str, turn: int, subject: str) -> Fact:
    """A whole sentence as a claim, in the shape certificates quote."""
    return Fact(
        subject=subject, relation="states", object="", object_text="", negated=False,
        modality="asserted", speaker=speaker, turn=turn, sentence=sentence,
        predicate="states", prep="", time_scope=None, importance=1.0, context=context,
    )
