"""Production Kafka settings: TLS and SASL reach aiokafka and Faust; topics are created
with their configs (on the real local broker).

The local test broker (tansu 0.6.0) cannot run a SASL or TLS test end to end: its SCRAM
users can only be created through a broker that does not require authentication, its only
storage here is in memory (so they cannot survive a restart into `--authentication` mode),
it offers no PLAIN, and its TLS listener did not complete a handshake with aiokafka. So the
client side is tested: what the settings turn into, on the real client objects.
"""

from __future__ import annotations

import shlex
import ssl
from pathlib import Path
from typing import Any

import certifi
import pytest
import typer
from aiokafka import AIOKafkaConsumer, AIOKafkaProducer
from aiokafka.admin import AIOKafkaAdminClient
from aiokafka.admin.config_resource import ConfigResource, ConfigResourceType

from monitor.kafka.security import aiokafka_security_kwargs, faust_credentials, topic_configs
from monitor.kafka.settings import StreamSettings
from monitor.stream.admin import CHANGELOG_CONFIGS
from tests.conftest import run, stream_settings

CA = Path(certifi.where())


def _scram(**extra: Any) -> StreamSettings:
    return StreamSettings(security_protocol="SASL_SSL", sasl_mechanism="SCRAM-SHA-512",
                          sasl_username="skg", sasl_password="s3cret", ssl_cafile=CA, **extra)


@pytest.mark.parametrize("make", [
    lambda kw: AIOKafkaProducer(bootstrap_servers="kafka:9093", **kw).client,
    lambda kw: AIOKafkaConsumer(bootstrap_servers="kafka:9093", **kw)._client,
    lambda kw: AIOKafkaAdminClient(bootstrap_servers="kafka:9093", **kw)._client,
])
def test_sasl_ssl_settings_reach_every_aiokafka_client(make: Any) -> None:
    async def build() -> Any:  # aiokafka clients want a running loop
        return make(aiokafka_security_kwargs(_scram()))

    client = run(build())
    assert client._security_protocol == "SASL_SSL"
    assert client._sasl_mechanism == "SCRAM-SHA-512"
    assert client._sasl_plain_username == "skg"
    assert client._sasl_plain_password == "s3cret"
    context = client._ssl_context
    assert isinstance(context, ssl.SSLContext) and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] > 0  # the CA file was loaded


@pytest.mark.parametrize("mechanism", ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_environment_variables_and_the_worker_credentials(monkeypatch: pytest.MonkeyPatch,
                                                          mechanism: str) -> None:
    from faust.transport.drivers.aiokafka import credentials_to_aiokafka_auth

    from monitor.stream.app import new_faust_app

    monkeypatch.setenv("SKG_SECURITY_PROTOCOL", "SASL_PLAINTEXT")
    monkeypatch.setenv("SKG_SASL_MECHANISM", mechanism)
    monkeypatch.setenv("SKG_SASL_USERNAME", "monitor")
    monkeypatch.setenv("SKG_SASL_PASSWORD", "pw")
    settings = StreamSettings()
    assert "pw" not in repr(settings)  # the password is a SecretStr
    app = new_faust_app(settings)
    auth = credentials_to_aiokafka_auth(app.conf.broker_credentials)
    assert auth == {"security_protocol": "SASL_PLAINTEXT", "sasl_mechanism": mechanism,
                    "sasl_plain_username": "monitor", "sasl_plain_password": "pw",
                    "ssl_context": None}
    assert aiokafka_security_kwargs(settings) == {
        k: v for k, v in auth.items() if k != "ssl_context"}


def test_readme_production_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    block = readme.split("### Production Kafka", 1)[1].split("```bash\n", 1)[1].split("```")[0]
    for line in block.splitlines():
        if line.startswith("export "):
            for word in shlex.split(line, comments=True)[1:]:
                name, value = word.split("=", 1)
                monkeypatch.setenv(name, str(CA) if name == "SKG_SSL_CAFILE" else value)
    kwargs = aiokafka_security_kwargs(StreamSettings())
    assert {k: v for k, v in kwargs.items() if k != "ssl_context"} == {
        "security_protocol": "SASL_SSL", "sasl_mechanism": "SCRAM-SHA-512",
        "sasl_plain_username": "skg-monitor", "sasl_plain_password": "change-me"}
    assert isinstance(kwargs["ssl_context"], ssl.SSLContext)
    assert StreamSettings().bootstrap == "kafka-1.example.com:9093"


def test_tls_only_and_plaintext() -> None:
    from faust.transport.drivers.aiokafka import credentials_to_aiokafka_auth

    tls = StreamSettings(security_protocol="SSL", ssl_cafile=CA, ssl_check_hostname=False)
    kwargs = aiokafka_security_kwargs(tls)
    assert kwargs["security_protocol"] == "SSL" and not kwargs["ssl_context"].check_hostname
    assert "sasl_mechanism" not in kwargs
    assert credentials_to_aiokafka_auth(faust_credentials(tls))["security_protocol"] == "SSL"
    assert aiokafka_security_kwargs(StreamSettings()) == {"security_protocol": "PLAINTEXT"}
    assert faust_credentials(StreamSettings()) is None


def test_sasl_without_a_login_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="SKG_SASL_USERNAME"):
        aiokafka_security_kwargs(StreamSettings(security_protocol="SASL_SSL"))


def test_command_flags_are_validated() -> None:
    from monitor.cli.stream import make_settings

    settings = make_settings("127.0.0.1:9093", None, security_protocol="SASL_SSL",
                             sasl_mechanism="SCRAM-SHA-256", sasl_username="u", ssl_cafile=CA)
    assert (settings.security_protocol, settings.sasl_mechanism, settings.sasl_username,
            settings.ssl_cafile) == ("SASL_SSL", "SCRAM-SHA-256", "u", CA)
    with pytest.raises(typer.BadParameter, match="sasl_mechanism"):
        make_settings(None, None, sasl_mechanism="GSSAPI")


def test_topic_configs() -> None:
    settings = StreamSettings(retention_ms=86_400_000)
    assert topic_configs(settings, settings.changelog_topic) == {"cleanup.policy": "compact"}
    assert topic_configs(settings, "skg.scores") == {"retention.ms": "86400000"}
    assert topic_configs(StreamSettings(), "skg.scores") == {}


@pytest.mark.broker
def test_topics_are_created_with_partitions_compaction_and_retention(broker: str) -> None:
    from monitor.stream.admin import ensure_topics_async

    settings = stream_settings(broker, partitions=3, retention_ms=3_600_000)

    async def describe() -> tuple[Any, dict[str, Any]]:
        await ensure_topics_async(settings)
        admin = AIOKafkaAdminClient(bootstrap_servers=settings.bootstrap)
        await admin.start()
        try:
            configs = await admin.describe_configs([
                ConfigResource(ConfigResourceType.TOPIC, name)
                for name in settings.all_topics()])
            described = await admin.describe_topics(settings.all_topics())
        finally:
            await admin.close()
        partitions = {t["topic"]: len(t["partitions"]) for t in described}
        return configs, partitions

    configs, partitions = run(describe())
    entries = {resource[3]: {e[0]: e[1] for e in resource[4]}
               for response in configs for resource in response.resources}
    assert entries[settings.changelog_topic] == CHANGELOG_CONFIGS  # compacted, kept for ever
    assert entries[settings.epoch_topic] == CHANGELOG_CONFIGS
    for name in settings.all_topics():
        assert partitions[name] == 3, name
        if name not in (settings.changelog_topic, settings.epoch_topic):
            assert entries[name] == {"retention.ms": "3600000"}, name
