"""The multi-turn refinement recipe (configs/tiny_cpu_refine_grpo.yaml) through vcoder's GRPO pipeline on the tiny
quickstart VLM (Qwen2.5-VL), offline, 2 steps; and multi_objective_aggregation (GDPO) reaching TRL's trainer."""

from __future__ import annotations

import json
import os
from unittest.mock import patch

import pytest

from tests.envs.scripted import ScriptedGenerate, tool_call

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RECIPE = os.path.join(ROOT, "configs", "tiny_cpu_refine_grpo.yaml")
ATTEMPT = "<html><body><h1>Hello</h1></body></html>"
SMALL = ["--synthetic_samples", "4", "--per_device_train_batch_size", "2", "--num_generations", "2"]
SMALL += ["--max_steps", "2", "--log_completions", "false"]


def _args(model_dir, out, *extra):
    from vcoder.pipelines.grpo.train import make_parser
    from vcoder.pipelines.recipes import parse_recipe

    argv = ["--config", RECIPE, "--model_name_or_path", str(model_dir), "--output_dir", str(out), *SMALL, *extra]
    return parse_recipe(make_parser(), argv)


def test_refine_recipe_runs_the_tool_loop_for_two_steps(tiny_vlm_dir, tmp_path):
    from vcoder.models.tiny import chat_template
    from vcoder.pipelines.grpo.train import build_trainer

    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    script_args, training_args, model_args = _args(tiny_vlm_dir, tmp_path / "run", "--max_completion_length", "384")
    trainer, _ = build_trainer(script_args, training_args, model_args)
    # Qwen2.5-VL's own template has no tools: the recipe's tool_chat_template replaced it
    assert trainer.processing_class.chat_template == chat_template("qwen3_vl")
    envs = []
    factory = trainer.environment_factories[None]

    def recording():
        envs.append(factory())
        return envs[-1]

    trainer.environment_factories[None] = recording
    scripted = ScriptedGenerate(trainer.processing_class.tokenizer, [tool_call("render", html=ATTEMPT), "Done."])
    with patch.object(trainer.model, "generate", side_effect=scripted):
        trainer.train()

    core = envs[-1]._core
    # the recipe's reward mix and turn budget are the environment's; TRL sees the environment's reward alone
    assert core.settings.rewards == tuple(script_args.reward_funcs) and core.settings.max_turns == 3
    assert core.weights == [1.0] * 6 and trainer.reward_func_names == ["RefineEnv"]
    step_logs = [entry for entry in trainer.state.log_history if "rewards/RefineEnv/mean" in entry]
    assert len(step_logs) == 2
    assert step_logs[-1]["tools/call_frequency"] == pytest.approx(1.0)
    assert step_logs[-1]["tools/failure_frequency"] == pytest.approx(0.0)
    # the attempt rendered against the row's reference (a synthetic page): a mix strictly between 0 and 1
    assert core.image is not None and core.steps[0].ok
    assert 0.0 < step_logs[-1]["rewards/RefineEnv/mean"] < 1.0
    # the screenshot came back to the model: the second generation saw more image patches than the first
    assert scripted.calls[1]["pixel_values"] > scripted.calls[0]["pixel_values"] > 0


def test_refine_recipe_trains_two_steps_with_the_models_own_replies(tiny_vlm_dir, tmp_path):
    """The recipe as `vcoder train grpo` runs it (model saved, trainer_state written), the tiny model writing."""
    from vcoder.pipelines.grpo.train import cli

    os.environ["TRL_EXPERIMENTAL_SILENCE"] = "1"
    out = tmp_path / "run"
    argv = ["--config", RECIPE, "--model_name_or_path", str(tiny_vlm_dir), "--output_dir", str(out), *SMALL]
    assert cli([*argv, "--max_completion_length", "48"]) == 0
    state = json.loads((out / "trainer_state.json").read_text())
    logged = [entry for entry in state["log_history"] if "rewards/RefineEnv/mean" in entry]
    assert state["global_step"] == 2 and len(logged) == 2
    assert (out / "model.safetensors").exists()


@pytest.mark.parametrize("value", ["normalize_then_sum", "sum_then_normalize"])
def test_multi_objective_aggregation_reaches_the_trainer(tiny_vlm_dir, tmp_path, value):
    from vcoder.pipelines.grpo.train import build_trainer, make_parser
    from vcoder.pipelines.recipes import parse_recipe

    recipe = os.path.join(ROOT, "configs", "tiny_cpu_grpo.yaml")
    argv = ["--config", recipe, "--model_name_or_path", str(tiny_vlm_dir), "--output_dir", str(tmp_path / "o")]
    argv += ["--synthetic_samples", "4", "--multi_objective_aggregation", value]
    trainer, _ = build_trainer(*parse_recipe(make_parser(), argv))
    assert trainer.args.multi_objective_aggregation == value
    assert trainer.multi_objective_aggregation == value  # what _compute_advantages branches on


def test_a_bad_aggregation_fails_before_the_model_loads(tmp_path):
    from vcoder.pipelines.grpo.train import build_trainer, make_parser
    from vcoder.pipelines.recipes import RecipeError, parse_recipe

    model = tmp_path / "model"
    model.mkdir()
    (model / "config.json").write_text("{}")  # not a model: loading it would fail differently
    argv = ["--config", os.path.join(ROOT, "configs", "tiny_cpu_grpo.yaml"), "--model_name_or_path", str(model)]
    argv += ["--output_dir", str(tmp_path / "o"), "--multi_objective_aggregation", "gdpo"]
    with pytest.raises(RecipeError, match="normalize_then_sum"):
        build_trainer(*parse_recipe(make_parser(), argv))
