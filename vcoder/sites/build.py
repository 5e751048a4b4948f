"""Install and build a Bolt (Vite + React) project offline, contained, and say what went wrong in the model's terms.

``build_project`` copies a project's source files into a sandbox and runs ``npm install`` from the offline cache of
:mod:`vcoder.sites.npm_cache` (``--offline --ignore-scripts``: no registry, no install scripts), then ``vite build``
(``--base ./``, so the built ``dist/`` is a static site the hermetic renderer serves like any other). The sandbox
(``sandbox.sh``, run under ``unshare --net --pid --mount --fork --kill-child``):

- no network: a new network namespace with no interface up (not even loopback);
- an unprivileged user for npm and vite (a fresh unnamed uid per build by default), with no capabilities and
  ``no_new_privs``;
- the project lives on a tmpfs of ``project_mb`` (project + node_modules + dist: a full disk is the build's own
  ``ENOSPC``, never the machine's); ``/tmp``, ``/var/tmp``, ``/dev/shm`` are fresh 16 MB tmpfs mounts, so nothing
  written outside the project survives the build; the npm cache is read through an overlay;
- nothing of the host's processes: a fresh ``/proc`` for the build's PID namespace (``hidepid=2``: the builder sees
  its own processes only), so no host PID or command line is visible;
- limits: ``timeout_s`` wall clock for both stages (then the PID namespace is killed whole), ``memory_mb`` of
  address space per process (RLIMIT_AS; node's heap is capped below it), ``total_memory_mb`` for everything together
  (a memory cgroup, where the machine has one: many processes each under RLIMIT_AS could still add up),
  ``processes`` (RLIMIT_NPROC: a fork bomb stops there), ``file_mb`` per file (RLIMIT_FSIZE);
- what comes back is regular files only: links and devices in ``dist/`` are dropped, a linked ``dist/`` is refused.

What the build may read: the system (``/usr``, ``/etc``, ...) as any user may, but not ``HIDDEN_FOLDERS`` (homes, the
work trees) nor ``SOCKET_FOLDERS`` (``/run``: the host's unix sockets): each is an empty tmpfs in the sandbox. Anything it reads could come back inside ``dist/`` and be shown
to the model.

A package outside the cache (``ENOTCACHED``), a failing build or a limit hit is a ``BuildResult`` with ``ok`` False,
``stage`` and the tool's own error text trimmed to ``max_error_chars``: feedback for the model, never an exception.
The sandbox needs root (user, mount and network namespaces; ``setpriv``): elsewhere ``sandbox_problem()`` says why and
the episode reports the build as not run.

Example::

    result = build_project("runs/ep1/step_1/site", "runs/ep1/step_1/build")
    result.ok, result.dist, result.install_s, result.build_s   # (True, Path('.../build/dist'), 4.1, 3.2)
"""

from __future__ import annotations

import logging
import os
import resource
import subprocess
import time
import uuid
from pathlib import Path

from vcoder.sites.build_output import collect_dist, read_output, stage_times, trim_error
from vcoder.sites.build_store import MAX_STORED_MODULES, modules_key, modules_store, prune_store
from vcoder.sites.confine import fresh_ids, memory_cgroup, oom_killed, remove_cgroup
from vcoder.sites.npm_cache import npm_cache_dir
from vcoder.sites.sandbox import BUILD_MOUNT, HIDDEN_FOLDERS, SOCKET_FOLDERS, BuildLimits, BuildResult, sandbox_problem

logger = logging.getLogger(__name__)

# the sandbox's settings, the modules store and the output readers stay importable from here
__all__ = [
    "BUILD_MOUNT",
    "HIDDEN_FOLDERS",
    "MAX_STORED_MODULES",
    "SANDBOX_SCRIPT",
    "SOCKET_FOLDERS",
    "BuildLimits",
    "BuildResult",
    "build_project",
    "collect_dist",
    "modules_key",
    "modules_store",
    "sandbox_problem",
    "trim_error",
]

SANDBOX_SCRIPT = Path(__file__).with_name("sandbox.sh")


