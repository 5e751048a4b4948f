"""The kernel's bounds on a build that namespaces and rlimits do not give: a memory cgroup for all its processes
together, and an unnamed uid of its own (see :mod:`vcoder.sites.build`)."""

from __future__ import annotations

import logging
import os
import re
import secrets
import time
import uuid
from pathlib import Path

logger = logging.getLogger(__name__)

CGROUP_ROOT = Path("/sys/fs/cgroup")
#: unnamed ids handed to builds (one each): above the 16-bit range of system and login accounts
FRESH_ID_BASE, FRESH_ID_SPAN = 200_000, 100_000


def memory_cgroup(limit_mb: int) -> Path | None:
    """A new memory cgroup limited to ``limit_mb`` (v1's memory controller, else v2's), None where none can be made."""
    name = f"vcoder-build-{uuid.uuid4().hex[:12]}"
    limit = str(limit_mb * 1024 * 1024)
    candidates = [
        (CGROUP_ROOT / "memory", ("memory.limit_in_bytes", "memory.memsw.limit_in_bytes")),
        (CGROUP_ROOT, ("memory.max", "memory.swap.max")),
    ]
    for root, (memory, swap) in candidates:
        if not (root / "cgroup.procs").is_file() or not os.access(root, os.W_OK):
            continue
        if root == CGROUP_ROOT and "memory" not in _read_text(root / "cgroup.subtree_control"):
            continue
        group = root / name
        try:
            group.mkdir()
            (group / memory).write_text(limit)
        except OSError as exc:
            logger.debug("no memory cgroup under %s: %s", root, exc)
            remove_cgroup(group)
            continue
        try:  # swap counted too where the kernel accounts it (a v1 machine without swap accounting has no file)
            (group / swap).write_text(limit if swap.endswith("limit_in_bytes") else "0")
        except OSError:
            pass
        return group
    return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text()
    except OSError:
        return ""


def oom_killed(group: Path) -> bool:
    events = _read_text(group / "memory.events") or _read_text(group / "memory.oom_control")
    return bool(re.search(r"^oom_kill [1-9]", events, re.MULTILINE))


def remove_cgroup(group: Path) -> None:
    for _ in range(50):  # the last processes of the PID namespace may still be exiting
        try:
            group.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.1)
    logger.warning("could not remove the build cgroup %s", group)


def fresh_ids() -> str:
    """An unnamed uid:gid for one build, far from system and login ids (no file outside the sandbox is theirs)."""
    ident = FRESH_ID_BASE + secrets.randbelow(FRESH_ID_SPAN)
    return f"{ident}:{ident}"
