"""Options more than one command takes: the engine's config file and its models."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from pydantic import ValidationError

from monitor.config import EngineConfig, load_config
from monitor.inputs import describe_validation_error

if TYPE_CHECKING:
    from monitor.runner.build import ModelOptions

ConfigOpt = Annotated[Path | None, typer.Option(
    "--config", help="EngineConfig as TOML (`skg-monitor config show` prints one)")]
EmbedderOpt = Annotated[str, typer.Option(
    "--embedder", envvar="SKG_EMBEDDER",
    help="embedder backend: onnx (int8) or torch (fp32); processes that must agree use one")]
CacheDirOpt = Annotated[Path | None, typer.Option(
    "--cache-dir", envvar="SKG_CACHE_DIR",
    help="where the built ONNX model is kept (default ~/.cache/skg-monitor)")]
ModelThreadsOpt = Annotated[int, typer.Option(
    "--model-threads", envvar="SKG_MODEL_THREADS", min=1, max=64,
    help="model calls at once, one core each (one worker per core: 1); never changes a "
         "result")]


def engine_config(path: Path | None) -> EngineConfig:
    """The config `--config` names (the defaults without one); a bad file is a usage error."""
    if path is not None and not path.is_file():
        raise typer.BadParameter(f"config file not found: {path}", param_hint="--config")
    try:
        return load_config(path)
    except ValidationError as exc:
        raise typer.BadParameter(f"{path}: {describe_validation_error(exc)}",
                                 param_hint="--config") from exc
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--config") from exc


def model_options(embedder: str, cache_dir: Path | None,
                  threads: int | None = None) -> ModelOptions:
    """The models a command runs; `threads` None: as `ModelOptions.from_env` reads it."""
    from monitor.engine.embedder import BACKENDS
    from monitor.runner.build import ModelOptions

    if embedder.strip().lower() not in BACKENDS:
        raise typer.BadParameter(f"must be one of {', '.join(BACKENDS)}, not {embedder!r}",
                                 param_hint="--embedder")
    if threads is None:
        try:
            threads = ModelOptions.from_env().threads
        except ValueError as exc:
            raise typer.BadParameter(str(exc), param_hint="SKG_MODEL_THREADS") from exc
    return ModelOptions(embedder.strip().lower(), cache_dir, threads)
