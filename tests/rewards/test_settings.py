"""Reward parameters are declared once (RewardSettings) and settable alike from Python, a YAML recipe, a training
command-line flag and ``vcoder score``; every factory validates them the same way, with a did-you-mean."""

from __future__ import annotations

import dataclasses
import json

import pytest

from tests.inprocess import vcoder
from vcoder.rewards import RewardSettings, available_rewards, build_reward
from vcoder.rewards.settings import parse_weights

# a non-default value for every reward parameter (and how it reads back)
CHANGED = {
    "render_width": 640,
    "render_height": 480,
    "render_timeout_ms": 9000,
    "render_max_pages": 3,
    "clip_model": "ViT-B-16",
    "clip_pretrained": "/models/clip.pt",
    "clip_tiny": True,
    "clip_device": "cpu",
    "format_style": "fenced",
    "ssim_width": 256,
    "evidence_gate": False,
    "visual_weights": {"block": 2.0, "ssim": 1.0},
    "gui_step_limit": 7,
    "gui_deadline_ms": 9000,
    "gui_timeout_ms": 9000,
    "gui_action_timeout_ms": 2000,
    "gui_base_url": "http://127.0.0.1:9",
    "gui_model": "agent",
    "gui_max_tokens": 64,
    "gui_temperature": 0.5,
    "gui_policy": "text",
    "judge_base_url": "http://127.0.0.1:9",
    "judge_model": "judge",
    "judge_timeout_ms": 5000,
    "judge_max_retries": 0,
    "judge_max_concurrency": 2,
    "judge_max_tokens": 32,
    "judge_temperature": 0.3,
    "judge_max_image_side": 512,
    "orm_model": "runs/orm",
    "orm_binary": True,
    "orm_threshold": 0.3,
    "orm_batch_size": 2,
    "orm_device": "cpu",
    "verdict_log": "runs/verdicts.jsonl",
}


def test_the_table_covers_every_field_and_changes_it():
    fields = {f.name: f for f in dataclasses.fields(RewardSettings)}
    assert set(CHANGED) == set(fields)
    defaults = RewardSettings()
    for name, value in CHANGED.items():
        assert getattr(defaults, name) != value, name
        assert fields[name].metadata["help"], f"{name} has no help"


def test_from_python():
    assert RewardSettings.from_params(**CHANGED).params() == CHANGED


@pytest.fixture(scope="module")
def orm_dir(untrained_orm):
    return str(untrained_orm)  # the session's untrained ORM (tests/conftest.py), built once per run


@pytest.mark.parametrize("name", sorted(set(available_rewards())))
def test_every_factory_takes_every_parameter_and_refuses_typos(name, request):
    params = dict(CHANGED, clip_model="ViT-B-32", clip_pretrained=None)  # the tiny CLIP builds offline
    if name == "orm":  # its folder is checked when the reward is built: a real (untrained) ORM
        params["orm_model"] = request.getfixturevalue("orm_dir")
    func = build_reward(name, **params)
    assert func.__name__ == f"{name}_reward"
    assert func.keywords["settings"] == RewardSettings.from_params(**params)
    with pytest.raises(TypeError, match="'render_timout_ms' \\(did you mean 'render_timeout_ms'\\?\\)"):
        build_reward(name, render_timout_ms=100)
    with pytest.raises(TypeError, match="'base_url' \\(did you mean 'gui_base_url' or 'judge_base_url'\\?\\)"):
        build_reward(name, base_url="http://127.0.0.1:9")


@pytest.mark.parametrize(
    ("params", "fragment"),
    [
        ({"render_width": 0}, "render_width=0 must be a positive integer"),
        ({"gui_deadline_ms": 1000, "gui_action_timeout_ms": 2000}, "gui_action_timeout_ms=2000 must be below"),
        ({"gui_base_url": "http://127.0.0.1:9"}, "give both"),
        ({"format_style": "xml"}, "format_style='xml'"),
        ({"visual_weights": {"blocks": 1.0}}, "'blocks' (did you mean 'block'?)"),
        ({"visual_weights": "block=-1"}, "non-negative"),
        ({"visual_weights": "block:1"}, "name=weight pairs"),
        ({"judge_max_image_side": 10}, "judge_max_image_side=10"),
        ({"orm_threshold": 1.5}, "orm_threshold=1.5 must be a number in (0, 1)"),
        ({"orm_batch_size": 0}, "orm_batch_size=0 must be a positive integer"),
        ({"verdict_log": " "}, "verdict_log=' ' must be a file path"),
    ],
)
def test_bad_values_say_what_to_change(params, fragment):
    with pytest.raises(ValueError) as info:
        RewardSettings.from_params(**params)
    assert fragment in str(info.value)


