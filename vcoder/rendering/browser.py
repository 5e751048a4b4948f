"""Launching Chromium for hermetic rendering: executable lookup, flags, and the browser's process tree."""

from __future__ import annotations

import logging
import os
import shutil
import uuid
from pathlib import Path

logger = logging.getLogger(__name__)

# measured to work on these machines (DESIGN.md), plus flags that make pixels reproducible
BASE_ARGS = (
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--force-color-profile=srgb",
    "--font-render-hinting=none",
    "--disable-lcd-text",
    "--hide-scrollbars",
    "--mute-audio",
    "--disable-extensions",
    "--disable-default-apps",
    "--disable-domain-reliability",
    "--disable-client-side-phishing-detection",
    "--no-pings",
    "--dns-prefetch-disable",
    # below the request layer: keepalive fetches, beacons, pings, prefetch and sockets that escape route()
    # reach a dead proxy; "<-loopback>" sends loopback through it too
    "--proxy-server=http://127.0.0.1:9",
    "--proxy-bypass-list=<-loopback>",
)
DEBIAN_CHROMIUM = "/usr/bin/chromium"


def find_executable(executable_path: str | os.PathLike | None, playwright_path: str | None) -> str | None:
    """Pick the Chromium binary: the argument, else ``$VCODER_CHROMIUM``, else Playwright's, else Debian's.

    Args:
        executable_path: an explicit path (validated).
        playwright_path: ``playwright.chromium.executable_path`` (used only when that file exists).

    Returns:
        A path, or None to let Playwright use its own default.

    Raises:
        FileNotFoundError: the explicit path does not exist.
    """
    explicit = executable_path or os.environ.get("VCODER_CHROMIUM")
    if explicit:
        if not Path(explicit).is_file():
            raise FileNotFoundError(
                f"Chromium executable {str(explicit)!r} not found; pass an existing executable_path "
                f"(Debian: apt-get install chromium, then {DEBIAN_CHROMIUM})"
            )
        return str(explicit)
    if playwright_path and Path(playwright_path).is_file():
        return None
    found = shutil.which("chromium") or (DEBIAN_CHROMIUM if Path(DEBIAN_CHROMIUM).is_file() else None)
    if found is None:
        raise FileNotFoundError(
            "no Chromium found: install Debian's chromium (apt-get install chromium) or pass executable_path=..."
        )
    return found


def launch_args(extra: tuple[str, ...] | list[str] = ()) -> tuple[list[str], str]:
    """Chromium flags plus a unique marker switch that lets us find this browser's processes.

    Returns:
        ``(args, marker)``.
    """
    marker = f"--vcoder-pool={uuid.uuid4().hex}"
    return [*BASE_ARGS, *extra, marker], marker


def browser_processes(marker: str) -> list:
    """The browser process launched with ``marker`` and all its descendants (psutil.Process objects)."""
    import psutil

    for proc in psutil.process_iter(["cmdline"]):
        try:
            cmd = proc.info["cmdline"] or []
        except (psutil.NoSuchProcess, psutil.AccessDenied):
            continue
        if marker in cmd and not any(a.startswith("--type=") for a in cmd):
            try:
                return [proc, *proc.children(recursive=True)]
            except psutil.NoSuchProcess:
                return []
    return []


def tree_rss(marker: str) -> int:
    """Summed resident memory (bytes) of the browser's process tree (0 when it is not running)."""
    import psutil

    total = 0
    for proc in browser_processes(marker):
        try:
            total += proc.memory_info().rss
        except psutil.NoSuchProcess:
            continue
    return total
