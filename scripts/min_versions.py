"""The lowest version pyproject.toml allows for each named package, as pip pins (``name==version``, one per line).

    python scripts/min_versions.py transformers trl accelerate peft datasets
    python scripts/min_versions.py --verify transformers trl      # exit 1 unless the installed versions are those

Reads ``[project] dependencies`` and the ``train`` extra. A package with no lower bound (``>=`` or ``==``) is an
error: "the lowest declared version" must exist for the check in ``scripts/check_min_versions.sh`` to mean anything.
"""

from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _load_pyproject() -> dict:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as handle:
        return tomllib.load(handle)


def lowest_versions(names: list[str]) -> dict[str, str]:
    """``{name: lowest allowed version}`` from pyproject.toml's dependencies and ``train`` extra."""
    from packaging.requirements import Requirement
    from packaging.utils import canonicalize_name

    project = _load_pyproject()["project"]
    declared = {}
    for line in project["dependencies"] + project["optional-dependencies"]["train"]:
        requirement = Requirement(line)
        declared[canonicalize_name(requirement.name)] = requirement
    lowest = {}
    for name in names:
        requirement = declared.get(canonicalize_name(name))
        if requirement is None:
            raise SystemExit(f"{name} is not declared in pyproject.toml's dependencies or the train extra")
        floors = [spec.version for spec in requirement.specifier if spec.operator in (">=", "==", "~=")]
        if not floors:
            raise SystemExit(f"{requirement} has no lower bound; declare the lowest version vcoder works with")
        lowest[name] = max(floors, key=_version_key)
    return lowest


def _version_key(version: str):
    from packaging.version import Version

    return Version(version)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("packages", nargs="+")
    parser.add_argument("--verify", action="store_true", help="check the installed versions instead of printing")
    args = parser.parse_args()
    lowest = lowest_versions(args.packages)
    if not args.verify:
        sys.stdout.write("".join(f"{name}=={version}\n" for name, version in lowest.items()))
        return 0
    from importlib.metadata import version

    from packaging.version import Version

    wrong = {name: version(name) for name, low in lowest.items() if Version(version(name)) != Version(low)}
    for name, low in lowest.items():
        sys.stdout.write(f"  {name:<14} declared lowest {low:<10} installed {version(name)}\n")
    if wrong:
        sys.stderr.write(f"installed versions differ from the lowest declared ones: {wrong}\n")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
