"""`skg-monitor config show`: the effective engine config, as a TOML file."""

from __future__ import annotations

import typer

from monitor.cli.options import CacheDirOpt, ConfigOpt, EmbedderOpt, engine_config
from monitor.config import config_toml

app = typer.Typer(no_args_is_help=True, help="The engine's config (EngineConfig, TOML).")


@app.command()
def show(config: ConfigOpt = None, embedder: EmbedderOpt = "onnx",
         cache_dir: CacheDirOpt = None) -> None:
    """Print the effective config: the defaults with FILE's fields applied, every field
    spelled out (a valid `--config` file); the models and the fingerprint as comments."""
    effective = engine_config(config)
    typer.echo(f"# EngineConfig from {config or 'the defaults'}; fingerprint "
               f"{effective.fingerprint()} (the engine version's suffix)")
    typer.echo(f"# models: embedder {embedder}, cache directory "
               f"{cache_dir or '~/.cache/skg-monitor'} (--embedder, --cache-dir)")
    typer.echo(config_toml(effective), nl=False)
