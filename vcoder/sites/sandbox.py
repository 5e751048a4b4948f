"""The build sandbox's settings and verdicts (:mod:`vcoder.sites.build` runs it): the folders it mounts and hides,
the bounds on one install + build (``BuildLimits``), what a build produced (``BuildResult``), and whether this machine
can run the sandbox at all (``sandbox_problem``).
"""

from __future__ import annotations

import os
import re
import shutil
from dataclasses import dataclass, field
from pathlib import Path

#: the folder whose private tmpfs mount holds a build (created once; any empty root-owned folder outside /tmp works)
BUILD_MOUNT = Path(os.environ.get("VCODER_BUILD_MOUNT", "/var/lib/vcoder/build"))
#: folders the build sees empty (people's and projects' files); the system it needs (/usr, /etc, /lib) stays
HIDDEN_FOLDERS = ("/work", "/home", "/root", "/srv", "/mnt", "/media")
#: folders of the host's filesystem sockets (daemons, D-Bus, Docker, databases) and run-time state, also seen empty;
#: /tmp, /var/tmp and /dev/shm are fresh tmpfs mounts anyway, and abstract sockets belong to the (new) network namespace
SOCKET_FOLDERS = ("/run", "/var/run", "/var/spool")


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
