"""What a build leaves behind, read in the model's terms (:mod:`vcoder.sites.build`): the tools' errors trimmed of
colours, npm's notices, stack frames and the sandbox's folder; each stage's seconds; and ``dist/`` with everything
that is not a regular file or a folder removed.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from vcoder.sites.sandbox import BUILD_MOUNT

_NOISE = ("npm error Log files were not written", "npm error A complete log of this run")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_FRAME = re.compile(r"\s+at .*\(?\S+:\d+:\d+\)?$")


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


def read_output(path: Path) -> str | None:
    """A file the build wrote, as text; None when it is missing, not a regular file, or a link."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None


def stage_times(out: Path, wall: float) -> tuple[float, float]:
    """``(install_s, build_s)`` from the sandbox's ``times`` file; the whole ``wall`` as install when it is absent."""
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