def test_judge_endpoint_without_a_model_fails_at_build_time(monkeypatch):
    monkeypatch.delenv("VCODER_JUDGE_MODEL", raising=False)
    with pytest.raises(ValueError, match="both an endpoint and a model"):
        build_reward("screenshot_judge", judge_base_url="http://127.0.0.1:9")


def test_the_orm_reward_needs_an_orm_folder(tmp_path):
    with pytest.raises(ValueError, match="the orm reward needs orm_model="):
        build_reward("orm")
    with pytest.raises(ValueError, match="is not an ORM: it has no orm.json"):
        build_reward("orm", orm_model=str(tmp_path))
    with pytest.raises(ValueError, match=r"unknown reward 'orn' \(did you mean 'orm'"):
        build_reward("orn")


def test_visual_weights_forms():
    expected = {"block": 1.0, "ssim": 0.5}
    assert parse_weights(expected) == parse_weights('{"block": 1, "ssim": 0.5}') == parse_weights("block=1, ssim=0.5")
    assert parse_weights("block=1,ssim=0.5") == expected
    assert parse_weights(None)["ink"] == 0.5  # the defaults


def _recipe(tmp_path, values: dict) -> str:
    import yaml

    path = tmp_path / "recipe.yaml"
    path.write_text(yaml.safe_dump({"output_dir": str(tmp_path / "out"), "use_cpu": True, **values}))
    return str(path)


def test_every_parameter_from_a_yaml_recipe(tmp_path):
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import parse_recipe

    script_args, _, _ = parse_recipe(grpo.make_parser(), ["--config", _recipe(tmp_path, CHANGED)])
    assert script_args.reward_params() == CHANGED


def test_every_parameter_from_command_line_flags(tmp_path):
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import parse_recipe

    argv = ["--config", _recipe(tmp_path, {})]
    for name, value in CHANGED.items():
        if isinstance(value, bool):
            argv += [f"--{name}", str(value).lower()]
        elif isinstance(value, dict):
            argv += [f"--{name}", ",".join(f"{k}={v}" for k, v in value.items())]
        else:
            argv += [f"--{name}", str(value)]
    script_args, _, _ = parse_recipe(grpo.make_parser(), argv)
    assert script_args.reward_params() == CHANGED
    json_flag = ["--config", _recipe(tmp_path, {}), "--visual_weights", json.dumps({"text": 1, "ink": 2})]
    assert parse_recipe(grpo.make_parser(), json_flag)[0].visual_weights == {"ink": 2.0, "text": 1.0}


def test_a_bad_reward_parameter_in_a_recipe_fails_at_parse_time(tmp_path):
    from vcoder.pipelines import grpo
    from vcoder.pipelines.recipes import RecipeError, parse_recipe

    with pytest.raises(ValueError, match="'blok' \\(did you mean 'block'\\?\\)"):
        parse_recipe(grpo.make_parser(), ["--config", _recipe(tmp_path, {"visual_weights": {"blok": 1}})])
    with pytest.raises(RecipeError, match="did you mean 'gui_step_limit'"):
        parse_recipe(grpo.make_parser(), ["--config", _recipe(tmp_path, {"gui_step_limt": 3})])


@pytest.mark.browser
def test_vcoder_score_takes_every_parameter_as_a_flag(tmp_path):
    from tests.rewards.pages import make_page, to_html

    ref = to_html(make_page(8, n_blocks=3))
    (tmp_path / "ref.html").write_text(ref)
    (tmp_path / "pred.html").write_text(ref)
    # in this process: the flags are what is tested, and a subprocess each cost seconds of imports
    base = ["score", "--ref", str(tmp_path / "ref.html")]
    base += ["--pred", str(tmp_path / "pred.html"), "--rewards", "visual,block"]
    only_block = vcoder(*base, "--visual-weights", "block=1")
    assert only_block.returncode == 0, only_block.stderr
    assert json.loads(only_block.stdout)["rewards"] == {"visual": 1.0, "block": 1.0}
    typo = vcoder(*base, "--visual-weights", "blok=1")
    assert typo.returncode == 2 and "did you mean 'block'" in typo.stderr
    help_text = vcoder(*base[:1], "--help").stdout
    for name in CHANGED:
        assert "--" + name.replace("_", "-") in help_text, name
