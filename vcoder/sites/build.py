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

import hashlib
import json
import logging
import os
import re
import resource
import shutil
import stat
import subprocess
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from vcoder.sites.confine import fresh_ids, memory_cgroup, oom_killed, remove_cgroup
from vcoder.sites.npm_cache import npm_cache_dir

logger = logging.getLogger(__name__)

SANDBOX_SCRIPT = Path(__file__).with_name("sandbox.sh")
#: the folder whose private tmpfs mount holds a build (created once; any empty root-owned folder outside /tmp works)
BUILD_MOUNT = Path(os.environ.get("VCODER_BUILD_MOUNT", "/var/lib/vcoder/build"))
#: folders the build sees empty (people's and projects' files); the system it needs (/usr, /etc, /lib) stays
HIDDEN_FOLDERS = ("/work", "/home", "/root", "/srv", "/mnt", "/media")
#: folders of the host's filesystem sockets (daemons, D-Bus, Docker, databases) and run-time state, also seen empty;
#: /tmp, /var/tmp and /dev/shm are fresh tmpfs mounts anyway, and abstract sockets belong to the (new) network namespace
SOCKET_FOLDERS = ("/run", "/var/run", "/var/spool")
_NOISE = ("npm error Log files were not written", "npm error A complete log of this run")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_FRAME = re.compile(r"\s+at .*\(?\S+:\d+:\d+\)?$")
#: installed dependency sets kept for reuse (each ~100-200 MB); the least recently used go first
MAX_STORED_MODULES = 6
_DEPENDENCY_FIELDS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides")


@dataclass(frozen=True)
class BuildLimits:
    """Bounds on one install + build (the sandbox's; see the module docstring)."""

    timeout_s: float = field(default=120.0, metadata={"help": "Wall-clock budget of install + build, seconds."})
    memory_mb: int = field(
        default=8192,
        metadata={
            "help": "Address space of each build process (RLIMIT_AS), MB; node's heap gets half of it, at most 4 GB "
            "(measured: a vite 4 build ran out of address space at 4096 with a 17 MB heap; vite 5 builds at 2048)."
        },
    )
    total_memory_mb: int = field(
        default=6144,
        metadata={
            "help": "Memory of the whole build (every process and the project's tmpfs), MB, in a cgroup of its own "
            "where the machine offers one (cgroup v1 or v2 memory controller); without one only memory_mb applies."
        },
    )
    project_mb: int = field(default=768, metadata={"help": "Disk of the project with node_modules and dist, MB."})
    processes: int = field(default=512, metadata={"help": "Processes and threads of the build user (RLIMIT_NPROC)."})
    file_mb: int = field(default=256, metadata={"help": "Size of any one file the build writes (RLIMIT_FSIZE), MB."})
    max_error_chars: int = field(default=2000, metadata={"help": "Error text kept for the feedback, characters."})
    run_as: str | None = field(
        default=None,
        metadata={
            "help": "uid:gid of npm and vite; None: a fresh unnamed uid per build (so the process limit and any "
            "leftover process belong to that build alone, and builds cannot signal each other)."
        },
    )

    def __post_init__(self) -> None:
        if self.run_as is not None and not re.fullmatch(r"[1-9]\d*:[1-9]\d*", self.run_as):
            raise ValueError(f"run_as={self.run_as!r} must be 'uid:gid' with non-root ids, e.g. '65534:65534'")
        numbers = (self.memory_mb, self.total_memory_mb, self.project_mb, self.processes, self.file_mb)
        if self.timeout_s <= 0 or min(numbers) < 1:
            raise ValueError(f"build limits must be positive, got {self}")
        if self.memory_mb < 2048:  # measured: at 1024 MB rollup's native module cannot even allocate
            raise ValueError(f"memory_mb={self.memory_mb} is too small for node, esbuild and rollup; give >= 2048")


@dataclass(frozen=True)
class BuildResult:
    """What an install + build produced.

    Attributes:
        ok: the project was installed (and built, when asked) without error.
        stage: where it failed: ``install``, ``build``, ``timeout`` or ``sandbox`` (None when ok).
        error: the failing tool's own output, trimmed (None when ok).
        dist: the built site (regular files only), None when there is none.
        package_json: package.json as npm left it (installs that name packages add them), None without an install.
        install_s, build_s: wall-clock seconds of each stage (0 when not run).
        cpu_s: CPU seconds (user + system) of everything the sandbox ran.
        dropped: paths under dist/ that were not regular files and were left out.
    """

    ok: bool
    stage: str | None = None
    error: str | None = None
    dist: Path | None = None
    package_json: str | None = None
    install_s: float = 0.0
    build_s: float = 0.0
    cpu_s: float = 0.0
    dropped: tuple[str, ...] = ()


