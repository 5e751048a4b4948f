"""Script arguments, recipe parsing and the clear errors of the pipelines (no model, no browser)."""

from __future__ import annotations

import pytest

from vcoder.pipelines.grpo.args import VCoderScriptArguments
from vcoder.pipelines.recipes import check_model_path, check_reward_weights


def test_defaults_are_valid_and_reward_names_split_on_commas():
    args = VCoderScriptArguments(reward_funcs=["validity,block", "text"])
    assert args.reward_funcs == ["validity", "block", "text"]
    assert VCoderScriptArguments().dataset == "synthetic"


@pytest.mark.parametrize(
    ("kwargs", "fragment"),
    [
        ({"dataset": "websiht"}, "dataset='websiht'"),
        ({"holdout": 5}, "holdout=5"),
        ({"min_html_chars": 500, "max_html_chars": 100}, "min_html_chars=500 is larger than max_html_chars=100"),
        ({"reward_funcs": []}, "reward_funcs is empty"),
        ({"reward_funcs": ["block", "block"]}, "names a reward twice"),
        ({"synthetic_difficulty": 7}, "synthetic_difficulty=7"),
        ({"dataset_source": "/nonexistent/websight.parquet"}, "does not exist"),
    ],
)
def test_bad_script_arguments_say_what_and_how(kwargs, fragment):
    with pytest.raises(ValueError, match=None) as info:
        VCoderScriptArguments(**kwargs)
    assert fragment in str(info.value)


def test_local_dataset_path_is_accepted(tmp_path):
    assert VCoderScriptArguments(dataset=str(tmp_path)).is_local_dataset


