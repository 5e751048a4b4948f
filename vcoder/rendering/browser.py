"""The Chromium a pool renders with: executable lookup, flags, launch and relaunch, and its process tree."""

from __future__ import annotations

import asyncio
import contextlib
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
# Playwright (1.65) launches Chromium with this --disable-features list, and Chromium keeps only the LAST
# --disable-features switch (a second one re-enables everything in the first): ours repeats it, plus our own.
# ``Browser`` checks the launched command line and relaunches with the union should Playwright's list grow.
PLAYWRIGHT_DISABLED_FEATURES = (
    "AvoidUnnecessaryBeforeUnloadCheckSync",
    "DestroyProfileOnBrowserClose",
    "HttpsUpgrades",
    "HttpsFirstBalancedModeAutoEnable",
    "LensOverlay",
    "MediaRouter",
    "PaintHolding",
    "ThirdPartyStoragePartitioning",
    "AvoidCorsURLLoaderRestartOnRedirect",
    "TcpPortRandomizationWin",
    "OptimizationHints",
    "NetworkTimeServiceQuerying",
    "AimEnabled",
    "PreconnectToSearch",
    "msForceBrowserSignIn",
    "msEdgeUpdateLaunchServicesPreferredVersion",
)
# Features we switch off too. Not RenderDocument, although off it saves CPU per navigation
# (bench/prototypes/render_candidates.py): with it off, chromium-headless-shell keeps a frame's raster state from a
# full-page screenshot of a tall page to the next document of the tab, whose text then differs by subpixels
# (tests/rendering/test_fast_path.py)
OUR_DISABLED_FEATURES: tuple[str, ...] = ()
DISABLE_FEATURES = "--disable-features="
# Debian's chromium-headless-shell: the same Chromium without the full browser's UI layers, about a third less CPU
# per render (bench/render.py --executable); Debian's full chromium is the fallback
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
DEBIAN_CHROMIUM = "/usr/bin/chromium"
LAUNCH_TIMEOUT_MS = 60000
CLOSE_TIMEOUT_MS = 3000


