"""The memory benchmark's readings of /proc (no engine is built)."""

from __future__ import annotations

import os
import subprocess
import sys

from monitor.bench.memory import rss_mb, tree_rss_mb


def test_rss_of_a_process_tree_counts_its_children() -> None:
    child = subprocess.Popen(
        [sys.executable, "-c", "import time; print('up', flush=True); time.sleep(30)"],
        stdout=subprocess.PIPE)
    try:
        assert child.stdout is not None and child.stdout.readline() == b"up\n"
        alone, child_mb = rss_mb(os.getpid()), rss_mb(child.pid)
        assert 0 < alone <= rss_mb(os.getpid(), "VmHWM")
        assert tree_rss_mb(os.getpid()) >= alone + child_mb - 1.0
    finally:
        child.kill()
        child.wait()
