"""``vcoder serve-env`` started as a process on loopback for the OpenEnv client tests and the bench."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def start_env_server(setting: str, *args: str, log: Path, timeout_s: float = 120.0) -> tuple[subprocess.Popen, str]:
    """Start ``vcoder serve-env SETTING --port 0 ARGS`` and return the process and its base URL."""
    env = {**os.environ, "PYTHONPATH": str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    handle = open(log, "w")  # noqa: SIM115 (the process writes it for its whole life)
    proc = subprocess.Popen(
        [sys.executable, "-m", "vcoder", "serve-env", setting, "--port", "0", *args],
        stdout=handle,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=ROOT,
    )
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = re.search(r"at (http://\S+)", log.read_text())
        if found:
            return proc, found.group(1)
        if proc.poll() is not None:
            raise RuntimeError(f"vcoder serve-env exited: {log.read_text()[-2000:]}")
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"vcoder serve-env did not start in {timeout_s} s: {log.read_text()[-2000:]}")


def stop_env_server(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(10)