def find_executable(executable_path: str | os.PathLike | None, playwright_path: str | None) -> str | None:
    """Pick the Chromium binary: the argument, else ``$VCODER_CHROMIUM``, else Playwright's, else Debian's
    ``chromium-headless-shell``, else Debian's ``chromium``.

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
        return check_executable(explicit)
    if playwright_path and Path(playwright_path).is_file():
        return None
    if Path(HEADLESS_SHELL).is_file():
        return HEADLESS_SHELL
    found = shutil.which("chromium") or (DEBIAN_CHROMIUM if Path(DEBIAN_CHROMIUM).is_file() else None)
    if found is None:
        raise FileNotFoundError(
            "no Chromium found: install Debian's chromium-headless-shell and chromium "
            "(apt-get install chromium-headless-shell chromium) or pass executable_path=..."
        )
    return found


def check_executable(path: str | os.PathLike) -> str:
    """``path`` as a string when it names an existing file.

    Raises:
        FileNotFoundError: it does not.
    """
    if not Path(path).is_file():
        raise FileNotFoundError(
            f"Chromium executable {str(path)!r} not found; pass an existing executable_path "
            f"(Debian: apt-get install chromium, then {DEBIAN_CHROMIUM})"
        )
    return str(path)


def launch_args(extra: tuple[str, ...] | list[str] = (), *, disabled: tuple[str, ...] = ()) -> tuple[list[str], str]:
    """Chromium flags plus a unique marker switch that lets us find this browser's processes.

    Every ``--disable-features`` list (Playwright's, ours, ``disabled``, any in ``extra``) is merged into the one
    switch Chromium keeps, placed last.

    Returns:
        ``(args, marker)``.
    """
    marker = f"--vcoder-pool={uuid.uuid4().hex}"
    features = [*PLAYWRIGHT_DISABLED_FEATURES, *OUR_DISABLED_FEATURES, *disabled]
    others = []
    for arg in extra:
        if arg.startswith(DISABLE_FEATURES):
            features += arg[len(DISABLE_FEATURES) :].split(",")
        else:
            others.append(arg)
    merged = DISABLE_FEATURES + ",".join(dict.fromkeys(f for f in features if f))
    return [*BASE_ARGS, *others, marker, merged], marker


def lost_features(argv: list[str]) -> tuple[str, ...]:
    """The features an earlier ``--disable-features`` of ``argv`` disables that its last one (the one Chromium keeps)
    does not."""
    lists = [a[len(DISABLE_FEATURES) :].split(",") for a in argv if a.startswith(DISABLE_FEATURES)]
    return tuple(f for f in dict.fromkeys(f for lst in lists[:-1] for f in lst) if f not in lists[-1]) if lists else ()


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


class Browser:
    """One Chromium process driven through Playwright, relaunched when it dies.

    ``generation`` counts launches: a page opened under an older generation belongs to a dead browser.

    Args:
        executable_path: as ``find_executable``'s.
        extra_args: Chromium flags added to ``BASE_ARGS``.
        stats: the pool's counters (``relaunches`` is counted here).
    """

    def __init__(self, *, executable_path: str | os.PathLike | None, extra_args: tuple[str, ...], stats: dict):
        self.executable_path, self.extra_args, self.stats = executable_path, extra_args, stats
        self.generation = 0
        self.marker = ""
        self.disabled: tuple[str, ...] = ()  # features Playwright disables that our list did not know
        self._pw = self._browser = None
        self._relaunch_lock = asyncio.Lock()

    @property
    def connected(self) -> bool:
        """True while the current Chromium process is up."""
        return self._browser is not None and self._browser.is_connected()

    async def start(self) -> None:
        """Start Playwright and launch Chromium."""
        from playwright.async_api import async_playwright

        self._pw = await async_playwright().start()
        try:
            await self._launch()
        except BaseException:
            await self.close()
            raise

    async def _launch(self) -> None:
        exe = find_executable(self.executable_path, self._pw.chromium.executable_path)
        for _ in range(2):
            args, marker = launch_args(self.extra_args, disabled=self.disabled)
            self._browser = await self._pw.chromium.launch(
                executable_path=exe, args=args, headless=True, timeout=LAUNCH_TIMEOUT_MS
            )
            procs = browser_processes(marker)
            lost = lost_features(procs[0].cmdline()) if procs else ()
            if not lost:
                break
            logger.warning("Playwright disables Chromium features %s that vcoder's list lacks; relaunching", lost)
            self.disabled += lost
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self._browser.close(), CLOSE_TIMEOUT_MS / 1000)
        self.marker = marker
        self.generation += 1
        gen = self.generation
        self._browser.on("disconnected", lambda _: self.generation == gen and logger.warning("Chromium disconnected"))

    async def relaunch(self, seen_generation: int) -> None:
        """Kill the browser's process tree and launch a new one, unless another caller already did."""
        async with self._relaunch_lock:
            if self.generation != seen_generation:
                return  # another render already relaunched it
            self.stats["relaunches"] += 1
            old, marker = self._browser, self.marker
            # the browser is dead or hung: kill its process tree first, a graceful close could wait on a busy tab
            for proc in browser_processes(marker):
                with contextlib.suppress(Exception):
                    proc.kill()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(old.close(), CLOSE_TIMEOUT_MS / 1000)
            await self._launch()

    async def new_context(self, **options):
        """A new browser context (Playwright's ``Browser.new_context``)."""
        return await self._browser.new_context(**options)

    async def close(self) -> None:
        """Close Chromium and stop Playwright (errors and hangs are bounded and swallowed)."""
        browser, pw, self._browser, self._pw = self._browser, self._pw, None, None
        self.generation = -1  # an intentional close: no "disconnected" warning
        with contextlib.suppress(Exception):
            if browser is not None:
                await asyncio.wait_for(browser.close(), CLOSE_TIMEOUT_MS / 1000)
        with contextlib.suppress(Exception):
            if pw is not None:
                await asyncio.wait_for(pw.stop(), CLOSE_TIMEOUT_MS / 1000)

    def pids(self) -> list[int]:
        """Process ids of the browser's process tree (the first one is the browser itself)."""
        return [p.pid for p in browser_processes(self.marker)] if self.marker else []
