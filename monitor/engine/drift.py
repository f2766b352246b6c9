"""Topic following and drift, relative to what the *user* asked.

The reference anchors a conversation at its first answer and calls every answer far from it
"drift". In real conversations the user changes topic ("I love romance novels too - any
recommendations?") and an assistant that follows is doing its job. Here the topic is led by
the user:

* a user turn that is not a follow-up operation, has at least `context_request_words`
  words and is far from the current topic (cosine below
  `EngineConfig.topic_shift_similarity` to both the topic and the last answer) *moves* the
  topic to itself, and the next answer starts a new consistency segment (it becomes the
  session anchor, as the first answer of a conversation does);
* otherwise the user turn and every on-topic answer are blended into the topic (an
  exponential moving average of unit vectors, weight `topic_blend`), so the topic is a
  single bounded vector whatever the conversation's length;
* an answer *drifts* when it is related to none of what was asked: not to the request
  (best sentence), not to the user-led topic, not to the operand of a follow-up operation
  (the previous answer or quoted text) -- all below `drift_similarity` -- and its new graph
  nodes are poorly anchored (`drift_consistency`). The assistant left what was asked.

`TopicState` is declared state; `engine.state` stores it (four vectors at most, bounded).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from monitor.config import EngineConfig

Vector = npt.NDArray[np.float32]


def _unit(vec: Vector) -> Vector:
    norm = float(np.linalg.norm(vec))
    return (vec / norm).astype(np.float32) if norm > 0 else vec.astype(np.float32)


def _cos(a: Vector | None, b: Vector | None) -> float | None:
    return float(a @ b) if a is not None and b is not None else None


@dataclass
class TopicState:
    topic: Vector | None = None
    """User-led topic: EMA of the current segment's requests and on-topic answers."""
    last_answer: Vector | None = None
    """Embedding of the previous assistant answer: the default operand of a follow-up."""
    operand: Vector | None = None
    """What the pending follow-up operation applies to (None when no operation is pending)."""
    operation: str | None = None
    shifted: bool = False
    """The user moved the topic since the last answer."""

    # --- user turns -------------------------------------------------------------------
    def observe_user(self, request: Vector, words: int, operation: str | None,
                     quoted: Vector | None, config: EngineConfig) -> None:
        if operation is not None:
            self.operation = operation
            self.operand = quoted if quoted is not None else self.last_answer
            return
        if self.topic is None:
            self.topic = _unit(request)
            return
        closest = max(v for v in (_cos(request, self.topic), _cos(request, self.last_answer))
                      if v is not None)
        # a request of a few words ("Yes, please.") is too little evidence of a new topic
        if closest < config.topic_shift_similarity and words >= config.context_request_words:
            self.topic = _unit(request)
            self.shifted = True
        else:
            self.topic = _unit((1 - config.topic_blend) * self.topic
                               + config.topic_blend * request)

    # --- assistant turns ----------------------------------------------------------------
    def operand_similarity(self, response: Vector) -> float | None:
        """Cosine of the answer to the pending operation's operand (None without one)."""
        return _cos(response, self.operand) if self.operation is not None else None

    def context_similarity(self, response: Vector) -> float | None:
        """Cosine of the answer to the thread (the user-led topic), unless the user has just
        moved the topic: what a short, elliptical request ("Yes, please.", "Inception.")
        asks for is the thread it continues, not its own few words."""
        return None if self.shifted else _cos(response, self.topic)

    def relatedness(self, response: Vector, request_match: float | None) -> float:
        """The best match of the answer to anything the user asked for (request, topic,
        operand); 1.0 when nothing was asked yet."""
        values = [v for v in (request_match, _cos(response, self.topic),
                              self.operand_similarity(response)) if v is not None]
        return max(values) if values else 1.0

    def observe_answer(self, response: Vector, drift: bool, config: EngineConfig) -> None:
        """Remember the answer as the next operand; an on-topic answer enriches the topic."""
        if not drift:
            self.topic = (_unit(response) if self.topic is None else
                          _unit((1 - config.topic_blend) * self.topic
                                + config.topic_blend * response))
        self.last_answer = _unit(response)
        self.operand = None
        self.operation = None
        self.shifted = False


def is_drift(assistant_turns: int, anchoring: float, relatedness: float,
             config: EngineConfig) -> bool:
    """Drift: not the first answer, new nodes poorly anchored, and unrelated to the ask."""
    return (assistant_turns > 0 and anchoring < config.drift_consistency
            and relatedness < config.drift_similarity)
