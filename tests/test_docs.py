"""The documentation site builds: ``mkdocs build --strict`` fails on a broken link or anchor, a page missing from the
nav, a docstring griffe cannot read, and (``scripts/docs_hooks.py``) a name of the API reference without a docstring."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("docs_hooks", ROOT / "scripts" / "docs_hooks.py")
docs_hooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_hooks)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_site_builds_strict(tmp_path):
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }
    env["NO_MKDOCS_2_WARNING"] = "1"
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=540,
    )
    warnings = [line for line in done.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    assert done.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(
        warnings or done.stderr.splitlines()[-20:]
    )
    for page in ("index.html", "api/rewards/index.html", "architecture/index.html", "results/index.html"):
        assert (tmp_path / "site" / page).is_file(), page


def test_every_public_package_has_an_api_page():
    api = {p.stem for p in (ROOT / "docs" / "api").glob("*.md")}
    public = {"rewards", "metrics", "rendering", "eval", "gui", "sites", "browse", "orm", "data", "pipelines", "chat"}
    assert public | {"models"} <= api
    nav = (ROOT / "mkdocs.yml").read_text()
    assert all(f"api/{name}.md" in nav for name in api), "every API page is in mkdocs.yml's nav"


def test_the_hook_sees_a_missing_docstring(tmp_path, monkeypatch):
    (tmp_path / "halfdone.py").write_text(
        '"""A module."""\n__all__ = ["kept", "bare", "Plain", "LIMIT"]\nLIMIT = 3\n'
        'def kept():\n    """Says what it does."""\ndef bare():\n    pass\n'
        "import dataclasses\n@dataclasses.dataclass\nclass Plain:\n    x: int = 0\n"
    )
    (tmp_path / "silent.py").write_text("def f():\n    pass\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    assert docs_hooks.undocumented("halfdone") == ["halfdone.bare", "halfdone.Plain"]
    assert docs_hooks.undocumented("silent") == ["silent", "silent.f"]
    assert docs_hooks.undocumented("vcoder.rewards") == []
