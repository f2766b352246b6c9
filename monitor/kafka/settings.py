"""One typed settings object for the streaming worker (environment prefix `SKG_`).

Every knob of the worker, the replay and the benchmarks comes from here; CLI flags override
fields with `settings.model_copy(update=...)`. The tansu test-broker workarounds live in
`faust_profile_kwargs()` below and nowhere else, and are off unless `local_broker_profile`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from monitor.inputs import MAX_MESSAGE_BYTES


class StreamSettings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SKG_", extra="ignore")

    broker: str = "kafka://localhost:9092"
    app_id: str = "skg-monitor"
    topic_turns: str = "skg.turns"
    topic_scores: str = "skg.scores"
    topic_certificates: str = "skg.certificates"
    topic_alerts: str = "skg.alerts"
    topic_dead_letter: str = "skg.dead-letter"
    partitions: int = Field(default=4, ge=1)
    replication_factor: int = Field(default=1, ge=1)
    store: str = "rocksdb://"
    data_dir: Path = Path("data")
    web_bind: str = "127.0.0.1"
    """Private by default; set 0.0.0.0 (in a container, behind a network policy) to expose."""
    api_token: SecretStr | None = None
    """When set, /conversations/* requires `Authorization: Bearer <token>` (monitor.stream.http)."""
    web_host: str | None = None  # advertised host for routing; None: the node's hostname
    web_port: int = 6066
    batch_size: int = Field(default=64, ge=1)
    batch_within_s: float = Field(default=0.01, gt=0)
    """How long a micro-batch waits for more turns unless `batch_size` arrive first. Faust's
    `take_events` starts this wait afresh after every batch, even with turns queued, so
    below saturation it is latency and idle engine time. Half rate, one worker, four paired
    replays: p50 274/296/252/264 ms at 0.05 s, 173/141/195/172 at 0.01; at full rate
    (`bench stream`, one run each) 54.9 -> 52.0 assistant turns/s, within the spread
    between runs (docs/notes/issue-20.md, stop 15)."""
    idle_window_s: float = Field(default=900.0, gt=0)
    live_states: int = Field(default=2_000, ge=0)
    """Decoded conversation states kept in memory between batches (see app.LiveStates)."""
    full_collection_every_s: float = Field(default=300.0, ge=0)
    """How often the garbage collector walks the whole heap, between two batches; in between,
    each batch's survivors are frozen out of its sight (monitor.stream.collector). 0 leaves
    Python's own schedule, which starts such a walk in the middle of a batch."""
    stop_grace_s: float = Field(default=5.0, gt=0)
    """When the worker stops, how long a batch in flight may take to finish before it is
    cancelled (its offsets are then not committed: it is processed again after restart)."""
    max_message_bytes: int = Field(default=MAX_MESSAGE_BYTES, ge=1)
    state_ttl_s: float = Field(default=86_400.0, ge=0)
    """A conversation idle this long is summarised and deleted (monitor.stream.expiry);
    0 keeps states for ever."""
    state_sweep_s: float = Field(default=300.0, gt=0)
    """How often the TTL sweep reads the local table (every value: keep it infrequent)."""
    recovery_stall_s: float = Field(default=60.0, gt=0)
    """A changelog partition that gives no record this long during table recovery, while
    more are due, is stalled (monitor.stream.recovery: caught up past a gap, else sought
    again, and after three seeks recovery goes on without the records it cannot read)."""
    dead_letter_max_bytes: int = Field(default=64 * 1024, ge=1024)
    """Longest copy of a rejected value inside its dead letter (monitor.stream.letters)."""
    local_broker_profile: bool = False
    # --- paging through Alertmanager (monitor.stream.alertmanager); off without a URL ---
    alertmanager_url: str | None = None
    """Alertmanager base URL (e.g. http://alertmanager:9093); alerts go to /api/v2/alerts."""
    public_url: str | None = None
    """Base URL of the workers' HTTP views, for the link to the conversation in each alert."""
    alert_labels: dict[str, str] = Field(default_factory=dict)
    """Deployment labels on every alert, e.g. SKG_ALERT_LABELS='{"env": "prod"}'."""
    alert_warn_certificates: bool = False
    alert_max_per_conversation_hour: int = Field(default=10, ge=1)
    alert_repost_s: float = Field(default=60.0, gt=0)
    alert_ttl_s: float = Field(default=300.0, gt=0)
    """endsAt of each post is now + this: an alert nobody re-posts resolves by itself."""
    alert_certificate_hold_s: float = Field(default=3600.0, gt=0)
    alert_queue_size: int = Field(default=1_000, ge=1)
    # --- production Kafka: TLS and SASL (monitor.kafka.security turns these into client
    # settings); the password only from the environment (SKG_SASL_PASSWORD), never a flag
    security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    sasl_mechanism: Literal["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] = "PLAIN"
    sasl_username: str | None = None
    sasl_password: SecretStr | None = None
    ssl_cafile: Path | None = None
    ssl_certfile: Path | None = None  # client certificate (mutual TLS)
    ssl_keyfile: Path | None = None
    ssl_key_password: SecretStr | None = None
    ssl_check_hostname: bool = True
    # --- OpenTelemetry out: base URL of an OTLP/HTTP endpoint (e.g. http://collector:4318)
    otlp_endpoint: str | None = None
    # --- OpenTelemetry in (`skg-monitor otlp-receiver`)
    otlp_token: SecretStr | None = None
    """When set, POST /v1/traces requires `Authorization: Bearer <token>` (an exporter's
    `OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer <token>"`); /metrics and /healthz
    stay open."""
    # --- topics as `ensure_topics` creates them (partitions/replication_factor above)
    retention_ms: int | None = Field(default=None, ge=-1)
    """retention.ms of turns, outputs and dead letters; None: the broker's default."""

    @property
    def table_name(self) -> str:
        return "states"

    @property
    def changelog_topic(self) -> str:
        return f"{self.app_id}-{self.table_name}-changelog"

    @property
    def bootstrap(self) -> str:
        """host:port list for aiokafka clients, from a faust URL such as kafka://h:p."""
        return ",".join(part.split("://", 1)[-1] for part in self.broker.split(";"))

    @property
    def epoch_topic(self) -> str:
        """Holds the broker's epoch id (monitor.stream.epoch)."""
        return f"{self.app_id}-broker-epoch"

    def all_topics(self) -> list[str]:
        return [self.topic_turns, self.topic_scores, self.topic_certificates,
                self.topic_alerts, self.topic_dead_letter, self.changelog_topic,
                self.epoch_topic]


#: consumer fetch wait under the local profile: tansu does not wake waiting fetches, so a
#: long wait is pure latency.
LOCAL_FETCH_MAX_WAIT_MS = 20


def faust_profile_kwargs(settings: StreamSettings) -> dict[str, Any]:
    """Faust app settings of the selected broker profile: the ONE place for broker quirks.

    Real Kafka (default): Faust's own defaults, at-least-once.
    Local tansu broker (`local_broker_profile`):
      * short session timeout and heartbeat, else the first group join takes ~30 s;
      * one record per produce batch: tansu reports a wrong log-end offset for
        multi-record batches, which breaks table (changelog) recovery;
      * at_least_once, as tansu has no transactions / idempotent producer;
      * a short consumer fetch_max_wait_ms: Faust hard-codes 1500 ms in
        `AIOKafkaConsumerThread._create_worker_consumer`; `monitor.stream.app` swaps in a
        transport whose consumer thread overrides it (`faust_fixes.LocalBrokerTransport`).
    Topics are always created explicitly (`monitor.stream.admin.ensure_topics`).
    """
    kwargs: dict[str, Any] = {"processing_guarantee": "at_least_once"}
    if settings.local_broker_profile:
        kwargs.update(
            broker_session_timeout=6.0,
            broker_heartbeat_interval=0.5,
            broker_rebalance_timeout=20.0,
            producer_max_batch_size=1,
            producer_linger=0.0,
            topic_allow_declare=True,
        )
    return kwargs


def producer_profile_kwargs(settings: StreamSettings) -> dict[str, Any]:
    """aiokafka producer kwargs (replay, bench) for the selected broker profile."""
    if settings.local_broker_profile:
        return {"max_batch_size": 1, "linger_ms": 0}
    return {"linger_ms": 5}


def consumer_profile_kwargs(settings: StreamSettings) -> dict[str, Any]:
    """aiokafka consumer kwargs (consume, bench) for the selected broker profile."""
    if settings.local_broker_profile:
        return {"fetch_max_wait_ms": LOCAL_FETCH_MAX_WAIT_MS}
    return {}
