"""Drift is relative to what the user asked; follow-up operations are judged by their operand."""

from __future__ import annotations

from monitor.contracts import TurnEvent, TurnScore
from monitor.engine.followup import operation_of, quoted_operand
from monitor.engine.state import ConversationState
from monitor.runner.build import build_engine

DAY_OF_DEAD = (
    "The Day of the Dead, or Dia de los Muertos, is a Mexican holiday where families honour "
    "their deceased loved ones. Families build altars with marigolds, candles and photos, "
    "and visit cemeteries to remember the dead with food and music."
)
OLYMPICS = (
    "At the 2020 Summer Olympics in Tokyo, the United States won the most gold medals, 39 "
    "in total, narrowly ahead of China with 38 gold medals."
)
BREAD = (
    "To bake sourdough bread, feed your starter the night before, mix flour, water and salt, "
    "let the dough rise for several hours, shape it, and bake it in a hot Dutch oven."
)
POINTS = (
    "Benefits of regular exercise:\n"
    "- It strengthens the heart and lowers blood pressure.\n"
    "- It improves sleep quality and mood.\n"
    "- It helps control body weight and builds muscle."
)
PARAGRAPH = (
    "Regular exercise strengthens the heart and lowers blood pressure, improves the quality "
    "of sleep and lifts the mood, and helps people control their weight while building "
    "muscle."
)


def scores(turns: list[tuple[str, str]]) -> list[TurnScore]:
    engine = build_engine()
    state = ConversationState(conversation_id="c")
    out = []
    for i, (role, text) in enumerate(turns):
        outcome = engine.process(state, TurnEvent(conversation_id="c", turn_index=i,
                                                  role=role, text=text))  # type: ignore[arg-type]
        if outcome.score is not None:
            out.append(outcome.score)
    return out


def test_user_topic_change_is_not_drift() -> None:
    _, second = scores([
        ("user", "What does the Day of the Dead in Mexico celebrate?"), ("assistant", DAY_OF_DEAD),
        ("user", "Which country won the most gold medals at the 2020 Olympics?"),
        ("assistant", OLYMPICS),
    ])
    assert second.topic_shift is True
    assert second.drift is False
    assert second.consistency >= 0.45


def test_assistant_leaving_the_question_is_drift() -> None:
    _, second = scores([
        ("user", "What does the Day of the Dead in Mexico celebrate?"), ("assistant", DAY_OF_DEAD),
        ("user", "Which country won the most gold medals at the 2020 Olympics?"),
        ("assistant", BREAD),
    ])
    assert second.drift is True


def test_staying_on_the_old_topic_after_a_user_topic_change_is_drift() -> None:
    _, second = scores([
        ("user", "Which country won the most gold medals at the 2020 Olympics?"),
        ("assistant", OLYMPICS),
        ("user", "How do I bake sourdough bread at home?"),
        ("assistant", DAY_OF_DEAD),
    ])
    assert second.topic_shift is True
    assert second.drift is True


def test_reformatting_follow_up_is_relevant() -> None:
    request = "Now turn those points into a single paragraph."
    _, faithful = scores([
        ("user", "What are the benefits of regular exercise?"), ("assistant", POINTS),
        ("user", request), ("assistant", PARAGRAPH),
    ])
    _, unfaithful = scores([
        ("user", "What are the benefits of regular exercise?"), ("assistant", POINTS),
        ("user", request), ("assistant", BREAD),
    ])
    assert faithful.operation == "reformat"
    assert faithful.local_relevance < 0.5  # the request's own words say little
    assert faithful.relevance >= 0.7
    assert faithful.drift is False
    assert unfaithful.relevance < 0.4
    assert faithful.quality > unfaithful.quality + 0.2


def test_quoted_text_is_the_operand() -> None:
    quoted = ('Summarise this: "Regular exercise strengthens the heart, lowers blood '
              'pressure, improves sleep and mood, and helps control weight."')
    (score,) = scores([("user", quoted), ("assistant", "Exercise is good for heart, sleep, "
                                                      "mood and weight control.")])
    assert score.operation == "summarise"
    assert score.relevance > score.local_relevance


def test_cues_come_from_the_data_file() -> None:
    assert operation_of("Can you rephrase that in simpler terms?") == "rephrase"
    assert operation_of("Please present this list as a table") == "reformat"
    assert operation_of("Keep going") == "continue"
    assert operation_of("What is the capital of France?") is None
    assert operation_of("I'm continuing my studies") is None  # word boundaries
    assert quoted_operand('Translate "the cat sat on the mat all day long today"') == (
        "the cat sat on the mat all day long today")
    assert quoted_operand('What does "carpe diem" mean?') is None


def test_topic_survives_the_stored_form() -> None:
    engine = build_engine()
    state = ConversationState(conversation_id="c")
    engine.process(state, TurnEvent(conversation_id="c", turn_index=0, role="user",
                                    text="What are the benefits of regular exercise?"))
    engine.process(state, TurnEvent(conversation_id="c", turn_index=1, role="assistant",
                                    text=POINTS))
    engine.process(state, TurnEvent(conversation_id="c", turn_index=2, role="user",
                                    text="Make it shorter."))
    restored = ConversationState.from_bytes(state.to_bytes())
    assert restored.topic.operation == "shorten"
    assert restored.topic.operand is not None and state.topic.operand is not None
    assert (restored.topic.operand == state.topic.operand).all()
    assert restored.to_bytes() == state.to_bytes()


def test_short_elliptical_request_is_judged_in_context() -> None:
    _, answer = scores([
        ("user", "Which drawing software should a complete beginner in digital art use?"),
        ("assistant", "Krita is free, runs on a PC and is friendly to beginners in digital "
                      "painting. Would you like a recommendation for a drawing tablet too?"),
        ("user", "Yes, please."),
        ("assistant", "For a beginner, the Wacom Intuos is an affordable drawing tablet that "
                      "works well with Krita for digital painting."),
    ])
    assert answer.local_relevance < 0.3  # "Yes, please." says nothing by itself
    assert answer.relevance >= 0.5
    assert answer.relevance > answer.local_relevance + 0.2
