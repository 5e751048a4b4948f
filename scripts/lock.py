"""The lock file: the exact versions of everything vcoder[train,dev] installs, as the suite last passed with them.

    python scripts/lock.py                 # write requirements/lock.txt from this environment (after a green suite)
    python scripts/lock.py --check         # exit 1 and list every installed version that differs from the lock
    python scripts/lock.py --moved FREEZE  # which locked packages a `pip freeze` output has at other versions

``scripts/setup.sh`` installs with ``pip install -c requirements/lock.txt`` so a fresh machine gets what CI tested;
pyproject.toml keeps its ranges for people who ``pip install vcoder`` into their own environment.
``scripts/check_newest.sh`` shows tomorrow's breakage: the newest versions the ranges allow, in a throwaway
environment, with the suite run there (run it before every change of the lock file).

The lock is the dependency closure of ``vcoder[train,dev]`` (and of torch/torchvision, which setup.sh names), read
from the installed packages' metadata, so nothing else that happens to be installed is pinned.
"""

from __future__ import annotations

import argparse
import platform
import sys
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements" / "lock.txt"
ROOTS = [("vcoder", ("train", "dev")), ("torch", ()), ("torchvision", ())]
NOT_LOCKED = {"vcoder", "pip", "setuptools", "wheel"}  # vcoder is the checkout; the rest are the installer's own
#: pinned, but installed with --no-deps by setup.sh, so their own requirements are not walked (openenv-core's gradio
#: does not resolve with the lock; vcoder uses only its server and client, whose imports dev provides)
NO_DEPS = ("openenv-core",)


def closure(roots: list[tuple[str, tuple[str, ...]]] = ROOTS) -> dict[str, str]:
    """``{canonical name: installed version}`` for the roots and everything they require, extras included."""
    environment = default_environment()
    found: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    todo = [(name, extra) for name, extras in roots for extra in ("", *extras)]
    while todo:
        name, extra = todo.pop()
        key = (canonicalize_name(name), extra)
        if key in seen:
            continue
        seen.add(key)
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise SystemExit(f"{name} is required but not installed here; run `bash scripts/setup.sh` first") from None
        found[key[0]] = dist.version
        for line in dist.requires or []:
            requirement = Requirement(line)
            if requirement.marker and not requirement.marker.evaluate({**environment, "extra": extra}):
                continue
            todo += [(requirement.name, "")] + [(requirement.name, e) for e in sorted(requirement.extras)]
    for name in NO_DEPS:
        try:
            found[canonicalize_name(name)] = metadata.distribution(name).version
        except metadata.PackageNotFoundError:
            raise SystemExit(f"{name} is required but not installed here; run `bash scripts/setup.sh` first") from None
    return {name: version for name, version in sorted(found.items()) if name not in NOT_LOCKED}


def read_pins(text: str) -> dict[str, str]:
    """``name==version`` lines (``pip freeze`` or the lock) as ``{canonical name: version}``; other lines ignored."""
    pins = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if "==" in line and not line.startswith("-"):
            name, version = line.split("==", 1)
            pins[canonicalize_name(name.split("[", 1)[0])] = version.strip()
    return pins


def lock_text(pins: dict[str, str]) -> str:
    header = [
        "# The exact versions vcoder's test suite last passed with (CPython "
        f"{platform.python_version()}, {sys.platform} {platform.machine()}).",
        "# Made by `python scripts/lock.py` after a green `bash scripts/test.sh`; scripts/setup.sh installs with it",
        "# as a pip constraints file. Check the newest allowed versions first: `bash scripts/check_newest.sh`.",
        f"# python: {platform.python_version()}",
    ]
    return "\n".join(header + [f"{name}=={version}" for name, version in pins.items()]) + "\n"


def locked_python(text: str) -> str | None:
    """The ``major.minor`` Python version a lock was made with (its ``# python:`` line)."""
    for line in text.splitlines():
        if line.startswith("# python:"):
            return ".".join(line.split(":", 1)[1].strip().split(".")[:2])
    return None


def moved(locked: dict[str, str], other: dict[str, str]) -> list[str]:
    """One line per locked package whose version differs in ``other`` (or is absent there)."""
    return [
        f"{name}: {version} -> {other.get(name, 'absent')}"
        for name, version in locked.items()
        if other.get(name) != version
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--check", action="store_true", help="compare this environment with the lock")
    group.add_argument("--moved", metavar="FREEZE", help="a `pip freeze` output file to compare with the lock")
    parser.add_argument("--lock", type=Path, default=LOCK, help=f"the lock file (default {LOCK.relative_to(ROOT)})")
    args = parser.parse_args(argv)
    if args.check or args.moved:
        if not args.lock.exists():
            print(f"no lock file at {args.lock}; make one with `python scripts/lock.py`", file=sys.stderr)
            return 2
        locked = read_pins(args.lock.read_text())
        other = read_pins(Path(args.moved).read_text()) if args.moved else closure()
        lines = moved(locked, other)
        print("\n".join(lines) if lines else "every locked package is at its locked version")
        return 1 if lines and args.check else 0
    args.lock.parent.mkdir(parents=True, exist_ok=True)
    pins = closure()
    args.lock.write_text(lock_text(pins))
    print(f"wrote {len(pins)} pins to {args.lock}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
