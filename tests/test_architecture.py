"""The import graph is the architecture: every vcoder import follows the table in docs/architecture.md, no modules
import each other in a circle, and inside every package the imports between its parts run one way (none climbs back
up)."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections import defaultdict
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


def modules() -> dict[str, Path]:
    """Every vcoder module by dotted name; a package by its own name (its ``__init__.py``)."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def module_imports(source: str, module: str, is_package: bool, known: set[str]) -> list[tuple[str, int]]:
    """The vcoder modules that ``module`` imports, inside functions too: ``from a.b import c`` is ``a.b.c`` when that
    is a module, else ``a.b`` (a name its ``__init__`` hands on); relative imports resolved from the package."""
    here = module.split(".") if is_package else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(alias.name, node.lineno) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = ".".join(here[: len(here) - node.level + 1] + ([node.module] if node.module else []))
            name = base if node.level else node.module or ""
            submodules = [f"{name}.{alias.name}" for alias in node.names if f"{name}.{alias.name}" in known]
            found += [(sub, node.lineno) for sub in submodules]
            if len(submodules) < len(node.names):
                found.append((name, node.lineno))
    return [(name, line) for name, line in found if name in known]


def import_graph() -> dict[str, list[tuple[str, int]]]:
    """``{module: [(imported module, line), ...]}`` over the whole package."""
    known = modules()
    return {
        name: module_imports(path.read_text(), name, path.name == "__init__.py", set(known))
        for name, path in known.items()
    }


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan): each is a set of nodes that import each
    other in a loop."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def part_of(package: str, module: str) -> str | None:
    """The part of ``package`` that holds ``module``: its module, or its subpackage taken whole
    (``part_of("vcoder.pipelines", "vcoder.pipelines.grpo.args") == "vcoder.pipelines.grpo"``)."""
    if not module.startswith(package + "."):
        return None
    return f"{package}.{module[len(package) + 1 :].split('.')[0]}"


def back_arrows(graph: dict[str, list[tuple[str, int]]], package: str) -> list[tuple[str, int, str, str]]:
    """The imports between ``package``'s parts that close a loop among them, as ``(module, line, its part, the part
    it imports)``: a subpackage counts as one part, so a shared module importing a loop that imports it is one."""
    parts: dict[str, set[str]] = defaultdict(set)
    arrows = []
    for module, targets in graph.items():
        for target, line in targets:
            source, dest = part_of(package, module), part_of(package, target)
            if source and dest and dest != source:
                parts[source].add(dest)
                arrows.append((module, line, source, dest))
    looped = {frozenset(loop) for loop in circles(parts)}
    return [arrow for arrow in arrows if any({arrow[2], arrow[3]} <= loop for loop in looped)]


def test_no_modules_import_each_other_in_a_circle():
    graph = import_graph()
    loops = circles({name: {target for target, _ in targets} for name, targets in graph.items()})
    lines = []
    for loop in loops:
        members = set(loop)
        lines.append(" <-> ".join(loop))
        lines += [f"    {m} imports {t} (line {n})" for m in loop for t, n in graph[m] if t in members]
    assert not loops, "modules that import each other (a function-level import counts too):\n" + "\n".join(lines)


def test_no_import_climbs_back_up_inside_a_package():
    # in every package the imports between its modules and subpackages (each taken whole) run one way: a layer
    # that the others build on (pipelines/recipes.py) imports none of them
    graph = import_graph()
    paths = modules()
    packages = sorted(name for name, path in paths.items() if path.name == "__init__.py")
    found = [
        f"{paths[module].relative_to(ROOT)}:{line}: {source} -> {dest}"
        for package in packages
        for module, line, source, dest in back_arrows(graph, package)
    ]
    assert not found, "imports that close a loop between parts of one package (one direction must go):\n" + "\n".join(
        found
    )


