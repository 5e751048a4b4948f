"""A loop's mode is an object chosen once, when its recipe is read, not a string compared wherever it matters.

The curriculum's ``trainer`` (grpo, step_grpo) and ``algorithm`` (grpo, webrl) and the web agent's ``algorithm``
(filtered_bc, webrl) are strings in the recipe; :mod:`vcoder.pipelines.curriculum.modes` and
:mod:`vcoder.pipelines.web_agent.modes` turn each into a strategy object, and the loops call its methods. A comparison
such as ``config.trainer == "step_grpo"`` anywhere under ``vcoder/pipelines/`` fails here.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PIPELINES = ROOT / "vcoder" / "pipelines"
#: the recipe fields that name a mode (and the parameter names the old code passed them under)
MODE_FIELDS = {"trainer", "algorithm", "trainer_kind"}


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
        arg = node.args[0] if node.args else None  # data.get("trainer")
        return arg.value if isinstance(arg, ast.Constant) and isinstance(arg.value, str) else None
    return None


def _is_text(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_text(e) for e in node.elts)
    return False


def mode_comparisons(source: str) -> list[tuple[int, str]]:
    """``(line, text)`` of every comparison of a mode field with a string literal (or a tuple of them) in ``source``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        sides = [node.left, *node.comparators]
        for left, right in zip(sides, sides[1:]):
            if (_name(left) in MODE_FIELDS and _is_text(right)) or (_name(right) in MODE_FIELDS and _is_text(left)):
                found.append((node.lineno, ast.unparse(node)))
                break
    return found


def test_no_pipeline_compares_a_mode_string():
    found = []
    for path in sorted(PIPELINES.rglob("*.py")):
        for line, text in mode_comparisons(path.read_text(encoding="utf-8")):
            found.append(f"{path.relative_to(ROOT)}:{line}: {text}")
    assert not found, (
        "mode strings compared in the pipelines; call the mode object's method instead "
        "(vcoder.pipelines.curriculum.modes, vcoder.pipelines.web_agent.modes):\n" + "\n".join(found)
    )


@pytest.mark.parametrize(
    "source",
    [
        'if config.trainer == "grpo": pass',
        'x = a if "webrl" != self.algorithm else b',
        'ok = trainer_kind in ("grpo", "step_grpo")',
        'ok = data.get("trainer") != "web_agent"',
        'ok = 0 < n and algorithm == "webrl"',
    ],
)
def test_the_scanner_sees_a_mode_comparison(source):
    assert mode_comparisons(source)


@pytest.mark.parametrize(
    "source",
    ["if config.replay_weight == 0: pass", "ok = config.trainer_mode.one_shot", 'ok = name == "grpo"'],
)
def test_the_scanner_passes_other_comparisons(source):
    assert not mode_comparisons(source)


def test_the_recipes_choose_their_mode_objects():
    from vcoder.pipelines.curriculum.config import CurriculumConfig
    from vcoder.pipelines.curriculum.modes import ALGORITHMS, TRAINERS
    from vcoder.pipelines.web_agent.config import ALGORITHMS as WEB_ALGORITHMS
    from vcoder.pipelines.web_agent.config import WebAgentConfig
    from vcoder.pipelines.web_agent.modes import UPDATES, update_of

    config = CurriculumConfig(train_recipe="r.yaml", model_name_or_path="m", algorithm="webrl", predictor="critic")
    assert config.trainer_mode is TRAINERS["grpo"] and config.algorithm_mode is ALGORITHMS["webrl"]
    step = CurriculumConfig(train_recipe="r.yaml", model_name_or_path="m", trainer="step_grpo", kinds=["todo"])
    assert step.trainer_mode is TRAINERS["step_grpo"] and step.algorithm_mode is ALGORITHMS["grpo"]
    assert step.trainer_mode.records_trajectories and not config.trainer_mode.records_trajectories
    assert update_of(WebAgentConfig()) is UPDATES["filtered_bc"] and set(UPDATES) == set(WEB_ALGORITHMS)
    assert update_of(WebAgentConfig(algorithm="webrl")) is UPDATES["webrl"] and UPDATES["webrl"].has_reference
    # the string stays the recipe's (config.json, the fingerprint, reports), the object is not a field
    assert config.to_dict()["trainer"] == "grpo" and "trainer_mode" not in config.to_dict()
