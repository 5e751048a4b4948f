"""What each package exports is written once, as imports a reader can follow: every exported name resolves, the one
lazy table left (metrics, for import cost) serves exactly the names its TYPE_CHECKING imports declare, and no other
package hides its names behind a module ``__getattr__``."""

from __future__ import annotations

import ast
import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vcoder"
INITS = sorted(PACKAGE.rglob("__init__.py"))
# numpy stays out of `vcoder --help` and of the settings that name FORMAT_STYLES; the pools (and asyncio) out of
# everything that only needs the rendering package's result types
LAZY = {"vcoder.metrics", "vcoder.rendering"}


def module_name(init: Path) -> str:
    return ".".join(init.parent.relative_to(ROOT).parts)


@pytest.mark.parametrize("init", INITS, ids=module_name)
def test_every_exported_name_resolves(init):
    module = importlib.import_module(module_name(init))
    missing = [name for name in getattr(module, "__all__", []) if not hasattr(module, name)]
    assert not missing, f"{module.__name__}.__all__ names what it does not have: {missing}"


@pytest.mark.parametrize("init", INITS, ids=module_name)
def test_only_the_declared_lazy_packages_have_a_module_getattr(init):
    tree = ast.parse(init.read_text())
    has_getattr = any(isinstance(n, ast.FunctionDef) and n.name == "__getattr__" for n in tree.body)
    assert has_getattr == (module_name(init) in LAZY), (
        f"{module_name(init)}: export names with plain imports (a lazy table needs a reason and a place in LAZY)"
    )


def type_checking_imports(init: Path) -> dict[str, str]:
    """{name: module} of the ``if TYPE_CHECKING:`` imports of a package's ``__init__``."""
    found = {}
    for node in ast.parse(init.read_text()).body:
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom):
                    found.update({alias.asname or alias.name: stmt.module for alias in stmt.names})
    return found


@pytest.mark.parametrize("package", sorted(LAZY))
def test_a_lazy_table_serves_exactly_its_declared_imports(package):
    module = importlib.import_module(package)
    init = PACKAGE.parent / package.replace(".", "/") / "__init__.py"
    declared = type_checking_imports(init)
    table = {name: f"{package}.{where}" for name, where in module._EXPORTS.items()}
    assert declared == table, f"{package}: the lazy table and its TYPE_CHECKING imports disagree"
    assert set(table) <= set(module.__all__)
    for name, where in table.items():
        assert getattr(module, name) is getattr(importlib.import_module(where), name), name


def test_the_scanner_reads_a_type_checking_block(tmp_path):
    init = tmp_path / "__init__.py"
    init.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from a.b import c as d, e\n")
    assert type_checking_imports(init) == {"d": "a.b", "e": "a.b"}


def test_the_light_imports_stay_light():
    code = (
        "import sys, json, vcoder.metrics, vcoder.cli; "
        "print(json.dumps(sorted(m for m in ('numpy', 'torch', 'trl', 'playwright', 'transformers') "
        "if m in sys.modules)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
