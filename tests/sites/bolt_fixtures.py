"""The Bolt build sandbox, installed once per session (registered by tests/conftest.py; the sandbox keeps the install
per dependency set)."""

from __future__ import annotations

import pytest

from tests.sites.bolt_apps import PACKAGE_JSON
from vcoder.sites.build import build_project, sandbox_problem
from vcoder.sites.npm_cache import npm_cache_dir


@pytest.fixture(scope="session")
def bolt_sandbox(tmp_path_factory):
    """The npm cache, after one offline install of the Bolt template's package.json (so every later build of a
    project with that package.json reuses it). Skips where the sandbox cannot run (not root) or set-up was not run."""
    problem = sandbox_problem()
    if problem:
        pytest.skip(problem)
    if not (npm_cache_dir() / "_cacache").is_dir():
        pytest.skip(f"no npm cache at {npm_cache_dir()}: run scripts/setup.sh")
    src = tmp_path_factory.mktemp("template")
    (src / "package.json").write_text(PACKAGE_JSON)
    result = build_project(src, src.parent / "template-out", build=False)
    assert result.ok, result.error
    return npm_cache_dir()
