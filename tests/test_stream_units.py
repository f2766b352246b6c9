"""Stream pieces that need no broker: settings profile, metrics names, transport override."""

from __future__ import annotations

from prometheus_client import CollectorRegistry, generate_latest

from monitor.kafka.settings import StreamSettings, faust_profile_kwargs
from monitor.stream.metrics import ActiveConversations, Metrics


def test_local_broker_profile_is_off_by_default(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("SKG_LOCAL_BROKER_PROFILE", raising=False)
    settings = StreamSettings()
    assert settings.local_broker_profile is False
    assert faust_profile_kwargs(settings) == {"processing_guarantee": "at_least_once"}
    local = faust_profile_kwargs(settings.model_copy(update={"local_broker_profile": True}))
    assert local["producer_max_batch_size"] == 1
    assert local["broker_heartbeat_interval"] == 0.5


def test_env_prefix(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("SKG_BROKER", "kafka://k1:9092;kafka://k2:9092")
    monkeypatch.setenv("SKG_PARTITIONS", "8")
    settings = StreamSettings()
    assert settings.partitions == 8
    assert settings.bootstrap == "k1:9092,k2:9092"


def test_metrics_are_preinitialised_and_gauges_add_up() -> None:
    registry = CollectorRegistry()
    metrics = Metrics(registry)
    text = generate_latest(registry).decode()
    for name in ('skg_dead_letters_total{reason="not_utf8"} 0.0',
                 'skg_alerts_total{kind="trend"} 0.0',
                 'skg_certificates_total{detector="numeric",severity="page"} 0.0',
                 "skg_active_conversations 0.0"):
        assert name in text
    active = ActiveConversations(metrics, idle_window_s=60)
    active.touch("a", 0, 0.8, -0.02, True, now=100.0)
    active.touch("b", 1, 0.6, 0.01, False, now=100.0)
    active.touch("c", 2, None, 0.0, False, now=10.0)  # idle
    active.refresh(owned_partitions={0, 1, 2}, now=120.0)
    assert registry.get_sample_value("skg_active_conversations") == 2
    assert registry.get_sample_value("skg_sustained_decline_conversations") == 1
    assert abs(registry.get_sample_value("skg_active_conversations_level_sum") - 1.4) < 1e-9
    active.refresh(owned_partitions={1}, now=120.0)  # partition 0 revoked
    assert registry.get_sample_value("skg_active_conversations") == 1


def test_transport_choice_by_profile() -> None:
    """Real Kafka gets the seek-safe consumer too; only the fetch wait is local-only."""
    from monitor.stream.app import new_faust_app
    from monitor.stream.faust_fixes import (
        DurableTable,
        LocalBrokerTransport,
        MonitorTransport,
        SeekSafeConsumer,
    )

    app = new_faust_app(StreamSettings(local_broker_profile=True))
    assert isinstance(app.transport, LocalBrokerTransport)
    plain = new_faust_app(StreamSettings(local_broker_profile=False))
    assert isinstance(plain.transport, MonitorTransport)
    assert not isinstance(plain.transport, LocalBrokerTransport)
    for transport in (app.transport, plain.transport):
        assert issubclass(transport.Consumer, SeekSafeConsumer)
    assert plain.conf.Table is DurableTable
