"""requirements/lock.txt: what a fresh machine installs is what the suite tests, within pyproject.toml's ranges."""

from __future__ import annotations

import importlib.util
import platform
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("lock", ROOT / "scripts" / "lock.py")
lock = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lock)
TEXT = lock.LOCK.read_text()
PINS = lock.read_pins(TEXT)


def test_every_locked_version_is_within_pyprojects_ranges():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = (
        project["dependencies"] + project["optional-dependencies"]["train"] + project["optional-dependencies"]["dev"]
    )
    checked = 0
    for line in declared:
        requirement = Requirement(line)
        name = canonicalize_name(requirement.name)
        assert name in PINS, f"{name} is a dependency of vcoder but requirements/lock.txt has no pin for it"
        assert requirement.specifier.contains(PINS[name], prereleases=True), f"lock {name}=={PINS[name]} vs {line}"
        checked += 1
    assert checked >= 20


@pytest.mark.skipif(
    lock.locked_python(TEXT) != ".".join(platform.python_version_tuple()[:2]),
    reason="the lock was made for another Python; setup.sh installed from pyproject.toml's ranges",
)
def test_this_environment_is_the_locked_one():
    # setup.sh installs with `-c requirements/lock.txt`: a mismatch means the set-up did not install what was tested
    assert lock.moved(PINS, lock.closure()) == []


def test_moved_names_each_package_that_differs():
    locked = lock.read_pins("# python: 3.11\nfoo==1.0\nbar-baz==2.0\nqux==3\n")
    freeze = lock.read_pins("Foo==1.0\nbar_baz==2.1\nother==9\n-e git+https://example/x#egg=vcoder\n")
    assert lock.locked_python("# python: 3.11.7\n") == "3.11"
    assert lock.moved(locked, freeze) == ["bar-baz: 2.0 -> 2.1", "qux: 3 -> absent"]
