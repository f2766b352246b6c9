"""TLS and SASL for every Kafka client of the monitor, from `StreamSettings`.

One translation for all of them: the worker (Faust, `faust_credentials`), and the plain
aiokafka clients of replay, consume, topic creation, the OTLP receiver and
`monitor.client` (`aiokafka_security_kwargs`). SASL mechanisms: PLAIN, SCRAM-SHA-256 and
SCRAM-SHA-512; TLS with a CA file, optionally a client certificate (mutual TLS).
"""

from __future__ import annotations

import ssl
from typing import Any

from monitor.kafka.settings import StreamSettings


def uses_tls(settings: StreamSettings) -> bool:
    return settings.security_protocol in {"SSL", "SASL_SSL"}


def uses_sasl(settings: StreamSettings) -> bool:
    return settings.security_protocol in {"SASL_PLAINTEXT", "SASL_SSL"}


def ssl_context(settings: StreamSettings) -> ssl.SSLContext | None:
    """The TLS context for SSL / SASL_SSL (system CAs unless `ssl_cafile`), else None."""
    if not uses_tls(settings):
        return None
    from aiokafka.helpers import create_ssl_context

    password = settings.ssl_key_password.get_secret_value() if settings.ssl_key_password \
        else None
    context = create_ssl_context(
        cafile=str(settings.ssl_cafile) if settings.ssl_cafile else None,
        certfile=str(settings.ssl_certfile) if settings.ssl_certfile else None,
        keyfile=str(settings.ssl_keyfile) if settings.ssl_keyfile else None,
        password=password)
    context.check_hostname = settings.ssl_check_hostname
    return context


def _sasl_login(settings: StreamSettings) -> tuple[str, str]:
    if not settings.sasl_username or settings.sasl_password is None:
        raise ValueError(f"{settings.security_protocol} needs SKG_SASL_USERNAME (or "
                         "--sasl-username) and SKG_SASL_PASSWORD")
    return settings.sasl_username, settings.sasl_password.get_secret_value()


def aiokafka_security_kwargs(settings: StreamSettings) -> dict[str, Any]:
    """Keyword arguments for AIOKafkaProducer / AIOKafkaConsumer / AIOKafkaAdminClient."""
    kwargs: dict[str, Any] = {"security_protocol": settings.security_protocol}
    context = ssl_context(settings)
    if context is not None:
        kwargs["ssl_context"] = context
    if uses_sasl(settings):
        username, password = _sasl_login(settings)
        kwargs.update(sasl_mechanism=settings.sasl_mechanism, sasl_plain_username=username,
                      sasl_plain_password=password)
    return kwargs


def faust_credentials(settings: StreamSettings) -> Any:
    """Faust's `broker_credentials` for the same settings (None for PLAINTEXT)."""
    import faust

    context = ssl_context(settings)
    if uses_sasl(settings):
        username, password = _sasl_login(settings)
        creds = faust.SASLCredentials(username=username, password=password,
                                      ssl_context=context, mechanism=settings.sasl_mechanism)
        return creds
    if context is not None:
        return faust.SSLCredentials(context)
    return None


def topic_configs(settings: StreamSettings, topic: str) -> dict[str, str]:
    """Per-topic configs for topic creation: the changelog is compacted (it holds the
    latest state per conversation, so compaction keeps exactly what recovery needs);
    the other topics get `retention_ms` when it is set."""
    if topic == settings.changelog_topic:
        return {"cleanup.policy": "compact"}
    if settings.retention_ms is not None:
        return {"retention.ms": str(settings.retention_ms)}
    return {}
