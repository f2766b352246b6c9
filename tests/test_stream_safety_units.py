"""Stream safety pieces that need no broker: private web settings, the token check, the
state header and TTL selection, the changelog's topic config, work caps."""

from __future__ import annotations

from monitor.config import EngineConfig
from monitor.contracts import Document, TurnEvent
from monitor.engine.bounds import bound_event, most_confident, prefix
from monitor.kafka.settings import StreamSettings
from monitor.stream import expiry
from monitor.stream.admin import new_topic
from monitor.stream.http import PRIVATE_WEB, token_matches


def test_web_is_private_by_default(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from monitor.stream.app import new_faust_app

    monkeypatch.delenv("SKG_WEB_BIND", raising=False)
    monkeypatch.delenv("SKG_API_TOKEN", raising=False)
    settings = StreamSettings()
    assert settings.web_bind == "127.0.0.1" and settings.api_token is None
    app = new_faust_app(settings)
    assert app.conf.web_bind == "127.0.0.1"
    for name in PRIVATE_WEB:
        assert getattr(app.conf, name) is False, name


def test_token_check() -> None:
    assert token_matches("Bearer abc", "abc")
    assert not token_matches("Bearer abd", "abc")
    assert not token_matches("abc", "abc")
    assert not token_matches(None, "abc")
    assert not token_matches("Basic abc", "abc")


def test_state_header_round_trip_and_expiry() -> None:
    raw = expiry.pack(b"\x78state", 3, 1000.0)
    assert expiry.unpack(raw) == (b"\x78state", 3, 1000.0)
    assert expiry.unpack(b"\x78old") == (b"\x78old", None, None)
    first_seen: dict[bytes, float] = {}
    items = [(b"old", expiry.pack(b"s1", 0, 1000.0)), (b"new", expiry.pack(b"s2", 1, 1095.0)),
             (b"legacy", b"\x78s3")]
    assert expiry.expired(items, 60.0, 1100.0, first_seen) == [(b"old", b"s1", 0)]
    assert first_seen == {b"legacy": 1100.0}


def test_changelog_is_created_compacted() -> None:
    settings = StreamSettings()
    changelog = new_topic(settings, settings.changelog_topic)
    assert changelog.topic_configs["cleanup.policy"] == "compact"
    assert changelog.topic_configs["retention.ms"] == "-1"
    assert new_topic(settings, settings.topic_turns).topic_configs == {}


def test_work_caps_cut_and_count() -> None:
    config = EngineConfig(max_scored_chars=100, max_documents_scored=2, max_document_chars=100)
    text = "One sentence here. " * 20
    event = TurnEvent(conversation_id="c", turn_index=1, role="assistant", text=text,
                      documents=[Document(id=str(i), text=text) for i in range(5)])
    bounded, cut = bound_event(event, config)
    assert len(bounded.text) <= 100 and bounded.text.endswith(".")
    assert bounded.documents is not None and len(bounded.documents) == 2
    assert cut["documents"] == 3
    assert cut["text_chars"] == (len(text) - len(bounded.text)) * 3
    assert bound_event(event.model_copy(update={"text": "short", "documents": None}),
                       config) == (event.model_copy(update={"text": "short",
                                                            "documents": None}), {})
    assert prefix("abc", 10) == "abc"
    assert most_confident(["a", "b", "c", "d"], 2, [0.5, 0.9, 0.5, 0.7]) == ["b", "d"]