def test_reward_weights_must_line_up():
    check_reward_weights(["a", "b"], None)
    check_reward_weights(["a", "b"], [1.0, 0.5])
    with pytest.raises(ValueError, match=r"reward_weights has 3 values .* names 2 rewards \['a', 'b'\]"):
        check_reward_weights(["a", "b"], [1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="negative"):
        check_reward_weights(["a"], [-1.0])


def test_model_path_checks(tmp_path):
    check_model_path("Qwen/Qwen2.5-VL-3B-Instruct")  # a hub id is not checked here
    with pytest.raises(ValueError, match="does not exist; build a tiny model"):
        check_model_path(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match="has no config.json"):
        check_model_path(str(tmp_path))
    with pytest.raises(ValueError, match="model_name_or_path is not set"):
        check_model_path(None)


def _recipe(tmp_path, text: str) -> str:
    path = tmp_path / "recipe.yaml"
    path.write_text(text)
    return str(path)


def test_unknown_recipe_key_names_key_file_and_suggestion(tmp_path):
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import RecipeError, parse_recipe

    path = _recipe(tmp_path, "reward_func: [block]\nlearning_rate: 1.0e-5\n")
    with pytest.raises(RecipeError) as info:
        parse_recipe(grpo.make_parser(), ["--config", path])
    message = str(info.value)
    assert path in message and "'reward_func'" in message and "did you mean 'reward_funcs'" in message


def test_unknown_command_line_flag_is_named(tmp_path):
    from vcoder.pipelines.grpo import sft
    from vcoder.pipelines.recipes import RecipeError, parse_recipe

    with pytest.raises(
        RecipeError, match=r"command line: unknown key\(s\) 'max_stepz' \(did you mean 'max_steps'\?\)"
    ):
        parse_recipe(sft.make_parser(), ["--output_dir", str(tmp_path), "--max_stepz", "3"])


@pytest.mark.parametrize(
    "flags, said",
    [
        (["--max_steps", "many"], "argument --max_steps/--max-steps: invalid int value: 'many'"),
        (["--holdout", "1.5"], "holdout=1.5 is a fraction of the pages"),
        (["--max_stepz", "3"], "(did you mean 'max_steps'?)"),
    ],
)
def test_a_bad_value_or_flag_is_one_line_from_the_module_entry(flags, said, tmp_path, capsys):
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import run_cli

    # `accelerate launch -m vcoder.pipelines.grpo ...`: no traceback, no usage block of a thousand lines
    argv = ["--config", _recipe(tmp_path, "learning_rate: 1.0e-5\n"), "--output_dir", str(tmp_path), *flags]
    assert run_cli(grpo.cli, "vcoder.pipelines.grpo", argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("vcoder.pipelines.grpo: error: ") and said in err, err


def test_missing_recipe_file(tmp_path):
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import RecipeError, parse_recipe

    with pytest.raises(RecipeError, match="does not exist"):
        parse_recipe(grpo.make_parser(), ["--config", str(tmp_path / "nope.yaml")])


def test_command_line_overrides_the_recipe(tmp_path):
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import parse_recipe

    path = _recipe(
        tmp_path,
        f"output_dir: {tmp_path}\nmax_steps: 50\nreward_funcs: [validity, block]\nreward_weights: [1.0, 2.0]\n"
        "use_cpu: true\nholdout: 0.1\n",
    )
    script_args, training_args, model_args = parse_recipe(grpo.make_parser(), ["--config", path, "--max_steps", "7"])
    assert training_args.max_steps == 7
    assert script_args.reward_funcs == ["validity", "block"] and training_args.reward_weights == [1.0, 2.0]
    assert script_args.holdout == 0.1


def test_unknown_reward_name_fails_at_build_time():
    from vcoder.pipelines.recipes import build_reward_funcs

    with pytest.raises((ValueError, KeyError)) as info:
        build_reward_funcs(VCoderScriptArguments(reward_funcs=["blok"]), None)
    assert "blok" in str(info.value) and "block" in str(info.value)


def test_reward_weights_checked_before_building_rewards():
    from vcoder.pipelines.recipes import build_reward_funcs

    with pytest.raises(ValueError, match="one weight per reward"):
        build_reward_funcs(VCoderScriptArguments(reward_funcs=["validity", "block"]), [1.0])


def test_resolve_resume(tmp_path):
    from vcoder.pipelines.recipes import RecipeError, resolve_resume

    assert resolve_resume(None, str(tmp_path)) is None
    assert resolve_resume("last", str(tmp_path)) is None  # nothing to resume yet: start fresh
    (tmp_path / "checkpoint-2").mkdir()
    (tmp_path / "checkpoint-10").mkdir()
    assert resolve_resume("true", str(tmp_path)).endswith("checkpoint-10")
    with pytest.raises(RecipeError, match="is not a folder"):
        resolve_resume(str(tmp_path / "checkpoint-99"), str(tmp_path))


def test_dataset_without_needed_columns_is_refused():
    from datasets import Dataset

    from vcoder.pipelines.grpo.data import check_columns, sft_target

    with pytest.raises(ValueError, match=r"lacks column\(s\) \['prompt', 'html'\]; it has \['image', 'text'\]"):
        check_columns(Dataset.from_dict({"image": [None], "text": ["<p>x</p>"]}))
    assert sft_target("<p>x</p>", "fenced") == "```html\n<p>x</p>\n```"
    assert sft_target(" <p>x</p>\n", "any") == "<p>x</p>"


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"max_turns": "six"}, "max_turns='six' must be an integer"),
        ({"learning_rate": "fast"}, "learning_rate='fast' must be a number"),
        ({"bf16": "yes"}, "bf16='yes' must be true or false"),
        ({"per_device_train_batch_size": 36}, "generation_batch_size (36) must be divisible by num_generations (8)"),
        ({"max_turnz": 6}, "'max_turnz' (did you mean 'max_turns'?)"),
    ],
)
def test_an_embedded_recipe_refuses_a_value_of_the_wrong_type_in_one_line(overrides, message):
    """parse_dict stores what it is given: without the check, max_turns='six' fails mid-run in a comparison."""
    from vcoder.pipelines import step_grpo
    from vcoder.pipelines.agent_quickstart.config import STEP_GRPO_RECIPE
    from vcoder.pipelines.recipes import RecipeError, parse_embedded

    recipe = {**STEP_GRPO_RECIPE, "model_name_or_path": "m", "output_dir": "o"}
    parsed = parse_embedded(step_grpo.make_parser(), {**recipe, "learning_rate": 1, "data_seed": None})
    assert parsed[1].learning_rate == 1  # an int where a float is wanted, and None where it may be, pass
    with pytest.raises(RecipeError) as info:
        parse_embedded(step_grpo.make_parser(), {**recipe, **overrides}, where="Step-GRPO stage")
    text = str(info.value)
    assert "\n" not in text and text.startswith("Step-GRPO stage: ") and message in text