def test_the_structure_checks_see_what_they_were_written_for():
    known = {"vcoder.p", "vcoder.p.shared", "vcoder.p.loop", "vcoder.p.loop.train", "vcoder.p.a", "vcoder.p.b"}
    # a function-level import of a submodule, a relative one, and a name the package's __init__ hands on
    source = "def f():\n    from vcoder.p.loop import train\n    from . import b\n    from vcoder.p import thing\n"
    assert module_imports(source, "vcoder.p.shared", False, known) == [
        ("vcoder.p.loop.train", 2),
        ("vcoder.p.b", 3),
        ("vcoder.p", 4),
    ]
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # the shared layer importing a loop that imports it: no two modules form a circle, yet the parts do
    graph = {
        "vcoder.p.shared": [("vcoder.p.loop.train", 9)],
        "vcoder.p.loop.train": [("vcoder.p.shared", 3)],
        "vcoder.p.loop.args": [],
        "vcoder.p.a": [("vcoder.p.shared", 1)],
    }
    assert circles({name: {t for t, _ in targets} for name, targets in graph.items()}) == [
        ["vcoder.p.loop.train", "vcoder.p.shared"]
    ]
    graph["vcoder.p.loop.train"] = []
    graph["vcoder.p.loop.args"] = [("vcoder.p.shared", 5)]
    assert not circles({name: {t for t, _ in targets} for name, targets in graph.items()})
    assert back_arrows(graph, "vcoder.p") == [
        ("vcoder.p.shared", 9, "vcoder.p.shared", "vcoder.p.loop"),
        ("vcoder.p.loop.args", 5, "vcoder.p.loop", "vcoder.p.shared"),
    ]


# one way to make a thing: a chat client is made by vcoder.chat.connect(Endpoint) and nowhere else calls its class

#: the folders whose Python is scanned for constructor calls (the package, its benches and experiments, the tests)
SCANNED = ("vcoder", "bench", "experiments", "tests")


def calls_of(names: set[str], source: str) -> list[tuple[str, int]]:
    """``(name, line)`` of every call of one of ``names`` (``Name(...)`` or ``module.Name(...)``) in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in names:
                found.append((name, node.lineno))
    return found


def calls_outside(names: set[str], homes: tuple[str, ...], folders: tuple[str, ...] = SCANNED) -> list[str]:
    """``path:line name`` of every call of ``names`` in a file of ``folders`` outside the ``homes`` (paths or
    folders relative to the repository)."""
    found = []
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if any(relative == home or relative.startswith(home.rstrip("/") + "/") for home in homes):
                continue
            for name, line in calls_of(names, path.read_text(encoding="utf-8")):
                found.append(f"{relative}:{line} {name}(")
    return found


def test_a_chat_client_is_made_one_way():
    # tests/chat/test_client.py checks the retired loose form still works, with its deprecation warning
    outside = calls_outside({"ChatClient"}, ("vcoder/chat", "tests/chat/test_client.py"))
    assert not outside, (
        f"ChatClient(...) called outside vcoder.chat: {outside}; make the client with "
        "vcoder.chat.connect(Endpoint(base_url, model, ...)) (a recipe's endpoint: vcoder.names.from_flat)"
    )


def test_the_call_scanner_sees_both_spellings():
    source = "import x\nc = ChatClient('u', 'm')\nd = chat.ChatClient(e)\nconnect(Endpoint('u', 'm'))\n"
    assert calls_of({"ChatClient"}, source) == [("ChatClient", 2), ("ChatClient", 3)]


def test_one_place_turns_gui_policy_into_an_agent():
    # the package's entry points (gui_agent reward, Step-GRPO's grader, WebGen-Bench, vcoder agent) all call
    # vcoder.browse.policies.make_agent; tests of the policy classes themselves may build them
    outside = calls_outside({"VLMPolicy", "WebAgentCasePolicy"}, ("vcoder/browse/policies.py",), ("vcoder",))
    assert not outside, (
        f"a GUI test-case agent built outside vcoder.browse.policies.make_agent: {outside}; call "
        "make_agent(gui_policy, endpoint, ...) instead"
    )
    callers = {
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE.rglob("*.py")
        if calls_of({"make_agent"}, path.read_text(encoding="utf-8"))
    }
    assert {"vcoder/rewards/gui.py", "vcoder/pipelines/step_grpo/grading.py", "vcoder/eval/webgen_task.py"} <= callers
    assert {"vcoder/cli/agent.py", "vcoder/cli/agent_build.py"} <= callers


#: the names that make a module a site-kind generator: a kind -> builder table, the case constructor
SITE_KIND_MARKS = {"BUILDERS", "make_case"}
SITE_KINDS_HOME = "vcoder/data/site_kinds/"


def site_kind_generators(root: Path = PACKAGE) -> list[str]:
    """Modules outside ``vcoder/data/site_kinds/`` that define a site-kind builder table or the case constructor, or
    import the builders' contract (``site_kinds.base``) or builders: a second home of site kinds."""
    found = []
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(SITE_KINDS_HOME):
            continue
        tree = ast.parse(path.read_text())
        for node in tree.body:
            names = [node.name] if isinstance(node, ast.FunctionDef) else []
            if isinstance(node, ast.Assign | ast.AnnAssign):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [t.id for t in targets if isinstance(t, ast.Name)]
            found += [f"{rel}:{node.lineno}: {name}" for name in names if name in SITE_KIND_MARKS]
        module = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        for name, line in imports(path.read_text(), module):
            if name.startswith(("vcoder.data.site_kinds.base", "vcoder.data.site_kinds.page_")):
                found.append(f"{rel}:{line}: imports {name}")
    return found