def sandbox_problem() -> str | None:
    """Why builds cannot be sandboxed on this machine (None when they can)."""
    if os.name != "posix" or not hasattr(os, "geteuid"):
        return "the build sandbox needs Linux"
    if os.geteuid() != 0:
        return "the build sandbox needs root (it makes mount, network and PID namespaces and drops to 'nobody')"
    missing = [tool for tool in ("unshare", "setpriv", "prlimit", "npm", "node") if shutil.which(tool) is None]
    if missing:
        return f"the build sandbox needs {', '.join(missing)} (util-linux, Node.js)"
    return None


def modules_store(cache: str | os.PathLike | None = None) -> Path:
    """Where installed ``node_modules`` trees are kept for reuse: ``npm-modules/`` beside the npm cache."""
    return npm_cache_dir(cache).resolve().with_name(npm_cache_dir(cache).name + "-modules")


def modules_key(package_json: str) -> str | None:
    """The key of a project's dependency set (its dependency fields and node's version), None when unreadable."""
    try:
        data = json.loads(package_json)
    except (TypeError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    deps = {k: data.get(k) for k in _DEPENDENCY_FIELDS}
    seed = json.dumps({"deps": deps, "node": _node_version()}, sort_keys=True, default=str)
    return hashlib.sha256(seed.encode()).hexdigest()[:32]


def _node_version() -> str:
    try:
        return subprocess.run(["node", "--version"], capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return "?"


def _prune_store(store: Path, keep: int) -> None:
    entries = sorted(
        (p for p in store.iterdir() if p.is_dir() and ".part." not in p.name), key=lambda p: p.stat().st_mtime
    )
    for old in entries[: max(0, len(entries) - keep)]:
        shutil.rmtree(old, ignore_errors=True)


def trim_error(text: str, limit: int) -> str:
    r"""The useful part of a tool's output, in the project's terms: colours, npm's log-file notices, stack frames and
    the sandbox's folder dropped; at most ``limit`` characters (the end kept).

    Example:
        >>> trim_error("\x1b[31merror\x1b[39m in /var/lib/vcoder/build/project/src/App.tsx\n    at f (x.js:1:2)", 100)
        'error in src/App.tsx'
    """
    text = _ANSI.sub("", text).replace(f"{BUILD_MOUNT}/project/", "").replace(f"{BUILD_MOUNT}/project", ".")
    lines = [
        line for line in text.splitlines() if line.strip() and not line.startswith(_NOISE) and not _FRAME.match(line)
    ]
    text = "\n".join(lines)
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


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
            _prune_store(store, MAX_STORED_MODULES - 1)
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
    install_s, build_s = _times(out, wall)
    package_json = _read(out / "package.json") if install else None
    common = {"install_s": install_s, "build_s": build_s, "cpu_s": round(cpu, 3), "package_json": package_json}
    if code is None:
        log = _read(out / ("build.log" if (out / "build.log").exists() else "install.log")) or ""
        error = f"install + build ran past {limits.timeout_s:g} s and was stopped\n{log}"
        return BuildResult(False, "timeout", trim_error(error, limits.max_error_chars), **common)
    if code in (10, 20):
        stage = "install" if code == 10 else "build"
        log = _read(out / f"{stage}.log") or f"{stage} failed with no output"
        if oom:
            log += f"\nkilled: the build used more than {limits.total_memory_mb} MB of memory"
        return BuildResult(False, stage, trim_error(log, limits.max_error_chars), **common)
    if code != 0:
        logger.warning("build sandbox failed (%s): %s", code, stderr[-500:])
        return BuildResult(False, "sandbox", trim_error(f"the build sandbox failed: {stderr}", 500), **common)
    dist, dropped = collect_dist(out)
    return BuildResult(True, None, None, dist, dropped=dropped, **common)


def _read(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def _times(out: Path, wall: float) -> tuple[float, float]:
    try:
        t0, t1, t2 = (float(x) for x in (out / "times").read_text().split())
        return round(t1 - t0, 3), round(t2 - t1, 3)
    except (OSError, ValueError):
        return round(wall, 3), 0.0


def collect_dist(out: Path) -> tuple[Path | None, tuple[str, ...]]:
    """``out/dist`` once everything in it that is not a regular file or a folder is removed, and what was removed.

    The build's own code wrote dist/: a ``dist`` that is itself a link is removed, never followed (walking it would
    delete links in whatever folder it names).
    """
    dist = out / "dist"
    if dist.is_symlink():
        dist.unlink()
        return None, ("dist",)
    if not dist.is_dir():
        return None, ()
    return dist, _regular_only(dist)


def _regular_only(root: Path) -> tuple[str, ...]:
    """Remove everything under ``root`` that is not a regular file or a folder (links, fifos, devices)."""
    dropped = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            path = Path(dirpath, name)
            mode = path.lstat().st_mode
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                dropped.append(str(path.relative_to(root)))
                path.unlink()
                if name in dirnames:
                    dirnames.remove(name)
    return tuple(dropped)
