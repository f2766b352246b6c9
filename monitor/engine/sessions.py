"""onnxruntime sessions that do not optimise their graph again at every start.

Creating a session optimises the model's graph first (constant folding, fusions of the
quantised products and of the layer norms): 50-110 ms for each of the three MiniLM graphs
a process loads, every time `skg-monitor score` or a worker starts. onnxruntime can save
the graph it optimised (`optimized_model_filepath`); a session over that file with
optimisation off runs the same graph, so it computes the same numbers (bit for bit,
tested) and starts in a third of the time. The file is built once into the cache
directory (`artefacts.built_once`); where the cache cannot be written, the session
optimises in memory as before. At the default level the saved graph may hold kernels
chosen for this CPU, so its name carries onnxruntime's version and a hash of the CPU's
flags besides the source's own keyed name.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any

from monitor.engine import int8
from monitor.engine.artefacts import built_once

RECIPE = "ort-optimised-v1"
"""Part of every saved graph's name: bump it when the way it is saved changes."""


def optimised_session(model: Path, keyed_name: str, options: Any, cache_dir: Path) -> Any:
    """An `onnxruntime.InferenceSession` of `model` (CPU), from its optimised graph saved
    in `cache_dir`. `keyed_name` must change with the model's content (a hash); `options`
    are the session's (threads, logging), whose optimisation level is set here."""
    import onnxruntime as ort

    try:
        saved = built_once(
            cache_dir / f"{keyed_name}.{_environment_key(ort.__version__)}.onnx",
            lambda target: _save_optimised(model, target))
    except OSError:  # a cache that cannot be written: optimise in memory, as before
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(saved), options, providers=["CPUExecutionProvider"])


def _environment_key(ort_version: str) -> str:
    """What the saved graph depends on besides the model: the recipe, onnxruntime's
    version and this CPU's instruction sets."""
    flags = " ".join(sorted(int8.cpu_flags(int8.cpuinfo())))
    cpu = hashlib.sha256(flags.encode("utf-8")).hexdigest()[:12]
    return f"{RECIPE}.ort{ort_version}.cpu{cpu}"


def _save_optimised(model: Path, target: Path) -> None:
    """Let onnxruntime optimise `model` and write the result beside `target`, then move it
    onto `target` (a `build` for `built_once`: never a partial file)."""
    import onnxruntime as ort

    partial = target.with_name(f".build-{os.getpid()}-{target.name}")
    saving = ort.SessionOptions()
    saving.log_severity_level = 3  # the "may be hardware specific" warning: keyed above
    saving.optimized_model_filepath = str(partial)
    try:
        ort.InferenceSession(str(model), saving, providers=["CPUExecutionProvider"])
        os.chmod(partial, 0o644)
        os.replace(partial, target)
    finally:
        if partial.exists():
            partial.unlink()
