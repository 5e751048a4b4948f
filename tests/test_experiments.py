"""``experiments/`` holds only scripts that stay alive: each imports nothing but vcoder's public API (names in a
module's ``__all__``) and runs in a small mode here (or in the test named for it). Records of past measurements live
in ``experiments/archive/`` (unsupported, never run here)."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ROOT / "experiments"
#: script -> the arguments of its small run here
SMALL_RUNS = {"static_text_table.py": ["--small"]}
#: script -> the test that runs it (with arguments a run folder needs)
RUN_ELSEWHERE = {
    "agent_rerun.py": "tests/pipelines/test_agent_quickstart_seed.py",
    "plot_run.py": "tests/pipelines/test_plots.py",
    "gdpo_compare.py": "tests/pipelines/test_quickstart_experiments.py",
    "refine_turns.py": "tests/pipelines/test_quickstart_experiments.py",
    "quickstart_features.py": "tests/pipelines/test_quickstart_experiments.py",
}


def scripts() -> list[str]:
    return sorted(p.name for p in EXPERIMENTS.glob("*.py"))


def private_imports(source: str) -> list[str]:
    """The vcoder imports of ``source`` that are not public: ``import vcoder.x`` (a whole module), a name missing from
    the ``__all__`` of the module it comes from, or any name of a module without ``__all__``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] == "vcoder"]
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "vcoder":
            public = getattr(importlib.import_module(node.module), "__all__", ())
            found += [f"{node.lineno}: {node.module}.{a.name}" for a in node.names if a.name not in public]
    return found


@pytest.mark.parametrize("script", scripts())
def test_an_experiment_imports_only_the_public_api(script):
    found = private_imports((EXPERIMENTS / script).read_text())
    assert not found, f"experiments/{script} imports names outside vcoder's __all__ lists: {found}"


def test_every_experiment_runs_in_the_suite():
    for script in scripts():
        assert script in SMALL_RUNS or script in RUN_ELSEWHERE, (
            f"experiments/{script} runs nowhere: give it a small mode"
        )
    for script, test in RUN_ELSEWHERE.items():
        assert Path(script).stem in (ROOT / test).read_text(), f"{test} does not run experiments/{script}"


def test_the_import_check_sees_a_private_name():
    source = "from vcoder.gui import arun_cases\nfrom vcoder.gui.runner import arun_cases\nimport vcoder.data\n"
    assert sorted(private_imports(source)) == ["2: vcoder.gui.runner.arun_cases", "3: import vcoder.data"]


@pytest.mark.browser
@pytest.mark.parametrize("script", sorted(SMALL_RUNS))
def test_an_experiment_runs_small(script):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    argv = [sys.executable, str(EXPERIMENTS / script), *SMALL_RUNS[script]]
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip(), f"experiments/{script} printed nothing"
