"""Long Markdown answers for the engine benchmark, generated from a seed.

Real assistants answer in Markdown: headings, bulleted and numbered lists, bold labels,
inline code, tables, the odd fenced code block. MT-Bench-101's answers are short (218
characters median), so they do not show what a long answer costs. These answers are
written by a fixed grammar, never copied from real data: a trip plan or a software how-to
of 500-1,500 words whose sentences carry what the extractor picks up (prices, times,
places, versions), so the parser, the embedder and the detectors all do their work.

`long_answer(seed)` is one answer; `generate_long_workload` interleaves conversations turn
by turn (a short user question, then a long answer), as they would arrive on a topic.
The same seed gives the same text on every machine (`random.Random` only).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from monitor.contracts import Role, TurnEvent

MIN_WORDS = 500
MAX_WORDS = 1_500
_FILL_MAX_WORDS = 25
"""No filler sentence is longer: the answer then ends within 25 words under its target."""

_CITIES = ["Lisbon", "Porto", "Madrid", "Seville", "Valencia", "Lyon", "Rome", "Naples",
           "Vienna", "Prague", "Krakow", "Dublin", "Oslo", "Bergen", "Ghent", "Bruges"]
_PLACES = ["castle", "cathedral", "market", "museum", "harbour", "old town", "botanical garden",
           "river walk", "viewpoint", "palace", "food hall", "science centre", "beach",
           "monastery", "opera house", "covered bridge"]
_FOODS = ["grilled sardines", "custard tarts", "seafood rice", "dumplings", "goulash",
          "a cheese board", "roast chicken", "fresh pasta", "waffles", "a vegetable stew"]
_ADJECTIVES = ["quiet", "busy", "cheap", "expensive", "crowded", "peaceful", "popular",
               "small", "large", "modern", "historic", "bright", "steep", "pleasant"]
_TOOLS = ["pip", "git", "docker", "make", "pytest", "uv", "npm", "cargo", "kubectl", "curl"]
_LIBS = ["requests", "numpy", "pandas", "fastapi", "sqlalchemy", "pydantic", "httpx", "rich"]
_FILES = ["config.yaml", "settings.toml", "main.py", "app.py", ".env", "Dockerfile",
          "requirements.txt", "pyproject.toml"]
_FLAGS = ["--verbose", "--dry-run", "--force", "--quiet", "--no-cache", "--upgrade"]
_TECH_TOPICS = ["a small web service", "a data pipeline", "a command-line tool",
                "a test suite", "a background worker", "a reporting job"]

_TRAVEL_SENTENCES = [
    "The {p} in {c} opens at {h}:{m:02d} and a ticket costs {n} euros.",
    "Most visitors spend about {k} minutes at the {p}, which is {a} in the morning.",
    "From the {p} it is a {k}-minute walk to the {p2}.",
    "Lunch near the {p} costs around {s} euros if you order {f}.",
    "The {p2} is {a2} on weekends, so go early if you can.",
    "A day pass for the metro in {c} costs {s} euros and covers every zone.",
    "The {p} closes at {h2}:00 on Mondays.",
    "You can buy tickets for the {p} online, which saves about {k} minutes in the queue.",
    "Dinner at a family restaurant near the {p2} usually costs {n} euros for two people.",
    "The view from the {p} is best at sunset, around {h2}:30.",
]
_TECH_SENTENCES = [
    "Run `{t} install {l}` before you start, so that version {v} is available.",
    "Put the settings in `{fi}` and keep secrets out of version control.",
    "The `{fl}` flag prints what would change without changing anything.",
    "Version {v} of `{l}` needs Python 3.{py} or newer.",
    "Each request takes about {k} milliseconds on a laptop with {g} GB of memory.",
    "Call `{l}.{fn}()` once at start-up rather than on every request.",
    "The test suite has {n} tests and runs in about {k} seconds.",
    "If `{t}` reports a conflict, pin `{l}` to version {v} in `{fi}`.",
    "The default timeout is {k} seconds, which is too short for large uploads.",
    "Logs go to standard error, so `{t} {fl}` shows them in the terminal.",
]
_STEPS = ["Install", "Configure", "Test", "Run", "Deploy"]
_FUNCS = ["connect", "load", "configure", "setup", "init", "open_session", "read_config"]


def word_count(text: str) -> int:
    """Whitespace-separated tokens holding a letter or digit: Markdown marks ("#", "|",
    "-", "```") are not words."""
    return sum(1 for token in text.split() if any(ch.isalnum() for ch in token))


def _values(rng: random.Random) -> dict[str, object]:
    return {
        "c": rng.choice(_CITIES), "p": rng.choice(_PLACES), "p2": rng.choice(_PLACES),
        "a": rng.choice(_ADJECTIVES), "a2": rng.choice(_ADJECTIVES), "f": rng.choice(_FOODS),
        "h": rng.randrange(8, 12), "h2": rng.randrange(17, 22), "m": rng.choice([0, 15, 30]),
        "n": rng.randrange(5, 120), "s": rng.randrange(3, 40), "k": rng.randrange(5, 90),
        "t": rng.choice(_TOOLS), "l": rng.choice(_LIBS), "fi": rng.choice(_FILES),
        "fl": rng.choice(_FLAGS), "v": f"{rng.randrange(1, 6)}.{rng.randrange(0, 20)}",
        "py": rng.randrange(9, 13), "g": rng.choice([8, 16, 32]), "fn": rng.choice(_FUNCS),
    }


def _sentence(rng: random.Random, pool: list[str]) -> str:
    return rng.choice(pool).format(**_values(rng))


def _paragraph(rng: random.Random, pool: list[str]) -> str:
    return " ".join(_sentence(rng, pool) for _ in range(rng.randrange(2, 5)))


def _bullets(rng: random.Random, pool: list[str], numbered: bool) -> str:
    lines = []
    for i in range(rng.randrange(3, 7)):
        mark = f"{i + 1}." if numbered else "-"
        label = f"**{rng.choice(['Morning', 'Afternoon', 'Evening', 'Tip', 'Note', 'Step'])}:** "
        lines.append(f"{mark} {label if rng.random() < 0.5 else ''}{_sentence(rng, pool)}")
    return "\n".join(lines)


def _table(rng: random.Random, travel: bool) -> str:
    if travel:
        head = "| Place | Opens | Price |\n|---|---|---|"
        rows = [f"| {rng.choice(_PLACES).title()} | {rng.randrange(8, 12)}:00 | "
                f"{rng.randrange(0, 30)} euros |" for _ in range(rng.randrange(3, 6))]
    else:
        head = "| Tool | Version | Purpose |\n|---|---|---|"
        rows = [f"| `{rng.choice(_TOOLS)}` | {rng.randrange(1, 6)}.{rng.randrange(0, 20)} | "
                f"{rng.choice(['install', 'test', 'build', 'deploy', 'format'])} |"
                for _ in range(rng.randrange(3, 6))]
    return "\n".join([head, *rows])


def _code_block(rng: random.Random) -> str:
    lib, fn = rng.choice(_LIBS), rng.choice(_FUNCS)
    return "\n".join(["```python", f"import {lib}", "",
                      f"client = {lib}.{fn}(timeout={rng.randrange(5, 60)})",
                      f"print(client)  # {rng.choice(_FILES)}", "```"])


def long_answer(seed: int, min_words: int = MIN_WORDS, max_words: int = MAX_WORDS) -> str:
    """One Markdown answer of `min_words`..`max_words` words (`word_count`).

    Blocks (sections, lists, tables, code) are added while they fit under a target drawn
    from the range; one-sentence paragraphs (at most 25 words each) then fill up to it.
    """
    rng = random.Random(seed)
    travel = rng.random() < 0.5
    pool = _TRAVEL_SENTENCES if travel else _TECH_SENTENCES
    target = rng.randrange(min_words + _FILL_MAX_WORDS, max_words + 1)
    topic = (f"a trip to {rng.choice(_CITIES)}" if travel
             else f"setting up {rng.choice(_TECH_TOPICS)}")
    parts = [f"# {topic[0].upper()}{topic[1:]}", _paragraph(rng, pool)]
    blocks: list[Callable[[], str]] = [
        lambda: _paragraph(rng, pool),
        lambda: _bullets(rng, pool, numbered=False),
        lambda: _bullets(rng, pool, numbered=True),
        lambda: _table(rng, travel),
        lambda: _code_block(rng) if not travel else _paragraph(rng, pool),
    ]
    words = sum(word_count(p) for p in parts)
    section = 0
    while True:
        section += 1
        heading = (f"## Day {section}: {rng.choice(_PLACES).title()}" if travel
                   else f"## Step {section}: {rng.choice(_STEPS)}")
        body = [heading] + [rng.choice(blocks)() for _ in range(rng.randrange(1, 4))]
        size = sum(word_count(b) for b in body)
        if words + size > target:
            break
        parts.extend(body)
        words += size
    while words < target - _FILL_MAX_WORDS:
        sentence = _sentence(rng, pool)
        parts.append(sentence)
        words += word_count(sentence)
    return "\n\n".join(parts) + "\n"


_QUESTIONS_TRAVEL = ["Can you plan {d} days in {c} for me?", "What should I see in {c}?",
                     "Could you make that plan cheaper?", "What about the evenings?"]
_QUESTIONS_TECH = ["How do I set up {t} for a new project?", "Can you explain the steps again?",
                   "What should go in the config file?", "How do I test it?"]


def generate_long_conversation(cid: str, answers: int, seed: int) -> list[TurnEvent]:
    """A short question, then a long answer, `answers` times."""
    rng = random.Random(seed)
    events = []
    for i in range(2 * answers):
        role: Role = "user" if i % 2 == 0 else "assistant"
        if role == "user":
            pool = _QUESTIONS_TRAVEL if rng.random() < 0.5 else _QUESTIONS_TECH
            text = rng.choice(pool).format(d=rng.randrange(2, 6), c=rng.choice(_CITIES),
                                           t=rng.choice(_TOOLS))
        else:
            text = long_answer(rng.randrange(2**31))
        events.append(TurnEvent(conversation_id=cid, turn_index=i, role=role, text=text))
    return events


def generate_long_workload(conversations: int, answers: int, seed: int = 17) -> list[TurnEvent]:
    """Conversations of long answers, interleaved turn by turn."""
    convs = [generate_long_conversation(f"long-{i:04d}", answers, seed * 100_003 + i)
             for i in range(conversations)]
    return [conv[t] for t in range(2 * answers) for conv in convs]