def test_site_kinds_have_one_home():
    # a new site kind goes into vcoder/data/site_kinds/ (docs/architecture.md, "Where new things go")
    found = site_kind_generators()
    assert not found, "site-kind generators outside vcoder/data/site_kinds/:\n" + "\n".join(found)


# one idea per module: a module stays under MAX_LINES lines (docs/architecture.md, STYLE.md "Shape")

MAX_LINES = 300

#: the modules still over MAX_LINES, each with why it has not been split yet. The list may only shrink: a module that
#: comes under the limit (or goes) must leave it, and a new module over the limit is split rather than added here.
LONG_MODULES = {
    "vcoder/sites/grading.py": "render + judge + cases per step; another helper is changing it in this wave",
    "vcoder/pipelines/step_grpo/args.py": "the Step-GRPO recipe's fields, one dataclass; another helper is on it",
    "vcoder/rewards/settings.py": "the one flat reward declaration, one dataclass; another helper is on it",
    "vcoder/pipelines/curriculum/config.py": "the curriculum recipe, one dataclass with its checks and fingerprint",
    "vcoder/pipelines/step_grpo/trainer.py": "StepGRPOTrainer's overrides of GRPOTrainer, one class",
    "vcoder/pipelines/curriculum/phase.py": "one curriculum phase: filter, train, judge and grow the pool, in order",
    "vcoder/pipelines/plots.py": "training curves: reading trainer states, the PNGs and the HTML page",
    "vcoder/pipelines/recipes.py": "the loops' shared layer: parsing, checks, model and run loop",
    "vcoder/eval/webgen_task.py": "one WebGen-Bench task (build, grade under each protocol, the row); 1 line over",
}


def module_lengths(root: Path = PACKAGE, limit: int = MAX_LINES) -> dict[str, int]:
    """``{path relative to root's parent: lines}`` of the modules under ``root`` longer than ``limit`` lines."""
    lengths = {
        path.relative_to(root.parent).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted(root.rglob("*.py"))
    }
    return {path: n for path, n in lengths.items() if n > limit}


def test_modules_stay_under_the_size_limit():
    long = module_lengths()
    new = [f"{path}: {n} lines" for path, n in long.items() if path not in LONG_MODULES]
    assert not new, (
        f"modules over {MAX_LINES} lines: split them along a real seam (a stage, one concept each; keep the old "
        "import path working) rather than adding them to LONG_MODULES:\n" + "\n".join(new)
    )
    done = sorted(set(LONG_MODULES) - set(long))
    assert not done, f"now at most {MAX_LINES} lines (or gone): take them off LONG_MODULES, it only shrinks: {done}"
    assert all(reason.strip() for reason in LONG_MODULES.values()), "every allowlisted module says why"


def test_the_size_rule_sees_a_long_module(tmp_path):
    package = tmp_path / "vcoder"
    (package / "sub").mkdir(parents=True)
    (package / "short.py").write_text("x = 1\n" * MAX_LINES)
    (package / "sub" / "long.py").write_text("x = 1\n" * (MAX_LINES + 1))
    assert module_lengths(package) == {"vcoder/sub/long.py": MAX_LINES + 1}
