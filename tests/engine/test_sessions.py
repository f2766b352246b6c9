"""Sessions over saved optimised graphs (monitor.engine.sessions) compute what a session
that optimises the shipped graph itself computes, bit for bit; and the packaged weights'
digest is remembered per installation (monitor.engine.artefacts.tree_digest)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import onnxruntime as ort

from monitor.engine import sessions
from monitor.engine.artefacts import tree_digest
from monitor.engine.verifier import MODEL_DIR, MODEL_FILE


def _options() -> ort.SessionOptions:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return options


def test_a_saved_optimised_graph_gives_the_same_numbers(tmp_path: Path) -> None:
    model = MODEL_DIR / MODEL_FILE
    plain = ort.InferenceSession(str(model), _options(), providers=["CPUExecutionProvider"])
    saved = sessions.optimised_session(model, "verifier.test", _options(), tmp_path)
    [file] = [p for p in tmp_path.iterdir() if p.suffix == ".onnx"]
    assert file.name.startswith(f"verifier.test.{sessions.RECIPE}.ort{ort.__version__}.cpu")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".build-")]
    rng = np.random.default_rng(7)
    for rows, length in [(1, 5), (1, 37), (2, 19), (3, 64), (1, 128)]:
        ids = rng.integers(1_000, 30_000, (rows, length))
        ids[:, 0], ids[:, -1] = 101, 102
        feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
                "token_type_ids": (np.arange(length) >= length // 2).astype(np.int64)[None]
                .repeat(rows, axis=0)}
        assert np.array_equal(plain.run(None, feed)[0], saved.run(None, feed)[0])
    before = file.stat().st_mtime_ns
    sessions.optimised_session(model, "verifier.test", _options(), tmp_path)
    assert file.stat().st_mtime_ns == before  # saved once, then loaded


def test_a_cache_that_cannot_be_written_costs_only_the_saving(tmp_path: Path) -> None:
    model = MODEL_DIR / MODEL_FILE
    blocked = tmp_path / "a-file"
    blocked.write_text("not a directory")
    session = sessions.optimised_session(model, "verifier.test", _options(), blocked / "cache")
    plain = ort.InferenceSession(str(model), _options(), providers=["CPUExecutionProvider"])
    ids = np.array([[101, 2023, 2003, 1037, 3231, 102, 2009, 2003, 102]])
    feed = {"input_ids": ids, "attention_mask": np.ones_like(ids),
            "token_type_ids": np.array([[0] * 6 + [1] * 3])}
    assert np.array_equal(session.run(None, feed)[0], plain.run(None, feed)[0])


def test_the_tree_digest_is_remembered_until_a_file_changes(tmp_path: Path) -> None:
    root, cache = tmp_path / "model", tmp_path / "cache"
    root.mkdir()
    (root / "weights.bin").write_bytes(b"\x00" * 1000)
    (root / "config.json").write_text("{}")
    first = tree_digest(root, cache, b"seed")
    [remembered] = (cache / "digests").iterdir()
    assert tree_digest(root, cache, b"other seed") != first
    remembered.write_text("what was remembered")  # read back while the files stand still
    assert tree_digest(root, cache, b"seed") == "what was remembered"
    weights = root / "weights.bin"
    weights.write_bytes(b"\x01" * 1000)  # same size; its modification time moves
    os.utime(weights, ns=(weights.stat().st_atime_ns, weights.stat().st_mtime_ns + 1_000))
    changed = tree_digest(root, cache, b"seed")
    assert changed not in {first, "what was remembered"}
    assert tree_digest(root, tmp_path / "elsewhere", b"seed") == changed  # computed afresh