def build_project(
    src: str | os.PathLike,
    out: str | os.PathLike,
    *,
    install: bool = True,
    build: bool = True,
    packages: tuple[str, ...] = (),
    cache: str | os.PathLike | None = None,
    limits: BuildLimits | None = None,
    reuse_modules: bool = True,
) -> BuildResult:
    """Install (offline) and build the project in ``src`` inside the sandbox; results go to ``out``.

    Args:
        src: the project's source folder (package.json at its top); it is only read.
        out: a new folder for the results (``dist/``, ``install.log``, ``build.log``); must not exist.
        install: run ``npm install --offline --ignore-scripts`` (with ``packages``, when given).
        build: run ``vite build --base ./``.
        packages: package specs an install command named (``react-icons``, ``zustand@^4``).
        cache: the npm cache (default ``npm_cache_dir()``).
        limits: the sandbox's bounds.
        reuse_modules: reuse (and keep) installs per dependency set (False: always a full install, nothing kept).

    An install whose package.json has the dependency fields of an earlier successful one (and names no extra
    packages) reuses that install's ``node_modules`` (kept in ``modules_store()``, read through an overlay), so a
    later turn or episode with the same dependencies pays no install.

    Returns:
        The ``BuildResult``; never raises for the project's content.

    Raises:
        RuntimeError: the sandbox cannot run here (``sandbox_problem()``), or the cache is missing.
    """
    limits = limits or BuildLimits()
    problem = sandbox_problem()
    if problem:
        raise RuntimeError(problem)
    cache_dir = npm_cache_dir(cache)
    if not (cache_dir / "_cacache").is_dir():
        raise RuntimeError(f"no npm cache at {cache_dir}: run scripts/setup.sh (or vcoder assets npm-fill)")
    src, out = Path(src).resolve(), Path(out).resolve()
    out.mkdir(parents=True, exist_ok=False)
    BUILD_MOUNT.mkdir(parents=True, exist_ok=True)
    key = None
    if reuse_modules and install and not packages and (src / "package.json").is_file():
        key = modules_key((src / "package.json").read_text(encoding="utf-8", errors="replace"))
    store = modules_store(cache)
    if key is not None:
        store.mkdir(parents=True, exist_ok=True)
        if (store / key).is_dir():
            os.utime(store / key)
        else:
            prune_store(store, MAX_STORED_MODULES - 1)
    safe = [p for p in packages if p and not p.startswith("-") and all(c.isprintable() and not c.isspace() for c in p)]
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "SRC": str(src),
        "OUT": str(out),
        "CACHE": str(cache_dir.resolve()),
        "WORK": str(BUILD_MOUNT),
        "SIZE_MB": str(limits.project_mb),
        "AS_KB": str(limits.memory_mb * 1024),
        "HEAP_MB": str(min(4096, limits.memory_mb // 2)),
        "NPROC": str(limits.processes),
        "FSIZE_KB": str(limits.file_mb * 1024),
        "PACKAGES": " ".join(safe),
        "HIDDEN": " ".join((*HIDDEN_FOLDERS, *SOCKET_FOLDERS)),
        "RUN_AS": limits.run_as or fresh_ids(),
        "PART": uuid.uuid4().hex,
        "INSTALL": "1" if install else "0",
        "BUILD": "1" if build else "0",
        "STORE": str(store),
        "MODULES_KEY": key or "",
    }
    cmd = ["unshare", "--net", "--pid", "--mount", "--fork", "--kill-child", "--", "sh", str(SANDBOX_SCRIPT)]
    group = memory_cgroup(limits.total_memory_mb)
    if group is not None:  # the shell joins the group, then becomes unshare: every process of the build is in it
        cmd = ["sh", "-c", 'echo $$ > "$0/cgroup.procs" && exec "$@"', str(group), *cmd]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    try:
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=limits.timeout_s)
        code, stderr = done.returncode, done.stderr
    except subprocess.TimeoutExpired as exc:  # subprocess killed unshare; --kill-child takes the namespace with it
        code, stderr = None, (exc.stderr or b"").decode("utf-8", "replace") if isinstance(exc.stderr, bytes) else ""
    wall = time.monotonic() - t0
    oom = group is not None and oom_killed(group)
    if group is not None:
        remove_cgroup(group)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    install_s, build_s = stage_times(out, wall)
    package_json = read_output(out / "package.json") if install else None
    common = {"install_s": install_s, "build_s": build_s, "cpu_s": round(cpu, 3), "package_json": package_json}
    if code is None:
        log = read_output(out / ("build.log" if (out / "build.log").exists() else "install.log")) or ""
        error = f"install + build ran past {limits.timeout_s:g} s and was stopped\n{log}"
        return BuildResult(False, "timeout", trim_error(error, limits.max_error_chars), **common)
    if code in (10, 20):
        stage = "install" if code == 10 else "build"
        log = read_output(out / f"{stage}.log") or f"{stage} failed with no output"
        if oom:
            log += f"\nkilled: the build used more than {limits.total_memory_mb} MB of memory"
        return BuildResult(False, stage, trim_error(log, limits.max_error_chars), **common)
    if code != 0:
        logger.warning("build sandbox failed (%s): %s", code, stderr[-500:])
        return BuildResult(False, "sandbox", trim_error(f"the build sandbox failed: {stderr}", 500), **common)
    dist, dropped = collect_dist(out)
    return BuildResult(True, None, None, dist, dropped=dropped, **common)
