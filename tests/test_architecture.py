"""The import graph is the architecture: every vcoder import follows the table in docs/architecture.md."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "vcoder"
TOP_LEVEL = {"__init__", "__main__"}  # the package's own entry points may import anything


def allowed_edges() -> dict[str, set[str]]:
    """The "Import rules" table of docs/architecture.md as {package: packages it may import}."""
    text = (ROOT / "docs" / "architecture.md").read_text().split("## Import rules", 1)[1]
    table: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not line.lstrip().startswith("|") or cells[0] in ("package", "") or "---" in line:
            continue
        table[cells[0]] = {name.strip() for name in cells[1].split(",") if name.strip()}
    return table


def package_of(module: str) -> str | None:
    """'vcoder.rewards.visual' -> 'rewards'; 'vcoder.layout' -> 'layout'; 'vcoder' -> None."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 and parts[0] == "vcoder" else None


def imports(source: str, module: str) -> list[tuple[str, int]]:
    """Absolute names of the vcoder modules that ``module``'s source imports (relative imports resolved, imports
    inside functions included), with line numbers."""
    here = module.split(".")[:-1]  # the containing package, the base of a relative import
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here[: len(here) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            found.append((name, node.lineno))
    return [(name, line) for name, line in found if name == "vcoder" or name.startswith("vcoder.")]


def test_the_table_names_every_package():
    table = allowed_edges()
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    packages |= {p.stem for p in PACKAGE.glob("*.py") if p.stem not in TOP_LEVEL}
    assert packages == set(table), f"docs/architecture.md's table and the package disagree: {packages ^ set(table)}"
    for name, targets in table.items():
        assert targets <= set(table), f"{name} may import unknown packages {targets - set(table)}"


def test_every_import_follows_the_table():
    table = allowed_edges()
    forbidden = []
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(ROOT)
        module = ".".join(rel.with_suffix("").parts)
        source = package_of(module)
        if source is None or source in TOP_LEVEL:
            continue
        for name, line in imports(path.read_text(), module):
            target = package_of(name)
            if target is not None and target != source and target not in table[source]:
                forbidden.append(f"{rel}:{line}: {source} -> {target} ({name})")
    assert not forbidden, "imports the architecture forbids:\n" + "\n".join(forbidden)


def test_the_scanner_sees_the_edge_this_test_was_written_for():
    # metrics -> rendering, hidden inside a function, next to a relative import that stays inside the package
    source = "def f():\n    from vcoder.rendering.types import Rendered\n    from .design2code import block_scores\n"
    found = imports(source, "vcoder.metrics.probe")
    assert found == [("vcoder.rendering.types", 2), ("vcoder.metrics.design2code", 3)]
    assert "rendering" not in allowed_edges()["metrics"]


def test_importing_the_metrics_loads_no_browser_code():
    code = (
        "import sys, json, vcoder.metrics, vcoder.layout; "
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('vcoder.rendering') or m == 'playwright')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []
